"""Backends to verify, named by a spec, all run the same way: `prepare(backend, model)` once,
then `run_prepared(rep, inputs)` per data set.

A spec is one of
  onnxruntime   onnxruntime's CPU backend (`onnxruntime.backend`), each session on one thread
                (OnnxruntimeBackend below)
  reference     onnx's ReferenceEvaluator, wrapped as an onnx backend below
  a built-in third-party runtime
                each adapted by a module of this package with its RUNTIME record (records.py,
                `gen-seq-tests runtimes` lists them); the extra of its name installs it
  module, module:attr, package.module:Class
                an `onnx.backend.base.Backend` class, or a module, with `prepare(model, device)`
                returning a rep whose `run(inputs)` gives the outputs; imported from PYTHONPATH
                (a submodule named after the colon is imported too), never from the working
                folder unless PYTHONPATH names it.
Names of built-in backends are in REGISTRY and the records (`builtin()`).
Inputs and outputs follow onnx's backend convention: ndarray tensors, lists for sequences,
None for an empty optional, the value itself for a present optional.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
import types
from functools import cache
from typing import Any

import numpy as np
from onnx import ModelProto
from onnx.backend.base import Backend, BackendRep

from .._core.errors import BackendSpecError, CannotTake
from .._core.value_kinds import ValueType, from_type_proto, map_values_as_tensors, type_text
from .records import Record, names, record
from .specs import REGISTRY

#: The device every backend is asked for.
DEVICE = "CPU"


def builtin() -> tuple[str, ...]:
    """Every built-in backend name: onnxruntime, reference, then the third-party runtimes."""
    return (*REGISTRY, *names())


class ReferenceRep(BackendRep):
    """A prepared ReferenceEvaluator, fed positionally like any backend rep."""

    def __init__(self, model: ModelProto):
        from onnx.reference import ReferenceEvaluator

        self._evaluator = ReferenceEvaluator(model)
        self._input_names = [i.name for i in model.graph.input]

    def run(self, inputs, **kwargs):
        feeds = dict(zip(self._input_names, map(_map_scalars, inputs), strict=True))
        return list(self._evaluator.run(None, feeds))


def _map_scalars(value: Any) -> Any:
    """`value` with each map's 0-d array values made numpy scalars, the form the reference
    evaluator's ai.onnx.ml operators read (a DictVectorizer of 0-d arrays gives an array of
    arrays); other values as they are."""
    if isinstance(value, dict):
        return {key: item[()] if isinstance(item, np.ndarray) and item.ndim == 0 else item
                for key, item in value.items()}
    if isinstance(value, list):
        return [_map_scalars(item) for item in value]
    return value


class ReferenceBackend(Backend):
    """onnx.reference.ReferenceEvaluator as an onnx backend (CPU only)."""

    @classmethod
    def prepare(cls, model: ModelProto, device: str = DEVICE, **kwargs) -> ReferenceRep:
        return ReferenceRep(model)

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return device == "CPU"


class OnnxruntimeBackend(Backend):
    """onnxruntime's own backend (`onnxruntime.backend`), each session on one intra-op thread.
    verify runs one worker per core (-j) and the suite's models are small: a pool of threads
    per session only competes with the other workers, and costs a thread start per session
    (a bare loop over the suite takes about a quarter less time with one thread). The spec
    `onnxruntime.backend` runs it with onnxruntime's defaults."""

    @classmethod
    def prepare(cls, model: ModelProto, device: str = DEVICE, **kwargs):
        import onnxruntime.backend

        kwargs.setdefault("intra_op_num_threads", 1)
        initializers = {t.name for t in model.graph.initializer}
        map_inputs = [i for i in model.graph.input
                      if i.name not in initializers and "map(" in type_text(i.type)]
        for info in map_inputs:
            _bindable_map(info.name, from_type_proto(info.type))
        rep = onnxruntime.backend.prepare(model, device, **kwargs)
        outputs = [from_type_proto(o.type) if "map(" in type_text(o.type) else None
                   for o in model.graph.output]
        return MapValues(rep, outputs, bool(map_inputs)) if any(outputs) or map_inputs else rep

    @classmethod
    def supports_device(cls, device: str) -> bool:
        import onnxruntime.backend

        return onnxruntime.backend.supports_device(device)


#: The map types onnxruntime's Python API binds as an input: it converts a dict's values to
#: float, so a map of int64, double or string values is refused by the session
#: ("Unexpected input data type") or by the binding.
_BINDABLE_MAPS = ("map(int64, tensor(float))", "map(string, tensor(float))")


def _bindable_map(name: str, value_type: ValueType) -> None:
    """CannotTake unless onnxruntime's Python API can feed a map input of `value_type`."""
    if str(value_type) not in _BINDABLE_MAPS:
        raise CannotTake(f"onnxruntime's Python API feeds a map input only as "
                         f"{' or '.join(_BINDABLE_MAPS)} (it converts a dict's values to "
                         f"float); input {name!r} is {value_type}")


class MapValues(BackendRep):
    """onnxruntime's rep for a model that takes or gives maps: onnxruntime's Python API gives
    a map's tensor values as Python scalars (ZipMap's `{0: 0.2, ...}`); they become 0-d arrays
    of the map's value type, as the value convention has them (a map's values are tensors). An
    empty map input is refused: the binding cannot make one ("Size of dictionary is empty")."""

    def __init__(self, rep: BackendRep, types: list[ValueType | None],
                 takes_maps: bool = False):
        self.rep, self.types, self.takes_maps = rep, types, takes_maps

    def run(self, inputs: Any, **kwargs: Any) -> tuple[Any, ...]:
        if self.takes_maps and any(isinstance(v, dict) and not v for v in inputs):
            raise CannotTake("onnxruntime's Python API cannot feed an empty map input (its "
                             "binding stops: 'Size of dictionary is empty')")
        outputs = self.rep.run(inputs, **kwargs)
        return tuple(map_values_as_tensors(value, value_type)
                     for value, value_type in zip(outputs, self.types, strict=True))


_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


@cache
def load_backend(spec: str) -> Any:
    """The backend a spec names; BackendSpecError if it names nothing usable. This cache is
    the one place the backend objects of built-in runtimes live, one per spec and process,
    with what they keep (adapter.py)."""
    runtime = record(spec)
    if runtime is not None:
        adapter = importlib.import_module(f"{__package__}.{spec}")
        try:
            return adapter.load()
        except ImportError as error:
            raise BackendSpecError(f"--backend {spec}: cannot import {error.name or spec} "
                                   f"({error}); install it with `{runtime.install}`") from None
    target = REGISTRY.get(spec, spec)
    module_name, colon, attr = target.partition(":")
    names = ", ".join(builtin())
    if not _DOTTED.fullmatch(module_name) or (colon and not _DOTTED.fullmatch(attr)):
        raise BackendSpecError(f"--backend {spec!r}: not a backend name ({names}) nor "
                               "`module`, `module:attr` naming an onnx backend on PYTHONPATH")
    try:
        backend = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        in_working_folder = _in_working_folder(module_name)
        if in_working_folder and error.name == module_name.partition(".")[0]:
            raise BackendSpecError(
                f"--backend {spec!r}: {in_working_folder} is in the working folder, which "
                f"backends are never imported from; put its folder on PYTHONPATH "
                f"(PYTHONPATH={os.getcwd()})") from None
        if spec in REGISTRY:
            raise BackendSpecError(f"--backend {spec}: cannot import {module_name} ({error}); "
                                   f"install {module_name.partition('.')[0]}") from None
        if error.name and module_name.startswith(error.name) and not colon \
                and "." not in module_name:
            raise BackendSpecError(f"--backend {spec!r}: unknown backend; use {names}, or "
                                   "`module`, `module:attr` naming an onnx backend on "
                                   "PYTHONPATH") from None
        raise BackendSpecError(f"--backend {spec!r}: cannot import module {module_name!r}: "
                               f"{error}; is its folder on PYTHONPATH?") from None
    except Exception as error:  # an import can fail in any way; report it, do not crash
        raise BackendSpecError(f"--backend {spec!r}: cannot import module {module_name!r}: "
                               f"{type(error).__name__}: {error}") from None
    path = module_name
    for part in attr.split(".") if colon else ():
        if not hasattr(backend, part) and isinstance(backend, types.ModuleType):
            try:  # a submodule not imported by its package: `onnxruntime:backend`
                importlib.import_module(f"{path}.{part}")
            except ImportError:
                pass
        if not hasattr(backend, part):
            raise BackendSpecError(f"--backend {spec!r}: {path!r} has no attribute {part!r}")
        backend, path = getattr(backend, part), f"{path}.{part}"
    if not callable(getattr(backend, "prepare", None)):
        raise BackendSpecError(f"--backend {spec!r}: {path!r} has no prepare(model, device); "
                               "name an onnx.backend.base.Backend class or a module with prepare")
    return OnnxruntimeBackend if spec == "onnxruntime" else backend


def _in_working_folder(module_name: str) -> str | None:
    """The file or folder of the working folder that `module_name`'s top package would be
    imported from if the working folder were on sys.path (it is not: see __main__.py and
    fork_server._safe_path), or None."""
    top = module_name.partition(".")[0]
    for name in (f"{top}.py", top):
        if os.path.exists(name) and os.path.abspath(os.getcwd()) not in map(
                os.path.abspath, filter(None, sys.path)):
            return name
    return None


def check_spec(spec: str) -> None:
    """BackendSpecError if `spec` names nothing usable, like load_backend, but a built-in
    backend whose package is installed is not imported here: a verify run's parent process
    leaves importing onnxruntime (a third of a second) or a third-party runtime (its record's
    `imports`, found without importing them) to its workers."""
    runtime = record(spec)
    if runtime is not None:
        _check_installed(runtime)
        return
    module_name = REGISTRY.get(spec, "").partition(":")[0]
    top = module_name.partition(".")[0]
    if top and top not in sys.modules and importlib.util.find_spec(top) is not None:
        return
    load_backend(spec)


def _check_installed(runtime: Record) -> None:
    """BackendSpecError naming the runtime's extra when a module its `load()` imports is not
    installed; nothing is imported but the parents of dotted names."""
    for module in runtime.imports:
        try:
            found = importlib.util.find_spec(module)
        except (ImportError, ValueError) as error:  # a missing parent package, a broken one
            found, why = None, str(error)
        else:
            why = f"No module named {module!r}"
        if found is None:
            raise BackendSpecError(f"--backend {runtime.name}: cannot import {module} ({why}); "
                                   f"install it with `{runtime.install}`")


def probe_model() -> ModelProto:
    """A one-node model every backend runs: Identity of a float tensor, opset 13."""
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])], "probe",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=7)


def check_backend(backend, spec: str) -> str | None:
    """Why `backend` cannot be run (None if it can): prepare(model, device) on a one-node model
    must return a rep with run(inputs)."""
    try:
        rep = backend.prepare(probe_model(), DEVICE)
    except Exception as error:  # any failure of prepare makes the backend unusable
        text = str(error).strip().splitlines()[0] if str(error).strip() else "(no message)"
        return (f"--backend {spec}: prepare(model, {DEVICE!r}) failed on a one-node Identity "
                f"model: {type(error).__name__}: {text}")
    if rep is None:
        return (f"--backend {spec}: prepare(model, {DEVICE!r}) returned None; it must return a "
                "rep with run(inputs)")
    if not callable(getattr(rep, "run", None)):
        return (f"--backend {spec}: prepare(model, {DEVICE!r}) returned a "
                f"{type(rep).__name__} without run(inputs)")
    return None


def resolve(backend):
    """A backend object from a spec string, or the backend object itself."""
    return load_backend(backend) if isinstance(backend, str) else backend


def prepare(backend, model: ModelProto):
    """The backend's rep for `model`, on the CPU."""
    rep = resolve(backend).prepare(model, DEVICE)
    if rep is None:
        raise RuntimeError("prepare(model, device) returned None")
    return rep


def run_prepared(rep, inputs: list):
    """Run a prepared rep on one data set's inputs; a list or tuple of outputs becomes a list,
    anything else is returned as it is for the comparator to judge."""
    outputs = rep.run(list(inputs))
    return list(outputs) if isinstance(outputs, (list, tuple)) else outputs


def describe(spec: str) -> str:
    """What a spec runs, with versions, for reports: a built-in backend's version from package
    metadata where it is installed as a distribution of its name (nothing is imported)."""
    if spec == "onnxruntime":
        from importlib.metadata import PackageNotFoundError, version

        try:
            installed = version("onnxruntime")
        except PackageNotFoundError:  # another distribution (onnxruntime-gpu, say)
            import onnxruntime

            installed = onnxruntime.__version__
        return (f"onnxruntime {installed}, CPU (onnxruntime.backend, one thread per "
                "session)")
    if spec == "reference":
        import onnx

        return f"onnx.reference.ReferenceEvaluator, onnx {onnx.__version__}"
    runtime = record(spec)
    if runtime is not None:  # from its record and package metadata: nothing is imported
        return (f"{spec} {runtime.installed_version()}, CPU "
                f"(onnx_seq_tests/_runtimes/{spec}.py)")
    module_name = REGISTRY.get(spec, spec).partition(":")[0].partition(".")[0]
    found = getattr(importlib.import_module(module_name), "__version__", None)
    return f"{spec}" + (f" {found}" if found else "")
