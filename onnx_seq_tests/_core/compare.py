"""The comparator: a backend's outputs against a case's expected values, recursively.

Checked in this order, stopping at the first difference of structure: value kind (tensor,
sequence, optional), sequence length, present vs empty optional, dtype exactly, shape exactly,
then values: exact for integers, bool and strings, NaN equal to NaN and floats within
`atol + rtol * |expected|`. Values follow onnx's backend convention (ndarray, list, None).

With no tolerance at all (atol = rtol = 0, what every case of the suite asks: its operators
move data and compute nothing) a float must come out bit for bit: -0.0 as -0.0, and a NaN as
the same NaN (sign, quiet bit and payload), since a copy that changes them is a wrong copy.
With a tolerance (a computed result), any NaN equals any NaN.

Every difference is a message that says where it is, for example
`output 0 (seq), element 2, index [1, 0]: expected 3.5, got 3.0`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .elements import BY_DTYPE, is_nan, nan_text
from .problems import ArgumentError, SeqTestsError, quote
from .value_types import OptionalType, SequenceType, TensorType, ValueType

#: Tolerances when a case folder has no data.json: the defaults of onnx's test loader.
DEFAULT_RTOL = 1e-3
DEFAULT_ATOL = 1e-7


class OutputMismatch(SeqTestsError, AssertionError):
    """Raised by `assert_outputs_match`; one line per difference."""


def assert_outputs_match(expected: Any, actual: Any, *, atol: float | None = None,
                         rtol: float | None = None, names: Sequence[str] | None = None,
                         types: Sequence[ValueType | None] | None = None) -> None:
    """Raise OutputMismatch listing every difference between `expected` and `actual`."""
    problems = compare_outputs(expected, actual, atol=atol, rtol=rtol, names=names, types=types)
    if problems:
        raise OutputMismatch("\n".join(problems))


def compare_outputs(expected: Any, actual: Any, *, atol: float | None = None,
                    rtol: float | None = None, names: Sequence[str] | None = None,
                    types: Sequence[ValueType | None] | None = None) -> list[str]:
    """The differences between expected and actual graph outputs, as messages (empty: equal).

    `names` and `types` (graph output names and ValueTypes, in order) are optional: names make
    messages clearer, types decide kinds where a value alone cannot (an empty optional vs a
    present one holding a sequence).
    """
    atol, rtol = _arguments(expected, atol, rtol, names, types)
    if isinstance(actual, (np.ndarray, str, bytes)) or not hasattr(actual, "__len__"):
        return [f"expected a list of {len(expected)} output(s), got {_describe(actual)}"]
    actual = list(actual)
    if len(actual) != len(expected):
        return [f"expected {len(expected)} output(s), got {len(actual)}"]
    problems = []
    for i, (want, got) in enumerate(zip(expected, actual, strict=True)):
        name = names[i] if names else None
        where = f"output {i} ({name})" if name else f"output {i}"
        value_type = types[i] if types else None
        problems.extend(compare_value(want, got, where, value_type, atol, rtol))
    return problems


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
    if value_type is None:
        value_type = _type_of(expected)
    if isinstance(value_type, OptionalType):
        if expected is None:
            if actual is None:
                return []
            return [f"{where}: expected an empty optional, got {_describe(actual)}"]
        if actual is None:
            return [f"{where}: expected a present optional holding {_describe(expected)}, "
                    "got an empty optional"]
        return compare_value(expected, actual, where, value_type.element, atol, rtol)
    if isinstance(value_type, SequenceType):
        if not isinstance(actual, (list, tuple)):
            return [f"{where}: expected {_describe(expected)}, got {_describe(actual)}"]
        if len(actual) != len(expected):
            return [f"{where}: expected a sequence of length {len(expected)}, got length "
                    f"{len(actual)}"]
        problems = []
        for k, (want, got) in enumerate(zip(expected, actual, strict=True)):
            problems.extend(compare_value(want, got, f"{where}, element {k}", value_type.element,
                                          atol, rtol))
        return problems
    return _compare_tensor(np.asarray(expected), actual, where, atol, rtol)


def _type_of(value: object) -> ValueType | None:
    """The kind a value has in the backend convention, when no graph type is known."""
    if value is None:
        return OptionalType(None)  # type: ignore[arg-type]  # the kind alone: no element known
    if isinstance(value, (list, tuple)):
        return SequenceType(None)  # type: ignore[arg-type]
    return TensorType(None)  # type: ignore[arg-type]


def _compare_tensor(expected: np.ndarray, actual: Any, where: str, atol: float,
                    rtol: float) -> list[str]:
    if isinstance(actual, np.generic):  # a numpy scalar is a 0-d tensor
        actual = np.asarray(actual)
    if not isinstance(actual, np.ndarray):
        return [f"{where}: expected {_describe(expected)}, got {_describe(actual)}"]
    if actual.dtype != expected.dtype:
        return [f"{where}: expected dtype {_dtype_name(expected.dtype)}, got "
                f"{_dtype_name(actual.dtype)}"]
    if actual.shape != expected.shape:
        return [f"{where}: expected shape {list(expected.shape)}, got {list(actual.shape)}"]
    same = _equal_values(expected, actual, atol, rtol)
    if same.all():
        return []
    wrong = np.argwhere(~same)
    first = tuple(int(i) for i in wrong[0])
    place = f"{where}, index {list(first)}" if first else where
    more = ""
    if len(wrong) > 1:
        more = f" ({len(wrong)} of {expected.size} values differ)"
    return [f"{place}: expected {_show_element(expected[first])}, got "
            f"{_show_element(actual[first])}{more}"]


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


def _show(value: Any) -> str:
    if isinstance(value, (str, bytes)):
        return repr(value)
    text = str(value)
    return text if len(text) <= 80 else text[:77] + "..."
