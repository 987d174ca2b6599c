"""The tensor kind: `tensor(T)`, a TensorProto, a numpy array (a numpy scalar is a 0-d one).

Compared in this order: dtype exactly, shape exactly, then values: exact for integers, bool and
strings, NaN equal to NaN and floats within `atol + rtol * |expected|`; with no tolerance at all
a float must come out bit for bit (-0.0 as -0.0, a NaN with its sign, quiet bit and payload).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from onnx import TensorProto, TypeProto, helper, numpy_helper

from ..differences import Difference, Place
from ..elements import BY_DTYPE, BY_PROTO, ELEMENTS, ElementType, is_nan, nan_text
from ..errors import TypeTextError
from ..problems import quote
from .base import Bindings, Change, Comparing, Dim, Shape, ValueType
from .forms import FormReader, FormWriter
from .text import array_text, dtype_name, dtype_text, element_text, indented, shape_text, shown


@dataclass(frozen=True)
class TensorType(ValueType):
    element: ElementType
    shape: Shape = None

    WORD: ClassVar[str] = "tensor"
    TYPE_FIELD: ClassVar[str] = "tensor_type"
    PROTO: ClassVar[type] = TensorProto
    FORMS: ClassVar[tuple[str, ...]] = ("tensor(T)",)
    #: dtype, shape: another element type, shape; value: the values differ (`index` is the
    #: first, `differ` of `size` do); bits: as value, but the first differing value is equal
    #: as a number and differs in its bits only (the sign of a zero, a NaN's sign or payload).
    DIFFERENCES: ClassVar[dict[str, tuple[str, str]]] = {
        "dtype": ("dtype", "expected dtype {e}, got {g}"),
        "shape": ("shape", "expected shape {e}, got {g}"),
        "value": ("value", "expected {e}, got {g}"), "bits": ("value", "expected {e}, got {g}")}

    def __str__(self) -> str:
        return f"tensor({self.element.name})"

    @classmethod
    def from_text(cls, inner: str, shape: Shape,
                  recurse: Callable[[str, Shape], ValueType]) -> ValueType:
        if inner not in ELEMENTS:
            raise TypeTextError(f"unknown element type {quote(inner)} in "
                                f"{quote(f'tensor({inner})')}; known: "
                                + ", ".join(sorted(ELEMENTS)))
        return cls(ELEMENTS[inner], shape)

    def type_proto(self) -> TypeProto:
        shape = None if self.shape is None else list(self.shape)
        return helper.make_tensor_type_proto(self.element.proto, shape)

    @classmethod
    def from_type_proto(cls, proto: TypeProto,
                        recurse: Callable[[TypeProto], ValueType]) -> ValueType:
        shape = None
        if proto.tensor_type.HasField("shape"):
            shape = tuple(_dim(d) for d in proto.tensor_type.shape.dim)
        return cls(BY_PROTO[proto.tensor_type.elem_type], shape)

    def innermost(self) -> ValueType:
        return self

    @classmethod
    def proto_text(cls, proto: TypeProto, recurse: Callable[[TypeProto], str]) -> str:
        return f"tensor({element_text(proto.tensor_type.elem_type)})"

    def encode(self, value: Any, empty_optional: str) -> TensorProto:
        return numpy_helper.from_array(np.asarray(value, dtype=self.element.dtype))

    @classmethod
    def decode(cls, proto: Any, recurse: Callable[[Any], Any]) -> np.ndarray:
        """A string tensor's elements are its UTF-8 strings exactly: onnx's
        `numpy_helper.to_array` goes through a fixed-width numpy string, which drops trailing
        NUL characters ("a\\0" -> "a")."""
        if proto.data_type == TensorProto.STRING:
            strings = [item.decode("utf-8") for item in proto.string_data]
            return np.array(strings, dtype=object).reshape(tuple(proto.dims))
        return numpy_helper.to_array(proto)

    @staticmethod
    def holds(value: Any) -> bool:
        return isinstance(value, (np.ndarray, np.generic))

    @staticmethod
    def describe(value: Any) -> str:
        value = np.asarray(value)
        return f"a tensor of {dtype_text(value.dtype)} with shape {list(value.shape)}"

    @classmethod
    def bare(cls) -> ValueType:
        return cls(None)  # type: ignore[arg-type]  # the kind alone: no element known

    def differ(self, expected: Any, actual: Any, elements: Place,
               comparing: Comparing) -> list[Difference]:
        if not self.holds(actual):
            return [comparing.other_kind(expected, actual, elements)]
        return _compare_tensor(np.asarray(expected), np.asarray(actual), elements,
                               comparing.atol, comparing.rtol)

    def check(self, value: Any, label: str, bindings: Bindings, messages: list[str]) -> None:
        if value is None or isinstance(value, (list, dict)):
            what = ("an empty optional" if value is None else
                    "a sequence" if isinstance(value, list) else "a map")
            messages.append(f"{label} is declared {self}, but its value is {what}")
            return
        value = np.asarray(value)
        if value.dtype != self.element.dtype:
            messages.append(f"{label} is declared {self}, but its value holds {value.dtype}")
            return
        if self.shape is not None:
            _check_shape(value, self.shape, label, bindings, messages)

    def untensorable(self) -> str:
        return ""

    def render(self, head: str, value: Any, full: bool) -> list[str]:
        array = np.asarray(value)
        return ([f"{head}shape={shape_text(array)}, dtype={dtype_name(array)}"]
                + indented(array_text(array, full), "    ", "    "))

    def read_case(self, node: Any, form: FormReader, what: str) -> Any:
        if form.refuse_mapping(node, self, f"a number, string or nested list ({self})", what):
            return form.INVALID
        return form.tensor(node, self, what)

    def case_data(self, value: Any, form: FormWriter, what: str) -> Any:
        return form.tensor(value, self, what)

    def parts(self, value: Any, change: Change) -> Any:
        return value

    def python_form(self) -> str:
        return "numpy.ndarray"

    def declared_dtype(self) -> str:
        """The dtype name `show` gives its values, from the type alone."""
        dtype = self.element.dtype
        return "string" if self.element.kind == "string" else np.dtype(dtype).name


def _dim(dim: Any) -> Dim:
    if dim.HasField("dim_value"):
        return int(dim.dim_value)
    if dim.HasField("dim_param"):
        return str(dim.dim_param)
    return None


def _check_shape(array: np.ndarray, shape: tuple[Dim, ...], label: str, bindings: Bindings,
                 messages: list[str]) -> None:
    """A named dim stands for one size in every tensor of a sequence and across a data set's
    inputs and outputs (ONNX IR.md)."""
    if array.ndim != len(shape):
        messages.append(f"{label} has rank {array.ndim}, its type declares rank {len(shape)}")
        return
    for axis, (size, dim) in enumerate(zip(array.shape, shape, strict=True)):
        if isinstance(dim, int) and dim != size:
            messages.append(f"{label} has size {size} on axis {axis}, its type declares {dim}")
        elif isinstance(dim, str):
            bound = bindings.setdefault(dim, (size, label))
            if bound[0] != size:
                messages.append(
                    f"dim {quote(dim)} is {bound[0]} in {bound[1]} but {size} in {label} (axis "
                    f"{axis}); a named dim stands for one size in every tensor of a sequence "
                    "and across a data set's inputs and outputs (ONNX IR.md); declare the dim "
                    "as ~ (unknown) where sizes differ")


# -- comparing values -------------------------------------------------------------------------

def _compare_tensor(expected: np.ndarray, actual: np.ndarray, elements: Place,
                    atol: float, rtol: float) -> list[Difference]:
    if actual.dtype != expected.dtype:
        return [Difference("dtype", dtype_text(expected.dtype), dtype_text(actual.dtype),
                           elements=elements)]
    if actual.shape != expected.shape:
        return [Difference("shape", str(list(expected.shape)), str(list(actual.shape)),
                           elements=elements)]
    same = _equal_values(expected, actual, atol, rtol)
    if same.all():
        return []
    wrong = np.argwhere(~same)
    first = tuple(int(i) for i in wrong[0])
    want, got = expected[first], actual[first]
    kind = "bits" if _bits_only(want, got) else "value"
    return [Difference(kind, _show_element(want), _show_element(got), elements=elements,
                       index=first, differ=len(wrong), size=int(expected.size))]


def _bits_only(want: Any, got: Any) -> bool:
    """Whether two floats that differ are equal as numbers (both NaN, or -0.0 and 0.0): they
    differ in their bits only."""
    dtype = getattr(want, "dtype", None)
    element = None if dtype is None else BY_DTYPE.get(dtype)
    if element is None or element.kind != "float":
        return False
    with np.errstate(invalid="ignore"):
        wide_want = float(np.asarray(want).astype(np.float64))
        wide_got = float(np.asarray(got).astype(np.float64))
    return (math.isnan(wide_want) and math.isnan(wide_got)) or wide_want == wide_got


def _equal_values(expected: np.ndarray, actual: np.ndarray, atol: float,
                  rtol: float) -> np.ndarray:
    """Elementwise: exact for int, bool and string; NaN == NaN and tolerance for floats."""
    element = BY_DTYPE.get(expected.dtype)
    kind = element.kind if element else "string" if expected.dtype.kind == "O" else "int"
    if kind == "string":
        same = np.zeros(expected.shape, dtype=bool)
        for index in np.ndindex(expected.shape):
            want, got = expected[index], actual[index]
            same[index] = type(want) is type(got) and want == got
        return same
    if kind == "float":
        with np.errstate(invalid="ignore"):  # a signalling NaN read as float64
            wide_expected, wide_actual = expected.astype(np.float64), actual.astype(np.float64)
        same = _close(wide_expected, wide_actual, atol, rtol)
        if atol == 0 and rtol == 0:
            same &= _same_nan_bits(expected, actual)
        return same
    if kind == "complex":
        return np.asarray(
            _close(expected.real.astype(np.float64), actual.real.astype(np.float64), atol, rtol)
            & _close(expected.imag.astype(np.float64), actual.imag.astype(np.float64), atol,
                     rtol))
    return np.asarray(expected == actual)


def _same_nan_bits(expected: np.ndarray, actual: np.ndarray) -> np.ndarray:
    """Elementwise: true where `expected` is not a NaN, or `actual` has its exact bit pattern."""
    nan = is_nan(expected)
    if not nan.any():
        return np.ones(expected.shape, dtype=bool)
    unsigned = np.dtype(f"u{expected.dtype.itemsize}")
    return np.asarray(~nan | (expected.view(unsigned) == actual.view(unsigned)))


def _close(expected: np.ndarray, actual: np.ndarray, atol: float, rtol: float) -> np.ndarray:
    """An infinity equals only itself; NaN equals NaN; finite values within tolerance.

    With no tolerance at all the comparison is exact, and exact includes the sign of zero:
    these operators copy values, so -0.0 must come out as -0.0.
    """
    if atol == 0 and rtol == 0:
        same_sign = np.signbit(expected) == np.signbit(actual)
        return np.asarray(((expected == actual) & same_sign)
                          | (np.isnan(expected) & np.isnan(actual)))
    with np.errstate(invalid="ignore", over="ignore"):
        within = np.abs(actual - expected) <= atol + rtol * np.abs(expected)
    within &= np.isfinite(expected)
    return np.asarray((expected == actual) | (np.isnan(expected) & np.isnan(actual)) | within)


def _show_element(value: Any) -> str:
    """One tensor element as a message shows it; a NaN with its bits when they are not the
    usual ones (`nan(0x7fa00001)`)."""
    if isinstance(value, np.generic) and value.dtype.kind not in "OSUbiuc" and bool(
            is_nan(value)):
        return nan_text(value)
    return shown(value)
