"""The optional kind: `optional(T)`, an OptionalProto, None (empty) or the element's value.

An empty optional has two encodings in a `.pb` file: elem_type UNDEFINED (`undefined`, what
onnx's own test data writes) or the element's kind with no value (`typed`); both read as None.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from onnx import OptionalProto

from ..differences import Difference, Place
from .base import Bindings, Comparing, Holder

#: OptionalProto's field and elem_type of each element kind, by the kind's word.
_FIELDS = {"tensor": ("tensor_value", OptionalProto.TENSOR),
           "seq": ("sequence_value", OptionalProto.SEQUENCE),
           "map": ("map_value", OptionalProto.MAP)}
#: Fields of an OptionalProto that no optional type of this tool holds.
_UNREAD = ("optional_value", "sparse_tensor_value")


@dataclass(frozen=True)
class OptionalType(Holder):
    WORD: ClassVar[str] = "optional"
    TYPE_FIELD: ClassVar[str] = "optional_type"
    PROTO: ClassVar[type] = OptionalProto
    FORMS: ClassVar[tuple[str, ...]] = ("optional(tensor(T))", "optional(seq(tensor(T)))",
                                        "optional(map(K, V))")
    ELEMENTS: ClassVar[tuple[str, ...]] = ("tensor", "seq", "map")
    REFUSAL: ClassVar[str] = "an optional cannot hold an optional"

    def encode(self, value: Any, empty_optional: str) -> OptionalProto:
        field, contained = _FIELDS[self.element.WORD]
        if value is None:
            empty = OptionalProto.UNDEFINED if empty_optional == "undefined" else contained
            return OptionalProto(elem_type=empty)
        proto = OptionalProto(elem_type=contained)
        getattr(proto, field).CopyFrom(self.element.encode(value, empty_optional))
        return proto

    @classmethod
    def decode(cls, proto: Any, recurse: Callable[[Any], Any]) -> Any:
        for field, _ in _FIELDS.values():
            if proto.HasField(field):
                return recurse(getattr(proto, field))
        if any(proto.HasField(field) for field in _UNREAD):
            raise TypeError("Unsupported optional content")
        return None

    @staticmethod
    def holds(value: Any) -> bool:
        return value is None

    @staticmethod
    def describe(value: Any) -> str:
        return "an empty optional (None)"

    def differ(self, expected: Any, actual: Any, elements: Place,
               comparing: Comparing) -> list[Difference]:
        if expected is None:
            if actual is None:
                return []
            return [Difference("optional", "an empty optional", comparing.describe(actual),
                               elements=elements)]
        if actual is None:
            return [Difference("optional",
                               f"a present optional holding {comparing.describe(expected)}",
                               "an empty optional", elements=elements)]
        return comparing.inside(expected, actual, self.element, elements)

    def check(self, value: Any, label: str, bindings: Bindings, messages: list[str]) -> None:
        if value is not None:
            self.element.check(value, label, bindings, messages)

    def render(self, head: str, value: Any, full: bool) -> list[str]:
        """`optional(empty), type=optional(tensor(float))`, or `optional of ` and the
        element's header, then the value."""
        if value is None:
            return [f"{head}optional(empty), type={self}"]
        lines = self.element.render(head, value, full)
        return [f"{head}optional of {lines[0][len(head):]}"] + lines[1:]
