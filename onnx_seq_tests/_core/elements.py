"""Tensor element types: names, numpy dtypes, and how a case file spells their values.

The table is derived from onnx's own `TensorProto.DataType` enum and `onnx.helper`'s dtype map,
so every element type the installed onnx knows is here, named as onnx's type strings name it
(`tensor(float8e4m3fn)` -> `float8e4m3fn`).

Scalars are read from their YAML text, never from YAML 1.1's guesses: bools are `true`/`false`
only (`no`, `off`, `yes` are refused); integers are plain decimals (`010`, `0x10`, `1_000`,
`1:30` are refused, each with the reason); floats are decimals with an optional exponent
(`1e-3` is a number), `nan`, `inf`, `-inf`, and a NaN of a chosen bit pattern as
`nan(0x7fa00001)` (the element's whole bit pattern in hexadecimal, which must be a NaN of that
type; plain `nan` is the NaN numpy makes, `nan_bits` below); complex values are strings such
as '1.5-2j'; a string element is the text as written. A value outside its type's range is
refused, as is a nonzero float that would be stored as 0 and, for types of 8 bits or fewer, a
value that is not exactly representable.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np
from onnx import TensorProto, helper

from .errors import ScalarError
from .problems import quote, shorten

#: A decimal integer as case files write it (no leading zeros, no separators).
INT_TEXT = re.compile(r"[-+]?(0|[1-9][0-9]*)")
_FLOAT_WORDS = {
    "nan": math.nan, ".nan": math.nan, "+nan": math.nan,
    "inf": math.inf, "+inf": math.inf, ".inf": math.inf, "+.inf": math.inf,
    "-inf": -math.inf, "-.inf": -math.inf,
}
_FLOAT_TEXT = re.compile(r"[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?")
_BOOL_TRAPS = {"yes", "no", "on", "off", "y", "n", "True", "False", "TRUE", "FALSE", "Yes", "No"}
#: Integer text longer than this is out of every element type's range.
MAX_INT_DIGITS = 40


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
        return int(_finfo(self.dtype).bits) if self.kind == "float" else (
            self.dtype.itemsize * 8)

    def parse(self, text: str, quoted: bool) -> object:
        """Turn one scalar's YAML text into a Python value of this type, or raise ScalarError."""
        if self.kind == "string":
            return text
        if quoted and self.kind != "complex":
            raise ScalarError(f"{quote(text)} is quoted, so it is a string; write the {self.name} "
                              "value without quotes")
        if self.kind == "bool":
            return _parse_bool(text)
        if self.kind == "int":
            return _parse_int(text, self)
        if self.kind == "float":
            if text.startswith("nan("):
                return _parse_nan_bits(text, self)
            return _parse_float(text, self)
        return _parse_complex(text, self)


@functools.cache
def _finfo(dtype: np.dtype) -> Any:
    """ml_dtypes.finfo, once per dtype: it is asked for every scalar read."""
    return ml_dtypes.finfo(dtype)


@functools.cache
def _iinfo(dtype: np.dtype) -> Any:
    """ml_dtypes.iinfo, once per dtype."""
    return ml_dtypes.iinfo(dtype)


def _parse_bool(text: str) -> bool:
    if text == "true":
        return True
    if text == "false":
        return False
    if text in _BOOL_TRAPS:
        raise ScalarError(f"{quote(text)} is not a bool here (YAML 1.1 would guess one); write "
                          "true or false")
    raise ScalarError(f"{quote(text)} is not a bool; write true or false")


def int_range(element: ElementType) -> tuple[int, int]:
    """The smallest and largest value of an integer element type."""
    info = _iinfo(element.dtype)
    return int(info.min), int(info.max)


def _parse_int(text: str, element: ElementType) -> int:
    info = _iinfo(element.dtype)
    if not INT_TEXT.fullmatch(text):
        raise ScalarError(f"{quote(text)} is not a decimal integer ({element.name}); "
                          f"{int_hint(text)}")
    if len(text) > MAX_INT_DIGITS:
        raise ScalarError(f"{text[:12]}... ({len(text)} characters) does not fit in "
                          f"{element.name} (range {int(info.min)}..{int(info.max)})")
    value = int(text)
    if not int(info.min) <= value <= int(info.max):
        raise ScalarError(f"{value} does not fit in {element.name} (range {int(info.min)}.."
                          f"{int(info.max)})")
    return value


def int_hint(text: str) -> str:
    """How to write `text` as the decimal integer a case file wants (YAML 1.1 forms named)."""
    body = text.lstrip("+-")
    if re.fullmatch(r"0[0-9]+", body):
        return ("it has a leading zero (YAML 1.1 reads it as octal); write the decimal number "
                "without leading zeros")
    if re.fullmatch(r"0[xXoObB][0-9a-fA-F_]+", body):
        return "hexadecimal, octal and binary forms are not read; write the decimal number"
    if "_" in body and re.fullmatch(r"[0-9_]+", body):
        return "digit separators '_' are not read; write the digits alone"
    if re.fullmatch(r"[0-9]+(:[0-5]?[0-9])+", body):
        return "YAML 1.1 reads this as base 60 (1:30 is 90); write the decimal number"
    if _FLOAT_TEXT.fullmatch(text) or text.lower() in _FLOAT_WORDS:
        return "write a whole number without a fraction or exponent, such as -3 or 42"
    if text in ("true", "false") or text in _BOOL_TRAPS:
        return "write 1 for true and 0 for false"
    return "write a decimal integer such as -3 or 42"


def _float_of(text: str, element: ElementType) -> float:
    if text in _FLOAT_WORDS:
        return _FLOAT_WORDS[text]
    if text.lower() in _FLOAT_WORDS:
        return _FLOAT_WORDS[text.lower()]
    if not _FLOAT_TEXT.fullmatch(text):
        raise ScalarError(f"{quote(text)} is not a {element.name} number; write a decimal such as "
                          "1.5, 2, -1e-3, or nan, inf, -inf")
    value = float(text)
    if math.isinf(value):
        raise ScalarError(f"{shorten(text)} is too large for any float type; write inf or -inf "
                          "for an infinity")
    if value == 0 and re.search(r"[1-9]", text.split("e")[0].split("E")[0]):
        raise ScalarError(f"{shorten(text)} is too small for any float type and would be stored "
                          "as 0; write 0")
    return value


#: How a case file spells a NaN by its bit pattern: `nan(0x7fa00001)` (no colon: in a YAML flow
#: list a colon would force quotes, and a quoted scalar is a string).
NAN_BITS = re.compile(r"nan\(0x([0-9a-fA-F]+)\)")


def is_nan(array: Any) -> np.ndarray:
    """np.isnan for every float dtype, ml_dtypes' included (read through float64, quietly)."""
    with np.errstate(invalid="ignore"):
        return np.isnan(np.asarray(array).astype(np.float64))


def _unsigned(dtype: np.dtype) -> np.dtype:
    return np.dtype(f"u{np.dtype(dtype).itemsize}")


def nan_bits(value: Any) -> int | None:
    """The bit pattern of a float scalar that is a NaN other than the one numpy makes for its
    dtype (the one a case file spells `nan`); None for any other value."""
    value = np.asarray(value)
    if value.dtype.kind in "OSUbiuc" or not is_nan(value):
        return None
    bits = int(value.view(_unsigned(value.dtype))[()])
    canonical = int(np.array(np.nan, dtype=value.dtype).view(_unsigned(value.dtype))[()])
    return None if bits == canonical else bits


def nan_text(value: Any) -> str:
    """How a case file spells a float scalar that is a NaN: `nan`, or `nan(0x...)` for a NaN
    whose bits are not the ones numpy makes (sign, quiet bit or payload)."""
    bits = nan_bits(value)
    if bits is None:
        return "nan"
    return f"nan(0x{bits:0{2 * np.asarray(value).dtype.itemsize}x})"


def _parse_nan_bits(text: str, element: ElementType) -> Any:
    found = NAN_BITS.fullmatch(text)
    width = 2 * element.dtype.itemsize
    if not found or len(found.group(1)) > width:
        raise ScalarError(f"{quote(text)} is not a {element.name} bit pattern; write nan(0x...) "
                          f"with at most {width} hexadecimal digits, such as "
                          f"nan(0x{'7f'.ljust(width, 'f')})")
    digits = found.group(1)
    value = np.array(int(digits, 16), dtype=_unsigned(element.dtype)).view(element.dtype)[()]
    if not is_nan(value):
        raise ScalarError(f"{shorten(text)} is not a NaN of {element.name} (it reads as "
                          f"{float(np.asarray(value).astype(np.float64))!r}); write the number "
                          "itself, or the bits of a NaN")
    return value


def _parse_float(text: str, element: ElementType) -> float:
    value = _float_of(text, element)
    _check_float_fits(value, element, text)
    return value


def _check_float_fits(value: float, element: ElementType, text: str) -> None:
    with np.errstate(over="ignore", invalid="ignore"):
        stored = float(np.array(value, dtype=np.float64).astype(element.dtype).astype(
            np.float64))
    info = _finfo(element.dtype)
    if math.isnan(value):
        if not math.isnan(stored):
            raise ScalarError(f"{element.name} has no nan")
        return
    if math.isinf(value):
        if stored != value:
            raise ScalarError(f"{element.name} has no {shorten(text)}; it cannot hold infinities")
        return
    low, high = float(info.min), float(info.max)
    if math.isinf(stored) or math.isnan(stored) or (
            element.bits <= 8 and not low <= value <= high):
        raise ScalarError(f"{shorten(text)} is outside the range of {element.name} ({low!r} to "
                          f"{high!r})")
    if value != 0 and stored == 0:
        raise ScalarError(f"{shorten(text)} is too small for {element.name} and would be stored "
                          f"as 0; write 0, or a magnitude of at least "
                          f"{float(info.smallest_subnormal)!r}")
    if element.bits <= 8 and stored != value:
        raise ScalarError(f"{shorten(text)} is not exactly representable in {element.name}; the "
                          f"nearest value is {stored!r}, write that")


def _parse_complex(text: str, element: ElementType) -> complex:
    spelled = text.replace(" ", "")
    try:
        value = complex(spelled)
    except ValueError:
        raise ScalarError(f"{quote(text)} is not a {element.name} number; write a complex value as "
                          "a string like '1.5-2j', '3j' or '-1+0j'") from None
    part = np.float32 if element.dtype == np.complex64 else np.float64
    spelled_special = re.search(r"inf|nan", spelled.lower()) is not None
    with np.errstate(over="ignore", invalid="ignore"):
        parts = [float(part(value.real)), float(part(value.imag))]
    for component in parts:
        if not math.isfinite(component) and not spelled_special:
            raise ScalarError(f"{shorten(text)} does not fit in {element.name}; write inf or nan "
                              "for a special value")
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
#: numpy dtype -> its element type (each element type has a dtype of its own; strings: object).
BY_DTYPE: dict[np.dtype, ElementType] = {e.dtype: e for e in ELEMENTS.values()}

#: The element types ONNX stores packed, several values to a byte (a tensor of an odd count is
#: padded), by numpy dtype name -> values per byte.
PACKED_PER_BYTE = {"int4": 2, "uint4": 2, "float4_e2m1fn": 2, "int2": 4, "uint2": 4}
