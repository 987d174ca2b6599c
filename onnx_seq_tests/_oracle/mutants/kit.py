"""What a mutant is made of: the `Mutant` record, the error a mutant raises where the runtime it
models fails, and small builders for the catalogue's modules.

A mutant is plain data: a name, the behaviour in one sentence, the oracle operators it replaces
(`op_type -> run(node, args, attributes, context) -> outputs`, the signature of the entries of
`oracle.OPERATORS`), optional transforms of the values crossing the graph boundary
(`inputs(value, value_type)`, `outputs(value, value_type)`), and where the bug was seen
(`sources`: `owner/repo#number` of public issue threads; `modelled_on`: a free-text origin
where no thread exists, e.g. a measurement of this project), and the features it targets
(`targets`: labels of the coverage tables EDGE_CASES and STRUCTURE or of the features
`case_features.node_features` gives, or a type string such as `tensor(float16)` or `seq(`: the data
that tells the mutant from the spec), and what the bug needs to show at all (`needs`:
GRAPH_INPUT when it changes only values fed to the graph, SEQUENCE_AT_BOUNDARY when only
sequence or optional values crossing its boundary, from _core/suite_forms.py; a suite form
lacking it cannot show the bug). Nothing here keeps state: the
builders return pure functions, and `operator_table(mutant)` is a fresh dict per call.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

import numpy as np

from ..._core import work
from ..._core.cases import Node
from ..._core.errors import MutantError
from ..._core.value_kinds import TensorType, kind_of_value, own_type
from .. import oracle
from ..oracle import Context, Operator

MISSING = work.MISSING
present = oracle.present


#: A boundary transform: `transform(value, value_type) -> value`.
Transform = Callable[[Any, Any], Any]
#: A change to one tensor: `change(tensor) -> tensor`.
TensorChange = Callable[[np.ndarray], np.ndarray]
#: A position rule: `rule(node, context, position or None, n) -> index`.
PositionRule = Callable[[Node, Context, Any, int], int]


@dataclass(frozen=True)
class Mutant:
    """One plausible runtime bug in one behaviour (see the module docstring)."""

    name: str
    behaviour: str
    operators: Mapping[str, Operator] = field(default_factory=dict)
    inputs: Transform | None = None
    outputs: Transform | None = None
    modelled_on: str = ""
    sources: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "operators", MappingProxyType(dict(self.operators)))
        object.__setattr__(self, "sources", tuple(self.sources))
        object.__setattr__(self, "targets", tuple(self.targets))


def targeted(mutants: tuple[Mutant, ...],
             targets: Mapping[str, tuple[str, ...]]) -> tuple[Mutant, ...]:
    """`mutants` with their `targets` from `targets` (name -> labels); KeyError for a mutant the
    table leaves out or a name it has that no mutant has, so every mutant names its targets."""
    if set(targets) != {m.name for m in mutants}:
        raise KeyError(sorted(set(targets) ^ {m.name for m in mutants}))
    return tuple(replace(m, targets=tuple(targets[m.name])) for m in mutants)


def operator_table(mutant: Mutant | None) -> Mapping[str, Operator]:
    """The oracle's operator table with the mutant's operators swapped in (the spec's own table
    for None), to pass as `oracle.run_graph(..., operators=...)`."""
    if mutant is None or not mutant.operators:
        return oracle.OPERATORS
    return {**oracle.OPERATORS, **mutant.operators}


def spec(op_type: str) -> Operator:
    """The spec's own operator `op_type`, for a mutant that changes only part of it."""
    return oracle.OPERATORS[op_type]


def scalar(value: Any) -> int:
    """A scalar input (position, trip count) as a Python int."""
    return int(np.asarray(value).reshape(-1)[0])


def checked(index: int, count: int) -> int:
    """`index` if it is in [0, count), else MutantError (the runtime's out-of-range failure)."""
    if not 0 <= index < count:
        raise MutantError(f"index {index} out of range")
    return index


def spec_index(position: int | None, count: int, default: int) -> int:
    """The spec's index for a position (None: `default`; negative: from the back)."""
    if position is None:
        return default
    return position + count if position < 0 else position


# -- operator builders: each returns `run(node, args, attributes, context)` ---------------------

def sequence_at(rule: PositionRule) -> Operator:
    """SequenceAt with `rule(node, context, position, n) -> index` after the spec's range check."""
    def run(node: Node, args: list[Any], attributes: dict[str, Any],
            context: Context) -> list[Any]:
        sequence, position = args
        oracle.position_index(position, len(sequence), "SequenceAt", allow_end=False)
        index = checked(rule(node, context, scalar(position), len(sequence)), len(sequence))
        return [np.array(sequence[index])]
    return run


def sequence_insert(rule: PositionRule) -> Operator:
    """SequenceInsert with `rule(node, context, position or None, n) -> index`."""
    def run(node: Node, args: list[Any], attributes: dict[str, Any],
            context: Context) -> list[Any]:
        sequence, tensor, *rest = present(args)
        position = None if not rest else rest[0]
        if position is not None:
            oracle.position_index(position, len(sequence), "SequenceInsert", allow_end=True)
            position = scalar(position)
        index = rule(node, context, position, len(sequence))
        if not 0 <= index <= len(sequence):
            raise MutantError(f"index {index} out of range")
        return [list(sequence[:index]) + [np.array(tensor)] + list(sequence[index:])]
    return run


def sequence_erase(rule: PositionRule) -> Operator:
    """SequenceErase with `rule(node, context, position or None, n) -> index`."""
    def run(node: Node, args: list[Any], attributes: dict[str, Any],
            context: Context) -> list[Any]:
        sequence, *rest = present(args)
        position = None if not rest else rest[0]
        if position is not None:
            oracle.position_index(position, len(sequence), "SequenceErase", allow_end=False)
            position = scalar(position)
        elif not sequence:
            raise MutantError("empty")
        index = checked(rule(node, context, position, len(sequence)), len(sequence))
        return [[np.array(t) for i, t in enumerate(sequence) if i != index]]
    return run


def split_to_sequence(*, keepdims_rule: Callable[..., list[Any]] | None = None,
                      axis_rule: Callable[[int, int], int] | None = None) -> Operator:
    """SplitToSequence with one step changed: `axis_rule(axis, rank) -> axis`,
    `keepdims_rule(tensor, split, axis, keepdims, parts) -> parts`."""
    def run(node: Node, args: list[Any], attributes: dict[str, Any],
            context: Context) -> list[Any]:
        tensor, *rest = present(args)
        split = rest[0] if rest else MISSING
        axis = attributes.get("axis", 0)
        keepdims = attributes.get("keepdims", 1)
        if axis_rule is not None:
            axis = axis_rule(axis, np.asarray(tensor).ndim)
        parts = oracle.split_to_sequence(tensor, split, axis=axis, keepdims=keepdims)
        if keepdims_rule is not None:
            parts = keepdims_rule(tensor, split, axis, keepdims, parts)
        return [parts]
    return run


def concat_from_sequence(rule: Callable[[list[Any], int, int], Any]) -> Operator:
    """ConcatFromSequence as `rule(sequence, axis, new_axis) -> tensor`."""
    def run(node: Node, args: list[Any], attributes: dict[str, Any],
            context: Context) -> list[Any]:
        return [rule(args[0], attributes["axis"], attributes.get("new_axis", 0))]
    return run


def after(op_type: str,
          change: Callable[[Node, list[Any], dict[str, Any], list[Any]], list[Any]]) -> Operator:
    """The spec's `op_type`, then `change(node, args, attributes, outputs) -> outputs`."""
    def run(node: Node, args: list[Any], attributes: dict[str, Any],
            context: Context) -> list[Any]:
        return change(node, args, attributes, spec(op_type)(node, args, attributes, context))
    return run


def in_place(op_type: str) -> Operator:
    """The spec's `op_type` on a sequence, written back into the input sequence's own storage
    (the list object every other reader of that value holds)."""
    def run(node: Node, args: list[Any], attributes: dict[str, Any],
            context: Context) -> list[Any]:
        result = spec(op_type)(node, args, attributes, context)
        args[0][:] = result[0]
        return [args[0]]
    return run


def refusing(op_type: str, refuses: Callable[[Node, list[Any], Context], bool],
             message: str) -> Operator:
    """The spec's `op_type`, except MutantError(message) when `refuses(node, args, context)`."""
    def run(node: Node, args: list[Any], attributes: dict[str, Any],
            context: Context) -> list[Any]:
        if refuses(node, args, context):
            raise MutantError(f"{op_type}: {message}")
        return spec(op_type)(node, args, attributes, context)
    return run


# -- boundary transforms: `transform(value, value_type) -> value` -------------------------------

def map_tensors(function: Callable[[np.ndarray, Any], Any], value: Any, value_type: Any) -> Any:
    """Apply `function(tensor, tensor_type)` to every tensor inside a value (a sequence's
    elements, an optional's content, a map's values: its keys are not tensors), walked by each
    kind's `parts`: by the kind the value has, its type's where it is of that kind."""
    if value is None or value is MISSING:
        return value
    kind = kind_of_value(value)
    if kind is TensorType:
        return function(np.asarray(value), None if value_type is None else value_type.present())
    return own_type(kind, value_type).parts(
        value, lambda item, inner: map_tensors(function, item, inner))


def each_tensor(function: TensorChange) -> Transform:
    """A boundary transform applying `function(tensor)` to every tensor."""
    def transform(value: Any, value_type: Any) -> Any:
        return map_tensors(lambda t, _: function(t), value, value_type)
    return transform


def when_dtype(dtype: Any, function: TensorChange) -> Transform:
    """A boundary transform applying `function(tensor)` to every tensor of `dtype`."""
    def apply(tensor: np.ndarray) -> np.ndarray:
        return function(tensor) if tensor.dtype == np.dtype(dtype) else tensor
    return each_tensor(apply)


def each_string(function: Callable[[Any], Any]) -> Transform:
    """A boundary transform applying `function(text)` to every element of a string tensor."""
    def apply(tensor: np.ndarray) -> np.ndarray:
        if tensor.dtype.kind != "O":
            return tensor
        out = np.empty(tensor.shape, dtype=object)
        for index in np.ndindex(tensor.shape):
            out[index] = function(tensor[index])
        return out
    return each_tensor(apply)


def refuse_dtypes(names: Collection[str], message: str) -> Transform:
    """A boundary transform failing on any tensor whose dtype name is in `names`."""
    def check(value: Any, value_type: Any) -> Any:
        def look(tensor: np.ndarray, _: Any) -> np.ndarray:
            if tensor.dtype.name in names:
                raise MutantError(f"{message}: {tensor.dtype.name}")
            return tensor
        return map_tensors(look, value, value_type)
    return check


def tensors_of(value: Any) -> list[np.ndarray]:
    """The tensors a value holds (a sequence's elements, a present value itself; none for an
    empty optional or a missing input)."""
    if value is None or value is MISSING:
        return []
    if isinstance(value, dict):
        return [t for v in value.values() for t in tensors_of(v)]
    return [np.asarray(t) for t in value] if isinstance(value, list) else [np.asarray(value)]
