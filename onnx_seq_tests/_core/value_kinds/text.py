"""Values as text, shared by the kinds: an array as numpy prints it, a value in a message.

Strings print quoted; float8/float6/float4/bfloat16 print by value (widened to float32, which
holds each exactly) with their own dtype name; int4/uint4/int2/uint2 likewise (as int8/uint8).
Arrays over numpy's threshold are summarised as numpy does unless `full`.
"""

from __future__ import annotations

import sys
from typing import Any

import ml_dtypes
import numpy as np

from ..elements import BY_DTYPE, BY_PROTO

#: numpy's default: arrays with more elements than this are summarised (`...`).
THRESHOLD = 1000
_NARROW_INTS = {np.dtype(getattr(ml_dtypes, n)): np.dtype(w) for n, w in (
    ("int4", "int8"), ("uint4", "uint8"), ("int2", "int8"), ("uint2", "uint8"))
    if hasattr(ml_dtypes, n)}

#: A value in a message (and in a Difference) is cut to this many characters.
MAX_SHOWN = 80


def array_text(array: np.ndarray, full: bool = False) -> str:
    """`array` as numpy's array2string prints it (`, ` between items, numpy's line width)."""
    array = np.asarray(array)
    if array.dtype.kind in "OSU":
        array = np.vectorize(_text_of, otypes=[object])(array) if array.size else array
    elif array.dtype in _NARROW_INTS:
        array = array.astype(_NARROW_INTS[array.dtype])
    elif array.dtype.kind not in "biufc":  # bfloat16, float8/6/4 kinds: exact in float32
        array = array.astype(np.float32)
    return str(np.array2string(array, separator=", ", threshold=sys.maxsize if full else THRESHOLD,
                           max_line_width=75, precision=8, floatmode="maxprec",
                           suppress_small=False, sign="-", legacy=False))


def _text_of(item: Any) -> str:
    return item.decode("utf-8", "backslashreplace") if isinstance(item, bytes) else str(item)


def element_text(proto: int) -> str:
    """An element type of a TypeProto by its name (`float`), or by its number when it has none
    this package knows."""
    element = BY_PROTO.get(proto)
    return element.name if element else f"element type {proto}"


def dtype_name(array: np.ndarray) -> str:
    """numpy's name of the dtype; `string` for text."""
    array = np.asarray(array)
    if array.dtype.kind in "OSU":
        return "string"
    return str(array.dtype.name)


def indented(text: str, first: str, rest: str) -> list[str]:
    """`text`'s lines, the first after `first`, the others after `rest`."""
    lines = text.split("\n")
    return [first + lines[0]] + [rest + line if line else "" for line in lines[1:]]


def shape_text(array: Any) -> str:
    """An array's shape as a Python tuple: `(2, 3)`."""
    return repr(tuple(int(d) for d in np.shape(array)))


def dtype_text(dtype: np.dtype) -> str:
    """A dtype in a message: the element type's name, with numpy's when it differs."""
    element = BY_DTYPE.get(dtype)
    name = element.name if element else None
    if name is None:
        return str(dtype)
    if dtype.kind == "O":
        return "string (object)"
    return name if name == str(dtype) else f"{name} ({dtype})"


def shown(value: Any) -> str:
    """A value as a message shows it, at most MAX_SHOWN characters: a str or bytes by its
    repr (cut like any other: a backend's long string must not make a long message)."""
    return cut(repr(value) if isinstance(value, (str, bytes)) else str(value))


def cut(text: str) -> str:
    """`text`, cut to at most MAX_SHOWN characters."""
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN - 3] + "..."
