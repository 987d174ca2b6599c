"""What every value kind implements: the abstract `ValueType` each kind's class derives from.

A kind is one class in one module of this package (tensor.py, sequence.py, optional.py,
map.py) that owns every part of the kind: its type text (`str(t)`, `from_text`), its TypeProto
(`type_proto`, `from_type_proto`), its proto in a `.pb` file (`PROTO`, `encode`, `decode`), the
Python value that stands for it (`holds`, `describe`), the comparison of an expected value with
an actual one (`differ`), its rendering (`render`) and its IR checks (`check`). The registry
(`__init__.py`) dispatches to the kinds; a part that builds a type or a value of an unknown
kind (from text, from a TypeProto, from a proto, a nested comparison) gets the registry's
function as its `recurse` argument, so a kind imports no other kind.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from onnx import TypeProto

from ..differences import Difference, Place
from ..errors import TypeTextError
from ..problems import quote

Dim = int | str | None
Shape = tuple[Dim, ...] | None

#: How a comparison goes on inside a value: (expected, actual, type or None, sequence elements).
Differ = Callable[[Any, Any, "ValueType | None", Place], list[Difference]]
#: A named dim's first size and where it was seen, shared by the values of one data set.
Bindings = dict[str, tuple[int, str]]

@dataclass(frozen=True)
class Comparing:
    """What a comparison inside a value needs: the tolerances, the comparison of a value inside
    it and the description of any value (the registry's)."""

    atol: float
    rtol: float
    inside: Differ
    describe: Callable[[Any], str]

    def other_kind(self, expected: Any, actual: Any, elements: Place) -> Difference:
        """`actual` is not the kind of value `expected` is; an empty optional where a value is
        expected is kind optional."""
        return Difference("optional" if actual is None else "kind", self.describe(expected),
                          self.describe(actual), elements=elements)


class ValueType(ABC):
    """One value type of one kind; frozen dataclasses, so equal types compare and hash equal."""

    #: The word of its type text: `tensor`, `seq`, `optional`, `map`.
    WORD: ClassVar[str]
    #: Its field of TypeProto's `value` oneof.
    TYPE_FIELD: ClassVar[str]
    #: The proto class a `.pb` file of a value of this kind holds.
    PROTO: ClassVar[type]
    #: Its type forms in type text, T an element type (K a map key type), for messages.
    FORMS: ClassVar[tuple[str, ...]]

    @abstractmethod
    def __str__(self) -> str:
        """The onnx type string, without shape: `seq(tensor(float))`."""

    @classmethod
    @abstractmethod
    def from_text(cls, inner: str, shape: Shape,
                  recurse: Callable[[str, Shape], ValueType]) -> ValueType:
        """The type whose text is `WORD(inner)`; TypeTextError when it is not one."""

    @abstractmethod
    def type_proto(self) -> TypeProto:
        """The full TypeProto, shape included."""

    @classmethod
    @abstractmethod
    def from_type_proto(cls, proto: TypeProto,
                        recurse: Callable[[TypeProto], ValueType]) -> ValueType:
        """The type a TypeProto whose oneof is TYPE_FIELD describes."""

    @abstractmethod
    def innermost(self) -> ValueType:
        """The tensor type at the bottom (a map's value's)."""

    def inner_types(self) -> tuple[ValueType, ...]:
        """The types this one holds directly (a sequence's element, a map's value); none for a
        tensor."""
        return ()

    @abstractmethod
    def encode(self, value: Any, empty_optional: str) -> Any:
        """The proto of `value` (a PROTO), unnamed."""

    @classmethod
    @abstractmethod
    def decode(cls, proto: Any, recurse: Callable[[Any], Any]) -> Any:
        """The value a PROTO holds."""

    @staticmethod
    @abstractmethod
    def holds(value: Any) -> bool:
        """Whether `value` is this kind's Python form (onnx's backend convention)."""

    @staticmethod
    @abstractmethod
    def describe(value: Any) -> str:
        """A short description of a value of this kind, for messages."""

    @classmethod
    @abstractmethod
    def bare(cls) -> ValueType:
        """The kind alone, elements unknown: how a value is compared when no type is known."""

    @abstractmethod
    def differ(self, expected: Any, actual: Any, elements: Place,
               comparing: Comparing) -> list[Difference]:
        """The differences of `actual` from `expected` (the structure of this kind; the
        values inside through `comparing.inside`), inside the sequence `elements`."""

    @abstractmethod
    def check(self, value: Any, label: str, bindings: Bindings, messages: list[str]) -> None:
        """Append to `messages` each way `value` breaks this type (ONNX IR.md)."""

    @abstractmethod
    def untensorable(self) -> str:
        """Why the tensor-boundary form (`_suite/tensor_io.py`) cannot carry a value of this
        type; "" when it can (it builds it from tensors and takes it apart into tensors)."""

    @abstractmethod
    def render(self, head: str, value: Any, full: bool) -> list[str]:
        """The lines `show` prints for a value, the first starting with `head`
        (`  name: `)."""


@dataclass(frozen=True)
class Holder(ValueType):
    """A kind whose type holds one other type, `WORD(element)`: a sequence, an optional."""

    element: ValueType

    #: The kinds (their WORD) an element may be, and what a message says when it is another.
    ELEMENTS: ClassVar[tuple[str, ...]]
    REFUSAL: ClassVar[str]

    def __str__(self) -> str:
        return f"{self.WORD}({self.element})"

    def inner_types(self) -> tuple[ValueType, ...]:
        return (self.element,)

    @classmethod
    def from_text(cls, inner: str, shape: Shape,
                  recurse: Callable[[str, Shape], ValueType]) -> ValueType:
        element = recurse(inner, shape)
        if element.WORD not in cls.ELEMENTS:
            raise TypeTextError(f"{quote(f'{cls.WORD}({inner})')}: {cls.REFUSAL}")
        return cls(element)

    def type_proto(self) -> TypeProto:
        proto = TypeProto()
        getattr(proto, self.TYPE_FIELD).elem_type.CopyFrom(self.element.type_proto())
        return proto

    @classmethod
    def from_type_proto(cls, proto: TypeProto,
                        recurse: Callable[[TypeProto], ValueType]) -> ValueType:
        return cls(recurse(getattr(proto, cls.TYPE_FIELD).elem_type))

    def innermost(self) -> ValueType:
        return self.element.innermost()

    def untensorable(self) -> str:
        return self.element.untensorable()

    @classmethod
    def bare(cls) -> ValueType:
        return cls(None)  # type: ignore[arg-type]  # the kind alone: no element known
