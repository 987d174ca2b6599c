"""Tensor element types: names, numpy dtypes, and how a case file spells their values.

The table is derived from onnx's own `TensorProto.DataType` enum and `onnx.helper`'s dtype map,
so every element type the installed onnx knows is here, named as onnx's type strings name it
(`tensor(float8e4m3fn)` -> `float8e4m3fn`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import ml_dtypes
import numpy as np
from onnx import TensorProto, helper

#: Element types the seed documents list, the "classic" fifteen.
CLASSIC = (
    "bool", "complex64", "complex128", "double", "float", "float16", "int8", "int16", "int32",
    "int64", "string", "uint8", "uint16", "uint32", "uint64",
)

_INT_TEXT = re.compile(r"[-+]?(0|[1-9][0-9]*)")
_FLOAT_WORDS = {
    "nan": math.nan, ".nan": math.nan, "+nan": math.nan,
    "inf": math.inf, "+inf": math.inf, ".inf": math.inf, "+.inf": math.inf,
    "-inf": -math.inf, "-.inf": -math.inf,
}
_FLOAT_TEXT = re.compile(r"[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?")
_BOOL_TRAPS = {"yes", "no", "on", "off", "y", "n", "True", "False", "TRUE", "FALSE", "Yes", "No"}


class ScalarError(ValueError):
    """A scalar that does not fit its element type; the message says how to write it."""


@dataclass(frozen=True)
class ElementType:
    """One tensor element type: its onnx name, enum value and numpy dtype."""

    name: str
    proto: int
    dtype: np.dtype
    kind: str  # "bool", "int", "float", "complex" or "string"

    def __repr__(self) -> str:
        return f"ElementType({self.name})"

    @property
    def bits(self) -> int:
        if self.kind == "string":
            return 0
        return int(ml_dtypes.finfo(self.dtype).bits) if self.kind == "float" else (
            self.dtype.itemsize * 8)

    def parse(self, text: str, quoted: bool) -> object:
        """Turn one scalar's YAML text into a Python value of this type, or raise ScalarError."""
        if self.kind == "string":
            return text
        if quoted and self.kind != "complex":
            raise ScalarError(f"{text!r} is quoted, so it is a string; write the {self.name} "
                              "value without quotes")
        if self.kind == "bool":
            return _parse_bool(text)
        if self.kind == "int":
            return _parse_int(text, self)
        if self.kind == "float":
            return _parse_float(text, self)
        return _parse_complex(text, self)


def _parse_bool(text: str) -> bool:
    if text == "true":
        return True
    if text == "false":
        return False
    if text in _BOOL_TRAPS:
        raise ScalarError(f"{text!r} is not a bool here (YAML 1.1 would guess one); write true "
                          "or false")
    raise ScalarError(f"{text!r} is not a bool; write true or false")


def _parse_int(text: str, element: ElementType) -> int:
    if not _INT_TEXT.fullmatch(text):
        if re.fullmatch(r"[-+]?0[0-9]+", text):
            raise ScalarError(f"{text!r} has a leading zero (YAML 1.1 reads it as octal); write "
                              "the decimal number without leading zeros")
        raise ScalarError(f"{text!r} is not a {element.name} integer; write a decimal integer "
                          "such as -3 or 42")
    value = int(text)
    info = ml_dtypes.iinfo(element.dtype)
    if not int(info.min) <= value <= int(info.max):
        raise ScalarError(f"{value} does not fit in {element.name} (range {int(info.min)}.."
                          f"{int(info.max)})")
    return value


def _float_of(text: str, element: ElementType) -> float:
    if text in _FLOAT_WORDS:
        return _FLOAT_WORDS[text]
    if text.lower() in _FLOAT_WORDS:
        return _FLOAT_WORDS[text.lower()]
    if not _FLOAT_TEXT.fullmatch(text):
        raise ScalarError(f"{text!r} is not a {element.name} number; write a decimal such as "
                          "1.5, 2, -1e-3, or nan, inf, -inf")
    return float(text)


def _parse_float(text: str, element: ElementType) -> float:
    value = _float_of(text, element)
    _check_float_fits(value, element, text)
    return value


def _check_float_fits(value: float, element: ElementType, text: str) -> None:
    stored = float(np.array(value, dtype=np.float64).astype(element.dtype).astype(np.float64))
    if math.isnan(value):
        if not math.isnan(stored):
            raise ScalarError(f"{element.name} has no nan")
        return
    if math.isinf(value):
        if stored != value:
            raise ScalarError(f"{element.name} has no {text}; it cannot hold infinities")
        return
    if math.isinf(stored) or math.isnan(stored):
        info = ml_dtypes.finfo(element.dtype)
        raise ScalarError(f"{text} does not fit in {element.name} (largest finite value "
                          f"{float(info.max)})")
    if element.bits <= 8 and stored != value:
        raise ScalarError(f"{text} is not exactly representable in {element.name}; the nearest "
                          f"value is {stored!r}, write that")


def _parse_complex(text: str, element: ElementType) -> complex:
    spelled = text.replace(" ", "")
    try:
        value = complex(spelled)
    except ValueError:
        raise ScalarError(f"{text!r} is not a {element.name} number; write a complex value as "
                          "a string like '1.5-2j', '3j' or '-1+0j'") from None
    part = np.float32 if element.dtype == np.complex64 else np.float64
    for component in (value.real, value.imag):
        if math.isfinite(component) and not math.isfinite(float(part(component))):
            raise ScalarError(f"{text} does not fit in {element.name}")
    return value


def _kind(proto: int, dtype: np.dtype) -> str:
    if proto == TensorProto.BOOL:
        return "bool"
    if proto == TensorProto.STRING:
        return "string"
    if proto in (TensorProto.COMPLEX64, TensorProto.COMPLEX128):
        return "complex"
    try:
        ml_dtypes.iinfo(dtype)
        return "int"
    except ValueError:
        return "float"


def _build_table() -> dict[str, ElementType]:
    table = {}
    for enum_name, proto in TensorProto.DataType.items():
        if proto == TensorProto.UNDEFINED:
            continue
        dtype = np.dtype(helper.tensor_dtype_to_np_dtype(proto))
        name = enum_name.lower()
        table[name] = ElementType(name, proto, dtype, _kind(proto, dtype))
    return table


ELEMENTS: dict[str, ElementType] = _build_table()
BY_PROTO: dict[int, ElementType] = {e.proto: e for e in ELEMENTS.values()}


def element(name: str) -> ElementType:
    """The element type called `name` (`float`, `int64`, `bfloat16`, ...); KeyError if none."""
    return ELEMENTS[name]
