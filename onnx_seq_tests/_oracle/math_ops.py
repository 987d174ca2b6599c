"""The tensor operators real exporters (scikit-learn models converted by skl2onnx, torch
exports) place around sequences that compute: Exp, Log, Sqrt, Pow, Relu, Sigmoid, Softmax,
LogSoftmax, MatMul, Gemm, Max, Min, Sum, and those that move data: Expand, Flatten, Transpose,
Tile; with the reductions of reductions.py (ArgMax, ArgMin, ReduceMax, ReduceMin, ReduceMean,
ReduceLogSumExp, ReduceSumSquare, TopK) and scan.py's Scan one table, at every version
onnx.defs has, inside their schemas' type rules (tensor_ops.typed).

Results keep the element type, by the rules of elementwise.py's docstring: float results are
computed in float64 (float32 for float16 and bfloat16) and rounded once to the declared type,
never left in float64, which the spec's real-number formulas allow; integer arithmetic wraps as
the element type does; an integer result that is not a whole number (Pow with a negative or
fractional exponent, Gemm with a fractional alpha) has no result the spec gives: OracleError.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .._core.cases import Node
from .._core.errors import OracleError
from .._core.work import MISSING, check_elements
from .elementwise import broadcast, float_work, in_type
from .reductions import REDUCTION_OPERATORS, is_float
from .scan import SCAN_OPERATORS
from .tensor_ops import Entry, axis_index, ints, typed


def _same_type(op: str, tensors: list[np.ndarray]) -> np.dtype:
    if len({t.dtype for t in tensors}) > 1:
        raise OracleError(f"{op}'s inputs differ in type: "
                          + ", ".join(str(t.dtype) for t in tensors))
    return tensors[0].dtype


# -- element-wise -------------------------------------------------------------------------------

def _float_unary(function: Callable[[np.ndarray], Any]) -> Entry:
    """Exp ('Calculates the exponential of the given input tensor, element-wise'), Log ('the
    natural log'), Sqrt ('y = x^0.5... If x is negative, then it will return NaN'), Sigmoid
    ('y = 1 / (1 + exp(-x))'): X and Y of one float type T."""
    def run(node: Node, args: list[Any], attributes: dict[str, Any],
            version: int) -> list[Any]:
        data = np.asarray(args[0])
        with np.errstate(all="ignore"):
            result = function(data.astype(float_work(data.dtype)))
        return [in_type(result, data.dtype, node.op_type)]
    return typed(run)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return np.asarray(1 / (1 + np.exp(-x)))


def relu(node: Node, args: list[Any], attributes: dict[str, Any], version: int) -> list[Any]:
    """Relu: 'the rectified linear function, y = max(0, x), is applied to the tensor
    elementwise' (integer types from 14)."""
    data = np.asarray(args[0])
    return [np.asarray(np.maximum(data, np.zeros((), data.dtype)), dtype=data.dtype)]


def power(node: Node, args: list[Any], attributes: dict[str, Any], version: int) -> list[Any]:
    """Pow: 'produces one output data (Tensor<T>) where the function f(x) = x^exponent, is
    applied to the data tensor elementwise'; broadcast as elementwise.broadcast says (the
    broadcast and axis attributes before 7). X and Y of one type T before 12, from 12 Y of
    its own type T1, the result in X's type. An integer result wraps as the type does; an
    integer base with a fractional or negative exponent (but for bases 1 and -1) gives no
    whole number, and the spec names no rounding: OracleError."""
    base, exponent = np.asarray(args[0]), np.asarray(args[1])
    if version < 12:
        _same_type("Pow", [base, exponent])
    base, exponent = broadcast(node, base, exponent, attributes, version)
    if is_float(base.dtype):
        work = float_work(base.dtype)
        with np.errstate(all="ignore"):
            result = np.power(base.astype(work), exponent.astype(work))
        return [in_type(result, base.dtype, "Pow")]
    shape = np.broadcast_shapes(base.shape, exponent.shape)
    values = [_int_power(int(x), y, base.dtype) for x, y in np.broadcast(base, exponent)]
    return [np.array(values, dtype=object).reshape(shape).astype(base.dtype)]


def _int_power(base: int, exponent: Any, dtype: np.dtype) -> int:
    if not math.isfinite(float(exponent)) or float(exponent) != math.trunc(float(exponent)):
        raise OracleError(f"Pow of {dtype} {base} to {exponent}: not a whole number, and the "
                          "spec names no rounding to an integer type")
    power_of = int(exponent)
    if power_of < 0:
        if base not in (1, -1):
            raise OracleError(f"Pow of {dtype} {base} to {power_of}: not a whole number, "
                              "and the spec names no rounding to an integer type")
        return -1 if base == -1 and power_of % 2 else 1
    bits = dtype.itemsize * 8
    value = pow(base, power_of, 1 << bits)
    return value - (1 << bits) if dtype.kind == "i" and value >> (bits - 1) else value


def _variadic(function: Callable[[np.ndarray, np.ndarray], Any]) -> Entry:
    """Max, Min, Sum: 'Element-wise max (min, sum) of each of the input tensors.' Before 8 'All
    inputs and outputs must have the same shape and data type'; from 8 'with Numpy-style
    broadcasting support'. A float Sum is added in float64 and rounded once."""
    def run(node: Node, args: list[Any], attributes: dict[str, Any],
            version: int) -> list[Any]:
        tensors = [np.asarray(a) for a in args]
        dtype = _same_type(node.op_type, tensors)
        if version < 8 and len({t.shape for t in tensors}) > 1:
            raise OracleError(f"{node.op_type}-{version}: 'All inputs and outputs must have "
                              "the same shape', got "
                              + ", ".join(str(list(t.shape)) for t in tensors))
        try:
            shape = np.broadcast_shapes(*(t.shape for t in tensors))
        except ValueError:
            raise OracleError(f"{node.op_type}: shapes "
                              + ", ".join(str(list(t.shape)) for t in tensors)
                              + " do not broadcast") from None
        check_elements(math.prod(shape), f"{node.op_type}'s result")
        work = float_work(dtype) if node.op_type == "Sum" and is_float(dtype) else dtype
        result = np.broadcast_to(tensors[0].astype(work), shape)
        with np.errstate(all="ignore"):
            for tensor in tensors[1:]:
                result = function(result, tensor.astype(work))
        return [in_type(np.array(result, dtype=work), dtype, node.op_type)]
    return typed(run)


# -- Softmax, LogSoftmax ------------------------------------------------------------------------

def _normalised(values: np.ndarray, axis: int, log: bool) -> np.ndarray:
    """exp(x) / sum(exp(x)) along `axis` (its log with `log`), shifted by the maximum."""
    if values.size == 0:
        return values
    top = np.max(values, axis=axis, keepdims=True)
    shifted = values - np.where(np.isfinite(top), top, 0)
    total = np.sum(np.exp(shifted), axis=axis, keepdims=True)
    return np.asarray(shifted - np.log(total) if log else np.exp(shifted) / total)


def _softmax(log: bool) -> Entry:
    """Softmax ('Softmax(input, axis) = Exp(input) / ReduceSum(Exp(input), axis=axis,
    keepdims=1)' from 13) and LogSoftmax (its log). Before 13 'The input does not need to
    explicitly be a 2D vector; rather, it will be coerced into one. For an arbitrary
    n-dimensional tensor input in [a_0, a_1, ..., a_{k-1}, a_k, ..., a_{n-1}] and k is the axis
    provided, then input will be coerced into a 2-dimensional tensor with dimensions [a_0 * ...
    * a_{k-1}, a_k * ... * a_{n-1}]', axis default 1 (negative from 11); from 13 'The axis
    attribute indicates the dimension along which Softmax will be performed', default -1."""
    def run(node: Node, args: list[Any], attributes: dict[str, Any],
            version: int) -> list[Any]:
        data, op = np.asarray(args[0]), node.op_type
        work = data.astype(float_work(data.dtype))
        axis = attributes.get("axis", -1 if version >= 13 else 1)
        if version < 11 and axis < 0:
            raise OracleError(f"{op}-{version} axis {axis}: negative axes come at {op}-11")
        axis = axis_index(axis, data.ndim, f"{op} axis")
        with np.errstate(all="ignore"):
            if version >= 13:
                result = _normalised(work, axis, log)
            else:
                rows = math.prod(data.shape[:axis])
                flat = work.reshape(rows, math.prod(data.shape[axis:]))
                result = _normalised(flat, 1, log).reshape(data.shape)
        return [in_type(result, data.dtype, op)]
    return typed(run)


# -- MatMul, Gemm -------------------------------------------------------------------------------

def matmul(node: Node, args: list[Any], attributes: dict[str, Any], version: int) -> list[Any]:
    """MatMul: 'Matrix product that behaves like numpy.matmul': a 1-D operand is promoted to a
    matrix (a 1 prepended on the left, appended on the right) and that dimension removed from
    the result; the leading (batch) dimensions broadcast. Integer products wrap as the element
    type does (integer types from 9)."""
    left, right = (np.asarray(a) for a in args)
    dtype = _same_type("MatMul", [left, right])
    if left.ndim == 0 or right.ndim == 0:
        raise OracleError(f"MatMul of shapes {list(left.shape)} and {list(right.shape)}: "
                          "numpy.matmul takes no scalar")
    rows = left.shape if left.ndim > 1 else (1, *left.shape)
    columns = right.shape if right.ndim > 1 else (*right.shape, 1)
    try:
        if rows[-1] != columns[-2]:
            raise ValueError
        batch = np.broadcast_shapes(rows[:-2], columns[:-2])
    except ValueError:
        raise OracleError(f"MatMul of shapes {list(left.shape)} and {list(right.shape)}: the "
                          "inner dimensions differ or the batch dimensions do not broadcast"
                          ) from None
    check_elements(math.prod(batch) * rows[-2] * columns[-1] * max(rows[-1], 1),
                   "MatMul's products")
    work = float_work(dtype) if is_float(dtype) else dtype
    with np.errstate(all="ignore"):
        result = np.matmul(left.astype(work), right.astype(work))
    return [in_type(result, dtype, "MatMul")]


def gemm(node: Node, args: list[Any], attributes: dict[str, Any], version: int) -> list[Any]:
    """Gemm: 'A' = transpose(A) if transA else A, B' = transpose(B) if transB else B. Compute Y
    = alpha * A' * B' + beta * C, where input tensor A has shape (M, K) or (K, M), input tensor B
    has shape (K, N) or (N, K), input tensor C is broadcastable to shape (M, N)... (tensor C
    should be unidirectional broadcastable to tensor A * B)' from 7; before 7 C is (M X N) and
    'If attribute broadcast is non-zero, input tensor C will be broadcasted'. C is optional
    from 11. Integer types from 9: alpha and beta must then be whole numbers."""
    a, b = np.asarray(args[0]), np.asarray(args[1])
    given = [a, b] + ([np.asarray(args[2])] if len(args) > 2 and args[2] is not MISSING else [])
    dtype = _same_type("Gemm", given)
    if a.ndim != 2 or b.ndim != 2:
        raise OracleError(f"Gemm of shapes {list(a.shape)} and {list(b.shape)}: A and B must "
                          "be matrices")
    a = a.T if attributes.get("transA", 0) else a
    b = b.T if attributes.get("transB", 0) else b
    if a.shape[1] != b.shape[0]:
        raise OracleError(f"Gemm: A' {list(a.shape)} and B' {list(b.shape)} differ in K")
    product = (a.shape[0], b.shape[1])
    alpha, beta = attributes.get("alpha", 1.0), attributes.get("beta", 1.0)
    c = given[2] if len(given) > 2 else np.zeros((), dtype)
    if len(given) > 2 and version < 7 and not attributes.get("broadcast", 0) and (
            c.shape != product):
        raise OracleError(f"Gemm-{version} C {list(c.shape)} without broadcast=1 must be "
                          f"(M, N) = {list(product)}")
    if c.ndim > 2 or any(d not in (1, p) for d, p in zip(c.shape[::-1], product[::-1],
                                                         strict=False)):
        raise OracleError(f"Gemm: C {list(c.shape)} is not unidirectionally broadcastable to "
                          f"(M, N) = {list(product)}")
    check_elements(math.prod(product) * max(a.shape[1], 1), "Gemm's products")
    if is_float(dtype):
        work = float_work(dtype)
        result = alpha * np.matmul(a.astype(work), b.astype(work)) + beta * c.astype(work)
        return [in_type(result, dtype, "Gemm")]
    if alpha != int(alpha) or beta != int(beta):
        raise OracleError(f"Gemm of {dtype} with alpha {alpha}, beta {beta}: the spec names no "
                          "rounding to an integer type")
    with np.errstate(all="ignore"):
        scaled = [np.asarray(int(s)).astype(dtype) for s in (alpha, beta)]
        result = scaled[0] * np.matmul(a, b) + scaled[1] * np.broadcast_to(c, product)
    return [np.asarray(result, dtype=dtype)]


# -- Expand, Flatten, Transpose, Tile -----------------------------------------------------------

def expand(node: Node, args: list[Any], attributes: dict[str, Any], version: int) -> list[Any]:
    """Expand: 'Broadcast the input tensor following the given shape and the broadcast rule...
    similar to numpy.array(input) * numpy.ones(shape): Dimensions are right alignment; Two
    corresponding dimensions must have the same value, or one of them is equal to 1... It is
    possible that the output.shape is not equal to shape, when some dimensions in shape is
    equal to 1, or the shape.ndim < input.shape.ndim.'"""
    data = np.asarray(args[0])
    wanted = ints(args[1], "Expand's shape")
    if any(d < 0 for d in wanted):
        raise OracleError(f"Expand to {wanted}: a dimension is negative")
    try:
        shape = np.broadcast_shapes(data.shape, tuple(wanted))
    except ValueError:
        raise OracleError(f"Expand of {list(data.shape)} to {wanted}: 'Two corresponding "
                          "dimensions must have the same value, or one of them is equal to 1'"
                          ) from None
    check_elements(math.prod(shape), "Expand's result")
    return [np.array(np.broadcast_to(data, shape))]


def flatten(node: Node, args: list[Any], attributes: dict[str, Any], version: int) -> list[Any]:
    """Flatten: 'Flattens the input tensor into a 2D matrix. If input tensor has shape (d_0,
    d_1, ... d_n) then the output will have shape (d_0 X d_1 ... d_(axis-1), d_axis X
    d_(axis+1) ... X dn).' axis (default 1) 'must be in the range [0, R]', from 11 '[-r, r]...
    Negative value means counting dimensions from the back'."""
    data = np.asarray(args[0])
    axis = attributes.get("axis", 1)
    low = -data.ndim if version >= 11 else 0
    if not low <= axis <= data.ndim:
        raise OracleError(f"Flatten-{version} axis {axis} is out of the accepted range [{low}, "
                          f"{data.ndim}]")
    axis = axis + data.ndim if axis < 0 else axis
    return [np.array(data.reshape(math.prod(data.shape[:axis]), math.prod(data.shape[axis:])))]


def transpose(node: Node, args: list[Any], attributes: dict[str, Any],
              version: int) -> list[Any]:
    """Transpose: 'perm must contain each axis index in [0, n-1] exactly once... Axis i of the
    output tensor corresponds to axis perm[i] of the input tensor. If the attribute is omitted,
    its default value is (n-1, ..., 0)'."""
    data = np.asarray(args[0])
    perm = list(attributes.get("perm", range(data.ndim - 1, -1, -1)))
    if sorted(perm) != list(range(data.ndim)):
        raise OracleError(f"Transpose perm {perm} of a rank-{data.ndim} tensor: 'perm must "
                          f"contain each axis index in [0, n-1] exactly once'")
    return [np.array(np.transpose(data, perm))]


def tile(node: Node, args: list[Any], attributes: dict[str, Any], version: int) -> list[Any]:
    """Tile: 'Constructs a tensor by tiling a given tensor. This is the same as function tile
    in Numpy, but no broadcast'; repeats: '1D int64 tensor of the same length as input's
    dimension number, includes numbers of repeated copies along input's dimensions'. At 1:
    'Repeat the elements of a tensor along an axis', tiles 'Number of repeated copies to make
    of the input tensor', axis 'Axis along which to repeat', both of the input's type T: one
    whole number each."""
    data = np.asarray(args[0])
    if version == 1:
        tiles, axis = (np.asarray(v, dtype=np.float64).reshape(-1) for v in args[1:3])
        if tiles.size != 1 or axis.size != 1 or axis[0] < 0 or any(
                v[0] != math.trunc(v[0]) for v in (tiles, axis)):
            raise OracleError(f"Tile-1 tiles {tiles.tolist()}, axis {axis.tolist()}: one "
                              "whole number each, the axis non-negative")
        repeats = [1] * data.ndim
        repeats[axis_index(int(axis[0]), data.ndim, "Tile-1 axis")] = int(tiles[0])
    else:
        repeats = ints(args[1], "Tile's repeats")
    if len(repeats) != data.ndim or any(r < 0 for r in repeats):
        raise OracleError(f"Tile repeats {repeats} of a rank-{data.ndim} tensor: 'of the same "
                          "length as input's dimension number', none negative")
    check_elements(data.size * math.prod(repeats), "Tile's result")
    return [np.array(np.tile(data, repeats) if repeats else data)]


#: These operators, reductions.py's and scan.py's, as entries of the oracle's table.
MATH_OPERATORS: dict[str, Entry] = {
    "Exp": _float_unary(np.exp),
    "Log": _float_unary(np.log),
    "Sqrt": _float_unary(np.sqrt),
    "Sigmoid": _float_unary(_sigmoid),
    "Relu": typed(relu),
    "Pow": typed(power),
    "Max": _variadic(np.maximum),
    "Min": _variadic(np.minimum),
    "Sum": _variadic(np.add),
    "Softmax": _softmax(log=False),
    "LogSoftmax": _softmax(log=True),
    "MatMul": typed(matmul),
    "Gemm": typed(gemm),
    "Expand": typed(expand),
    "Flatten": typed(flatten),
    "Transpose": typed(transpose),
    "Tile": typed(tile),
    **REDUCTION_OPERATORS,
    **SCAN_OPERATORS,
}
