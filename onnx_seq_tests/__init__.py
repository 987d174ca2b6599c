"""onnx-seq-tests: a conformance suite for ONNX sequence and optional operators, and its tools."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("onnx-seq-tests")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

__all__ = ["__version__", "backend_test", "suite_dir"]


def __getattr__(name: str):
    """`backend_test` is imported on first use: it pulls in onnx's backend test runner."""
    if name == "backend_test":
        from ._verify.backend_test import backend_test

        return backend_test
    if name == "suite_dir":
        from ._suite.resources import suite_dir

        return suite_dir
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
