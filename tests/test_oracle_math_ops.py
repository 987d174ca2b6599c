"""The oracle's computing operators (math_ops.py, reductions.py): hand-computed values on small
inputs for each operator, each version difference and each input the spec gives no result for
(OracleError), and a cross-check against onnxruntime on seeded random inputs for every version
onnx.defs has.

onnxruntime is a cross-check, never the source of the expected values (those are written out by
hand below)."""

from __future__ import annotations

import math
import random

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from test_oracle_tensor_ops import a, f, model, ort_outputs, run, same

from onnx_seq_tests._core import operators
from onnx_seq_tests._core.errors import OracleError
from onnx_seq_tests._oracle import oracle
from onnx_seq_tests._oracle.math_ops import MATH_OPERATORS

E = math.e


def close(expected, actual) -> None:
    assert actual.dtype == np.asarray(expected).dtype
    np.testing.assert_allclose(actual, expected, rtol=1e-6)


# -- element-wise -------------------------------------------------------------------------------

def test_exp_log_sqrt_sigmoid_round_once_to_the_type():
    got, = run("Exp", 13, [f([0, 1, -1])])
    close(f([1, E, 1 / E]), got)
    got, = run("Log", 6, [np.array([1, E, 0, -1], np.float64)])
    assert got[0] == 0 and got[1] == 1 and got[2] == -np.inf and np.isnan(got[3])
    got, = run("Sqrt", 13, [f([4, 2.25, -1])])
    assert got.dtype == np.float32 and got[:2].tolist() == [2, 1.5] and np.isnan(got[2])
    got, = run("Sigmoid", 13, [np.array([0, 2], np.float16)])
    assert got.dtype == np.float16 and got.tolist() == [0.5, np.float16(1 / (1 + E ** -2))]
    with pytest.raises(OracleError, match="input 0 is tensor\\(int64\\)"):
        run("Exp", 13, [a([1])])


def test_relu_takes_integers_from_14():
    got, = run("Relu", 14, [a([-3, 0, 5], np.int8)])
    assert same(a([0, 0, 5], np.int8), got)
    got, = run("Relu", 6, [f([-1.5, 2.5])])
    assert same(f([0, 2.5]), got)
    with pytest.raises(OracleError, match="which its schema does not admit"):
        run("Relu", 13, [a([-3, 0, 5], np.int8)])


def test_pow_mixed_types_from_12_and_integer_results():
    got, = run("Pow", 12, [f([2, 3]), a([3, -1])])  # Y int64 beside X float from 12
    close(f([8, 1 / 3]), got)
    with pytest.raises(OracleError, match="which its schema does not admit"):
        run("Pow", 7, [f([2, 3]), a([3, -1])])  # one type T before 12
    got, = run("Pow", 13, [a([2, -3, 1, -1], np.int32), a([3, 3, -5, -3])])
    assert same(a([8, -27, 1, -1], np.int32), got)
    got, = run("Pow", 13, [a([2], np.int32), a([33])])  # wraps in int32: 2**33 mod 2**32
    assert same(a([0], np.int32), got)
    got, = run("Pow", 15, [a([3, 4]), f([2, 0.0])])
    assert same(a([9, 1]), got)
    with pytest.raises(OracleError, match="no rounding"):
        run("Pow", 13, [a([2]), a([-1])])
    with pytest.raises(OracleError, match="no rounding"):
        run("Pow", 13, [a([4]), f([0.5])])
    got, = run("Pow", 1, [f([[1, 2], [3, 4]]), f([2])], broadcast=1)  # legacy broadcast
    assert same(f([[1, 4], [9, 16]]), got)
    with pytest.raises(OracleError, match="without broadcast=1 needs one shape"):
        run("Pow", 1, [f([[1, 2], [3, 4]]), f([2])])
    got, = run("Pow", 7, [f([[1, 2], [3, 4]]), f([[1], [2]])])
    assert same(f([[1, 2], [9, 16]]), got)
    with pytest.raises(OracleError, match="do not broadcast"):
        run("Pow", 7, [f([1, 2, 3]), f([1, 2])])


def test_max_min_sum_broadcast_from_8():
    got, = run("Max", 8, [f([[1, 5], [7, 2]]), f([3, 4]), f(6)])
    assert same(f([[6, 6], [7, 6]]), got)
    got, = run("Min", 13, [a([[1, 5], [7, 2]]), a([3, 4])])
    assert same(a([[1, 4], [3, 2]]), got)
    half = np.array([2048], np.float16)
    got, = run("Sum", 13, [half, np.ones(1, np.float16), np.ones(1, np.float16)])
    assert same(np.array([2050], np.float16), got)  # rounded once, not after each addition
    got, = run("Sum", 8, [f([0.5])])
    assert same(f([0.5]), got)
    got, = run("Sum", 6, [f([1, 2]), f([3, 4]), f([5, 6])])
    assert same(f([9, 12]), got)
    with pytest.raises(OracleError, match="must have the same shape"):
        run("Max", 6, [f([[1, 5]]), f([3, 4])])
    with pytest.raises(OracleError, match="do not broadcast"):
        run("Sum", 13, [f([1, 2, 3]), f([1, 2])])
    with pytest.raises(OracleError, match="which its schema does not admit"):
        run("Max", 8, [a([1]), a([2])])  # integer types from 12


def test_the_versions_before_onnxruntime_kernels():
    """The versions in force only below opset 7, which the cross-check cannot run."""
    got = [run(op, 5, [f([-1, 0, 4])])[0] for op in ("Exp", "Log", "Sqrt", "Relu", "Sigmoid")]
    close(f([1 / E, 1, E**4]), got[0])
    assert np.isnan(got[1][0]) and got[1][1] == -np.inf and got[1][2] == f(math.log(4))
    assert np.isnan(got[2][0]) and got[2][1:].tolist() == [0, 2]
    assert same(f([0, 0, 4]), got[3])
    close(f([1 / (1 + E), 0.5, 1 / (1 + E**-4)]), got[4])
    for op, expected in (("Max", [3, 2]), ("Min", [1, 0]), ("Sum", [4, 2])):
        got, = run(op, 5, [f([1, 2]), f([3, 0])])
        assert same(f(expected), got), op
    got, = run("Gemm", 5, [f([[1, 2]]), f([[3], [4]]), f([[5]])], beta=2.0)
    assert same(f([[21]]), got)  # C required before 11


# -- Softmax, LogSoftmax ------------------------------------------------------------------------

def test_softmax_coerces_to_2d_before_13_and_runs_along_one_axis_from_13():
    data = f([[[0, 0], [0, 0]], [[1, 1], [1, 1]]])  # shape [2, 2, 2]
    got, = run("Softmax", 11, [data])  # axis 1: rows of 4 values
    assert same(f(np.full((2, 2, 2), 0.25)), got)
    got, = run("Softmax", 13, [f([[0, math.log(3)], [0, 0]])])  # axis -1
    close(f([[0.25, 0.75], [0.5, 0.5]]), got)
    got, = run("Softmax", 11, [f([[0, math.log(3)], [0, 0]])], axis=0)  # one row of 4
    close(f([[1 / 6, 3 / 6], [1 / 6, 1 / 6]]), got)
    got, = run("Softmax", 13, [f([[0, math.log(3)], [0, 0]])], axis=0)  # down the columns
    close(f([[0.5, 0.75], [0.5, 0.25]]), got)
    got, = run("LogSoftmax", 13, [f([0, math.log(3)])])
    close(f([math.log(0.25), math.log(0.75)]), got)
    got, = run("LogSoftmax", 1, [f([[1000, 1000]])])  # shifted: no overflow
    close(f([[-math.log(2), -math.log(2)]]), got)
    got, = run("Softmax", 11, [f([[0, 0]])], axis=-1)
    assert same(f([[0.5, 0.5]]), got)
    with pytest.raises(OracleError, match="negative axes come at Softmax-11"):
        run("Softmax", 1, [f([[0, 0]])], axis=-1)
    with pytest.raises(OracleError, match="out of the accepted range"):
        run("LogSoftmax", 13, [f([0, 0])], axis=1)


# -- MatMul, Gemm -------------------------------------------------------------------------------

def test_matmul_follows_numpy_matmul():
    got, = run("MatMul", 13, [f([[1, 2], [3, 4]]), f([[5], [6]])])
    assert same(f([[17], [39]]), got)
    got, = run("MatMul", 9, [a([1, 2]), a([[1, 2], [3, 4]])])  # 1-D left: [1, 2] @ M
    assert same(a([7, 10]), got)
    got, = run("MatMul", 13, [f(np.ones((2, 1, 2, 3))), f(np.ones((3, 3, 1)))])
    assert same(f(np.full((2, 3, 2, 1), 3)), got)  # the batch dims broadcast
    with pytest.raises(OracleError, match="inner dimensions differ"):
        run("MatMul", 13, [f([[1, 2]]), f([[1, 2]])])
    with pytest.raises(OracleError, match="do not broadcast"):
        run("MatMul", 13, [f(np.ones((2, 1, 2))), f(np.ones((3, 2, 1)))])
    with pytest.raises(OracleError, match="which its schema does not admit"):
        run("MatMul", 1, [a([[1]]), a([[1]])])  # integer types from 9


def test_gemm_transposes_scales_and_broadcasts_c():
    a_, b_ = f([[1, 2], [3, 4]]), f([[1, 0], [0, 1]])
    got, = run("Gemm", 13, [a_, b_, f([10, 20])], alpha=2.0, beta=0.5, transA=1)
    assert same(f([[7, 16], [9, 18]]), got)  # 2 * A' + 0.5 * [10, 20] by rows
    got, = run("Gemm", 11, [a_, f([[1, 2]])], transB=1)  # C left off from 11
    assert same(f([[5], [11]]), got)
    got, = run("Gemm", 9, [a([[1, 2]]), a([[3], [4]]), a([[5]])], alpha=3.0)
    assert same(a([[38]]), got)
    got, = run("Gemm", 6, [a_, b_, f([1])], broadcast=1)
    assert same(f([[2, 3], [4, 5]]), got)
    with pytest.raises(OracleError, match="without broadcast=1 must be"):
        run("Gemm", 6, [a_, b_, f([1])])
    with pytest.raises(OracleError, match="not unidirectionally broadcastable"):
        run("Gemm", 13, [a_, b_, f([1, 2, 3])])
    with pytest.raises(OracleError, match="differ in K"):
        run("Gemm", 13, [a_, f([[1, 2, 3]])])
    with pytest.raises(OracleError, match="no rounding"):
        run("Gemm", 13, [a([[1]]), a([[3]])], alpha=0.5)


# -- reductions ---------------------------------------------------------------------------------

def test_arg_max_min_ties_and_select_last_index():
    data = f([[1, 3, 3], [2, 2, 0]])
    got, = run("ArgMax", 13, [data], axis=1)
    assert same(a([[1], [0]]), got)  # the first occurrence
    got, = run("ArgMax", 12, [data], axis=1, keepdims=0, select_last_index=1)
    assert same(a([2, 1]), got)
    got, = run("ArgMin", 13, [data])  # axis 0
    assert same(a([[0, 1, 1]]), got)
    got, = run("ArgMin", 11, [data], axis=-1, keepdims=0)
    assert same(a([0, 2]), got)
    with pytest.raises(OracleError, match="only from ArgMax-12"):
        run("ArgMax", 11, [data], axis=1)  # a tie: no rule before 12
    with pytest.raises(OracleError, match="negative axes come at ArgMax-11"):
        run("ArgMax", 1, [f([1, 2])], axis=-1)
    with pytest.raises(OracleError, match="out of the accepted range"):
        run("ArgMin", 13, [data], axis=2)
    with pytest.raises(OracleError, match="empty axis"):
        run("ArgMax", 13, [f(np.zeros((2, 0)))], axis=1)


def test_reductions_take_axes_as_an_attribute_before_18_and_as_an_input_from_18():
    data = f([[1, 2], [3, 4]])
    got, = run("ReduceMax", 13, [data], axes=[1])
    assert same(f([[2], [4]]), got)
    got, = run("ReduceMin", 18, [data, a([0])], keepdims=0)
    assert same(f([1, 2]), got)
    got, = run("ReduceMean", 11, [data], axes=[-1], keepdims=0)
    assert same(f([1.5, 3.5]), got)
    got, = run("ReduceMean", 18, [data])  # no axes: every axis
    assert same(f([[2.5]]), got)
    got, = run("ReduceSumSquare", 18, [data, a([], np.int64)], noop_with_empty_axes=1)
    assert same(data, got)  # empty axes with noop_with_empty_axes: no reduction
    got, = run("ReduceSumSquare", 1, [data], axes=[0])
    assert same(f([[10, 20]]), got)
    got, = run("ReduceLogSumExp", 18, [f([[0, math.log(3)]]), a([1])], keepdims=0)
    close(f([math.log(4)]), got)
    got, = run("ReduceLogSumExp", 13, [f([1000, 1000])])  # shifted: no overflow
    close(f([1000 + math.log(2)]), got)
    got, = run("ReduceMax", 20, [np.array([[False, True], [False, False]]), a([1])],
               keepdims=0)
    assert same(np.array([True, False]), got)  # 'False < True'
    got, = run("ReduceSumSquare", 18, [a([50000, 10000], np.int32), a([0])])
    assert same(a([2_600_000_000 - 2**32], np.int32), got)  # wraps in int32
    got, = run("ReduceMean", 18, [a([1, 3, 8]), a([0])])
    assert same(a([4]), got)
    with pytest.raises(OracleError, match="not a whole number"):
        run("ReduceMean", 18, [a([1, 2]), a([0])])
    with pytest.raises(OracleError, match="negative axes come at ReduceMax-11"):
        run("ReduceMax", 1, [data], axes=[-1])
    with pytest.raises(OracleError, match="repeats an axis"):
        run("ReduceMin", 18, [data, a([1, -1])])
    with pytest.raises(OracleError, match="out of the accepted range"):
        run("ReduceSumSquare", 13, [data], axes=[2])


def test_reductions_over_an_empty_set_as_each_version_says():
    empty = f(np.zeros((0, 2)))
    got, = run("ReduceMax", 13, [empty], axes=[0])
    assert same(f([[-np.inf, -np.inf]]), got)
    got, = run("ReduceMin", 18, [a(np.zeros((2, 0)), np.int32), a([1])], keepdims=0)
    assert same(a([2**31 - 1, 2**31 - 1], np.int32), got)
    got, = run("ReduceSumSquare", 13, [empty], axes=[0], keepdims=0)
    assert same(f([0, 0]), got)
    got, = run("ReduceLogSumExp", 18, [empty, a([0])], keepdims=0)
    assert same(f([-np.inf, -np.inf]), got)
    with pytest.raises(OracleError, match="ReduceMax-12 over an empty set"):
        run("ReduceMax", 12, [empty], axes=[0])  # its doc says nothing of the empty set
    with pytest.raises(OracleError, match="ReduceMean-18 over an empty set"):
        run("ReduceMean", 18, [empty, a([0])])  # 'yields undefined'
    with pytest.raises(OracleError, match="ReduceLogSumExp-18 over an empty set"):
        run("ReduceLogSumExp", 18, [a(np.zeros((0,)), np.int32)])  # 'or undefined otherwise'


def test_top_k_versions_ties_and_k():
    data = f([[3, 1, 3, 2]])
    values, indices = run("TopK", 1, [data], outputs=2, k=3)  # k an attribute before 10
    assert same(f([[3, 3, 2]]), values) and same(a([[0, 2, 3]]), indices)  # lower index first
    values, indices = run("TopK", 10, [data, a([2])], outputs=2)
    assert same(f([[3, 3]]), values) and same(a([[0, 2]]), indices)
    values, indices = run("TopK", 11, [data, a([3])], outputs=2, largest=0)
    assert same(f([[1, 2, 3]]), values) and same(a([[1, 3, 0]]), indices)
    values, indices = run("TopK", 11, [f([[5], [7]]), a([1])], outputs=2, axis=0, sorted=0)
    assert same(f([[7]]), values) and same(a([[1]]), indices)
    with pytest.raises(OracleError, match="must be within"):
        run("TopK", 11, [data, a([5])], outputs=2)
    with pytest.raises(OracleError, match="single positive value"):
        run("TopK", 10, [data, a([0])], outputs=2)
    with pytest.raises(OracleError, match="undefined"):
        run("TopK", 11, [data, a([2])], outputs=2, sorted=0)
    with pytest.raises(OracleError, match="out of the accepted range"):
        run("TopK", 11, [data, a([1])], outputs=2, axis=2)


# -- Expand, Flatten, Transpose, Tile -----------------------------------------------------------

def test_expand_flatten_transpose_tile():
    got, = run("Expand", 8, [f([[1], [2]]), a([2, 3])])
    assert same(f([[1, 1, 1], [2, 2, 2]]), got)
    got, = run("Expand", 13, [f([[1], [2]]), a([1])])  # shape.ndim < input.ndim
    assert same(f([[1], [2]]), got)
    with pytest.raises(OracleError, match="must have the same value"):
        run("Expand", 13, [f([1, 2, 3]), a([2])])
    data = f(np.arange(24).reshape(2, 3, 4))
    got, = run("Flatten", 1, [data], axis=2)
    assert got.shape == (6, 4) and same(f(np.arange(24).reshape(6, 4)), got)
    got, = run("Flatten", 13, [data])  # axis 1
    assert got.shape == (2, 12)
    got, = run("Flatten", 11, [data], axis=-3)  # = 0: (1, 24)
    assert got.shape == (1, 24)
    got, = run("Flatten", 9, [data], axis=3)
    assert got.shape == (24, 1)
    with pytest.raises(OracleError, match="out of the accepted range \\[0, 3\\]"):
        run("Flatten", 9, [data], axis=-1)
    got, = run("Transpose", 13, [f([[1, 2, 3]])])
    assert same(f([[1], [2], [3]]), got)
    got, = run("Transpose", 1, [data], perm=[1, 0, 2])
    assert got.shape == (3, 2, 4) and got[2, 1, 3] == data[1, 2, 3]
    with pytest.raises(OracleError, match="exactly once"):
        run("Transpose", 13, [data], perm=[0, 0, 1])
    got, = run("Tile", 6, [f([[1, 2], [3, 4]]), a([1, 2])])  # the spec page's example
    assert same(f([[1, 2, 1, 2], [3, 4, 3, 4]]), got)
    got, = run("Tile", 1, [f([[1, 2]]), f(2), f(0)])  # tiles and axis of type T at 1
    assert same(f([[1, 2], [1, 2]]), got)
    with pytest.raises(OracleError, match="same length"):
        run("Tile", 13, [f([[1, 2]]), a([2])])


# -- Scan ---------------------------------------------------------------------------------------

def body(dtype=TensorProto.FLOAT) -> onnx.GraphProto:
    """A running sum: state s, element x -> s + x, and the scan output (s + x) * x."""
    value = [helper.make_tensor_value_info(n, dtype, None) for n in ("s", "x", "t", "y")]
    nodes = [helper.make_node("Add", ["s", "x"], ["t"]), helper.make_node("Mul", ["t", "x"], ["y"])]
    return helper.make_graph(nodes, "body", value[:2], value[2:])


def test_scan_runs_its_body_along_each_axis_and_direction():
    x = f([[1, 2], [3, 4], [5, 6]])
    final, out = run("Scan", 16, [f([0, 0]), x], outputs=2, body=body(), num_scan_inputs=1)
    assert same(f([9, 12]), final)
    assert same(f([[1, 4], [12, 24], [45, 72]]), out)  # [1, 2], [4, 6], [9, 12] times x
    final, out = run("Scan", 11, [f([0, 0, 0]), x], outputs=2, body=body(), num_scan_inputs=1,
                     scan_input_axes=[-1], scan_input_directions=[1],
                     scan_output_directions=[1], scan_output_axes=[-1])
    assert same(f([3, 7, 11]), final)  # columns [2, 4, 6] then [1, 3, 5]
    assert same(f([[3, 4], [21, 16], [55, 36]]), out)  # prepended: the second turn first
    with pytest.raises(OracleError, match="negative axes come at Scan-11"):
        run("Scan", 9, [f([0, 0, 0]), x], outputs=2, body=body(), num_scan_inputs=1,
            scan_input_axes=[-1])
    with pytest.raises(OracleError, match="no defined shape"):
        run("Scan", 16, [f([0, 0]), f(np.zeros((0, 2)))], outputs=2, body=body(),
            num_scan_inputs=1)
    with pytest.raises(OracleError, match="out of the accepted range"):
        run("Scan", 16, [f([0, 0]), x], outputs=2, body=body(), num_scan_inputs=1,
            scan_output_axes=[2])


def test_scan_8_batches_on_axis_0_and_scans_axis_1():
    x = f([[[1], [2]], [[3], [4]]])  # batch 2, sequence 2, element [1]
    final, out = run("Scan", 8, [None, f([[0], [10]]), x], outputs=2, body=body(),
                     num_scan_inputs=1, directions=[1])
    assert same(f([[3], [17]]), final)  # reversed: 0 + 2 + 1, 10 + 4 + 3
    assert same(f([[[4], [3]], [[56], [51]]]), out)  # (0 + 2) * 2, (2 + 1) * 1; ...
    with pytest.raises(OracleError, match="undefined value"):
        run("Scan", 8, [a([1, 2]), f([[0], [10]]), x], outputs=2, body=body(),
            num_scan_inputs=1)
    with pytest.raises(OracleError, match="within \\[0, 2\\]"):
        run("Scan", 8, [a([3, 2]), f([[0], [10]]), x], outputs=2, body=body(),
            num_scan_inputs=1)


# -- cross-check against onnxruntime ------------------------------------------------------------

_FLOATS = {"tensor(float)": np.float32, "tensor(double)": np.float64}
_INTS = {"tensor(int32)": np.int32, "tensor(int64)": np.int64}


def _element(op: str, version: int, rng: random.Random, position: int = 0) -> np.dtype:
    """float, double, int32 or int64, as the schema admits at `position` (floats first)."""
    schema = operators.defined_schema(op, version)
    admitted = operators.allowed_types(schema, schema.inputs[position].type_str)
    floats = [d for t, d in _FLOATS.items() if t in admitted]
    ints = [d for t, d in _INTS.items() if t in admitted]
    return np.dtype(rng.choice(floats) if floats and (rng.random() < 0.7 or not ints)
                    else rng.choice(ints))


def _values(rng: random.Random, dtype, shape, low=-4, high=4) -> np.ndarray:
    count = math.prod(shape)
    if np.dtype(dtype).kind == "f":
        return np.array([rng.uniform(low, high) for _ in range(count)], dtype).reshape(shape)
    return np.array([rng.randint(low, high) for _ in range(count)], dtype).reshape(shape)


def _shape(rng: random.Random, low: int = 1) -> tuple[int, ...]:
    return tuple(rng.randint(1, 3) for _ in range(rng.randint(low, 3)))


def _draw(op: str, version: int, rng: random.Random) -> tuple[list, int, dict]:
    """Random inputs, output count and attributes for `op` at `version`."""
    dtype = _element(op, version, rng) if op != "ReduceLogSumExp" else np.dtype(np.float32)
    shape = _shape(rng)
    data = _values(rng, dtype, shape)
    rank = len(shape)
    if op in ("Exp", "Sigmoid", "Relu"):
        return [data], 1, {}
    if op in ("Log", "Sqrt"):
        return [_values(rng, dtype, shape, 0.1, 9)], 1, {}
    if op == "Pow":
        low = shape[rng.randint(0, rank):]
        exponent = np.array([rng.randint(0, 3) for _ in range(math.prod(low))], _element(
            op, version, rng, 1) if version >= 12 else dtype).reshape(low)
        return [_values(rng, dtype, shape, 0.5, 4) if dtype.kind == "f" else data,
                exponent], 1, {}
    if op in ("Max", "Min", "Sum"):
        others = [_values(rng, dtype, shape if version < 8 else shape[rng.randint(0, rank):])
                  for _ in range(rng.randint(0, 2))]
        return [data, *others], 1, {}
    if op in ("Softmax", "LogSoftmax"):
        return [data], 1, {"axis": rng.randint(-rank if version >= 11 else 0, rank - 1)}
    if op == "MatMul":
        inner = rng.randint(1, 3)
        return [_values(rng, dtype, (*shape[:-1], inner)),
                _values(rng, dtype, (inner, rng.randint(1, 3)))], 1, {}
    if op == "Gemm":
        m, k, n = (rng.randint(1, 3) for _ in range(3))
        trans_a, trans_b = rng.randint(0, 1), rng.randint(0, 1)
        c = _values(rng, dtype, rng.choice(((m, n), (n,), (1,), (m, 1))))
        return [_values(rng, dtype, (k, m) if trans_a else (m, k)),
                _values(rng, dtype, (n, k) if trans_b else (k, n)), c], 1, {
            "transA": trans_a, "transB": trans_b, "alpha": rng.choice((1.0, 2.0, 0.5)),
            "beta": rng.choice((1.0, 0.5))} if dtype.kind == "f" else {
            "transA": trans_a, "transB": trans_b}
    if op == "Scan":
        return _draw_scan(version, rng)
    return _draw_shaped(op, version, rng, data)


def _draw_scan(version: int, rng: random.Random) -> tuple[list, int, dict]:
    length, width = rng.randint(1, 3), rng.randint(1, 3)
    attributes = {"body": body(), "num_scan_inputs": 1}
    if version == 8:
        batch = rng.randint(1, 2)
        return [None, _values(rng, np.float32, (batch, width)),
                _values(rng, np.float32, (batch, length, width))], 2, {
            **attributes, "directions": [rng.randint(0, 1)]}
    axis = rng.randint(-2 if version >= 11 else 0, 1)
    shape = (length, width) if axis in (0, -2) else (width, length)
    return [_values(rng, np.float32, (width,)), _values(rng, np.float32, shape)], 2, {
        **attributes, "scan_input_axes": [axis], "scan_input_directions": [rng.randint(0, 1)],
        "scan_output_axes": [rng.randint(-2 if version >= 11 else 0, 1)],
        "scan_output_directions": [rng.randint(0, 1)]}


def _draw_shaped(op: str, version: int, rng: random.Random, data) -> tuple[list, int, dict]:
    rank = data.ndim
    axis = rng.randint(-rank if version >= 11 else 0, rank - 1)
    if op in ("ArgMax", "ArgMin"):
        data = np.array(rng.sample(range(-50, 50), data.size), data.dtype).reshape(data.shape)
        extra = {"select_last_index": rng.randint(0, 1)} if version >= 12 else {}
        return [data], 1, {"axis": axis, "keepdims": rng.randint(0, 1), **extra}
    if op.startswith("Reduce"):
        if op == "ReduceMean" and data.dtype.kind in "iu":
            data = np.full(data.shape, rng.randint(-4, 4), data.dtype)  # a whole mean
        attributes = {"keepdims": rng.randint(0, 1)}
        if version >= 18:
            return [data, np.array([axis], np.int64)], 1, attributes
        return [data], 1, {**attributes, "axes": [axis]}
    if op == "TopK":
        data = np.array(rng.sample(range(-50, 50), data.size), data.dtype).reshape(data.shape)
        k = rng.randint(1, data.shape[axis])
        extra = {"largest": rng.randint(0, 1)} if version >= 11 else {}
        if version < 10:
            return [data], 2, {"axis": axis, "k": k}
        return [data, np.array([k], np.int64)], 2, {"axis": axis, **extra}
    if op == "Expand":
        wanted = [rng.randint(1, 2) if d == 1 else rng.choice((d, 1)) for d in data.shape]
        return [data, np.array([rng.randint(1, 2), *wanted], np.int64)], 1, {}
    if op == "Flatten":
        return [data], 1, {"axis": rng.randint(-rank if version >= 11 else 0, rank)}
    if op == "Transpose":
        perm = list(range(rank))
        rng.shuffle(perm)
        return [data], 1, {"perm": perm}
    if op == "Tile":
        return [data, np.array([rng.randint(0, 2) for _ in range(rank)], np.int64)], 1, {}
    raise AssertionError(op)


def _released_opsets(op: str, version: int) -> list[int]:
    """The released opsets from 7 (onnxruntime has no kernels of older ones) at which `op` is at
    `version`, lowest first."""
    return sorted(o for o in operators.released_opsets() if o >= 7 and (
        s := operators.schema(op, o)) is not None and s.since_version == version)


def _cases():
    return [pytest.param(op, v, id=f"{op}-{v}") for op in sorted(MATH_OPERATORS)
            for v in operators.versions(op) if _released_opsets(op, v)]


def test_every_operator_of_the_table_is_cross_checked_at_a_version():
    assert {c.values[0] for c in _cases()} == set(MATH_OPERATORS)
    assert set(MATH_OPERATORS) <= set(oracle.OPERATORS)


@pytest.mark.parametrize(("op", "version"), _cases())
def test_oracle_agrees_with_onnxruntime(op, version):
    """Eight seeded random inputs per operator and version, at the lowest released opset from 7
    where `version` is in force; floats compared with rtol 1e-6, the rest exactly."""
    rng = random.Random(f"{op}-{version}")
    opset = _released_opsets(op, version)[0]
    compared, refused = 0, []
    for _ in range(8):
        inputs, outputs, attributes = _draw(op, version, rng)
        built = model(op, opset, inputs, outputs, **attributes)
        expected = oracle.run_model(built, [v for v in inputs if v is not None])
        got = ort_outputs(built, inputs)
        if isinstance(got, str):
            refused.append(got)
            continue
        for mine, theirs in zip(expected, got, strict=True):
            assert mine.dtype == theirs.dtype and mine.shape == theirs.shape, (op, inputs)
            if mine.dtype.kind == "f":
                np.testing.assert_allclose(mine, theirs, rtol=1e-6, atol=1e-7,
                                           err_msg=f"{op}-{version} {inputs} {attributes}")
            else:
                assert same(mine, theirs), (op, version, inputs, attributes, mine, theirs)
        compared += 1
    assert compared, f"{op}-{version}: onnxruntime refused every draw: {refused}"
