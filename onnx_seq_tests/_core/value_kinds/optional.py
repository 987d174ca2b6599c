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
from .base import Bindings, Change, Comparing, Holder, ValueType
from .forms import FormReader, FormWriter

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
    #: optional: an empty optional where a value is expected, or a value where none is.
    DIFFERENCES: ClassVar[dict[str, tuple[str, str]]] = {
        "optional": ("optional", "expected {e}, got {g}")}
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

    def read_case(self, node: Any, form: FormReader, what: str) -> Any:
        """The empty-optional marker `{optional: empty}`, or the element's form."""
        if form.other_mapping(node):
            return None if form.empty_marker(node, what) else form.INVALID
        return self.element.read_case(node, form, what)

    def case_data(self, value: Any, form: FormWriter, what: str) -> Any:
        return form.empty() if value is None else self.element.case_data(value, form, what)

    def parts(self, value: Any, change: Change) -> Any:
        return value if value is None else change(value, self.element)

    def present(self) -> ValueType:
        return self.element.present()

    def python_form(self) -> str:
        return f"None or {self.element.python_form()}"

    @classmethod
    def proto_parts(cls, proto: Any) -> list[Any]:
        found = [getattr(proto, field) for field in (*(f for f, _ in _FIELDS.values()),
                                                     "optional_value") if proto.HasField(field)]
        if proto.HasField("sparse_tensor_value"):
            found += [proto.sparse_tensor_value.values, proto.sparse_tensor_value.indices]
        return found

    def render(self, head: str, value: Any, full: bool) -> list[str]:
        """`optional(empty), type=optional(tensor(float))`, or `optional of ` and the
        element's header, then the value."""
        if value is None:
            return [f"{head}optional(empty), type={self}"]
        lines = self.element.render(head, value, full)
        return [f"{head}optional of {lines[0][len(head):]}"] + lines[1:]
