"""tract's Python bindings as an onnx backend: tensors in and out.

tract has no sequence or optional values at all, and its Python API takes numeric and bool
tensors only: any sequence or optional input or output, and string, bfloat16 or float8 tensors,
are refused (CannotTake).

RUST_BACKTRACE is 0 while tract loads, prepares and runs a model (`_no_backtrace`): a backtrace
per error costs ~0.2 s. Rust reads the variable once, at the first error of the process, and
keeps what it read, so the setting must be in force at that moment; it is set only around
tract's own calls, and the environment is as it was after each.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from onnx import ModelProto
from onnx.backend.base import BackendRep

from .._core.errors import CannotTake
from . import adapter
from .adapter import CPUBackend, as_array, boundary, dtype_name, first_line

#: This runtime's record (records.py says what each key means).
RUNTIME: dict[str, Any] = {
    "name": "tract",
    "label": "tract",
    "summary": "tract's Python bindings",
    "requires": ["tract==0.23.9"],
    "imports": ["tract"],
    "version": "{tract}",
}
WHY = "tract has no sequence or optional values"
_PLAIN = "?bBhHiIlLqQefdFD"  # numpy type characters tract's Python API takes


def load() -> TractBackend:
    """The backend; ImportError when tract is not installed."""
    with _no_backtrace():
        import tract  # noqa: F401

    return TractBackend()


@contextmanager
def _no_backtrace() -> Iterator[None]:
    """RUST_BACKTRACE=0 for the time of the block, then the environment as it was."""
    had = os.environ.get("RUST_BACKTRACE")
    os.environ["RUST_BACKTRACE"] = "0"
    try:
        yield
    finally:
        if had is None:
            del os.environ["RUST_BACKTRACE"]
        else:
            os.environ["RUST_BACKTRACE"] = had


class TractRep(BackendRep):
    def __init__(self, model: ModelProto, backend: TractBackend | None = None):
        import tract

        adapter.refuse_containers("tract", model, WHY)
        self._inputs, self._outputs = boundary(model)
        with tempfile.TemporaryDirectory() as folder, _no_backtrace():
            path = Path(folder) / "model.onnx"
            path.write_bytes(model.SerializeToString())
            try:
                self._runnable = tract.onnx().load(str(path)).into_model().into_runnable()
            except Exception as error:  # tract raises its own TractError
                raise RuntimeError(first_line(str(error))) from None

    def run(self, inputs: list[Any], **kwargs: Any) -> list[np.ndarray]:  # type: ignore[override]
        if len(inputs) != len(self._inputs):
            raise ValueError(f"the model has {len(self._inputs)} input(s), got {len(inputs)}")
        arrays = []
        for (name, _), value in zip(self._inputs, inputs, strict=True):
            array = np.require(as_array(value, f"input {name!r}"), requirements="C")
            if array.dtype.char not in _PLAIN:
                raise CannotTake(f"tract's Python API takes no {dtype_name(array)} tensors "
                                 f"(input {name!r})")
            arrays.append(array)
        try:
            with _no_backtrace():
                results = self._runnable.run(arrays)
        except Exception as error:
            raise RuntimeError(first_line(str(error))) from None
        return [r.to_numpy() for r in results]


class TractBackend(CPUBackend):
    """tract; see the module's docstring for what it can take."""

    rep = TractRep
