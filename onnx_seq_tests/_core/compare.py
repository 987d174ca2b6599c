"""The comparator: a backend's outputs against a case's expected values, recursively.

Checked in this order, stopping at the first difference of structure: value kind (tensor,
sequence, optional), sequence length, present vs empty optional, dtype exactly, shape exactly,
then values: exact for integers, bool and strings, NaN equal to NaN and floats within
`atol + rtol * |expected|`. Values follow onnx's backend convention (ndarray, list, None).

With no tolerance at all (atol = rtol = 0, what every case of the suite asks: its operators
move data and compute nothing) a float must come out bit for bit: -0.0 as -0.0, and a NaN as
the same NaN (sign, quiet bit and payload), since a copy that changes them is a wrong copy.
With a tolerance (a computed result), any NaN equals any NaN.

Every difference is a record (differences.py: its kind, where it is, short texts of what was
expected and what came), and the message that says where it is is rendered from it, for example
`output 0 (seq), element 2, index [1, 0]: expected 3.5, got 3.0`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from .differences import Difference
from .elements import BY_DTYPE, is_nan, nan_text
from .errors import ArgumentError, OutputMismatch
from .problems import quote
from .value_types import OptionalType, SequenceType, TensorType, ValueType

#: Tolerances when a case folder has no data.json: the defaults of onnx's test loader.
DEFAULT_RTOL = 1e-3
DEFAULT_ATOL = 1e-7


def assert_outputs_match(expected: Sequence[Any], actual: Any, *, atol: float | None = None,
                         rtol: float | None = None, names: Sequence[str] | None = None,
                         types: Sequence[ValueType | None] | None = None) -> None:
    """Raise OutputMismatch listing every difference between `expected` and `actual`."""
    problems = compare_outputs(expected, actual, atol=atol, rtol=rtol, names=names, types=types)
    if problems:
        raise OutputMismatch("\n".join(problems))


def compare_outputs(expected: Sequence[Any], actual: Any, *, atol: float | None = None,
                    rtol: float | None = None, names: Sequence[str] | None = None,
                    types: Sequence[ValueType | None] | None = None) -> list[str]:
    """The differences between expected and actual graph outputs, as messages (empty: equal);
    the messages of `differences`."""
    return [d.text() for d in differences(expected, actual, atol=atol, rtol=rtol, names=names,
                                          types=types)]


def differences(expected: Sequence[Any], actual: Any, *, atol: float | None = None,
                rtol: float | None = None, names: Sequence[str] | None = None,
                types: Sequence[ValueType | None] | None = None) -> list[Difference]:
    """The differences between expected and actual graph outputs, as records (empty: equal).

    `names` and `types` (graph output names and ValueTypes, in order) are optional: names make
    messages clearer, types decide kinds where a value alone cannot (an empty optional vs a
    present one holding a sequence).
    """
    atol, rtol = _arguments(expected, atol, rtol, names, types)
    if isinstance(actual, (np.ndarray, str, bytes)) or not hasattr(actual, "__len__"):
        return [Difference("outputs", str(len(expected)), _describe(actual))]
    actual = list(actual)
    if len(actual) != len(expected):
        return [Difference("count", str(len(expected)), str(len(actual)))]
    found: list[Difference] = []
    for i, (want, got) in enumerate(zip(expected, actual, strict=True)):
        value_type = types[i] if types else None
        name = names[i] if names else ""
        found.extend(replace(d, output=i, name=name)
                     for d in _differ(want, got, value_type, atol, rtol))
    return found


def _arguments(expected: Any, atol: Any, rtol: Any, names: Any,
               types: Any) -> tuple[float, float]:
    """atol and rtol with their defaults; ArgumentError naming the first bad argument:
    `expected` a list (or tuple) of output values, `atol` and `rtol` None or a number >= 0,
    `names` and `types` None or a list of one str (one ValueType) per expected output. What
    `actual` holds is what is judged, so it is never an argument error."""
    if not isinstance(expected, (list, tuple)):
        raise ArgumentError("expected must be a list of the expected output values (numpy "
                            "arrays, lists for sequences, None for an empty optional), not "
                            f"{type(expected).__name__}")
    tolerances = []
    for name, value, default in (("atol", atol, DEFAULT_ATOL), ("rtol", rtol, DEFAULT_RTOL)):
        if value is None:
            value = default
        elif (isinstance(value, bool) or not isinstance(value, (int, float, np.number))
              or not value >= 0):
            raise ArgumentError(f"{name} must be None or a number >= 0, not {quote(value)}")
        tolerances.append(float(value))
    for name, given, kind, label in (("names", names, str, "str"),
                                     ("types", types, ValueType, "ValueType")):
        if given is not None and not (
                isinstance(given, (list, tuple)) and len(given) == len(expected)
                and all(isinstance(item, kind) for item in given)):
            raise ArgumentError(f"{name} must be None or a list of one {label} per "
                                f"expected output ({len(expected)}), not {quote(given)}")
    return tolerances[0], tolerances[1]


def compare_value(expected: Any, actual: Any, where: str, value_type: ValueType | None = None,
                  atol: float = DEFAULT_ATOL, rtol: float = DEFAULT_RTOL) -> list[str]:
    """The differences between one expected value and one actual value, found at `where`."""
    return [d.text(where) for d in _differ(expected, actual, value_type, atol, rtol)]


def _differ(expected: Any, actual: Any, value_type: ValueType | None, atol: float, rtol: float,
            elements: tuple[int, ...] = ()) -> list[Difference]:
    """The differences between one expected value and one actual value, inside the sequence
    `elements` of an output (the records' output is the caller's to set)."""
    if value_type is None:
        value_type = _type_of(expected)
    if isinstance(value_type, OptionalType):
        if expected is None:
            if actual is None:
                return []
            return [Difference("optional", "an empty optional", _describe(actual),
                               elements=elements)]
        if actual is None:
            return [Difference("optional", f"a present optional holding {_describe(expected)}",
                               "an empty optional", elements=elements)]
        return _differ(expected, actual, value_type.element, atol, rtol, elements)
    if isinstance(value_type, SequenceType):
        if not isinstance(actual, (list, tuple)):
            return [_other_kind(expected, actual, elements)]
        if len(actual) != len(expected):
            return [Difference("length", str(len(expected)), str(len(actual)),
                               elements=elements)]
        found = []
        for k, (want, got) in enumerate(zip(expected, actual, strict=True)):
            found.extend(_differ(want, got, value_type.element, atol, rtol, (*elements, k)))
        return found
    return _compare_tensor(np.asarray(expected), actual, elements, atol, rtol)


def _other_kind(expected: Any, actual: Any, elements: tuple[int, ...]) -> Difference:
    """`actual` is not the kind of value `expected` is; an empty optional where a value is
    expected is kind optional."""
    return Difference("optional" if actual is None else "kind", _describe(expected),
                      _describe(actual), elements=elements)


def _type_of(value: object) -> ValueType | None:
    """The kind a value has in the backend convention, when no graph type is known."""
    if value is None:
        return OptionalType(None)  # type: ignore[arg-type]  # the kind alone: no element known
    if isinstance(value, (list, tuple)):
        return SequenceType(None)  # type: ignore[arg-type]
    return TensorType(None)  # type: ignore[arg-type]


def _compare_tensor(expected: np.ndarray, actual: Any, elements: tuple[int, ...], atol: float,
                    rtol: float) -> list[Difference]:
    if isinstance(actual, np.generic):  # a numpy scalar is a 0-d tensor
        actual = np.asarray(actual)
    if not isinstance(actual, np.ndarray):
        return [_other_kind(expected, actual, elements)]
    if actual.dtype != expected.dtype:
        return [Difference("dtype", _dtype_name(expected.dtype), _dtype_name(actual.dtype),
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


def _dtype_name(dtype: np.dtype) -> str:
    element = BY_DTYPE.get(dtype)
    name = element.name if element else None
    if name is None:
        return str(dtype)
    if dtype.kind == "O":
        return "string (object)"
    return name if name == str(dtype) else f"{name} ({dtype})"


def _describe(value: Any) -> str:
    """A short description of what a value is, for messages."""
    if value is None:
        return "an empty optional (None)"
    if isinstance(value, np.generic):
        value = np.asarray(value)
    if isinstance(value, np.ndarray):
        return f"a tensor of {_dtype_name(value.dtype)} with shape {list(value.shape)}"
    if isinstance(value, (list, tuple)):
        return f"a sequence of length {len(value)}"
    return f"a {type(value).__name__} ({_show(value)})"


def _show_element(value: Any) -> str:
    """One tensor element as a message shows it; a NaN with its bits when they are not the
    usual ones (`nan(0x7fa00001)`)."""
    if isinstance(value, np.generic) and value.dtype.kind not in "OSUbiuc" and bool(
            is_nan(value)):
        return nan_text(value)
    return _show(value)


#: A value in a message (and in a Difference) is cut to this many characters.
MAX_SHOWN = 80


def _show(value: Any) -> str:
    """A value as a message shows it, at most MAX_SHOWN characters: a str or bytes by its
    repr (cut like any other: a backend's long string must not make a long message)."""
    text = repr(value) if isinstance(value, (str, bytes)) else str(value)
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN - 3] + "..."
