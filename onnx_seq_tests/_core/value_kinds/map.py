"""The map kind: `map(K, V)`, a MapProto, a Python dict from key to the value kind's value.

K is one of the key types onnx allows (MapProto's `key_type`: the integer types and string); V
any value type (ai.onnx.ml's ZipMap gives `seq(map(int64, tensor(float)))`, its values 0-d
tensors). A key is a Python int (integer key types) or str (string); the dict's order is the
MapProto's order. Two maps are equal when their key sets are (keys of the same Python type) and
each key's value is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from onnx import MapProto, SequenceProto, TensorProto, TypeProto, helper

from ..differences import Difference, Place
from ..elements import BY_PROTO, ELEMENTS, ElementType
from ..errors import TypeTextError
from ..problems import quote
from .base import Bindings, Comparing, Shape, ValueType
from .sequence import SEQUENCE_FIELDS
from .text import array_text, cut, indented

#: The key types onnx allows (onnx.proto: MapProto's key_type).
KEY_TYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "string")


@dataclass(frozen=True)
class MapType(ValueType):
    key: ElementType
    value: ValueType

    WORD: ClassVar[str] = "map"
    TYPE_FIELD: ClassVar[str] = "map_type"
    PROTO: ClassVar[type] = MapProto
    FORMS: ClassVar[tuple[str, ...]] = ("map(K, V)",)
    #: A map's values may be of any kind (MapProto's values are a SequenceProto).

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


def _keys_text(value: dict[Any, Any]) -> str:
    """A map's keys, sorted, each as Python writes it (`0` and `'0'` differ)."""
    return "[" + ", ".join(sorted(repr(k) for k in value)) + "]"


def _fits(key: int, element: ElementType) -> bool:
    info = np.iinfo(element.dtype)
    return int(info.min) <= key <= int(info.max)
