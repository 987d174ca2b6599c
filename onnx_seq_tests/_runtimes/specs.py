"""What a --backend spec imports, known without importing anything heavy (no onnx), so the
worker fork server can start importing a run's backends first thing, while the verifying
process is still importing its own modules."""

from __future__ import annotations

#: Built-in backend names -> the "module" or "module:attr" they stand for. Any other spec is
#: imported as it is written: `module`, `module:attr` or `package.module:Class.attr`.
REGISTRY = {
    "onnxruntime": "onnxruntime.backend",
    "reference": "onnx_seq_tests._runtimes.backends:ReferenceBackend",
}


def spec_modules(specs) -> list[str]:
    """The modules the backends of `specs` live in, sorted, once each."""
    return sorted({REGISTRY.get(spec, spec).partition(":")[0] for spec in specs})
