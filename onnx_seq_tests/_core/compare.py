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

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from . import value_kinds
from .differences import Difference
from .errors import ArgumentError, OutputMismatch
from .problems import quote
from .value_kinds import ValueType

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
        return [Difference("outputs", str(len(expected)), value_kinds.describe(actual))]
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


def _differ(expected: Any, actual: Any, value_type: ValueType | None, atol: float,
            rtol: float) -> list[Difference]:
    """The differences between one expected value and one actual value (the records' output
    is the caller's to set): the kinds compare (value_kinds)."""
    return value_kinds.differ(expected, actual, value_type, atol, rtol)
