"""What a --backend spec imports, known without importing anything heavy (no onnx), so the
worker fork server can start importing a run's backends first thing, while the verifying
process is still importing its own modules."""

from __future__ import annotations

from collections.abc import Iterable

from .records import record

#: Built-in backend names -> the "module" or "module:attr" they stand for, beside the
#: third-party runtimes of records.py. Any other spec is imported as it is written: `module`,
#: `module:attr` or `package.module:Class.attr`.
REGISTRY = {
    "onnxruntime": "onnxruntime.backend",
    "reference": "onnx_seq_tests._runtimes.backends:ReferenceBackend",
}


def spec_modules(specs: Iterable[str]) -> list[str]:
    """The modules the backends of `specs` live in, sorted, once each: for a built-in
    third-party runtime, the modules its adapter's `load()` imports (its record's `imports`)."""
    found: set[str] = set()
    for spec in specs:
        runtime = record(spec)
        if runtime is not None:
            found.update(runtime.imports)
        else:
            found.add(REGISTRY.get(spec, spec).partition(":")[0])
    return sorted(found)
