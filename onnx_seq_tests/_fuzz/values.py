"""Random tensor values drawn to hit each element type's edges.

NaN (and NaN payloads, a negative NaN, signalling NaNs for float16/32/64), +-0.0, +-inf, subnormals,
the largest and lowest finite values; integer extremes; empty strings and strings with NUL or
non-ASCII text; complex values built from those parts; 0-d and zero-size tensors; packed
sub-byte types with odd counts. Every value is a value of its dtype (a float64 candidate is
cast to the element type, so what is drawn is what is stored). A shape never has a 0 before
another dim (the case format writes tensors as nested lists, which cannot hold that shape).
"""

from __future__ import annotations

import functools
import random
from typing import Any

import ml_dtypes
import numpy as np

from .._core.elements import ElementType

STRINGS = ("", "a", "\x00", "a\x00b", "é", "日本", "\U0001f600", "  ", "x" * 9)


@functools.cache
def edge_values(element: ElementType) -> tuple:
    """The edge values of an element type, as numpy scalars of its dtype (strings: str)."""
    dtype = element.dtype
    if element.kind == "string":
        return STRINGS
    if element.kind == "bool":
        return (np.bool_(False), np.bool_(True))
    if element.kind == "int":
        info: Any = ml_dtypes.iinfo(dtype)
        candidates: Any = {int(info.min), int(info.max), 0, 1, -1, 2, int(info.max) - 1}
        return tuple(np.array(v).astype(dtype)[()] for v in sorted(candidates)
                     if int(info.min) <= v <= int(info.max))
    if element.kind == "complex":
        parts = (0.0, -0.0, 1.5, np.nan, np.inf, -np.inf)
        return tuple(np.array(complex(r, i), dtype=dtype)[()] for r in parts for i in parts[:4])
    info = ml_dtypes.finfo(dtype)
    candidates = [0.0, -0.0, 1.0, -1.5, 2.0, np.nan, np.inf, -np.inf, float(info.max),
                  float(info.min), float(info.tiny), float(info.smallest_subnormal),
                  -float(info.smallest_subnormal)]
    with np.errstate(all="ignore"):
        found = [np.array(c, dtype=np.float64).astype(dtype)[()] for c in candidates]
    if dtype == np.float16:  # a signalling NaN (quiet bit clear, payload 0x101)
        found += [np.array(0x7D01, np.uint16).view(np.float16)[()]]
    if dtype == np.float32:  # a quiet NaN with a payload, a negative NaN, a signalling NaN
        found += [np.array(0x7FC00001, np.uint32).view(np.float32)[()],
                  np.array(0xFFC00000, np.uint32).view(np.float32)[()],
                  np.array(0x7FA00001, np.uint32).view(np.float32)[()]]
    if dtype == np.float64:
        found += [np.array(0x7FF8000000000001, np.uint64).view(np.float64)[()],
                  np.array(0x7FF4000000000001, np.uint64).view(np.float64)[()]]
    return tuple(found)


def draw_shape(rng: random.Random, rank: int | None = None, zero: bool = True) -> tuple:
    """A small shape: rank 0..3, dims 1..3, sometimes a last dim of 0."""
    rank = rng.choice((0, 1, 1, 1, 2, 2, 3)) if rank is None else rank
    shape = [rng.choice((1, 1, 2, 2, 3)) for _ in range(rank)]
    if rank and zero and rng.random() < 0.08:
        shape[-1] = 0
    return tuple(shape)


def draw_tensor(rng: random.Random, element: ElementType, shape: tuple) -> np.ndarray:
    """A tensor of `shape`: each value an edge value or an ordinary small one."""
    count = int(np.prod(shape, dtype=np.int64))
    edges = edge_values(element)
    items = [rng.choice(edges) if rng.random() < 0.4 else _ordinary(rng, element, edges)
             for _ in range(count)]
    if element.kind == "string":
        return np.array(items, dtype=object).reshape(shape)
    array = np.empty(count, dtype=element.dtype)
    for i, item in enumerate(items):
        array[i] = item
    return array.reshape(shape)


def _ordinary(rng: random.Random, element: ElementType, edges: tuple):
    if element.kind == "string":
        return rng.choice(("b", "cd", "hello", "0"))
    if element.kind == "bool":
        return np.bool_(rng.random() < 0.5)
    value = rng.randint(-3, 6)
    if element.kind == "int":
        info = ml_dtypes.iinfo(element.dtype)
        value = min(max(value, int(info.min)), int(info.max))
    with np.errstate(all="ignore"):
        return np.array(value).astype(element.dtype)[()]


