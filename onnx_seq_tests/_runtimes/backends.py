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

from onnx import ModelProto, TypeProto
from onnx.backend.base import Backend, BackendRep

from .._core.errors import BackendSpecError, CannotTake
from .._core.value_kinds import ValueType, from_api, from_type_proto, kinds_in, to_api
from .records import Record, names, record
from .specs import REGISTRY

#: The device every backend is asked for.
DEVICE = "CPU"


def builtin() -> tuple[str, ...]:
    """Every built-in backend name: onnxruntime, reference, then the third-party runtimes."""
    return (*REGISTRY, *names())


class ReferenceRep(BackendRep):
    """A prepared ReferenceEvaluator, fed positionally like any backend rep, each input as
    runtimes' Python APIs take it (`value_kinds.to_api`: a map's 0-d array values as numpy
    scalars, which its ai.onnx.ml operators read)."""

    def __init__(self, model: ModelProto):
        from onnx.reference import ReferenceEvaluator

        self._evaluator = ReferenceEvaluator(model)
        self._input_names = [i.name for i in model.graph.input]
        self._input_types = [_value_type(i.type) for i in model.graph.input]

    def run(self, inputs, **kwargs):
        feeds = {name: to_api(value, value_type) for name, value, value_type
                 in zip(self._input_names, inputs, self._input_types, strict=True)}
        return list(self._evaluator.run(None, feeds))


def _value_type(proto: TypeProto) -> ValueType | None:
    """The type a TypeProto describes; None for one this package does not read."""
    try:
        return from_type_proto(proto)
    except (TypeError, KeyError):
        return None


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
        fed = [(i.name, _value_type(i.type)) for i in model.graph.input
               if i.name not in initializers]
        limited = [(k, value_type) for k, (name, value_type) in enumerate(fed)
                   if value_type is not None and _bindable(name, value_type)]
        rep = onnxruntime.backend.prepare(model, device, **kwargs)
        outputs = [_value_type(o.type) for o in model.graph.output]
        outputs = [t if t is not None and set(kinds_in(t)) & set(_OWN_FORM) else None
                   for t in outputs]
        if not any(outputs) and not limited:
            return rep
        return ApiValues(rep, outputs, limited)

    @classmethod
    def supports_device(cls, device: str) -> bool:
        import onnxruntime.backend

        return onnxruntime.backend.supports_device(device)


#: The kinds of value (value_kinds WORD) onnxruntime's Python API binds as an input only of
#: some types: those types, and why. It converts a dict's values to float, so a map of int64,
#: double or string values is refused by the session ("Unexpected input data type") or by the
#: binding; and it binds no empty one ("Size of dictionary is empty").
_BINDS_ONLY = {"map": (("map(int64, tensor(float))", "map(string, tensor(float))"),
                       "it converts a dict's values to float")}
#: The kinds whose values onnxruntime's Python API gives in a form of its own: a map's tensor
#: values as Python scalars (ZipMap's `{0: 0.2, ...}`), made the value convention's by
#: `value_kinds.from_api`.
_OWN_FORM = ("map",)


def _bindable(name: str, value_type: ValueType) -> bool:
    """Whether an input of `value_type` is of a kind of _BINDS_ONLY (then of a type it binds);
    CannotTake when it is of one and onnxruntime's Python API cannot feed it."""
    for word in kinds_in(value_type):
        if word in _BINDS_ONLY:
            types, why = _BINDS_ONLY[word]
            if str(value_type) not in types:
                raise CannotTake(f"onnxruntime's Python API feeds a {word} input only as "
                                 f"{' or '.join(types)} ({why}); input {name!r} is "
                                 f"{value_type}")
            return True
    return False


class ApiValues(BackendRep):
    """onnxruntime's rep for a model that takes or gives values its Python API holds in a form
    of its own (_OWN_FORM) or binds only some types of (_BINDS_ONLY): what it gives is made
    the value convention's (`value_kinds.from_api`: a map's Python scalar values become 0-d
    arrays of the map's value type); an empty input of a _BINDS_ONLY kind is refused, as the
    binding cannot make one."""

    def __init__(self, rep: BackendRep, types: list[ValueType | None],
                 limited: list[tuple[int, ValueType]]):
        self.rep, self.types, self.limited = rep, types, limited

    def run(self, inputs: Any, **kwargs: Any) -> tuple[Any, ...]:
        for k, value_type in self.limited:
            if not len(inputs[k]):
                raise CannotTake(f"onnxruntime's Python API cannot feed an empty "
                                 f"{value_type.WORD} input (its binding stops: 'Size of "
                                 "dictionary is empty')")
        outputs = self.rep.run(inputs, **kwargs)
        return tuple(from_api(value, value_type)
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
