"""What the built-in adapters of third-party runtimes share. Each adapter is an onnx backend
(`prepare(model, device)` returning a rep whose `run(inputs)` gives the outputs), following
onnx's value convention:
numpy arrays for tensors, lists for sequences, None for an empty optional and the value itself
for a present optional. A runtime whose API cannot take or give a value of some kind refuses
it with `CannotTake`, naming the kind; nothing is faked.

Each adapter module imports its runtime only in `load()`, so a missing package is one clear
line; `load()` returns the adapter's backend object, which holds whatever the runtime keeps
for the process (OpenVINO's Core, IREE's driver configuration). backends.load_backend keeps
one backend object per spec and process: that cache is the one place where such state lives.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
from onnx import ModelProto, TypeProto
from onnx.backend.base import Backend, BackendRep

from .._core.errors import CannotTake
from .._core.value_kinds import from_type_proto, kinds_in, type_text


class CPUBackend(Backend):
    """An adapter's backend, an object `load()` makes: `prepare` wraps the model in the
    adapter's rep (`rep`, called with the model and this backend), on CPU."""

    rep: type
    #: The value kinds (their WORD) the runtime's API passes; a graph input or output of any
    #: other kind, or holding one, is refused (CannotTake) before the rep is made.
    TAKES: tuple[str, ...] = ("tensor", "seq", "optional")

    # an instance method where onnx's Backend has a classmethod: each runtime's backend object
    # holds what it keeps for the process (backends.load_backend keeps one per process)
    def prepare(self, model: ModelProto, device: str = "CPU",  # type: ignore[override]
                **kwargs: Any) -> BackendRep:
        refuse_kinds(type(self).__module__.rsplit(".", 1)[-1], model, self.TAKES)
        return self.rep(model, self)

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return device == "CPU"


def kind(type_proto: TypeProto) -> str:
    """`tensor`, `sequence`, `optional` (or another TypeProto kind) of a graph value's type."""
    found = type_proto.WhichOneof("value") or "undefined"
    return found.removesuffix("_type")


def sequence_inputs(model: ModelProto) -> list[str]:
    """Names of the graph inputs (initializers aside) that hold a sequence: of sequence type,
    or optional of a sequence."""
    initialized = {t.name for t in model.graph.initializer}
    found = []
    for value in model.graph.input:
        what = kind(value.type)
        if what == "optional":
            what = kind(value.type.optional_type.elem_type)
        if what == "sequence" and value.name not in initialized:
            found.append(value.name)
    return found


def boundary(model: ModelProto) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(name, kind) of every graph input that is not an initializer, and of every output."""
    initialized = {t.name for t in model.graph.initializer}
    inputs = [(v.name, kind(v.type)) for v in model.graph.input if v.name not in initialized]
    outputs = [(v.name, kind(v.type)) for v in model.graph.output]
    return inputs, outputs


def refuse_containers(runtime: str, model: ModelProto, why: str,
                      allow_inputs: tuple[str, ...] = ()) -> None:
    """CannotTake for the first graph input or output that is not a plain tensor (inputs of a
    kind in `allow_inputs` are let through)."""
    inputs, outputs = boundary(model)
    for name, what in inputs:
        if what != "tensor" and what not in allow_inputs:
            raise CannotTake(f"{runtime} cannot take {_a(what)} input ({name!r}): {why}")
    for name, what in outputs:
        if what != "tensor":
            raise CannotTake(f"{runtime} cannot give {_a(what)} output ({name!r}): {why}")


def refuse_kinds(runtime: str, model: ModelProto, takes: tuple[str, ...]) -> None:
    """CannotTake for the first graph input or output of a kind the runtime's API does not
    pass (also inside a sequence or optional): `takes` names the kinds it does."""
    for role, values in (("input", model.graph.input), ("output", model.graph.output)):
        for value in values:
            try:
                words = kinds_in(from_type_proto(value.type))
            except (TypeError, KeyError):  # a kind this package does not read (sparse, opaque)
                words = (kind(value.type),)
            found = [w for w in words if w not in takes]
            if found:
                raise CannotTake(f"{runtime}'s API has no {found[0]}s: graph {role} "
                                 f"{value.name!r} is {type_text(value.type)}")


def _a(word: str) -> str:
    return f"an {word}" if word[0] in "aeiou" else f"a {word}"


def dtype_name(array: np.ndarray) -> str:
    """The element type of an array, as a reader knows it (`string` for object arrays)."""
    return "string" if array.dtype.kind in "OUS" else str(array.dtype)


def as_array(value, what: str) -> np.ndarray:
    """`value` as a numpy array; CannotTake when a tensor is due and something else came."""
    if isinstance(value, np.generic):
        value = np.asarray(value)
    if not isinstance(value, np.ndarray):
        raise CannotTake(f"{what}: expected a tensor (numpy array), got {type(value).__name__}")
    return value


_LOCATION = re.compile(r"^(Exception from \S+:\d+:|Check '.*' failed at \S+:\d+:?|\[ *\w+ *\] *)$")


def first_line(text: str) -> str:
    """The first line of a runtime's message that says something: source locations and
    backtrace frames dropped; a line ending in ':' is joined with the line after it."""
    lines = [line.strip() for line in str(text).splitlines()]
    kept = [line for line in lines if line and not _LOCATION.match(line)
            and not line.startswith(("Stack backtrace", "at ", "0:"))]
    if not kept:
        return str(text).strip() or "(no message)"
    found = kept[0]
    for line in kept[1:3]:
        if not found.endswith(":"):
            break
        found = f"{found} {line}"
    return found


def call_main(main: Any, feeds: list[Any], outputs: int) -> list[Any]:
    """The results of a compiled module's main function (TVM's, IREE's) on `feeds`, as a list
    of `outputs` values; its error as one line (first_line)."""
    try:
        result = main(*feeds)
    except Exception as error:
        raise RuntimeError(first_line(str(error))) from None
    return [result] if outputs == 1 else list(result)
