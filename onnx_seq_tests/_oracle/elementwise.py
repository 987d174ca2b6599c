"""The element-wise operators exporters put around sequences (Add, Sub, Mul, Div, Neg, Abs,
Ceil, Equal, Less, Greater, Not, And, Where), ReduceSum, Cast and CastLike, as the oracle runs
them at every version onnx.defs has, inside their schemas' type rules (tensor_ops.typed).

Results keep the element type: integer arithmetic wraps as the element type does (numpy with
the exact dtype), float arithmetic rounds once to the declared type (float16 and bfloat16 are
computed in float32, exact enough for one rounding of a sum or product), never left in float64.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import numpy as np
from onnx import TensorProto

from .._core.cases import Node
from .._core.elements import BY_DTYPE, BY_PROTO, ElementType
from .._core.errors import OracleError
from .._core.work import check_elements
from .tensor_ops import Entry, axes_of, axis_index, distinct, typed


def broadcast(node: Node, left: np.ndarray, right: np.ndarray, attributes: dict[str, Any],
              version: int) -> tuple[np.ndarray, np.ndarray]:
    """Both operands made to broadcast as numpy does. Before version 7: 'If necessary the
    right-hand-side argument will be broadcasted to match the shape of left-hand-side argument.
    When broadcasting is specified, the second tensor can either be of element size 1... or
    having its shape as a contiguous subset of the first tensor's shape. The starting of the
    mutually equal shape is specified by the argument axis, and if it is not set, suffix
    matching is assumed'; 'Attribute broadcast=1 needs to be passed to enable broadcasting.'
    From 7: 'multidirectional (i.e., Numpy-style) broadcasting'."""
    if version < 7 and node.op_type not in ("Not", "Where"):
        if not attributes.get("broadcast", 0):
            if left.shape != right.shape:
                raise OracleError(f"{node.op_type}-{version} without broadcast=1 needs one "
                                  f"shape, got {list(left.shape)} and {list(right.shape)}")
        elif not (right.size == 1 and right.ndim <= left.ndim):
            axis = attributes.get("axis", left.ndim - right.ndim)
            if list(left.shape[axis:axis + right.ndim]) != list(right.shape) or axis < 0:
                raise OracleError(f"{node.op_type}-{version}: {list(right.shape)} is not the "
                                  f"contiguous subset of {list(left.shape)} at axis {axis}")
            right = right.reshape(right.shape + (1,) * (left.ndim - axis - right.ndim))
    try:
        shape = np.broadcast_shapes(left.shape, right.shape)
    except ValueError:
        raise OracleError(f"{node.op_type}: shapes {list(left.shape)} and "
                          f"{list(right.shape)} do not broadcast") from None
    check_elements(math.prod(shape), f"{node.op_type}'s result")
    return left, right


_LOGICAL = ("Equal", "Less", "Greater", "And")


def _binary(function: Callable[[np.ndarray, np.ndarray], Any]) -> Entry:
    """Add, Sub, Mul ('Performs element-wise binary addition'...), Equal, Less, Greater, And
    ('Returns the tensor resulted from performing the less logical operation elementwise on the
    input tensors A and B'): A and B of one type T."""
    def run(node: Node, args: list[Any], attributes: dict[str, Any],
            version: int) -> list[Any]:
        left, right = (np.asarray(a) for a in args)
        if left.dtype != right.dtype:
            raise OracleError(f"{node.op_type} inputs differ in type: {left.dtype}, "
                              f"{right.dtype}")
        left, right = broadcast(node, left, right, attributes, version)
        with np.errstate(all="ignore"):
            result = np.asarray(function(left, right))
        return [result.astype(bool if node.op_type in _LOGICAL else left.dtype)]
    return typed(run)


def _divide(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Div: 'Performs element-wise binary division'; 'For integer inputs, the result is
    computed using truncating division (rounding toward zero).' An integer division by zero,
    or a quotient the element type cannot hold (its minimum by -1), has no result the spec
    gives: OracleError."""
    if left.dtype.kind not in "iu":
        return np.asarray(np.divide(left, right))
    if np.any(right == 0):
        raise OracleError("Div of integers by zero: the spec gives no result")
    quotient = [int(x) // int(y) if (x >= 0) == (y > 0) else -(abs(int(x)) // abs(int(y)))
                for x, y in np.broadcast(left, right)]
    info = np.iinfo(left.dtype)
    if quotient and not info.min <= min(quotient) <= max(quotient) <= info.max:
        raise OracleError(f"Div of {left.dtype}: a quotient is out of its range")
    return np.array(quotient, dtype=left.dtype).reshape(np.broadcast_shapes(left.shape,
                                                                              right.shape))


def _unary(function: Callable[[np.ndarray], Any]) -> Entry:
    """Neg ('each element flipped sign, y = -x'), Abs ('absolute value, y = abs(x)'), Ceil
    ('the ceil is, y = ceil(x), is applied to the tensor elementwise'): X and Y of one type T;
    integers wrap as the element type does (-(-128) is -128 in int8)."""
    def run(node: Node, args: list[Any], attributes: dict[str, Any],
            version: int) -> list[Any]:
        data = np.asarray(args[0])
        with np.errstate(all="ignore"):
            return [np.asarray(function(data)).astype(data.dtype)]
    return typed(run)


def _not(node: Node, args: list[Any], attributes: dict[str, Any], version: int) -> list[Any]:
    """Not: 'Returns the negation of the input tensor element-wise.'"""
    return [np.logical_not(np.asarray(args[0]))]


def where(node: Node, args: list[Any], attributes: dict[str, Any], version: int) -> list[Any]:
    """Where: 'Return elements, either from X or Y, depending on condition. Where behaves like
    numpy.where with three parameters... multidirectional (i.e., Numpy-style) broadcasting.'"""
    condition, x, y = (np.asarray(a) for a in args)
    if x.dtype != y.dtype:
        raise OracleError(f"Where's X and Y differ in type: {x.dtype}, {y.dtype}")
    try:
        shape = np.broadcast_shapes(condition.shape, x.shape, y.shape)
    except ValueError:
        raise OracleError(f"Where: shapes {list(condition.shape)}, {list(x.shape)} and "
                          f"{list(y.shape)} do not broadcast") from None
    check_elements(math.prod(shape), "Where's result")
    return [np.asarray(np.where(condition, x, y)).astype(x.dtype)]


def reduce_sum(node: Node, args: list[Any], attributes: dict[str, Any],
               version: int) -> list[Any]:
    """ReduceSum: 'Computes the sum of the input tensor's elements along the provided axes. The
    resulting tensor has the same rank as the input if keepdims equals 1... Input tensors of
    rank zero are valid. Reduction over an empty set of values yields 0.' axes an attribute
    before 13 ('The default is to reduce over all the dimensions'), an input from 13: 'When
    axes is empty (either not provided or explicitly empty), behavior depends on
    noop_with_empty_axes: reduction over all axes if noop_with_empty_axes is false, and
    reduction over the empty set of axes when noop_with_empty_axes is true.'"""
    data = np.asarray(args[0])
    axes = axes_of(args, attributes, version, "ReduceSum")
    keepdims = bool(attributes.get("keepdims", 1))
    if not axes:
        if version >= 13 and attributes.get("noop_with_empty_axes", 0):
            return [np.array(data)]
        chosen = list(range(data.ndim))
    else:
        chosen = [axis_index(a, data.ndim, "ReduceSum axis") for a in axes]
        distinct(chosen, "ReduceSum axes")
    work = np.dtype(np.float32) if BY_DTYPE[data.dtype].name in _HALF else data.dtype
    with np.errstate(all="ignore"):
        total = np.sum(data.astype(work), axis=tuple(chosen), keepdims=keepdims, dtype=work)
    return [np.asarray(total).astype(data.dtype)]


_HALF = ("float16", "bfloat16")


def float_work(dtype: np.dtype) -> np.dtype:
    """The type a float result of element type `dtype` is computed in before its one rounding
    to `dtype`: float32 for float16 and bfloat16, float64 otherwise."""
    return np.dtype(np.float32) if BY_DTYPE[dtype].name in _HALF else np.dtype(np.float64)


def in_type(values: Any, dtype: np.dtype, what: str) -> np.ndarray:
    """`values` (computed in float_work or float64) rounded once to `dtype`; for an integer
    `dtype` a value must be a whole number in its range: the spec names no rounding to one."""
    array: np.ndarray = np.asarray(values)
    if array.dtype == dtype:
        return array
    if dtype.kind not in "iu":
        with np.errstate(all="ignore"):
            return np.asarray(array.astype(dtype))
    info = np.iinfo(dtype)
    if array.size and not (np.isfinite(array).all() and (array == np.trunc(array)).all()
                           and info.min <= array.min() and array.max() <= info.max):
        raise OracleError(f"{what} in {dtype}: a result is not a whole number in the type's "
                          "range, and the spec names no rounding to an integer type")
    return np.asarray(np.array([int(v) for v in array.reshape(-1)], dtype=object).reshape(
        array.shape).astype(dtype))


# -- Cast ---------------------------------------------------------------------------------------

_NUMBER_TEXT = re.compile(r"[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?")
_INT_TEXT = re.compile(r"[-+]?[0-9]+")
_SPECIAL = {"+inf": math.inf, "inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def cast(node: Node, args: list[Any], attributes: dict[str, Any], version: int) -> list[Any]:
    """Cast: 'casts the elements of a given input tensor to a data type specified by the to
    argument' (a type name at version 1, the DataType enum from 6). 'Casting from floating
    point to: floating point: +/- infinity if OOR (out of range); fixed point: undefined if
    OOR; bool: +/- 0.0 to False; all else to True. Casting from fixed point to: floating point:
    +/- infinity if OOR; fixed point: when OOR, discard higher bits and reinterpret...; bool:
    zero to False; nonzero to True. Casting from bool to: floating point: {1.0, 0.0}; fixed
    point: {1, 0}.' The float 8, 6 and 4 conversion tables (saturate, round_mode) are not
    computed here: OracleError."""
    data = np.asarray(args[0])
    to = attributes["to"]
    target = BY_PROTO.get(TensorProto.DataType.Value(to.upper()) if isinstance(to, str) else to)
    source = BY_DTYPE.get(data.dtype) if data.dtype.kind not in "OUS" else BY_PROTO[
        TensorProto.STRING]
    if target is None or source is None:
        raise OracleError(f"Cast to {to!r}: not an element type the oracle knows")
    if source == target:
        return [np.array(data)]
    if "string" in (source.kind, target.kind):
        return [_cast_string(data, source, target)]
    if any(e.kind == "float" and e.bits < 16 for e in (source, target)):
        raise OracleError(f"Cast from {source.name} to {target.name}: the oracle does not "
                          "compute the conversion tables of the float 8, 6 and 4 types")
    if target.kind == "bool":
        return [data != 0]
    if target.kind == "float" or source.kind == "bool":
        with np.errstate(all="ignore"):
            return [data.astype(target.dtype)]
    if source.kind == "float":
        return [_float_to_fixed(data, source, target)]
    return [_wrap(data.astype(np.int64), target)]


def _wrap(data: np.ndarray, target: ElementType) -> np.ndarray:
    """'discard higher bits and reinterpret (with respect to two's complement representation for
    signed types)'."""
    bits = target.bits
    low = -(1 << (bits - 1)) if target.dtype.kind == "i" or target.name in ("int4", "int2") else 0
    wrapped = [((int(v) - low) % (1 << bits)) + low for v in data.reshape(-1)]
    return np.array(wrapped, dtype=np.int64).reshape(data.shape).astype(target.dtype)


def cast_like(node: Node, args: list[Any], attributes: dict[str, Any],
              version: int) -> list[Any]:
    """CastLike: 'casts the elements of a given input tensor (the first input) to the same data
    type as the elements of the second input tensor. See documentation of the Cast operator.'"""
    target = np.asarray(args[1]).dtype
    to = TensorProto.STRING if target.kind in "OUS" else BY_DTYPE[target].proto
    return cast(node, args[:1], {**attributes, "to": to}, version)


def _int_range(target: ElementType) -> tuple[int, int]:
    if target.name.startswith("int"):
        return -(1 << (target.bits - 1)), (1 << (target.bits - 1)) - 1
    return 0, (1 << target.bits) - 1


def _float_to_fixed(data: np.ndarray, source: ElementType, target: ElementType) -> np.ndarray:
    """Floating point to fixed point: 'undefined if OOR'; the spec names no rounding, so a value
    with a fraction has no result either."""
    values = data.astype(np.float64)
    low, high = _int_range(target)
    finite = np.isfinite(values)
    if not finite.all() or (values.size and not (low <= values.min() and values.max() <= high)):
        raise OracleError(f"Cast {source.name} to {target.name}: a value is out of range; "
                          "the spec: 'fixed point: undefined if OOR'")
    if np.any(values != np.trunc(values)):
        raise OracleError(f"Cast {source.name} to {target.name} of a value with a fraction: "
                          "the spec names no rounding to fixed point")
    return np.array([int(v) for v in values.reshape(-1)], dtype=object).reshape(
        data.shape).astype(target.dtype)


def _cast_string(data: np.ndarray, source: ElementType, target: ElementType) -> np.ndarray:
    """'Casting from string tensor in plain (e.g., "3.14" and "1000") and scientific numeric
    representations (e.g., "1e-5" and "1E8") to float types is supported... "+INF" (and "INF"),
    "-INF", and "NaN" are positive infinity, negative infinity, and not-a-number... Converting
    non-numerical-literal string such as "Hello World!" is an undefined behavior. Cases of
    converting string representing floating-point arithmetic value, such as "2.718", to INT is
    an undefined behavior.' To a string, 'plain floating-point representation' is not pinned
    down to digits; the oracle writes integers only."""
    texts = [str(v) for v in data.reshape(-1)]
    if target.kind == "string":
        if source.kind != "int":
            raise OracleError(f"Cast {source.name} to string: the spec does not pin down the "
                              "text ('plain floating-point representation')")
        return np.array(texts, dtype=object).reshape(data.shape)
    if target.kind == "float" and target.bits >= 16:
        if not all(_NUMBER_TEXT.fullmatch(t) or t.lower() in _SPECIAL for t in texts):
            raise OracleError(f"Cast string to {target.name} of {texts}: 'Converting "
                              "non-numerical-literal string... is an undefined behavior'")
        values = [_SPECIAL.get(t.lower(), math.nan) if t.lower() in _SPECIAL else float(t)
                  for t in texts]
        return np.array(values, dtype=np.float64).reshape(data.shape).astype(target.dtype)
    if target.kind == "int" and all(_INT_TEXT.fullmatch(t) for t in texts):
        low, high = _int_range(target)
        if not all(low <= int(t) <= high for t in texts):
            raise OracleError(f"Cast string to {target.name} of {texts}: a value is out of "
                              "range")
        return np.array([int(t) for t in texts], dtype=object).reshape(data.shape).astype(
            target.dtype)
    raise OracleError(f"Cast string to {target.name} of {texts}: no result the spec defines")


#: These operators, as entries of the oracle's table.
ELEMENTWISE_OPERATORS: dict[str, Entry] = {
    "Add": _binary(np.add),
    "Sub": _binary(np.subtract),
    "Mul": _binary(np.multiply),
    "Div": _binary(_divide),
    "Neg": _unary(np.negative),
    "Abs": _unary(np.absolute),
    "Ceil": _unary(np.ceil),
    "Equal": _binary(np.equal),
    "Less": _binary(np.less),
    "Greater": _binary(np.greater),
    "And": _binary(np.logical_and),
    "Not": typed(_not),
    "Where": typed(where),
    "ReduceSum": typed(reduce_sum),
    "Cast": typed(cast),
    "CastLike": typed(cast_like),
}
