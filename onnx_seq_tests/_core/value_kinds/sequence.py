"""The sequence kind: `seq(T)`, a SequenceProto, a Python list of the element's values.

onnx's sequences hold tensors, or maps (ai.onnx.ml's ZipMap gives `seq(map(K, V))`); the
SequenceProto of a `.pb` file says which in its `elem_type`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from onnx import SequenceProto

from ..differences import Difference, Place
from .base import Bindings, Change, Comparing, Entry, Holder
from .forms import FormReader, FormWriter
from .text import array_text, dtype_name, indented, shape_text

#: SequenceProto's field and elem_type for elements of each kind, by the kind's word (a
#: sequence type holds tensors or maps; a map's values are a SequenceProto of any kind).
SEQUENCE_FIELDS = {"tensor": ("tensor_values", SequenceProto.TENSOR),
                   "seq": ("sequence_values", SequenceProto.SEQUENCE),
                   "map": ("map_values", SequenceProto.MAP),
                   "optional": ("optional_values", SequenceProto.OPTIONAL)}


@dataclass(frozen=True)
class SequenceType(Holder):
    WORD: ClassVar[str] = "seq"
    TYPE_FIELD: ClassVar[str] = "sequence_type"
    PROTO: ClassVar[type] = SequenceProto
    FORMS: ClassVar[tuple[str, ...]] = ("seq(tensor(T))", "seq(map(K, V))")
    #: length: a sequence of another length.
    DIFFERENCES: ClassVar[dict[str, tuple[str, str]]] = {
        "length": ("length", "expected a sequence of length {e}, got length {g}")}
    ELEMENTS: ClassVar[tuple[str, ...]] = ("tensor", "map")
    REFUSAL: ClassVar[str] = "a sequence holds tensors or maps, write seq(tensor(T)) or " \
        "seq(map(K, V))"

    def encode(self, value: Any, empty_optional: str) -> SequenceProto:
        field, elem_type = SEQUENCE_FIELDS[self.element.WORD]
        proto = SequenceProto(elem_type=elem_type)
        getattr(proto, field).extend(self.element.encode(v, empty_optional) for v in value)
        return proto

    @classmethod
    def decode(cls, proto: Any, recurse: Callable[[Any], Any]) -> list[Any]:
        fields = {elem_type: field for field, elem_type in SEQUENCE_FIELDS.values()}
        if proto.elem_type == SequenceProto.UNDEFINED:
            return [recurse(t) for t in proto.tensor_values]
        if proto.elem_type not in fields:
            raise TypeError(f"Unsupported sequence element kind: {proto.elem_type}")
        return [recurse(v) for v in getattr(proto, fields[proto.elem_type])]

    @staticmethod
    def holds(value: Any) -> bool:
        return isinstance(value, (list, tuple))

    @staticmethod
    def describe(value: Any) -> str:
        return f"a sequence of length {len(value)}"

    def differ(self, expected: Any, actual: Any, elements: Place,
               comparing: Comparing) -> list[Difference]:
        if not self.holds(actual):
            return [comparing.other_kind(expected, actual, elements)]
        if len(actual) != len(expected):
            return [Difference("length", str(len(expected)), str(len(actual)),
                               elements=elements)]
        found = []
        for k, (want, got) in enumerate(zip(expected, actual, strict=True)):
            found.extend(comparing.inside(want, got, self.element, (*elements, k)))
        return found

    def check(self, value: Any, label: str, bindings: Bindings, messages: list[str]) -> None:
        if not isinstance(value, list):
            messages.append(f"{label} is declared {self}, but its value is not a sequence")
            return
        for i, element in enumerate(value):
            self.element.check(element, f"{label}, element {i}", bindings, messages)

    def read_case(self, node: Any, form: FormReader, what: str) -> Any:
        """A list of the elements' forms, each may be a `{by_type: ...}`."""
        if form.refuse_mapping(node, self, f"a list of tensors ({self})", what):
            return form.INVALID
        items = form.sequence(node, f"{what} ({self}, a list of tensors)")
        if items is form.INVALID:
            return form.INVALID
        items = [form.by_type_element(item, self, what) for item in items]
        elements = [form.INVALID if item is form.INVALID else
                    self.element.read_case(item, form, f"element {i} of {what}")
                    for i, item in enumerate(items)]
        return form.INVALID if any(e is form.INVALID for e in elements) else elements

    def case_data(self, value: Any, form: FormWriter, what: str) -> Any:
        return form.flow([self.element.case_data(v, form, what) for v in value])

    def parts(self, value: Any, change: Change) -> Any:
        return [change(v, self.element) for v in value] if isinstance(value, list) else value

    def entries(self, value: Any) -> list[Entry]:
        return [(k, item, self.element) for k, item in enumerate(value)]

    def python_form(self) -> str:
        return "a list"

    @classmethod
    def proto_parts(cls, proto: Any) -> list[Any]:
        found = [part for field, _ in SEQUENCE_FIELDS.values() for part in getattr(proto, field)]
        return found + [part for sparse in proto.sparse_tensor_values
                        for part in (sparse.values, sparse.indices)]

    def render(self, head: str, value: Any, full: bool) -> list[str]:
        """`sequence(len=N), element_shape=(2, 3), element_dtype=float32`, then `[`, one
        `[i] <array>` line per element, `]`; `element_shape=mixed` and `[i] shape=(..)
        <array>` when the elements' shapes differ. Elements other than tensors show as
        their kind renders them, one `[i]` header each."""
        element = self.element
        if element.WORD != "tensor":
            lines = [f"{head}sequence(len={len(value)}), element_type={element}"]
            for i, item in enumerate(value):
                lines += element.render(f"    [{i}] ", item, full)
            return lines
        shapes = {shape_text(v) for v in value}
        dtype = dtype_name(value[0]) if value else \
            element.declared_dtype()  # type: ignore[attr-defined]  # a tensor type's
        shape_part = (f"element_shape={next(iter(shapes))}, " if len(shapes) == 1
                      else "element_shape=mixed, " if shapes else "")
        lines = [f"{head}sequence(len={len(value)}), {shape_part}element_dtype={dtype}"]
        if not value:
            return lines + ["    []"]
        lines.append("    [")
        for i, item in enumerate(value):
            first = f"      [{i}] " + ("" if len(shapes) == 1 else f"shape={shape_text(item)} ")
            lines += indented(array_text(item, full), first, " " * len(first))
        return lines + ["    ]"]
