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

import functools
import re
from collections.abc import Callable
from typing import Any, cast

import onnx
from onnx import TypeProto

from .. import differences
from ..differences import Difference, Place
from ..errors import TypeTextError
from ..problems import quote
from .base import Comparing, Entry, Shape, ValueType
from .map import MapType
from .optional import OptionalType
from .sequence import SequenceType
from .tensor import TensorType
from .text import element_text, shown

__all__ = ["CASE_KEYS", "FORM_LETTERS", "HOLDER_PREFIXES", "KINDS", "TYPE_FORMS",
           "TYPE_PREFIXES", "UNREADABLE_KINDS", "MapType", "OptionalType",
           "SequenceType", "Shape", "TensorType", "ValueType", "boundary_types",
           "canonical", "case_schemas", "decode", "describe", "differ",
           "encode", "entries", "from_api", "from_schema_text", "from_type_proto",
           "innermost", "innermost_field", "kind_of_value", "kinds_in", "own_type", "parse_type",
           "proto_parts", "to_api", "to_type_proto", "type_text"]

#: Every value kind, in the order a value of unknown type is matched against them (`holds`).
KINDS: tuple[type[ValueType], ...] = (OptionalType, TensorType, SequenceType, MapType)

#: Every form a value type takes, T an element type name; `parse_type` reads exactly these.
TYPE_FORMS = tuple(form for kind in (TensorType, MapType, SequenceType, OptionalType)
                   for form in kind.FORMS)

#: How each kind's type text starts (`seq(`), and those of the kinds that hold other types.
TYPE_PREFIXES = tuple(f"{kind.WORD}(" for kind in KINDS)
HOLDER_PREFIXES = tuple(f"{kind.WORD}(" for kind in KINDS if kind is not TensorType)
#: The letters of TYPE_FORMS other than T and V, each with the names it stands for.
FORM_LETTERS = {letter: names for kind in KINDS for letter, names in kind.LETTERS.items()}
#: The one keys of the mappings case files write values of some kind as (`{map: ...}`).
CASE_KEYS = tuple(kind.CASE_KEY for kind in KINDS if kind.CASE_KEY)

for _kind in KINDS:
    differences.declare(_kind.DIFFERENCES)

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


@functools.cache
def from_schema_text(text: str) -> str:
    """A type text of onnx's operator schemas in this package's spelling (`str(ValueType)`):
    `map(int64, float)` is `map(int64, tensor(float))`. Kept per text (the schemas' few
    hundred): drawing a fuzz program asks for it thousands of times."""
    for kind in KINDS:
        text = kind.from_schema_text(text)
    return text


def innermost_field(proto: TypeProto) -> str | None:
    """The TypeProto field of the kind at the bottom of a type, read or not
    (`sparse_tensor_type` for `seq(sparse_tensor(float))`); None when nested too deep."""
    for _ in range(64):
        which = proto.WhichOneof("value")
        kind = _BY_FIELD.get(which or "")
        inner = kind.inner_type_protos(proto) if kind else []
        if not inner:
            return which if which is None else str(which)
        proto = inner[0]
    return None


def type_text(proto: TypeProto, depth: int = 64) -> str:
    """Any TypeProto written as onnx writes a type, for messages, maps and sparse tensors too:
    `seq(map(int64, tensor(float)))`; `(no type)` when it has none; `...` below `depth`."""
    which = proto.WhichOneof("value")
    if depth <= 0:
        return "..."
    kind = _BY_FIELD.get(which or "")
    if kind is not None:
        return kind.proto_text(proto, lambda inner: type_text(inner, depth - 1))
    if which == "sparse_tensor_type":
        return f"sparse_tensor({element_text(proto.sparse_tensor_type.elem_type)})"
    if which == "opaque_type":
        name = ".".join(n for n in (proto.opaque_type.domain, proto.opaque_type.name) if n)
        return f"opaque({quote(name)})" if name else "opaque"
    return "(no type)"


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


def to_api(value: Any, value_type: ValueType | None) -> Any:
    """`value` as runtimes' Python APIs take it (a map's tensor values as numpy scalars, for
    the reference evaluator); as it is when no type is known."""
    return value if value_type is None else value_type.to_api(value, to_api)


def from_api(value: Any, value_type: ValueType | None) -> Any:
    """A value a runtime's Python API gave, in the backend convention (a map's Python scalar
    values, onnxruntime's ZipMap's `{0: 0.2, ...}`, as 0-d arrays of the map's value type); as
    it is when no type is known."""
    return value if value_type is None else value_type.from_api(value, from_api)


def entries(value: Any, value_type: ValueType | None) -> list[Entry] | None:
    """The values directly inside `value`, by the kind its Python value has, each with its
    place and its type when `value_type` (the declared one, or None) is of that kind; None
    when no kind holds a value of this Python type."""
    kind = next((kind for kind in KINDS if kind.holds(value)), None)
    if kind is None:
        return None
    return own_type(kind, value_type).entries(value)


def own_type(kind: type[ValueType], value_type: ValueType | None) -> ValueType:
    """The type of a value of `kind` whose declared type is `value_type` (or None): the
    declared one, once present (an optional's element's), where it is of that kind, else the
    kind's bare type."""
    present = None if value_type is None else value_type.present()
    return present if isinstance(present, kind) else kind.bare()


def canonical(value: Any, recurse: Callable[[Any], Any]) -> Any:
    """The fingerprint form of a Python value of a kind that has one of its own (a map's);
    None for any other value."""
    for kind in KINDS:
        if kind.holds(value):
            found = kind.canonical(value, recurse)
            if found is not None:
                return found
    return None


def proto_parts(proto: Any) -> list[Any]:
    """The protos inside a value's proto (none for a TensorProto or an unknown proto)."""
    kind = _BY_PROTO.get(type(proto))
    return [] if kind is None else kind.proto_parts(proto)


def case_schemas(value: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The JSON Schema of each kind's case-file mapping, by the kind's WORD (`map`); `value`
    the schema of any value."""
    return {kind.WORD: schema for kind in KINDS
            if (schema := kind.case_schema(value)) is not None}


def kinds_in(value_type: ValueType) -> tuple[str, ...]:
    """The kinds (their WORD) of `value_type` and of every type inside it, outermost first:
    `("seq", "map", "tensor")` for `seq(map(int64, tensor(float)))`."""
    found = [value_type.WORD]
    for inner in value_type.inner_types():
        found += [word for word in kinds_in(inner) if word not in found]
    return tuple(found)
