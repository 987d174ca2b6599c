"""onnx-seq-tests: a conformance suite for ONNX sequence and optional operators, and its tools."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("onnx-seq-tests")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

__all__ = ["__version__"]
