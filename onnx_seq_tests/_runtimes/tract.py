"""tract's Python bindings as an onnx backend: tensors in and out.

tract has no sequence or optional values at all, and its Python API takes numeric and bool
tensors only: any sequence or optional input or output, and string, bfloat16 or float8 tensors,
are refused (CannotTake). RUST_BACKTRACE is set to 0: a backtrace per error costs ~0.2 s.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
from onnx import ModelProto
from onnx.backend.base import BackendRep

from .._core.errors import CannotTake
from . import CPUBackend, as_array, boundary, dtype_name, first_line, refuse_containers

WHY = "tract has no sequence or optional values"
_PLAIN = "?bBhHiIlLqQefdFD"  # numpy type characters tract's Python API takes


def load():
    """The backend; ImportError when tract is not installed."""
    os.environ["RUST_BACKTRACE"] = "0"
    import tract  # noqa: F401

    return TractBackend


def version() -> str:
    from importlib.metadata import version as installed

    return installed("tract")


class TractRep(BackendRep):
    def __init__(self, model: ModelProto):
        import tract

        refuse_containers("tract", model, WHY)
        self._inputs, self._outputs = boundary(model)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "model.onnx"
            path.write_bytes(model.SerializeToString())
            try:
                self._runnable = tract.onnx().load(str(path)).into_model().into_runnable()
            except Exception as error:  # tract raises its own TractError
                raise RuntimeError(first_line(str(error))) from None

    def run(self, inputs, **kwargs):
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
            results = self._runnable.run(arrays)
        except Exception as error:
            raise RuntimeError(first_line(str(error))) from None
        return [r.to_numpy() for r in results]


class TractBackend(CPUBackend):
    """tract; see the module's docstring for what it can take."""

    rep = TractRep
