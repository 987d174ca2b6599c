"""The value kinds and the dispatch to them: one module per kind (tensor.py, sequence.py,
optional.py, map.py), each a class deriving from `base.ValueType` that owns every part of its kind
(base.py lists them); the functions here find the kind and hand over.

A shape belongs to the innermost tensor type; a dim is an int (fixed), a str (symbolic) or None
(unknown); a shape of None means rank unknown. `str(type)` is the onnx type string, which holds
no shape, so `parse_type` reads it back given the shape: `parse_type(str(t),
innermost(t).shape) == t`, and `str(parse_type(s)) == s` for a type string s written without
spaces. `to_type_proto` and `from_type_proto` are a symmetric pair, shape included:
`from_type_proto(to_type_proto(t)) == t`.

The value model is onnx's backend convention: numpy.ndarray for a tensor, a list for a
sequence, None for an empty optional (anything else a present one). Which proto a .pb file
holds is decided by the graph value's type, never guessed from bytes.
"""

from __future__ import annotations

import re
from typing import Any, cast

import numpy as np
import onnx
from onnx import TypeProto

from ..differences import Difference, Place
from ..elements import BY_PROTO
from ..errors import TypeTextError
from ..problems import quote
from .base import Comparing, Shape, ValueType
from .map import MapType
from .optional import OptionalType
from .sequence import SequenceType
from .tensor import TensorType
from .text import shown

__all__ = ["KINDS", "TYPE_FORMS", "UNREADABLE_KINDS", "MapType", "OptionalType", "SequenceType",
           "Shape", "TensorType", "ValueType", "boundary_types", "decode", "describe", "differ",
           "encode", "from_type_proto", "innermost", "kind_of_value", "kinds_in",
           "map_values_as_tensors", "parse_type", "to_type_proto", "type_text"]

#: Every value kind, in the order a value of unknown type is matched against them (`holds`).
KINDS: tuple[type[ValueType], ...] = (OptionalType, TensorType, SequenceType, MapType)

#: Every form a value type takes, T an element type name; `parse_type` reads exactly these.
TYPE_FORMS = tuple(form for kind in (TensorType, MapType, SequenceType, OptionalType)
                   for form in kind.FORMS)

_BY_WORD = {kind.WORD: kind for kind in KINDS}
_BY_FIELD = {kind.TYPE_FIELD: kind for kind in KINDS}
_BY_PROTO = {kind.PROTO: kind for kind in KINDS}
_TYPE_TEXT = re.compile(r"(\w+)\((.*)\)")


def parse_type(text: str, shape: Shape = None) -> ValueType:
    """Parse an onnx type string; `shape` goes to the innermost tensor type."""
    match = _TYPE_TEXT.fullmatch(re.sub(r"\s*([()])\s*", r"\1", text.strip()))
    if not match or match.group(1) not in _BY_WORD:
        raise TypeTextError(f"{quote(text)} is not a type; write "
                            f"{', '.join(TYPE_FORMS[:-1])} or {TYPE_FORMS[-1]}")
    word, inner = match.groups()
    return _BY_WORD[word].from_text(inner, shape, parse_type)


def innermost(value_type: ValueType) -> TensorType:
    """The tensor type at the bottom of a type."""
    return cast(TensorType, value_type.innermost())


def to_type_proto(value_type: ValueType) -> TypeProto:
    """The full TypeProto of a type, shape included (no `shape` field when rank is unknown)."""
    return value_type.type_proto()


def from_type_proto(proto: TypeProto) -> ValueType:
    """The type a TypeProto describes; TypeError for the kinds of UNREADABLE_KINDS and untyped
    values."""
    which = proto.WhichOneof("value")
    if which not in _BY_FIELD:
        raise TypeError(f"Unsupported type: {which or 'no type'}")
    return _BY_FIELD[which].from_type_proto(proto, from_type_proto)


#: The value kinds onnx has that this tool cannot read, by TypeProto field, as messages say them.
UNREADABLE_KINDS = {"sparse_tensor_type": "a sparse tensor", "opaque_type": "an opaque value"}


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


# -- values -----------------------------------------------------------------------------------

def encode(value: Any, value_type: ValueType, name: str = "",
           empty_optional: str = "undefined") -> Any:
    """The proto for `value` of `value_type` (its kind's PROTO); only the top-level proto
    carries `name`. An empty optional is written `undefined` or `typed`."""
    proto = value_type.encode(value, empty_optional)
    proto.name = name
    return proto


def decode(proto: Any) -> Any:
    """The value a proto holds; both encodings of an empty optional give None."""
    kind = _BY_PROTO.get(type(proto))
    if kind is None:
        raise TypeError(f"Unsupported proto: {type(proto).__name__}")
    return kind.decode(proto, decode)


def kind_of_value(value: Any) -> type[ValueType]:
    """The kind a value has in the backend convention (anything no kind holds: a tensor)."""
    return next((kind for kind in KINDS if kind.holds(value)), TensorType)


def describe(value: Any) -> str:
    """A short description of what a value is, for messages."""
    kind = next((kind for kind in KINDS if kind.holds(value)), None)
    if kind is None:
        return f"a {type(value).__name__} ({shown(value)})"
    return kind.describe(value)


def differ(expected: Any, actual: Any, value_type: ValueType | None, atol: float, rtol: float,
           elements: Place = ()) -> list[Difference]:
    """The differences between one expected value and one actual value, inside the sequence
    `elements` of an output; with no type, the kind of `expected` decides."""
    comparing = Comparing(atol, rtol, lambda e, a, t, inside: _differ(e, a, t, inside, comparing),
                          describe)
    return _differ(expected, actual, value_type, elements, comparing)


def _differ(expected: Any, actual: Any, value_type: ValueType | None, elements: Place,
            comparing: Comparing) -> list[Difference]:
    if value_type is None:
        value_type = kind_of_value(expected).bare()
    return value_type.differ(expected, actual, elements, comparing)


def map_values_as_tensors(value: Any, value_type: ValueType | None) -> Any:
    """`value` with each map's values made 0-d arrays of the map's value type, as the value
    convention has them: a runtime's Python API (onnxruntime's) gives a map's tensor values as
    Python scalars (ZipMap's `{0: 0.2, ...}`)."""
    if isinstance(value_type, OptionalType) and value is not None:
        return map_values_as_tensors(value, value_type.element)
    if isinstance(value_type, SequenceType) and isinstance(value, list):
        return [map_values_as_tensors(item, value_type.element) for item in value]
    if isinstance(value_type, MapType) and isinstance(value, dict):
        inner = value_type.value
        if not isinstance(inner, TensorType):
            return {key: map_values_as_tensors(item, inner) for key, item in value.items()}
        return {key: np.asarray(item, dtype=inner.element.dtype) for key, item in value.items()}
    return value


def kinds_in(value_type: ValueType) -> tuple[str, ...]:
    """The kinds (their WORD) of `value_type` and of every type inside it, outermost first:
    `("seq", "map", "tensor")` for `seq(map(int64, tensor(float)))`."""
    found = [value_type.WORD]
    for inner in value_type.inner_types():
        found += [word for word in kinds_in(inner) if word not in found]
    return tuple(found)
