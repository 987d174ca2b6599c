"""What every value kind implements: the abstract `ValueType` each kind's class derives from.

A kind is one class in one module of this package (tensor.py, sequence.py, optional.py,
map.py) that owns every part of the kind: its type text (`str(t)`, `from_text`), its TypeProto
(`type_proto`, `from_type_proto`), its proto in a `.pb` file (`PROTO`, `encode`, `decode`), the
Python value that stands for it (`holds`, `describe`), the comparison of an expected value with
an actual one (`differ`, and the kinds of Difference it finds, `DIFFERENCES`), its rendering
(`render`) and its IR checks (`check`); and what the rooms above `_core` need of it, which they
reach only through these parts: its case-file form (`read_case`, `case_data` on the case
reader's and writer's primitives, `forms.py`; `case_schema`, `CASE_KEY`, `LETTERS`), its Python
value inside others and as runtimes' Python APIs hold it (`parts`, `entries`, `present`,
`python_form`, `to_api`, `from_api`), its fingerprint form (`canonical`), the protos and
TypeProtos inside its own (`proto_parts`, `inner_type_protos`), its spelling in onnx's
operator schemas (`from_schema_text`) and whether the tensor-boundary form carries it
(`untensorable`). The registry (`__init__.py`) dispatches to the kinds; a part that builds a
type or a value of an unknown kind (from text, from a TypeProto, from a proto, a nested
comparison) gets the registry's function as its `recurse` argument, so a kind imports no
other kind.
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
from .forms import FormReader, FormWriter

Dim = int | str | None
Shape = tuple[Dim, ...] | None

#: How a comparison goes on inside a value: (expected, actual, type or None, sequence elements).
Differ = Callable[[Any, Any, "ValueType | None", Place], list[Difference]]
#: A named dim's first size and where it was seen, shared by the values of one data set.
Bindings = dict[str, tuple[int, str]]
#: What a walk does to a value inside another: (the value, its type) -> the new value.
Change = Callable[[Any, "ValueType"], Any]
#: A value inside another: its place there (a sequence element's position, `key 'a'`), the
#: value, its type (None when not known).
Entry = tuple[int | str, Any, "ValueType | None"]

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
    #: The kinds of Difference its comparison finds (`differ`): kind -> (the word of the
    #: fuzzer's signatures for it, the template of its message over {e} and {g}).
    DIFFERENCES: ClassVar[dict[str, tuple[str, str]]] = {}

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

    # -- the case-file form (`_casefile/`) ---------------------------------------------------

    #: The one key of the mapping a case file writes a value of this kind as (`{map: ...}`);
    #: "" when its form is no such mapping.
    CASE_KEY: ClassVar[str] = ""
    #: The letters of FORMS other than T (an element type) and V (a type), each with the names
    #: it stands for (a map's key type K).
    LETTERS: ClassVar[dict[str, tuple[str, ...]]] = {}

    @abstractmethod
    def read_case(self, node: Any, form: FormReader, what: str) -> Any:
        """The value a case file writes at `node` (`what` names it in messages), or
        form.INVALID with the problems recorded."""

    @abstractmethod
    def case_data(self, value: Any, form: FormWriter, what: str) -> Any:
        """`value` as a case file writes it: plain data (lists, dicts, scalars) and the
        writer's own forms."""

    @classmethod
    def case_schema(cls, value: dict[str, Any]) -> dict[str, Any] | None:
        """The JSON Schema of CASE_KEY's mapping, `value` the schema of any value; None when
        the kind has no such mapping."""
        return None

    # -- Python values inside other values ---------------------------------------------------

    @abstractmethod
    def parts(self, value: Any, change: Change) -> Any:
        """`value` with each value directly inside it (a sequence's elements, a present
        optional's value, a map's values) made `change(item, its type)`; a value not of this
        kind, or of none inside (a tensor), as it is."""

    def entries(self, value: Any) -> list[Entry]:
        """The values directly inside a Python value of this kind, each with its place inside
        it (an element's position, `key 'a'`) and its type (None when not known: a bare
        type's)."""
        return []

    def present(self) -> ValueType:
        """The type a value of this type has when it is there (an optional's element's)."""
        return self

    @abstractmethod
    def python_form(self) -> str:
        """What the backend convention holds a value of this type as, for messages:
        `numpy.ndarray`, `a list`."""

    def to_api(self, value: Any, recurse: Change) -> Any:
        """`value` as runtimes' Python APIs take it (onnxruntime's, the reference
        evaluator's): what lies inside through `recurse`."""
        return self.parts(value, recurse)

    def from_api(self, value: Any, recurse: Change) -> Any:
        """A value such a Python API gives, in the backend convention: what lies inside
        through `recurse`."""
        return self.parts(value, recurse)

    @classmethod
    def canonical(cls, value: Any, recurse: Callable[[Any], Any]) -> Any:
        """A value of plain values, tuples and one-key dicts whose repr tells apart any two
        values of this kind, the values inside through `recurse` (for fingerprints); None when
        its Python value is made of lists, arrays and None, which have their own."""
        return None

    @classmethod
    def proto_parts(cls, proto: Any) -> list[Any]:
        """The protos a PROTO holds directly (the TensorProtos of a sparse tensor too)."""
        return []

    @classmethod
    def inner_type_protos(cls, proto: TypeProto) -> list[TypeProto]:
        """The TypeProtos a TypeProto of this kind holds directly, read or not."""
        return []

    @classmethod
    @abstractmethod
    def proto_text(cls, proto: TypeProto, recurse: Callable[[TypeProto], str]) -> str:
        """The type text of a TypeProto of this kind, whatever it holds (unreadable kinds, an
        unknown element type), for messages; the types inside through `recurse`."""

    @classmethod
    def from_schema_text(cls, text: str) -> str:
        """A type text of onnx's operator schemas (`allowed_type_strs`) with this kind's types
        spelled as `str()` spells them; `text` when they are spelled alike."""
        return text


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

    @classmethod
    def inner_type_protos(cls, proto: TypeProto) -> list[TypeProto]:
        return [getattr(proto, cls.TYPE_FIELD).elem_type]

    @classmethod
    def proto_text(cls, proto: TypeProto, recurse: Callable[[TypeProto], str]) -> str:
        return f"{cls.WORD}({recurse(getattr(proto, cls.TYPE_FIELD).elem_type)})"

    def untensorable(self) -> str:
        return self.element.untensorable()

    @classmethod
    def bare(cls) -> ValueType:
        return cls(None)  # type: ignore[arg-type]  # the kind alone: no element known
