"""The reductions real exporters place around sequences (ArgMax, ArgMin, ReduceMax, ReduceMin,
ReduceMean, ReduceLogSumExp, ReduceSumSquare, TopK), as the oracle runs them at every version
onnx.defs has, inside their schemas' type rules (tensor_ops.typed); math_ops.py merges them into
its table.

Results keep the element type, rounded as elementwise.py's docstring says: a float result is
computed in float64 (float32 for float16 and bfloat16) and rounded once to the declared type;
integer sums of squares wrap as the element type does; an integer mean or log-sum-exp that is
not a whole number has no result the spec gives (it names no rounding): OracleError.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._core import operators
from .._core.cases import Node
from .._core.elements import BY_DTYPE
from .._core.errors import OracleError
from .elementwise import float_work, in_type
from .tensor_ops import Entry, axes_of, axis_index, distinct, ints, typed

#: Each Reduce operator's version that takes axes as an input instead of an attribute.
_AXES_INPUT_FROM = {"ReduceMax": 18, "ReduceMin": 18, "ReduceMean": 18,
                    "ReduceLogSumExp": 18, "ReduceSumSquare": 18}


def is_float(dtype: np.dtype) -> bool:
    """Whether `dtype` is a float element type (float16, bfloat16, float, double, ...)."""
    return BY_DTYPE[dtype].kind == "float"


def reduced_axes(node: Node, data: np.ndarray, args: list[Any], attributes: dict[str, Any],
                 version: int) -> tuple[int, ...] | None:
    """The axes a Reduce operator reduces, None for none (a no-op). 'A list of integers, along
    which to reduce. The default is to reduce over all the dimensions of the input tensor';
    'Accepted range is [-r, r-1]' from 11; from 18 an input: 'When axes is empty (either not
    provided or explicitly empty), behavior depends on noop_with_empty_axes: reduction over
    all axes if noop_with_empty_axes is false, and reduction over the empty set of axes when
    noop_with_empty_axes is true.'"""
    op = node.op_type
    since = _AXES_INPUT_FROM[op]
    axes = axes_of(args, attributes, version, op, input_from=since)
    if not axes:
        if version >= since and attributes.get("noop_with_empty_axes", 0):
            return None
        return tuple(range(data.ndim))
    if version < 11 and any(a < 0 for a in axes):
        raise OracleError(f"{op}-{version} axes {axes}: negative axes come at {op}-11 "
                          "('Accepted range is [-r, r-1]')")
    chosen = [axis_index(a, data.ndim, f"{op} axis") for a in axes]
    distinct(chosen, f"{op} axes")
    return tuple(chosen)


def _empty_value(op: str, version: int, dtype: np.dtype) -> Any:
    """What a reduction over an empty set of values yields, by the schema's doc at `version`:
    ReduceMax 'minus infinity (if supported by the datatype) or the minimum value of the data
    type otherwise' (ReduceMin the mirror), ReduceLogSumExp 'minus infinity (if supported by
    the datatype) or undefined otherwise', ReduceSumSquare '0', ReduceMean 'undefined'. A
    version whose doc says nothing (ReduceMax-12, the 11s of the others) gives no result."""
    doc = operators.defined_schema(op, version).doc or ""
    floating = is_float(dtype)
    if "empty set of values yields" not in doc or op == "ReduceMean" or (
            op == "ReduceLogSumExp" and not floating):
        raise OracleError(f"{op}-{version} over an empty set of values: the spec gives no "
                          "result")
    if op == "ReduceSumSquare":
        return 0
    if op == "ReduceLogSumExp":
        return -np.inf
    lowest = op == "ReduceMax"
    if floating:
        return -np.inf if lowest else np.inf
    if dtype.kind == "b":
        return not lowest
    info = np.iinfo(dtype)
    return info.min if lowest else info.max


def _sum_square(data: np.ndarray, axes: tuple[int, ...], keep: bool) -> np.ndarray:
    if not is_float(data.dtype):
        with np.errstate(all="ignore"):
            return np.asarray(np.sum(data * data, axis=axes, keepdims=keep, dtype=data.dtype))
    work = data.astype(float_work(data.dtype))
    return np.asarray(np.sum(work * work, axis=axes, keepdims=keep))


def _mean(data: np.ndarray, axes: tuple[int, ...], keep: bool) -> np.ndarray:
    count = int(np.prod([data.shape[a] for a in axes]))
    if is_float(data.dtype):
        return np.asarray(np.sum(data.astype(float_work(data.dtype)), axis=axes,
                                 keepdims=keep) / count)
    totals = np.asarray(np.sum(data.astype(object), axis=axes, keepdims=keep))
    if any(int(t) % count for t in totals.reshape(-1)):
        raise OracleError(f"ReduceMean of {data.dtype}: a mean is not a whole number, and the "
                          "spec names no rounding to an integer type")
    return np.asarray(totals // count).astype(data.dtype)


def _log_sum_exp(data: np.ndarray, axes: tuple[int, ...], keep: bool) -> np.ndarray:
    work = data.astype(float_work(data.dtype) if is_float(data.dtype) else np.float64)
    top = np.max(work, axis=axes, keepdims=True)
    top = np.where(np.isfinite(top), top, 0)
    with np.errstate(all="ignore"):
        total = np.log(np.sum(np.exp(work - top), axis=axes, keepdims=True)) + top
    return np.asarray(total if keep else np.squeeze(total, axis=axes))


_REDUCE: dict[str, Callable[[np.ndarray, tuple[int, ...], bool], np.ndarray]] = {
    "ReduceMax": lambda d, axes, keep: np.asarray(np.max(d, axis=axes, keepdims=keep)),
    "ReduceMin": lambda d, axes, keep: np.asarray(np.min(d, axis=axes, keepdims=keep)),
    "ReduceMean": _mean,
    "ReduceLogSumExp": _log_sum_exp,
    "ReduceSumSquare": _sum_square,
}


def reduce(node: Node, args: list[Any], attributes: dict[str, Any], version: int) -> list[Any]:
    """ReduceMax, ReduceMin, ReduceMean, ReduceLogSumExp, ReduceSumSquare: 'Computes the max
    (min, mean, log sum exponent, sum square) of the input tensor's elements along the provided
    axes. The resulting tensor has the same rank as the input if keepdims equals 1. If keepdims
    equals 0, then the resulting tensor has the reduced dimension pruned. Input tensors of rank
    zero are valid.' ReduceMax-20 and ReduceMin-20 on bool: 'the comparison should consider
    False < True'."""
    data = np.asarray(args[0])
    op = node.op_type
    axes = reduced_axes(node, data, args, attributes, version)
    if axes is None:
        return [np.array(data)]
    keep = bool(attributes.get("keepdims", 1))
    if any(data.shape[a] == 0 for a in axes):
        shape = np.sum(np.zeros(data.shape, np.int8), axis=axes, keepdims=keep).shape
        return [np.full(shape, _empty_value(op, version, data.dtype), dtype=data.dtype)]
    with np.errstate(all="ignore"):
        result = _REDUCE[op](data, axes, keep)
    return [in_type(result, data.dtype, op)]


def _arg(pick: Callable[..., Any]) -> Entry:
    """ArgMax, ArgMin: 'Computes the indices of the max (min) elements of the input tensor's
    element along the provided axis. The resulting tensor has the same rank as the input if
    keepdims equals 1. If keepdims equal 0, then the resulting tensor has the reduced dimension
    pruned.' axis 'Accepted range is [-r, r-1]' from 11; from 12 'If select_last_index is True
    (default False), the index of the last occurrence of the max is selected if the max
    appears more than once in the input. Otherwise the index of the first occurrence is
    selected.' Before 12 the spec names no index for a tie, so a tie has no result."""
    def run(node: Node, args: list[Any], attributes: dict[str, Any],
            version: int) -> list[Any]:
        data, op = np.asarray(args[0]), node.op_type
        axis = attributes.get("axis", 0)
        if version < 11 and axis < 0:
            raise OracleError(f"{op}-{version} axis {axis}: negative axes come at {op}-11")
        axis = axis_index(axis, data.ndim, f"{op} axis")
        if data.shape[axis] == 0:
            raise OracleError(f"{op} along an empty axis: there is no index to give ('The "
                              "input tensor must not be empty')")
        extreme = np.expand_dims(pick(data, axis), axis)
        ties = np.sum(data == np.take_along_axis(data, extreme, axis), axis=axis) > 1
        if version < 12 and np.any(ties):
            raise OracleError(f"{op}-{version} with the extreme value more than once along "
                              f"the axis: the spec names which index only from {op}-12")
        if version >= 12 and attributes.get("select_last_index", 0):
            extreme = data.shape[axis] - 1 - np.expand_dims(pick(np.flip(data, axis), axis),
                                                            axis)
        if not attributes.get("keepdims", 1):
            extreme = np.squeeze(extreme, axis=axis)
        return [np.asarray(extreme, dtype=np.int64)]
    return typed(run)


def top_k(node: Node, args: list[Any], attributes: dict[str, Any], version: int) -> list[Any]:
    """TopK: 'Retrieve the top-K largest or smallest elements along a specified axis... Value
    tensor of shape [a_0, a_1, ..., a_{axis-1}, k, a_{axis+1}, ... a_{n-1}] which contains the
    values of the top k elements along the specified axis; Index tensor... which contains the
    indices of the top k elements'; 'Given two equivalent values, this operator uses the
    indices along the axis as a tiebreaker. That is, the element with the lower index will
    appear first.' k is an attribute at 1, from 10 the input K, 'A 1-D tensor containing a
    single positive value'; from 11 'If largest is 1 (the default value) then the k largest
    elements are returned', 'If sorted is 0, order of returned Values and Indices are
    undefined' (so with k > 1 there is no one result)."""
    data = np.asarray(args[0])
    if version < 10:
        if "k" not in attributes:
            raise OracleError("TopK-1 needs its k attribute")
        k = int(attributes["k"])
    else:
        given = ints(args[1], "TopK's K")
        if len(given) != 1 or given[0] <= 0:
            raise OracleError(f"TopK K {given}: 'A 1-D tensor containing a single positive "
                              "value'")
        k = given[0]
    axis = axis_index(attributes.get("axis", -1), data.ndim, "TopK axis")
    size = data.shape[axis]
    if not 0 <= k <= size:
        raise OracleError(f"TopK k {k} on an axis of size {size}: k must be within [0, {size}]")
    largest = version < 11 or bool(attributes.get("largest", 1))
    if version >= 11 and not attributes.get("sorted", 1) and k > 1:
        raise OracleError("TopK with sorted=0: 'order of returned Values and Indices are "
                          "undefined'")
    if largest:
        order = size - 1 - np.flip(np.argsort(np.flip(data, axis), axis=axis, kind="stable"),
                                   axis)
    else:
        order = np.argsort(data, axis=axis, kind="stable")
    indices = np.take(order, np.arange(k), axis=axis)
    return [np.array(np.take_along_axis(data, indices, axis)), indices.astype(np.int64)]


#: These operators, as entries of the oracle's table (merged into math_ops.MATH_OPERATORS).
REDUCTION_OPERATORS: dict[str, Entry] = {
    "ArgMax": _arg(np.argmax),
    "ArgMin": _arg(np.argmin),
    **{op: typed(reduce) for op in _REDUCE},
    "TopK": typed(top_k),
}
