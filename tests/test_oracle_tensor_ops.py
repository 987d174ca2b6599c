"""The oracle's tensor operators (tensor_ops.py, elementwise.py): the examples of their spec
pages, the version rules (attribute and input forms), the errors where the spec gives no result,
and a cross-check against onnxruntime on seeded random inputs for every version onnx.defs has.

onnxruntime is a cross-check, never the source of truth: where the two differ, the test names
the spec's sentence and which side follows it (KNOWN_ORT_DEVIATIONS)."""

from __future__ import annotations

import random

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from onnx_seq_tests._core import operators
from onnx_seq_tests._core.compare import compare_value
from onnx_seq_tests._core.elements import BY_DTYPE
from onnx_seq_tests._core.errors import OracleError
from onnx_seq_tests._oracle import oracle

OPS = ("Split", "Squeeze", "Unsqueeze", "Concat", "Cast", "Gather", "Shape", "Slice",
       "ReduceSum", "Add", "Sub", "Mul", "Equal", "Less", "Greater", "Not", "And", "Where",
       "Range", "ConstantOfShape", "Reshape", "Size", "CastLike", "Div", "Neg", "Abs", "Ceil")


def model(op: str, opset: int, inputs: list, outputs: int = 1, **attributes) -> onnx.ModelProto:
    """One `op` node at `opset` on graph inputs named x0, x1, ... ("" left off); outputs
    y0, y1, ... of types onnx's shape inference gives."""
    names = ["" if v is None else f"x{i}" for i, v in enumerate(inputs)]
    declared = [helper.make_tensor_value_info(
        n, helper.np_dtype_to_tensor_dtype(np.asarray(v).dtype) if np.asarray(v).dtype.kind
        not in "OU" else TensorProto.STRING, np.asarray(v).shape)
        for n, v in zip(names, inputs, strict=True) if n]
    node = helper.make_node(op, names, [f"y{i}" for i in range(outputs)], **attributes)
    out = [helper.make_empty_tensor_value_info(f"y{i}") for i in range(outputs)]
    graph = helper.make_graph([node], "g", declared, out)
    imports = [helper.make_opsetid("", opset)]
    made = helper.make_model(graph, opset_imports=imports,
                             ir_version=helper.find_min_ir_version_for(imports))
    inferred = onnx.shape_inference.infer_shapes(made)
    del made.graph.output[:]
    made.graph.output.extend(inferred.graph.output)
    return made


def run(op: str, opset: int, inputs: list, outputs: int = 1, **attributes) -> list:
    return oracle.run_model(model(op, opset, inputs, outputs, **attributes),
                            [v for v in inputs if v is not None])


def same(expected, actual) -> bool:
    return compare_value(expected, actual, "value", atol=0.0, rtol=0.0) == []


def a(values, dtype=np.int64):
    return np.array(values, dtype=dtype)


def f(values):
    return np.array(values, dtype=np.float32)


# -- the spec pages' examples -------------------------------------------------------------------

def test_slice_examples_of_the_spec_page():
    data = a([[1, 2, 3, 4], [5, 6, 7, 8]], np.float32)
    got, = run("Slice", 13, [data, a([1, 0]), a([2, 3]), a([0, 1]), a([1, 2])])
    assert same(f([[5, 7]]), got)
    got, = run("Slice", 13, [data, a([0, 1]), a([-1, 1000])])
    assert same(f([[2, 3, 4]]), got)
    got, = run("Slice", 1, [data], starts=[1, 0], ends=[2, 3], axes=[0, 1])
    assert same(f([[5, 6, 7]]), got)  # Slice-1's example 1 (no steps)
    got, = run("Slice", 13, [f([1, 2, 3, 4]), a([-1]), a([-1000]), a([0]), a([-1])])
    assert same(f([4, 3, 2, 1]), got)  # negative stepping: ends clamped to -1
    with pytest.raises(OracleError, match="steps cannot be 0"):
        run("Slice", 13, [data, a([0]), a([1]), a([0]), a([0])])
    with pytest.raises(OracleError, match="must be 1-D"):  # 'starts: 1-D tensor'
        run("Slice", 13, [data, a(0), a(1), a([0])])


def test_gather_examples_of_the_spec_page():
    data = f([[1.0, 1.2], [2.3, 3.4], [4.5, 5.7]])
    got, = run("Gather", 13, [data, a([[0, 1], [1, 2]])])
    assert same(f([[[1.0, 1.2], [2.3, 3.4]], [[2.3, 3.4], [4.5, 5.7]]]), got)
    data = f([[1.0, 1.2, 1.9], [2.3, 3.4, 3.9], [4.5, 5.7, 5.9]])
    got, = run("Gather", 13, [data, a([[0, 2]])], axis=1)
    assert same(f([[[1.0, 1.9]], [[2.3, 3.9]], [[4.5, 5.9]]]), got)
    got, = run("Gather", 11, [data, a(-1)])  # 'within bounds [-s, s-1]'
    assert same(data[2], got)
    with pytest.raises(OracleError, match="out of the bounds"):
        run("Gather", 11, [data, a([3])])
    with pytest.raises(OracleError, match=r"bounds \[0, 2\]"):
        run("Gather", 1, [data, a([-1])])


def test_shape_examples_of_the_spec_page():
    data = np.zeros((2, 3, 4), np.float32)
    for attributes, expected in (({}, [2, 3, 4]), ({"start": -1}, [4]), ({"end": -1}, [2, 3]),
                                 ({"start": 1, "end": 2}, [3]), ({"start": -9, "end": 9},
                                 [2, 3, 4]), ({"start": 2, "end": 1}, [])):
        assert same(a(expected), run("Shape", 15, [data], **attributes)[0]), attributes
    assert same(a([2, 3, 4]), run("Shape", 1, [data])[0])


def test_unsqueeze_and_squeeze_examples_of_the_spec_page():
    data = np.zeros((3, 4, 5), np.float32)
    got, = run("Unsqueeze", 13, [data, a([0, 4])])
    assert got.shape == (1, 3, 4, 5, 1)
    assert run("Unsqueeze", 11, [data], axes=[4, 0])[0].shape == (1, 3, 4, 5, 1)
    assert run("Unsqueeze", 11, [data], axes=[-1])[0].shape == (3, 4, 5, 1)
    assert run("Unsqueeze", 13, [data, a(0)])[0].shape == (1, 3, 4, 5)  # 0-d, as onnx's cases
    with pytest.raises(OracleError, match="repeats"):
        run("Unsqueeze", 13, [data, a([1, 1])])
    with pytest.raises(OracleError, match="non-negative"):
        run("Unsqueeze", 1, [data], axes=[-1])
    ones = np.zeros((1, 3, 1), np.float32)
    assert run("Squeeze", 13, [ones])[0].shape == (3,)
    assert run("Squeeze", 13, [ones, a([-1])])[0].shape == (1, 3)
    assert run("Squeeze", 1, [ones], axes=[0])[0].shape == (3, 1)
    with pytest.raises(OracleError, match="not equal to one"):
        run("Squeeze", 11, [ones], axes=[1])


def test_split_forms_by_version():
    data = f([1, 2, 3, 4, 5, 6])
    expected = [f([1, 2]), f([3, 4, 5, 6])]
    assert same(expected, run("Split", 11, [data], 2, split=[2, 4]))
    assert same(expected, run("Split", 13, [data, a([2, 4])], 2))
    assert same([f([1, 2, 3]), f([4, 5, 6])], run("Split", 13, [data], 2))  # equal parts
    with pytest.raises(OracleError, match="does not divide evenly"):
        run("Split", 13, [data], 4)
    seven = f([1, 2, 3, 4, 5, 6, 7])  # 'the last chunk will be smaller'
    assert same([f([1, 2, 3]), f([4, 5, 6]), f([7])],
                run("Split", 18, [seven], 3, num_outputs=3))
    with pytest.raises(OracleError, match="not both"):
        run("Split", 18, [seven], 3)
    with pytest.raises(OracleError, match="do not give num_outputs parts"):
        run("Split", 18, [f([1, 2, 3, 4, 5])], 4, num_outputs=4)  # chunks of 2: 2, 2, 1
    assert same([f([]), data], run("Split", 13, [data, a([0, 6])], 2))  # 'Values >= 0'


def test_concat_and_where_and_not():
    got, = run("Concat", 13, [f([[1, 2]]), f([[3, 4]])], axis=-1)
    assert same(f([[1, 2, 3, 4]]), got)
    got, = run("Concat", 1, [f([[1], [2]]), f([[3], [4]])])  # 'Default value is 1'
    assert same(f([[1, 3], [2, 4]]), got)
    with pytest.raises(OracleError, match="differ outside the axis"):
        run("Concat", 13, [f([[1, 2]]), f([[3]])], axis=0)
    got, = run("Where", 16, [np.array([[True, False], [True, True]]), a([[1, 2], [3, 4]]),
                             a([[9, 8], [7, 6]])])
    assert same(a([[1, 8], [3, 4]]), got)  # the spec's example
    got, = run("Where", 16, [np.array([True, False]), a([[1], [2]]), a(0)])
    assert same(a([[1, 0], [2, 0]]), got)  # broadcast of all three
    assert same(np.array([False, True]), run("Not", 1, [np.array([True, False])])[0])


def test_arithmetic_wraps_in_the_element_type_and_keeps_it():
    big = a([2**31 - 1, -(2**31)], np.int32)
    assert same(a([-(2**31), 2**31 - 1], np.int32), run("Add", 14, [big, a([1, -1], np.int32)])[0])
    assert same(a([255], np.uint8), run("Sub", 14, [a([0], np.uint8), a([1], np.uint8)])[0])
    assert same(a([-128], np.int8), run("Mul", 14, [a([64], np.int8), a([2], np.int8)])[0])
    half = np.array([2048], np.float16)  # 2048 + 1 rounds (to even) to 2048 in float16
    assert same(half, run("Add", 14, [half, np.array([1], np.float16)])[0])
    with pytest.raises(OracleError, match="does not admit"):
        run("Add", 13, [a([1], np.int8), a([1], np.int8)])  # int8 comes at Add-14
    with pytest.raises(OracleError, match="do not broadcast"):
        run("Add", 14, [f([1, 2]), f([1, 2, 3])])


def test_division_truncates_integers_and_unary_ops_keep_the_type():
    """Div: 'For integer inputs, the result is computed using truncating division (rounding
    toward zero).' Neg and Abs wrap as the element type does; Ceil rounds up."""
    got, = run("Div", 14, [a([7, -7, 7, -7, 0], np.int32), a([2, 2, -2, -2, -3], np.int32)])
    assert same(a([3, -3, -3, 3, 0], np.int32), got)
    assert same(a([-3], np.int8), run("Div", 14, [a([-7], np.int8), a([2], np.int8)])[0])
    assert same(f([3.5, -0.5]), run("Div", 13, [f([7, -1]), f([2])])[0])
    with pytest.raises(OracleError, match="by zero"):
        run("Div", 13, [a([1]), a([0])])
    with pytest.raises(OracleError, match="out of its range"):
        run("Div", 14, [a([-128], np.int8), a([-1], np.int8)])
    with pytest.raises(OracleError, match="does not admit"):
        run("Div", 13, [a([1], np.int8), a([1], np.int8)])  # int8 comes at Div-14
    assert same(a([-128, 5, -3], np.int8), run("Neg", 13, [a([-128, -5, 3], np.int8)])[0])
    assert same(a([-128, 5, 3], np.int8), run("Abs", 13, [a([-128, -5, 3], np.int8)])[0])
    assert same(f([2, -1, -0.0]), run("Ceil", 13, [f([1.5, -1.5, -0.5])])[0])
    with pytest.raises(OracleError, match="does not admit"):
        run("Neg", 13, [a([1], np.uint8)])  # Neg has no unsigned types


def test_comparisons_and_logic_broadcast_to_bool():
    left, right = a([[1], [5]], np.int32), a([2, 5, 7], np.int32)
    assert same(np.array([[True, True, True], [False, False, True]]),
                run("Less", 13, [left, right])[0])
    assert same(np.array([[False, False, False], [True, False, False]]),
                run("Greater", 13, [left, right])[0])
    assert same(np.array([[False, False, False], [False, True, False]]),
                run("Equal", 13, [left, right])[0])
    strings = np.array(["a", "b"], dtype=object)  # Equal admits strings from 19
    assert same(np.array([True, False]), run("Equal", 19, [strings, strings[:1]])[0])
    with pytest.raises(OracleError, match="does not admit"):
        run("Equal", 13, [strings, strings])
    flags = np.array([True, False])
    assert same(np.array([[True, False], [False, False]]),
                run("And", 7, [flags, flags.reshape(2, 1)])[0])
    got, = run("ConstantOfShape", 9, [a([2])],
               value=onnx.numpy_helper.from_array(np.array([7], np.int32)))
    assert same(a([7, 7], np.int32), got)


def test_legacy_broadcast_before_version_7():
    data = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    got, = run("Add", 6, [data, f([1, 2, 3])], broadcast=1, axis=1)
    assert same(data + f([1, 2, 3]).reshape(3, 1), got)
    got, = run("Add", 6, [data, f([1, 2, 3, 4])], broadcast=1)  # suffix matching
    assert same(data + f([1, 2, 3, 4]), got)
    with pytest.raises(OracleError, match="without broadcast=1"):
        run("Add", 6, [data, f([1, 2, 3, 4])])
    equal, = run("Equal", 1, [a([1, 2], np.int32), a([1], np.int32)], broadcast=1)
    assert same(np.array([True, False]), equal)


def test_reduce_sum_forms_by_version():
    data = a([[1, 2], [3, 4]], np.float32)
    assert same(f([[10]]), run("ReduceSum", 11, [data])[0])  # all axes, keepdims 1
    assert same(f([3, 7]), run("ReduceSum", 11, [data], axes=[-1], keepdims=0)[0])
    assert same(f([[4, 6]]), run("ReduceSum", 13, [data, a([0])])[0])
    assert same(f(10), run("ReduceSum", 13, [data, a([])], keepdims=0)[0])
    assert same(data, run("ReduceSum", 13, [data], noop_with_empty_axes=1)[0])
    assert same(f([0, 0]), run("ReduceSum", 13, [np.zeros((0, 2), np.float32), a([0])],
                               keepdims=0)[0])  # 'over an empty set of values yields 0'
    assert same(a(-2, np.int32), run("ReduceSum", 13, [a([2**31 - 1] * 2, np.int32)],
                                     keepdims=0)[0])  # wraps in int32


def test_reduce_sum_of_int64_is_exact_where_onnxruntime_goes_through_double():
    """onnxruntime 1.32 answers 2**53 + 2 (KNOWN_ORT_DEVIATIONS); the sum in int64 is exact."""
    got, = run("ReduceSum", 13, [a([2**53 + 1, 2]), a([0])], keepdims=0)
    assert same(a(2**53 + 3), got)


def test_range_count_formula():
    assert same(a([3, 6], np.int32), run("Range", 11, [a(3, np.int32), a(9, np.int32),
                                                       a(3, np.int32)])[0])
    assert same(a([10, 8, 6]), run("Range", 11, [a(10), a(4), a(-2)])[0])
    assert same(f([]), run("Range", 11, [f(1), f(0), f(1)])[0])
    got, = run("Range", 11, [f(0), f(1), f(0.25)])
    assert same(f([0, 0.25, 0.5, 0.75]), got)
    with pytest.raises(OracleError, match="delta 0"):
        run("Range", 11, [a(0), a(1), a(0)])


def test_cast_rules_of_the_spec_page():
    assert same(a([-56], np.int8), run("Cast", 13, [a([200], np.int16)], to=TensorProto.INT8)[0])
    assert same(np.array([False, True, True]),
                run("Cast", 13, [f([-0.0, 0.5, np.nan])], to=TensorProto.BOOL)[0])
    assert same(f([np.inf]), run("Cast", 13, [np.array([1e300])], to=TensorProto.FLOAT)[0])
    assert same(f([1, 0]), run("Cast", 13, [np.array([True, False])], to=TensorProto.FLOAT)[0])
    strings = np.array(["3.14", "1e-5", "-INF", "NaN", "+inf"], dtype=object)
    got, = run("Cast", 13, [strings], to=TensorProto.FLOAT)
    assert same(f([3.14, 1e-5, -np.inf, np.nan, np.inf]), got)
    assert same(a([7], np.int32), run("Cast", 6, [f([7])], to=TensorProto.INT32)[0])
    assert same(a([7]), run("Cast", 1, [f([7])], to="INT64")[0])  # a type name at Cast-1
    with pytest.raises(OracleError, match="undefined if OOR"):
        run("Cast", 13, [f([300])], to=TensorProto.INT8)
    with pytest.raises(OracleError, match="no rounding"):
        run("Cast", 13, [f([2.5])], to=TensorProto.INT32)
    with pytest.raises(OracleError, match="undefined behavior"):
        run("Cast", 13, [np.array(["Hello World!"], dtype=object)], to=TensorProto.FLOAT)
    with pytest.raises(OracleError, match="float 8"):
        run("Cast", 19, [f([1])], to=TensorProto.FLOAT8E4M3FN)


def test_reshape_size_and_cast_like():
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert run("Reshape", 13, [data, a([-1, 1])])[0].shape == (6, 1)  # skl2onnx's [-1, 1]
    assert run("Reshape", 13, [data, a([0, 3, 1])])[0].shape == (2, 3, 1)  # 0 copies a dim
    assert run("Reshape", 1, [data], shape=[3, 2])[0].shape == (3, 2)
    assert run("Reshape", 14, [np.zeros((0, 3), np.float32), a([0, 3])],
               allowzero=1)[0].shape == (0, 3)
    with pytest.raises(OracleError, match="same number of elements"):
        run("Reshape", 13, [data, a([4])])
    with pytest.raises(OracleError, match="at most one -1"):
        run("Reshape", 13, [data, a([-1, -1])])
    assert same(a(6), run("Size", 13, [data])[0])
    assert same(f(2), run("CastLike", 15, [a(2), f([1.5])])[0])  # onnxscript's `B * 2`


def test_an_operator_is_run_at_the_version_in_force():
    with pytest.raises(OracleError, match="not defined at opset 8"):
        run("Range", 8, [a(0), a(1), a(1)])
    with pytest.raises(OracleError, match="not defined at opset 8"):
        run("Where", 8, [np.array(True), f(1), f(2)])


# -- cross-check against onnxruntime ------------------------------------------------------------

def _inexact_in_double(inputs) -> bool:
    """Integer data whose sum a double does not hold exactly (a value or a partial sum beyond
    2**53), or that overflows its type."""
    data = np.asarray(inputs[0])
    if data.dtype.kind not in "iu":
        return False
    info = np.iinfo(data.dtype)
    total = sum(abs(int(v)) for v in data.reshape(-1))
    return total >= 2**53 or total > info.max


#: Where onnxruntime and the oracle differ and the spec sides with the oracle: op_type -> (which
#: inputs, why). ReduceSum: 'Computes the sum of the input tensor's elements' in T; onnxruntime
#: 1.32 sums integers through double (int64 [2**53 + 1, 2] gives 2**53 + 2, not 2**53 + 3;
#: an int32 sum past 2**31 - 1 gives -2**31, not the sum wrapped in int32).
KNOWN_ORT_DEVIATIONS = {"ReduceSum": _inexact_in_double}

_NUMERIC = ("float", "double", "float16", "int8", "uint8", "int32", "int64", "uint64")


def _element(rng: random.Random, op: str, version: int, position: int = 0) -> np.dtype:
    schema = operators.defined_schema(op, version)
    formal = schema.inputs[position].type_str
    admitted = operators.allowed_types(schema, formal)
    names = [n for n in _NUMERIC if f"tensor({n})" in admitted]
    name = rng.choice(names)
    return next(d for d, e in BY_DTYPE.items() if e.name == name)


def _values(rng: random.Random, dtype, shape) -> np.ndarray:
    if np.dtype(dtype) == bool:
        return np.array([rng.random() < 0.5 for _ in range(int(np.prod(shape)))],
                        dtype=bool).reshape(shape)
    dtype = np.dtype(dtype)
    wide = dtype.kind in "iu" and rng.random() < 0.3  # values that wrap in Add, Sub, Mul
    low, high = (int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)) if wide else (
        0 if dtype.kind == "u" else -9, 9)
    values = [rng.randint(low, high) for _ in range(int(np.prod(shape)))]
    return np.array(values, dtype=dtype).reshape(shape)


def _shape(rng, rank=None):
    return tuple(rng.randint(1, 3) for _ in range(rng.randint(1, 3) if rank is None else rank))


def _draw(op: str, version: int, rng: random.Random) -> tuple[list, int, dict]:
    """Random inputs, output count and attributes for `op` at `version`."""
    dtype = _element(rng, op, version) if op not in ("Not", "And", "Where", "Range",
                                                     "ConstantOfShape", "Cast",
                                                     "CastLike") else None
    if op in ("Add", "Sub", "Mul", "Div", "Equal", "Less", "Greater", "And"):
        dtype = dtype or np.dtype(bool)
        left = _shape(rng)
        right = left[rng.randint(0, len(left)):] if version < 7 else tuple(
            rng.choice((d, 1)) for d in left[rng.randint(0, len(left)):])
        attributes = {"broadcast": 1} if version < 7 and right != left else {}
        return [_values(rng, dtype, left), _values(rng, dtype, right)], 1, attributes
    if op == "Not":
        return [_values(rng, bool, _shape(rng))], 1, {}
    if op in ("Neg", "Abs", "Ceil"):
        values = _values(rng, dtype, _shape(rng))
        return [values / 4 if dtype.kind == "f" else values], 1, {}
    if op == "Where":
        dtype = _element(rng, op, version, 1)
        shape = _shape(rng)
        return [_values(rng, bool, shape), _values(rng, dtype, shape),
                _values(rng, dtype, shape[rng.randint(0, len(shape)):])], 1, {}
    if op == "Range":
        dtype = np.dtype(rng.choice((np.int32, np.int64, np.float32, np.float64)))
        step = rng.choice((-3, -1, 1, 2))
        return [np.array(v, dtype) for v in (rng.randint(-5, 5), rng.randint(-9, 9), step)], 1, {}
    if op == "ConstantOfShape":
        value = np.array([rng.randint(-5, 5)], rng.choice((np.int32, np.int64, np.float32)))
        shape = a(list(_shape(rng)))
        return [shape], 1, {"value": onnx.numpy_helper.from_array(value)}
    if op == "CastLike":
        source, target = (rng.choice((np.float32, np.float64, np.int32, np.int64, bool))
                          for _ in range(2))
        return [_values(rng, source, _shape(rng)), _values(rng, target, (1,))], 1, {}
    if op == "Cast":
        source = rng.choice((np.float32, np.float64, np.int32, np.int64, np.int8, bool))
        target = rng.choice((TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.INT32,
                             TensorProto.INT64, TensorProto.BOOL, TensorProto.INT8))
        return [_values(rng, source, _shape(rng))], 1, {"to": target}
    return _draw_shaped(op, version, rng, dtype)


def _draw_shaped(op: str, version: int, rng: random.Random, dtype) -> tuple[list, int, dict]:
    data = _values(rng, dtype, _shape(rng))
    rank = data.ndim
    axis = rng.randint(-rank if version >= 11 else 0, rank - 1)
    if op == "Split":
        size = data.shape[axis]
        cut = sorted(rng.randint(0 if version >= 11 else 1, size) for _ in range(rng.randint(0, 2)))
        lengths = [b - a_ for a_, b in zip([0, *cut], [*cut, size], strict=True)]
        if version >= 18 and rng.random() < 0.5:
            return [data], 1, {"axis": axis, "num_outputs": 1}
        if version >= 13:
            return [data, a(lengths)], len(lengths), {"axis": axis}
        return [data], len(lengths), {"axis": axis, "split": lengths}
    if op in ("Squeeze", "Unsqueeze"):
        if op == "Squeeze":
            data = data.reshape(data.shape + (1,))
            axes = [data.ndim - 1 - (data.ndim if version >= 11 and rng.random() < 0.5 else 0)]
        else:
            axes = [rng.randint(-rank - 1 if version >= 11 else 0, rank)]
        return ([data, a(axes)], 1, {}) if version >= 13 else ([data], 1, {"axes": axes})
    if op == "Concat":
        other = list(data.shape)
        other[axis] = rng.randint(0, 2)
        return [data, _values(rng, dtype, tuple(other))], 1, {"axis": axis}
    if op == "Gather":
        size = data.shape[axis]
        low = -size if version >= 11 else 0
        indices = a([rng.randint(low, size - 1) for _ in range(rng.randint(0, 3))])
        return [data, indices], 1, {"axis": axis}
    if op == "Shape":
        return [data], 1, ({"start": rng.randint(-4, 4), "end": rng.randint(-4, 4)}
                           if version >= 15 and rng.random() < 0.7 else {})
    if op == "Slice":
        starts, ends = [rng.randint(-4, 4)], [rng.randint(-4, 4)]
        if version == 1:
            return [data], 1, {"starts": starts, "ends": ends, "axes": [axis % rank]}
        return [data, a(starts), a(ends), a([axis]), a([rng.choice((-2, -1, 1, 2))])], 1, {}
    if op == "Size":
        return [data], 1, {}
    if op == "Reshape":
        wanted = [int(data.size), 1][::rng.choice((1, -1))]
        wanted[rng.randint(0, 1)] = -1 if rng.random() < 0.5 else wanted[0]
        return ([data], 1, {"shape": wanted}) if version < 5 else ([data, a(wanted)], 1, {})
    if op == "ReduceSum":
        attributes = {"keepdims": rng.randint(0, 1)}
        if version >= 13:
            return [data, a([axis])], 1, attributes
        return [data], 1, {**attributes, "axes": [axis]}
    raise AssertionError(op)


def _released_opset(op: str, version: int) -> int:
    """The lowest opset of an onnx release at which `op` is at `version`."""
    return min(o for o in operators.released_opsets()
               if o >= version and operators.defined_schema(op, o).since_version == version)


def _cases():
    """Every version of every operator from 7 (onnxruntime has no kernels of older ones)."""
    return [pytest.param(op, v, id=f"{op}-{v}") for op in OPS
            for v in operators.versions(op) if v >= 7]


def ort_outputs(built: onnx.ModelProto, inputs: list) -> list | str:
    """onnxruntime's outputs of `built` on graph inputs x0, x1, ..., or the start of its
    refusal to load it (a kernel it lacks is a refusal, not a difference); None is an input
    left off."""
    try:
        session = ort.InferenceSession(built.SerializeToString(),
                                       providers=["CPUExecutionProvider"])
    except Exception as error:  # noqa: BLE001 - a refusal of onnxruntime, not a difference
        return str(error)[:160]
    return session.run(None, {f"x{i}": v for i, v in enumerate(inputs) if v is not None})


@pytest.mark.parametrize(("op", "version"), _cases())
def test_oracle_agrees_with_onnxruntime(op, version):
    """Twenty seeded random inputs per operator and version, run on both at the lowest released
    opset where `version` is in force; a type onnxruntime has no kernel for is skipped."""
    rng = random.Random(f"{op}-{version}")
    compared, refused = 0, []
    for _ in range(20):
        inputs, outputs, attributes = _draw(op, version, rng)
        built = model(op, _released_opset(op, version), inputs, outputs, **attributes)
        try:
            expected = oracle.run_model(built, inputs)
        except OracleError:
            continue  # the spec gives no result for these inputs (a Cast out of range, ...)
        got = ort_outputs(built, inputs)
        if isinstance(got, str):
            refused.append(got)
            continue
        if op in KNOWN_ORT_DEVIATIONS and KNOWN_ORT_DEVIATIONS[op](inputs):
            continue
        for mine, theirs in zip(expected, got, strict=True):
            assert same(mine, np.asarray(theirs)), (op, version, inputs, attributes, mine, theirs)
        compared += 1
    assert compared, f"{op}-{version}: no draw gave a result to compare; refused: {refused}"
