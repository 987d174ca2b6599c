"""OpenVINO (CPU plugin) as an onnx backend: tensors in and out by their exact bits.

OpenVINO's runtime API passes tensors only: a sequence input or output, an empty optional input
and any optional output are refused (CannotTake); a present optional tensor input is fed as the
tensor. Models are compiled with EXECUTION_MODE_HINT=ACCURACY, which keeps each value's own
precision where the plugin allows it (its default on CPUs with bfloat16 support computes floats
in bfloat16); no setting keeps 64-bit integers, which the CPU plugin computes in 32 bits.
Its Python API passes string tensors as fixed-width numpy strings, which cannot end in NUL
(numpy drops trailing NULs): an input string that ends in NUL is refused (CannotTake), never
fed cut short.
"""

from __future__ import annotations

import atexit
import io
import multiprocessing
import os
import re
from typing import Any

import ml_dtypes
import numpy as np
from onnx import ModelProto
from onnx.backend.base import BackendRep

from .._core.errors import CannotTake
from .adapter import CPUBackend, as_array, boundary, dtype_name, refuse_containers
from .adapter import first_line as _first_line

#: This runtime's record (records.py says what each key means).
RUNTIME: dict[str, Any] = {
    "name": "openvino",
    "label": "OpenVINO (CPU)",
    "summary": "OpenVINO's CPU plugin, EXECUTION_MODE_HINT=ACCURACY",
    "requires": ["openvino==2026.4.1"],
    "imports": ["openvino"],
    "version": "{openvino}",
}
CONFIG = {"EXECUTION_MODE_HINT": "ACCURACY"}
WHY = "OpenVINO's runtime API passes tensors only"
#: numpy (ml_dtypes) element types OpenVINO holds bit for bit under another numpy view.
_RAW_TYPES = {
    np.dtype(ml_dtypes.bfloat16): "bf16",
    np.dtype(ml_dtypes.float8_e4m3fn): "f8e4m3",
    np.dtype(ml_dtypes.float8_e5m2): "f8e5m2",
    np.dtype(ml_dtypes.float8_e8m0fnu): "f8e8m0",
}


def load() -> OpenVINOBackend:
    """The backend; ImportError when openvino is not installed."""
    import openvino  # noqa: F401

    return OpenVINOBackend()


class OpenVINORep(BackendRep):
    def __init__(self, model: ModelProto, backend: OpenVINOBackend):
        import openvino as ov

        refuse_containers("openvino", model, WHY, allow_inputs=("optional",))
        self._ov = ov
        self._backend = backend
        self._inputs, self._outputs = boundary(model)
        try:
            core = backend.core()
            read = core.read_model(io.BytesIO(model.SerializeToString()))
            self._compiled = core.compile_model(read, "CPU", CONFIG)
        except RuntimeError as error:
            raise RuntimeError(first_line(str(error))) from None
        self._input_ports = _match([n for n, _ in self._inputs], self._compiled.inputs)
        self._output_ports = _match([n for n, _ in self._outputs], self._compiled.outputs)

    def run(self, inputs: list[Any], **kwargs: Any) -> list[np.ndarray]:  # type: ignore[override]
        ov = self._ov
        if len(inputs) != len(self._inputs):
            raise ValueError(f"the model has {len(self._inputs)} input(s), got {len(inputs)}")
        request = self._compiled.create_infer_request()
        strings = False
        for (name, _), value in zip(self._inputs, inputs, strict=True):
            if value is None:
                raise CannotTake(f"openvino cannot take an empty optional input ({name!r}): "
                                 f"{WHY}")
            array = as_array(value, f"input {name!r}")
            port = self._input_ports.get(name)
            if port is None:  # OpenVINO dropped it (a zero-size dimension): nothing to feed
                continue
            strings |= array.dtype.kind in "OUS"
            request.set_input_tensor(port, _to_tensor(ov, array))
        try:
            request.infer()
        except RuntimeError as error:
            raise RuntimeError(first_line(str(error))) from None
        outputs = []
        for name, _ in self._outputs:
            port = self._output_ports.get(name)
            if port is None:
                raise RuntimeError(f"openvino gives no output for graph output {name!r}")
            tensor = request.get_output_tensor(port)
            strings |= tensor.element_type == ov.Type.string
            outputs.append(_from_tensor(ov, tensor))
        if strings:
            self._backend.keep(request)
        return outputs


class OpenVINOBackend(CPUBackend):
    """OpenVINO's CPU plugin; see the module's docstring for what it can take. It holds the
    process's OpenVINO Core (made on first use) and the requests that must outlive it."""

    rep = OpenVINORep
    #: A process forked after OpenVINO has started its thread pool deadlocks in it.
    fork_safe = False

    def __init__(self) -> None:
        self._core: Any = None
        #: Requests that held string tensors: destroying them can kill the process (a double
        #: free in OpenVINO's string tensors), so they are kept until the process ends.
        self._kept: list[Any] = []

    def core(self) -> Any:
        """The OpenVINO Core every model of this backend is compiled by."""
        if self._core is None:
            import openvino as ov

            self._core = ov.Core()
        return self._core

    def keep(self, request: Any) -> None:
        """Keep `request` alive; in a worker process, end it without destroying them."""
        if not self._kept and multiprocessing.parent_process() is not None:
            atexit.register(_end_now)
        self._kept.append(request)


def _match(names: list[str], ports) -> dict[str, int]:
    """Graph value name -> port index: by name first (OpenVINO renames some values and drops
    inputs with a zero-size dimension), then the rest by position."""
    found, free = {}, []
    for index, port in enumerate(ports):
        owner = next((n for n in names if n in port.get_names() and n not in found), None)
        if owner is None:
            free.append(index)
        else:
            found[owner] = index
    for name in names:
        if name not in found and free:
            found[name] = free.pop(0)
    return found


def _to_tensor(ov, array: np.ndarray):
    if array.dtype.kind in "OUS":
        texts = [_text(v) for v in array.flat]
        if any(text.endswith("\0") for text in texts):
            raise CannotTake("openvino cannot take a string that ends in NUL: its Python API "
                             "passes strings as fixed-width numpy strings, which drop trailing "
                             "NULs")
        return ov.Tensor(np.array(texts, dtype=str).reshape(array.shape))
    raw = _RAW_TYPES.get(array.dtype)
    if raw is not None:
        tensor = ov.Tensor(getattr(ov.Type, raw), ov.Shape(list(array.shape)))
        target = np.asarray(tensor.data).reshape(-1).view(np.uint8)
        target[:] = np.require(array, requirements="C").reshape(-1).view(np.uint8)
        return tensor
    if array.dtype.kind == "c":
        raise CannotTake(f"openvino has no {dtype_name(array)} tensors")
    if array.dtype.type.__module__ == "ml_dtypes" or array.dtype.kind == "V":
        raise CannotTake(f"the openvino adapter has no exact conversion for {dtype_name(array)} "
                         "tensors")
    return ov.Tensor(np.require(array, requirements="C"))


def _text(value) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _from_tensor(ov, tensor) -> np.ndarray:
    shape = tuple(tensor.shape)
    if tensor.element_type == ov.Type.string:
        return np.array([str(s) for s in np.asarray(tensor.str_data).reshape(-1)],
                        dtype=object).reshape(shape)
    for dtype, name in _RAW_TYPES.items():
        if tensor.element_type == getattr(ov.Type, name):
            raw = np.asarray(tensor.data).reshape(-1).view(np.uint8).copy()
            return raw.view(dtype).reshape(shape)
    return np.array(tensor.data, copy=True).reshape(shape)


def first_line(text: str) -> str:
    """OpenVINO's message in one line; for a model it could not convert, the operators."""
    missing = [line.strip()[3:] for line in text.splitlines() if line.strip().startswith("-- ")]
    if missing:
        return "the model was not fully converted: " + "; ".join(missing)
    # node names OpenVINO numbers per process (NullNode_146100, a Parameter_552924 it made)
    # would make reports differ from run to run
    line = re.sub(r"(Operation name: [A-Za-z]+)_\d+\b", r"\1", _first_line(text))
    return re.sub(r"(opset\d+::Parameter Parameter)_\d+\b", r"\1", line)


def _end_now() -> None:
    import sys

    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
