"""tinygrad's ONNX runner as an onnx backend, on tinygrad's PYTHON device.

tinygrad takes lists for sequences and None for empty optionals, so those pass as they are. Its
PYTHON device needs no compiler (its CPU device compiles with clang); set DEV to choose another
device. Element types tinygrad has no dtype for (strings, complex, 4-bit and smaller kinds)
are refused (CannotTake); bfloat16 and float8 travel by their bits. tinygrad's runner looks an
operator up only when it runs it, so prepare looks up every node's (subgraphs' too) in its table
and a model with one tinygrad does not implement (it has no sequence operator) is refused there,
as a runtime that reads the model when it loads it refuses it.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

import ml_dtypes
import numpy as np
from onnx import ModelProto
from onnx.backend.base import BackendRep

from .._core.cases import proto_subgraphs
from .._core.errors import CannotTake
from .adapter import CPUBackend, as_array, boundary, dtype_name

#: This runtime's record (records.py says what each key means).
RUNTIME: dict[str, Any] = {
    "name": "tinygrad",
    "label": "tinygrad",
    "summary": "tinygrad's ONNX runner on its PYTHON device (DEV picks another)",
    "requires": ["tinygrad==0.14.0"],
    "imports": ["tinygrad"],
    "version": "{tinygrad}, device {DEV}",
    # the device used unless DEV names another: it works on any machine, without a compiler
    "environment": {"DEV": "PYTHON"},
}
DEFAULT_DEVICE = RUNTIME["environment"]["DEV"]
#: ml_dtypes element types -> (tinygrad dtype name, numpy type of the same bits).
_BITS = {
    np.dtype(ml_dtypes.bfloat16): ("bfloat16", np.uint16),
    np.dtype(ml_dtypes.float8_e4m3fn): ("fp8e4m3", np.uint8),
    np.dtype(ml_dtypes.float8_e5m2): ("fp8e5m2", np.uint8),
    np.dtype(ml_dtypes.float8_e4m3fnuz): ("fp8e4m3fnuz", np.uint8),
    np.dtype(ml_dtypes.float8_e5m2fnuz): ("fp8e5m2fnuz", np.uint8),
}
_PLAIN = "?bBhHiIlLqQefd"  # numpy type characters tinygrad holds as they are


def load() -> TinygradBackend:
    """The backend; ImportError when tinygrad is not installed."""
    os.environ["DEV"] = os.environ.get("DEV") or DEFAULT_DEVICE  # read when tinygrad is imported
    from tinygrad.helpers import DEV

    DEV.value = os.environ["DEV"]
    return TinygradBackend()


class TinygradRep(BackendRep):
    def __init__(self, model: ModelProto, backend: TinygradBackend | None = None):
        _check_operators(model.graph)
        self._bytes = model.SerializeToString()
        self._inputs, self._outputs = boundary(model)

    def run(self, inputs: list[Any], **kwargs: Any) -> list[Any]:  # type: ignore[override]
        from tinygrad import Tensor
        from tinygrad.nn.onnx import OnnxRunner

        if len(inputs) != len(self._inputs):
            raise ValueError(f"the model has {len(self._inputs)} input(s), got {len(inputs)}")
        feeds = {name: _to_value(value, f"input {name!r}")
                 for (name, _), value in zip(self._inputs, inputs, strict=True)}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # a fresh runner per data set: the runner remembers symbolic dimensions
            runner = OnnxRunner(Tensor(self._bytes))
            results = runner(feeds)
            return [_from_value(results[name]) for name, _ in self._outputs]


class TinygradBackend(CPUBackend):
    """tinygrad; see the module's docstring for what it can take."""

    rep = TinygradRep


def _check_operators(graph) -> None:
    """NotImplementedError, in tinygrad's words, for the first node of `graph` or of a subgraph
    whose operator tinygrad's ONNX runner has no implementation of (the versions of one it has
    are checked by the runner when it runs it)."""
    from tinygrad.nn.onnx import onnx_ops

    for node in graph.node:
        if node.op_type not in onnx_ops:
            raise NotImplementedError(f"op={node.op_type!r} is not supported")
        for subgraph in proto_subgraphs(node):
            _check_operators(subgraph)


def _to_value(value, what: str):
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return [_to_value(v, f"{what}[{k}]") for k, v in enumerate(value)]
    from tinygrad import Tensor, dtypes

    array = np.require(as_array(value, what), requirements="C")
    shape = array.shape
    flat = array.reshape(-1)  # a 0-d numpy array makes tinygrad compile a copy kernel
    bits = _BITS.get(array.dtype)
    if bits is not None:
        name, carrier = bits
        return Tensor(flat.view(carrier)).bitcast(getattr(dtypes, name)).reshape(shape)
    if array.dtype.char not in _PLAIN:
        raise CannotTake(f"tinygrad has no {dtype_name(array)} tensors ({what})")
    if array.ndim:
        # as tinygrad's runner takes a numpy input: a reshape would run a kernel, which on the
        # PYTHON device computes in Python floats and quiets a signalling NaN
        return Tensor(array)
    return Tensor(flat).reshape(shape)


def _from_value(value):
    from tinygrad import Tensor, dtypes

    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return [_from_value(v) for v in value]
    if not isinstance(value, Tensor):
        return value  # not a tensor: given back as it is, for the comparator to judge
    if value.uop.device is None:  # a constant: tinygrad would read it on its CPU device
        from tinygrad import Device

        value = value.clone(Device.DEFAULT)
    for dtype, (name, carrier) in _BITS.items():
        if value.dtype == getattr(dtypes, name):
            carrier_dtype = dtypes.uint16 if carrier is np.uint16 else dtypes.uint8
            return value.bitcast(carrier_dtype).numpy().view(dtype)
    return value.numpy()
