"""What a mutant is made of: the `Mutant` record, the error a mutant raises where the runtime it
models fails, and small builders for the catalogue's modules.

A mutant is plain data: a name, the behaviour in one sentence, the oracle operators it replaces
(`op_type -> run(node, args, attributes, context) -> outputs`, the signature of the entries of
`oracle.OPERATORS`), optional transforms of the values crossing the graph boundary
(`inputs(value, value_type)`, `outputs(value, value_type)`), and where the bug was seen
(`sources`: `owner/repo#number` of public issue threads; `modelled_on`: a free-text origin
where no thread exists, e.g. a measurement of this project), and the features it targets
(`targets`: labels of the coverage tables EDGE_CASES and STRUCTURE or of the features
`coverage.node_features` gives, or a type string such as `tensor(float16)` or `seq(`: the data
that tells the mutant from the spec). Nothing here keeps state: the
builders return pure functions, and `operator_table(mutant)` is a fresh dict per call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

import numpy as np

from ..._core.errors import MutantError
from ..._core.value_types import OptionalType, SequenceType
from .. import oracle

MISSING = oracle.MISSING
present = oracle.present


@dataclass(frozen=True)
class Mutant:
    """One plausible runtime bug in one behaviour (see the module docstring)."""

    name: str
    behaviour: str
    operators: Mapping = field(default_factory=dict)
    inputs: Callable | None = None
    outputs: Callable | None = None
    modelled_on: str = ""
    sources: tuple = ()
    targets: tuple = ()

    def __post_init__(self):
        object.__setattr__(self, "operators", MappingProxyType(dict(self.operators)))
        object.__setattr__(self, "sources", tuple(self.sources))
        object.__setattr__(self, "targets", tuple(self.targets))


def targeted(mutants: tuple, targets: Mapping) -> tuple:
    """`mutants` with their `targets` from `targets` (name -> labels); KeyError for a mutant the
    table leaves out or a name it has that no mutant has, so every mutant names its targets."""
    if set(targets) != {m.name for m in mutants}:
        raise KeyError(sorted(set(targets) ^ {m.name for m in mutants}))
    return tuple(replace(m, targets=tuple(targets[m.name])) for m in mutants)


def operator_table(mutant: Mutant | None) -> Mapping:
    """The oracle's operator table with the mutant's operators swapped in (the spec's own table
    for None), to pass as `oracle.run_graph(..., operators=...)`."""
    if mutant is None or not mutant.operators:
        return oracle.OPERATORS
    return {**oracle.OPERATORS, **mutant.operators}


def spec(op_type: str) -> Callable:
    """The spec's own operator `op_type`, for a mutant that changes only part of it."""
    return oracle.OPERATORS[op_type]


def scalar(value) -> int:
    """A scalar input (position, trip count) as a Python int."""
    return int(np.asarray(value).reshape(-1)[0])


def checked(index: int, count: int) -> int:
    """`index` if it is in [0, count), else MutantError (the runtime's out-of-range failure)."""
    if not 0 <= index < count:
        raise MutantError(f"index {index} out of range")
    return index


def spec_index(position, count: int, default: int) -> int:
    """The spec's index for a position (None: `default`; negative: from the back)."""
    if position is None:
        return default
    return position + count if position < 0 else position


# -- operator builders: each returns `run(node, args, attributes, context)` ---------------------

def sequence_at(rule):
    """SequenceAt with `rule(node, context, position, n) -> index` after the spec's range check."""
    def run(node, args, attributes, context):
        sequence, position = args
        oracle.position_index(position, len(sequence), "SequenceAt", allow_end=False)
        index = checked(rule(node, context, scalar(position), len(sequence)), len(sequence))
        return [np.array(sequence[index])]
    return run


def sequence_insert(rule):
    """SequenceInsert with `rule(node, context, position or None, n) -> index`."""
    def run(node, args, attributes, context):
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


def sequence_erase(rule):
    """SequenceErase with `rule(node, context, position or None, n) -> index`."""
    def run(node, args, attributes, context):
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


def split_to_sequence(*, keepdims_rule=None, axis_rule=None):
    """SplitToSequence with one step changed: `axis_rule(axis, rank) -> axis`,
    `keepdims_rule(tensor, split, axis, keepdims, parts) -> parts`."""
    def run(node, args, attributes, context):
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


def concat_from_sequence(rule):
    """ConcatFromSequence as `rule(sequence, axis, new_axis) -> tensor`."""
    def run(node, args, attributes, context):
        return [rule(args[0], attributes["axis"], attributes.get("new_axis", 0))]
    return run


def after(op_type: str, change):
    """The spec's `op_type`, then `change(node, args, attributes, outputs) -> outputs`."""
    def run(node, args, attributes, context):
        return change(node, args, attributes, spec(op_type)(node, args, attributes, context))
    return run


def refusing(op_type: str, refuses, message: str):
    """The spec's `op_type`, except MutantError(message) when `refuses(node, args, context)`."""
    def run(node, args, attributes, context):
        if refuses(node, args, context):
            raise MutantError(f"{op_type}: {message}")
        return spec(op_type)(node, args, attributes, context)
    return run


# -- boundary transforms: `transform(value, value_type) -> value` -------------------------------

def map_tensors(function, value, value_type):
    """Apply `function(tensor, tensor_type)` to every tensor inside a value (a sequence's
    elements, an optional's content)."""
    if value is None or value is MISSING:
        return value
    if isinstance(value, list):
        element = value_type.element if isinstance(value_type, SequenceType) else None
        return [function(np.asarray(v), element) for v in value]
    if isinstance(value_type, OptionalType):
        return map_tensors(function, value, value_type.element)
    return function(np.asarray(value), value_type)


def each_tensor(function):
    """A boundary transform applying `function(tensor)` to every tensor."""
    def transform(value, value_type):
        return map_tensors(lambda t, _: function(t), value, value_type)
    return transform


def when_dtype(dtype, function):
    """A boundary transform applying `function(tensor)` to every tensor of `dtype`."""
    def apply(tensor):
        return function(tensor) if tensor.dtype == np.dtype(dtype) else tensor
    return each_tensor(apply)


def each_string(function):
    """A boundary transform applying `function(text)` to every element of a string tensor."""
    def apply(tensor):
        if tensor.dtype.kind != "O":
            return tensor
        out = np.empty(tensor.shape, dtype=object)
        for index in np.ndindex(tensor.shape):
            out[index] = function(tensor[index])
        return out
    return each_tensor(apply)


def refuse_dtypes(names, message: str):
    """A boundary transform failing on any tensor whose dtype name is in `names`."""
    def check(value, value_type):
        def look(tensor, _):
            if tensor.dtype.name in names:
                raise MutantError(f"{message}: {tensor.dtype.name}")
            return tensor
        return map_tensors(look, value, value_type)
    return check


def tensors_of(value) -> list:
    """The tensors a value holds (a sequence's elements, a present value itself; none for an
    empty optional or a missing input)."""
    if value is None or value is MISSING:
        return []
    return [np.asarray(t) for t in value] if isinstance(value, list) else [np.asarray(value)]
