"""Value types: tensor, sequence and optional, their onnx type strings and their TypeProtos.

A shape belongs to the innermost tensor type; a dim is an int (fixed), a str (symbolic) or None
(unknown); a shape of None means rank unknown. `str(type)` is the onnx type string, which holds
no shape, so `parse_type` reads it back given the shape: `parse_type(str(t),
innermost(t).shape) == t`, and `str(parse_type(s)) == s` for a type string s written without
spaces. `to_type_proto` and `from_type_proto` are a symmetric pair, shape included:
`from_type_proto(to_type_proto(t)) == t`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import onnx
from onnx import TypeProto, helper

from .elements import BY_PROTO, ELEMENTS, ElementType
from .errors import TypeTextError
from .problems import quote

Dim = int | str | None
Shape = tuple[Dim, ...] | None


@dataclass(frozen=True)
class TensorType:
    element: ElementType
    shape: Shape = None

    def __str__(self) -> str:
        return f"tensor({self.element.name})"


@dataclass(frozen=True)
class SequenceType:
    element: ValueType

    def __str__(self) -> str:
        return f"seq({self.element})"


@dataclass(frozen=True)
class OptionalType:
    element: ValueType

    def __str__(self) -> str:
        return f"optional({self.element})"


ValueType = TensorType | SequenceType | OptionalType

#: Every form a value type takes, T an element type name; `parse_type` reads exactly these.
TYPE_FORMS = ("tensor(T)", "seq(tensor(T))", "optional(tensor(T))", "optional(seq(tensor(T)))")

_TYPE_TEXT = re.compile(r"(tensor|seq|optional)\((.*)\)")


def parse_type(text: str, shape: Shape = None) -> ValueType:
    """Parse an onnx type string; `shape` goes to the innermost tensor type."""
    match = _TYPE_TEXT.fullmatch(re.sub(r"\s*([()])\s*", r"\1", text.strip()))
    if not match:
        raise TypeTextError(f"{quote(text)} is not a type; write "
                            f"{', '.join(TYPE_FORMS[:-1])} or {TYPE_FORMS[-1]}")
    kind, inner = match.groups()
    if kind == "tensor":
        if inner not in ELEMENTS:
            raise TypeTextError(f"unknown element type {quote(inner)} in {quote(text)}; known: "
                                + ", ".join(sorted(ELEMENTS)))
        return TensorType(ELEMENTS[inner], shape)
    element = parse_type(inner, shape)
    if kind == "seq":
        if not isinstance(element, TensorType):
            raise TypeTextError(f"{quote(text)}: a sequence holds tensors, write seq(tensor(T))")
        return SequenceType(element)
    if isinstance(element, OptionalType):
        raise TypeTextError(f"{quote(text)}: an optional cannot hold an optional")
    return OptionalType(element)


def innermost(value_type: ValueType) -> TensorType:
    """The tensor type at the bottom of a type."""
    while not isinstance(value_type, TensorType):
        value_type = value_type.element
    return value_type


def to_type_proto(value_type: ValueType) -> TypeProto:
    """The full TypeProto of a type, shape included (no `shape` field when rank is unknown)."""
    if isinstance(value_type, TensorType):
        shape = None if value_type.shape is None else list(value_type.shape)
        return helper.make_tensor_type_proto(value_type.element.proto, shape)
    if isinstance(value_type, SequenceType):
        return helper.make_sequence_type_proto(to_type_proto(value_type.element))
    if isinstance(value_type, OptionalType):
        return helper.make_optional_type_proto(to_type_proto(value_type.element))
    raise TypeError(f"Unsupported type: {value_type!r}")


def from_type_proto(proto: TypeProto) -> ValueType:
    """The type a TypeProto describes; TypeError for maps, sparse tensors and untyped values."""
    which = proto.WhichOneof("value")
    if which == "tensor_type":
        shape = None
        if proto.tensor_type.HasField("shape"):
            shape = tuple(_dim(d) for d in proto.tensor_type.shape.dim)
        return TensorType(BY_PROTO[proto.tensor_type.elem_type], shape)
    if which == "sequence_type":
        return SequenceType(from_type_proto(proto.sequence_type.elem_type))
    if which == "optional_type":
        return OptionalType(from_type_proto(proto.optional_type.elem_type))
    raise TypeError(f"Unsupported type: {which or 'no type'}")


#: The value kinds onnx has that this tool cannot read, by TypeProto field, as messages say them.
UNREADABLE_KINDS = {"map_type": "a map", "sparse_tensor_type": "a sparse tensor",
                    "opaque_type": "an opaque value"}


def type_text(proto: TypeProto, depth: int = 64) -> str:
    """Any TypeProto written as onnx writes a type, for messages, maps and sparse tensors too:
    `seq(map(int64, tensor(float)))`; `(no type)` when it has none; `...` below `depth`."""
    which = proto.WhichOneof("value")
    if depth <= 0:
        return "..."
    if which in ("tensor_type", "sparse_tensor_type"):
        return f"{which[:-5]}({_element_text(getattr(proto, which).elem_type)})"
    if which in ("sequence_type", "optional_type"):
        return f"{which[:3] if which == 'sequence_type' else 'optional'}(" \
               f"{type_text(getattr(proto, which).elem_type, depth - 1)})"
    if which == "map_type":
        return f"map({_element_text(proto.map_type.key_type)}, " \
               f"{type_text(proto.map_type.value_type, depth - 1)})"
    if which == "opaque_type":
        name = ".".join(n for n in (proto.opaque_type.domain, proto.opaque_type.name) if n)
        return f"opaque({quote(name)})" if name else "opaque"
    return "(no type)"


def _element_text(proto: int) -> str:
    element = BY_PROTO.get(proto)
    return element.name if element else f"element type {proto}"


def boundary_types(model: onnx.ModelProto) -> tuple[list[ValueType], list[ValueType]]:
    """The types of a ModelProto's graph inputs and outputs, in order."""
    return ([from_type_proto(i.type) for i in model.graph.input],
            [from_type_proto(o.type) for o in model.graph.output])


def _dim(dim: onnx.TensorShapeProto.Dimension) -> Dim:
    if dim.HasField("dim_value"):
        return int(dim.dim_value)
    if dim.HasField("dim_param"):
        return str(dim.dim_param)
    return None
