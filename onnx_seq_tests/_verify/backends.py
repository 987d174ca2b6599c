"""Backends to verify, named by a spec, all run the same way: `run(backend, model, inputs)`.

A spec is one of
  onnxruntime   onnxruntime's CPU backend (`onnxruntime.backend`)
  reference     onnx's ReferenceEvaluator, wrapped as an onnx backend below
  openvino, tinygrad, tract
                third-party runtimes, adapted in runtimes/ (the `runtimes` extra installs them)
  module:attr   an `onnx.backend.base.Backend` class, or a module, with `prepare(model, device)`
                returning a rep whose `run(inputs)` gives the outputs; imported from PYTHONPATH.
Inputs and outputs follow onnx's backend convention: ndarray tensors, lists for sequences,
None for an empty optional, the value itself for a present optional.
"""

from __future__ import annotations

import importlib
from functools import cache

from onnx import ModelProto
from onnx.backend.base import Backend, BackendRep

from .._core.problems import SeqTestsError
from .runtimes import EXTRA, RUNTIMES

#: The device every backend is asked for.
DEVICE = "CPU"
BUILTIN = ("onnxruntime", "reference", *RUNTIMES)


class BackendSpecError(SeqTestsError, ValueError):
    """A --backend spec that names nothing usable; the message says how to fix it."""


class ReferenceRep(BackendRep):
    """A prepared ReferenceEvaluator, fed positionally like any backend rep."""

    def __init__(self, model: ModelProto):
        from onnx.reference import ReferenceEvaluator

        self._evaluator = ReferenceEvaluator(model)
        self._input_names = [i.name for i in model.graph.input]

    def run(self, inputs, **kwargs):
        feeds = dict(zip(self._input_names, inputs, strict=True))
        return list(self._evaluator.run(None, feeds))


class ReferenceBackend(Backend):
    """onnx.reference.ReferenceEvaluator as an onnx backend (CPU only)."""

    @classmethod
    def prepare(cls, model: ModelProto, device: str = DEVICE, **kwargs) -> ReferenceRep:
        return ReferenceRep(model)

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return device == "CPU"


@cache
def load_backend(spec: str):
    """The backend a spec names; BackendSpecError if it names nothing usable."""
    if spec == "onnxruntime":
        try:
            import onnxruntime.backend
        except ImportError as error:
            raise BackendSpecError(f"--backend onnxruntime: cannot import onnxruntime ({error}); "
                                   "install it with `pip install onnxruntime`") from None
        return onnxruntime.backend
    if spec == "reference":
        return ReferenceBackend
    if spec in RUNTIMES:
        adapter = importlib.import_module(f"{__package__}.runtimes.{spec}")
        try:
            return adapter.load()
        except ImportError as error:
            raise BackendSpecError(f"--backend {spec}: cannot import {error.name or spec} "
                                   f"({error}); install it with `{EXTRA}`") from None
    module_name, colon, attr = spec.partition(":")
    if not colon or not module_name or not attr:
        raise BackendSpecError(f"--backend {spec!r}: unknown backend; use "
                               f"{', '.join(BUILTIN)}, or module:attr naming an onnx backend "
                               "on PYTHONPATH")
    try:
        module = importlib.import_module(module_name)
    except Exception as error:  # an import can fail in any way; report it, do not crash
        raise BackendSpecError(f"--backend {spec!r}: cannot import module {module_name!r}: "
                               f"{error}; is its folder on PYTHONPATH?") from None
    backend = module
    for part in attr.split("."):
        if not hasattr(backend, part):
            raise BackendSpecError(f"--backend {spec!r}: {module_name!r} has no attribute "
                                   f"{attr!r}")
        backend = getattr(backend, part)
    if not callable(getattr(backend, "prepare", None)):
        raise BackendSpecError(f"--backend {spec!r}: {attr!r} has no prepare(model, device); "
                               "name an onnx.backend.base.Backend class or a module with prepare")
    return backend


def resolve(backend):
    """A backend object from a spec string, or the backend object itself."""
    return load_backend(backend) if isinstance(backend, str) else backend


def prepare(backend, model: ModelProto):
    """The backend's rep for `model`, on the CPU."""
    rep = resolve(backend).prepare(model, DEVICE)
    if rep is None:
        raise RuntimeError("prepare(model, device) returned None")
    return rep


def run(backend, model: ModelProto, inputs: list):
    """Prepare `model` on `backend` (spec or object) and run it once on `inputs`."""
    return run_prepared(prepare(backend, model), inputs)


def run_prepared(rep, inputs: list):
    """Run a prepared rep on one data set's inputs; a list or tuple of outputs becomes a list,
    anything else is returned as it is for the comparator to judge."""
    outputs = rep.run(list(inputs))
    return list(outputs) if isinstance(outputs, (list, tuple)) else outputs


def describe(spec: str) -> str:
    """What a spec runs, with versions, for reports."""
    import onnx

    if spec == "onnxruntime":
        import onnxruntime

        return f"onnxruntime {onnxruntime.__version__}, CPU (onnxruntime.backend)"
    if spec == "reference":
        return f"onnx.reference.ReferenceEvaluator, onnx {onnx.__version__}"
    if spec in RUNTIMES:
        adapter = importlib.import_module(f"{__package__}.runtimes.{spec}")
        return f"{spec} {adapter.version()}, CPU (onnx_seq_tests/_verify/runtimes/{spec}.py)"
    module_name = spec.partition(":")[0]
    version = getattr(importlib.import_module(module_name), "__version__", None)
    return f"{spec}" + (f" {version}" if version else "")
