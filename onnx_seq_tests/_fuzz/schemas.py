"""What the generator may draw, read from onnx.defs: which operator versions exist at which
opsets, and which element types each operator admits in a given role.

Nothing here is a hand list of types or versions: a role is a function from an element type to
the value types of a node's inputs and outputs, and an element type is admitted exactly when
every one of those types is in the schema's allowed type strings for its formal parameter.
"""

from __future__ import annotations

import functools

from .._core import operators
from .._core.elements import ELEMENTS, ElementType
from .._core.value_kinds import OptionalType, SequenceType, TensorType, ValueType

#: The lowest opset a program imports: the sequence operators start at 11.
FIRST_OPSET = 11


def tensor(element: ElementType) -> TensorType:
    return TensorType(element)


def seq(element: ElementType) -> SequenceType:
    return SequenceType(TensorType(element))


def opt(value_type: ValueType) -> OptionalType:
    return OptionalType(value_type)


@functools.cache
def opsets() -> tuple[int, ...]:
    """The released opsets a program may import, oldest first."""
    return tuple(v for v in sorted(operators.released_opsets())
                 if FIRST_OPSET <= v <= operators.newest_released_opset())


@functools.cache
def version_opsets(op_type: str) -> dict[int, tuple[int, ...]]:
    """Per version of `op_type` (since_version), the released opsets at which it is in force."""
    found: dict[int, list[int]] = {}
    for opset in opsets():
        found_schema = operators.schema(op_type, opset)
        if found_schema is not None:
            found.setdefault(found_schema.since_version, []).append(opset)
    return {v: tuple(o) for v, o in found.items()}


def admits(op_type: str, opset: int, inputs, outputs) -> bool:
    """Whether `op_type`'s schema at `opset` allows these input and output value types
    (None: an input left off, which its formal must allow)."""
    op_schema = operators.schema(op_type, opset)
    if op_schema is None:
        return False
    if not op_schema.min_input <= len(inputs) <= op_schema.max_input:
        return False
    return operators.type_refusal(
        op_schema, ["" if t is None else str(t) for t in inputs],
        ["" if t is None else str(t) for t in outputs]) is None


@functools.cache
def elements_for(op_type: str, opset: int, role) -> tuple[ElementType, ...]:
    """The element types e for which `role(e) -> (input types, output types)` is admitted."""
    return tuple(e for e in ELEMENTS.values() if admits(op_type, opset, *role(e)))
