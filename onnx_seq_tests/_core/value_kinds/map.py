"""The map kind: `map(K, V)`, a MapProto, a Python dict from key to the value kind's value.

K is one of the key types onnx allows (MapProto's `key_type`: the integer types and string); V
any value type (ai.onnx.ml's ZipMap gives `seq(map(int64, tensor(float)))`, its values 0-d
tensors). A key is a Python int (integer key types) or str (string); the dict's order is the
MapProto's order. Two maps are equal when their key sets are (keys of the same Python type) and
each key's value is.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from onnx import MapProto, SequenceProto, TensorProto, TypeProto, helper

from ..differences import Difference, Place
from ..elements import BY_PROTO, ELEMENTS, ElementType
from ..errors import ScalarError, TypeTextError
from ..problems import quote
from .base import Bindings, Change, Comparing, Entry, Shape, ValueType
from .forms import FormReader, FormWriter
from .sequence import SEQUENCE_FIELDS
from .text import array_text, cut, element_text, indented

#: The key types onnx allows (onnx.proto: MapProto's key_type).
KEY_TYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "string")
#: A map type of onnx's schemas whose value is written by its element alone.
_SHORT_VALUE = re.compile(r"map\((\w+), (\w+)\)")


@dataclass(frozen=True)
class MapType(ValueType):
    key: ElementType
    value: ValueType

    WORD: ClassVar[str] = "map"
    TYPE_FIELD: ClassVar[str] = "map_type"
    PROTO: ClassVar[type] = MapProto
    FORMS: ClassVar[tuple[str, ...]] = ("map(K, V)",)
    LETTERS: ClassVar[dict[str, tuple[str, ...]]] = {"K": KEY_TYPES}
    #: A case file writes a map `{map: [[key, value], ...]}`, its pairs in the dict's order.
    CASE_KEY: ClassVar[str] = "map"
    #: keys: a map of other keys (or keys of another type: 0 is not '0').
    DIFFERENCES: ClassVar[dict[str, tuple[str, str]]] = {
        "keys": ("keys", "expected a map of keys {e}, got keys {g}")}

    def __str__(self) -> str:
        return f"map({self.key.name}, {self.value})"

    @classmethod
    def from_text(cls, inner: str, shape: Shape,
                  recurse: Callable[[str, Shape], ValueType]) -> ValueType:
        key, _, value = inner.partition(",")
        if key.strip() not in KEY_TYPES or not value.strip():
            raise TypeTextError(f"{quote(f'map({inner})')}: write map(K, V), K one of "
                                f"{', '.join(KEY_TYPES)} and V a type")
        return cls(ELEMENTS[key.strip()], recurse(value.strip(), shape))

    def type_proto(self) -> TypeProto:
        return helper.make_map_type_proto(self.key.proto, self.value.type_proto())

    @classmethod
    def from_type_proto(cls, proto: TypeProto,
                        recurse: Callable[[TypeProto], ValueType]) -> ValueType:
        key = BY_PROTO.get(proto.map_type.key_type)
        if key is None or key.name not in KEY_TYPES:
            raise TypeError(f"Unsupported map key type: {proto.map_type.key_type}")
        return cls(key, recurse(proto.map_type.value_type))

    def innermost(self) -> ValueType:
        return self.value.innermost()

    @classmethod
    def inner_type_protos(cls, proto: TypeProto) -> list[TypeProto]:
        return [proto.map_type.value_type]

    @classmethod
    def proto_text(cls, proto: TypeProto, recurse: Callable[[TypeProto], str]) -> str:
        return f"map({element_text(proto.map_type.key_type)}, {recurse(proto.map_type.value_type)})"

    @classmethod
    def from_schema_text(cls, text: str) -> str:
        """onnx's schemas write a map's tensor value by its element alone (`map(int64,
        float)`); `str()` spells it `map(int64, tensor(float))`."""
        return _SHORT_VALUE.sub(r"map(\1, tensor(\2))", text)

    def inner_types(self) -> tuple[ValueType, ...]:
        return (self.value,)

    def encode(self, value: Any, empty_optional: str) -> MapProto:
        field, elem_type = SEQUENCE_FIELDS[self.value.WORD]
        values = SequenceProto(elem_type=elem_type)
        getattr(values, field).extend(self.value.encode(v, empty_optional)
                                      for v in value.values())
        keys = list(value)
        if self.key.name == "string":
            keys = [k.encode("utf-8") for k in keys]
        return helper.make_map("", self.key.proto, keys, values)

    @classmethod
    def decode(cls, proto: Any, recurse: Callable[[Any], Any]) -> dict[Any, Any]:
        if proto.key_type == TensorProto.STRING:
            keys: list[Any] = [k.decode("utf-8") for k in proto.string_keys]
        else:
            keys = [int(k) for k in proto.keys]
        values = recurse(proto.values)
        if len(values) != len(keys):
            raise TypeError(f"a map of {len(keys)} keys holds {len(values)} values")
        if len(set(keys)) != len(keys):
            raise TypeError("a map holds a key twice")
        return dict(zip(keys, values, strict=True))

    @staticmethod
    def holds(value: Any) -> bool:
        return isinstance(value, dict)

    @staticmethod
    def describe(value: Any) -> str:
        return f"a map of {len(value)} entries"

    @classmethod
    def bare(cls) -> ValueType:
        return cls(None, None)  # type: ignore[arg-type]  # the kind alone: nothing known

    def key_type(self) -> type:
        """The Python type of a key."""
        return str if self.key is None or self.key.name == "string" else int

    def differ(self, expected: Any, actual: Any, elements: Place,
               comparing: Comparing) -> list[Difference]:
        if not self.holds(actual):
            return [comparing.other_kind(expected, actual, elements)]
        want, got = _keys_text(expected), _keys_text(actual)
        if want != got:
            return [Difference("keys", cut(want), cut(got), elements=elements)]
        found = []
        for key, item in expected.items():
            found.extend(comparing.inside(item, actual[key], self.value,
                                          (*elements, f"key {key!r}")))
        return found

    def check(self, value: Any, label: str, bindings: Bindings, messages: list[str]) -> None:
        if not isinstance(value, dict):
            messages.append(f"{label} is declared {self}, but its value is not a map")
            return
        for key, item in value.items():
            if type(key) is not self.key_type() or (
                    isinstance(key, int) and not _fits(key, self.key)):
                messages.append(f"{label} is declared {self}, but holds the key {key!r}")
            self.value.check(item, f"{label}, key {key!r}", bindings, messages)

    def untensorable(self) -> str:
        return (f"{self}: no ONNX operator builds a map from tensors, or takes one apart into "
                "its keys and values")

    def render(self, head: str, value: Any, full: bool) -> list[str]:
        """`map(len=N), key_type=int64, value_type=tensor(float)`, then `{`, one `key: value`
        per entry (a tensor's array after it, any other value as its kind renders it), `}`."""
        pad = " " * (len(head) - len(head.lstrip()) + 2)  # 4 in at the top, more inside
        lines = [f"{head}map(len={len(value)}), key_type={self.key.name}, "
                 f"value_type={self.value}"]
        if not value:
            return lines + [pad + "{}"]
        lines.append(pad + "{")
        for key, item in value.items():
            first = f"{pad}  {key!r}: "
            if self.value.WORD == "tensor":
                lines += indented(array_text(item, full), first, " " * len(first))
            else:
                lines += self.value.render(first, item, full)
        return lines + [pad + "}"]

    # -- its case-file form ------------------------------------------------------------------

    def read_case(self, node: Any, form: FormReader, what: str) -> Any:
        """`{map: [[key, value], ...]}` as a dict in the pairs' order; INVALID when a pair, a
        key (of the key type, once) or a value is not right."""
        pairs = form.unwrap(node, self.CASE_KEY)
        if pairs is None:
            return form.fail(node, f"{what} is {self}: write it {{{self.CASE_KEY}: [[key, "
                                   "value], ...]}")
        pairs = form.sequence(pairs, f"{what} ({self}, a list of [key, value])")
        if pairs is form.INVALID:
            return form.INVALID
        found: dict[Any, Any] = {}
        ok = True
        for i, pair in enumerate(pairs):
            items = form.items(pair)
            key = self._case_key(pair, items, form, f"entry {i} of {what}")
            if key is form.INVALID or items is None:
                ok = False
            elif key in found:
                form.fail(items[0], f"{what} has the key {key!r} twice")
                ok = False
            else:
                found[key] = self.value.read_case(items[1], form,
                                                  f"the value of key {key!r} of {what}")
                ok = ok and found[key] is not form.INVALID
        return found if ok else form.INVALID

    def _case_key(self, pair: Any, items: list[Any] | None, form: FormReader, what: str) -> Any:
        """The key of a pair [key, value] (its `items`), or INVALID."""
        key = form.scalar(items[0]) if items is not None and len(items) == 2 else None
        if key is None or items is None:
            return form.fail(pair, f"{what} must be a pair [key, value]")
        text, quoted = key
        try:
            parsed = self.key.parse(text, quoted=quoted)
        except ScalarError as error:
            return form.fail(items[0], f"key of {what}: {error}")
        return parsed if isinstance(parsed, str) else int(parsed)  # type: ignore[call-overload]

    def case_data(self, value: Any, form: FormWriter, what: str) -> Any:
        return {self.CASE_KEY: [form.flow([key, self.value.case_data(item, form, what)])
                                for key, item in value.items()]}

    @classmethod
    def case_schema(cls, value: dict[str, Any]) -> dict[str, Any] | None:
        pair = {"type": "array", "minItems": 2, "maxItems": 2,
                "items": [{"type": ["string", "integer"]}, value]}
        return {"type": "object", "additionalProperties": False, "required": [cls.CASE_KEY],
                "properties": {cls.CASE_KEY: {"type": "array", "items": pair}},
                "description": "A map: {map: [[key, value], ...]}."}

    # -- its Python value inside others, and as runtimes' Python APIs have it ----------------

    def parts(self, value: Any, change: Change) -> Any:
        if not isinstance(value, dict):
            return value
        return {key: change(item, self.value) for key, item in value.items()}

    def entries(self, value: Any) -> list[Entry]:
        return [(f"key {key!r}", item, self.value) for key, item in value.items()]

    def python_form(self) -> str:
        return "a dict"

    def to_api(self, value: Any, recurse: Change) -> Any:
        """A map's tensor values as numpy scalars (0-d arrays made so), the form the
        reference evaluator's ai.onnx.ml operators read (a DictVectorizer of 0-d arrays gives
        an array of arrays)."""
        if self.value.WORD != "tensor" or not isinstance(value, dict):
            return self.parts(value, recurse)
        return {key: item[()] if isinstance(item, np.ndarray) and item.ndim == 0 else item
                for key, item in value.items()}

    def from_api(self, value: Any, recurse: Change) -> Any:
        """A runtime's Python API (onnxruntime's) gives a map's tensor values as Python
        scalars (ZipMap's `{0: 0.2, ...}`): each made a 0-d array of the map's value type."""
        if self.value.WORD != "tensor" or not isinstance(value, dict):
            return self.parts(value, recurse)
        dtype = self.value.element.dtype  # type: ignore[attr-defined]  # a tensor type's
        return {key: np.asarray(item, dtype=dtype) for key, item in value.items()}

    @classmethod
    def canonical(cls, value: Any, recurse: Callable[[Any], Any]) -> Any:
        """Its pairs in order (a MapProto keeps the order)."""
        return {cls.WORD: tuple((recurse(k), recurse(v)) for k, v in value.items())}

    @classmethod
    def proto_parts(cls, proto: Any) -> list[Any]:
        return [proto.values]


def _keys_text(value: dict[Any, Any]) -> str:
    """A map's keys, sorted, each as Python writes it (`0` and `'0'` differ)."""
    return "[" + ", ".join(sorted(repr(k) for k in value)) + "]"


def _fits(key: int, element: ElementType) -> bool:
    info = np.iinfo(element.dtype)
    return int(info.min) <= key <= int(info.max)
