"""The comparator: kinds, lengths, optionals, dtypes, shapes, values, and where it says they
differ."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from onnx.backend.test.runner import Runner

from onnx_seq_tests._core.compare import assert_outputs_match, compare_outputs
from onnx_seq_tests._core.errors import OutputMismatch
from onnx_seq_tests._core.value_kinds import parse_type

f32 = np.float32


def diff(expected, actual, **kwargs):
    kwargs.setdefault("atol", 0.0)
    kwargs.setdefault("rtol", 0.0)
    return compare_outputs(expected, actual, **kwargs)


def test_message_names_output_element_and_index():
    expected = [[np.zeros((2, 2), f32), np.ones(3, f32), np.array([[1, 2], [3.5, 4]], f32)]]
    actual = [[np.zeros((2, 2), f32), np.ones(3, f32), np.array([[1, 2], [3.0, 4]], f32)]]
    assert diff(expected, actual, names=["seq"]) == [
        "output 0 (seq), element 2, index [1, 0]: expected 3.5, got 3.0"]


def test_equal_nested_values_pass():
    strings = np.array(["héllo", "", "日本語", "😀"], dtype=object)
    expected = [
        [f32(1.5), np.array(np.nan, f32), np.array([[1, 2]], np.int64)],  # 0-d elements
        [],  # an empty sequence
        None,  # an empty optional
        [strings, np.array([["", "ß"]], dtype=object)],  # elements of different shapes
        np.array(True),
    ]
    actual = [[np.asarray(f32(1.5)), np.array(np.nan, f32), np.array([[1, 2]], np.int64)], [],
              None, [strings.copy(), np.array([["", "ß"]], dtype=object)], np.bool_(True)]
    assert diff(expected, actual) == []
    assert_outputs_match(expected, actual, atol=0.0, rtol=0.0)


def test_sequence_length_is_compared():
    expected = [[np.ones(2, f32), np.zeros(2, f32)]]
    assert diff(expected, [[]], names=["s"]) == [
        "output 0 (s): expected a sequence of length 2, got length 0"]
    assert diff(expected, [expected[0][:1]]) == [
        "output 0: expected a sequence of length 2, got length 1"]
    with pytest.raises(OutputMismatch, match="length 2, got length 0"):
        assert_outputs_match(expected, [[]])


def test_onnx_runner_misses_what_we_catch():
    """onnx's own comparator never compares sequence lengths; ours does."""
    expected, empty = [[np.ones(2, f32)]], [[]]
    Runner.assert_similar_outputs(expected, empty, rtol=1e-3, atol=1e-7)
    assert diff(expected, empty)


def test_empty_and_present_optionals():
    seq = parse_type("optional(seq(tensor(float)))")
    assert diff([None], [[]], types=[seq]) == [
        "output 0: expected an empty optional, got a sequence of length 0"]
    assert diff([[]], [None], types=[seq]) == [
        "output 0: expected a present optional holding a sequence of length 0, got an empty "
        "optional"]
    assert diff([None], [np.zeros(0, f32)])[0].startswith(
        "output 0: expected an empty optional, got a tensor of float (float32) with shape [0]")
    assert diff([None], [None], types=[seq]) == []


def test_kind_is_compared():
    assert diff([np.ones(2, f32)], [[np.ones(2, f32)]]) == [
        "output 0: expected a tensor of float (float32) with shape [2], got a sequence of "
        "length 1"]
    assert diff([[np.ones(2, f32)]], [np.ones((1, 2), f32)]) == [
        "output 0: expected a sequence of length 1, got a tensor of float (float32) with "
        "shape [1, 2]"]
    assert diff([np.array(3)], [3]) == ["output 0: expected a tensor of int64 with shape [], "
                                        "got a int (3)"]


def test_output_count_is_compared():
    assert diff([np.ones(1)], []) == ["expected 1 output(s), got 0"]
    assert diff([np.ones(1)], np.ones(1))[0].startswith("expected a list of 1 output(s)")


def test_dtype_is_exact():
    assert diff([np.ones(2, f32)], [np.ones(2, np.float64)]) == [
        "output 0: expected dtype float (float32), got double (float64)"]
    assert diff([np.ones(2, np.int64)], [np.ones(2, np.int32)]) == [
        "output 0: expected dtype int64, got int32"]
    strings = np.array(["a"], dtype=object)
    assert diff([strings], [strings.astype(str)]) == [
        "output 0: expected dtype string (object), got <U1"]


def test_shape_is_exact():
    assert diff([np.ones((2, 3), f32)], [np.ones((3, 2), f32)]) == [
        "output 0: expected shape [2, 3], got [3, 2]"]
    assert diff([[f32(1)]], [[np.ones(1, f32)]]) == [
        "output 0, element 0: expected shape [], got [1]"]


def test_integers_are_exact():
    big = np.iinfo(np.int64).max
    assert diff([np.array([big])], [np.array([big - 1])], rtol=1e-3) == [
        "output 0, index [0]: expected 9223372036854775807, got 9223372036854775806"]
    top = np.iinfo(np.uint64).max
    assert diff([np.array([top], np.uint64)], [np.array([top], np.uint64)]) == []


def test_strings_are_exact():
    expected = np.array(["é", ""], dtype=object)
    assert diff([expected], [np.array(["e", ""], dtype=object)]) == [
        "output 0, index [0]: expected 'é', got 'e'"]
    assert diff([expected], [np.array(["é", " "], dtype=object)]) == [
        "output 0, index [1]: expected '', got ' '"]
    encoded = np.array(["é".encode(), b""], dtype=object)
    assert diff([expected], [encoded]) == [
        "output 0, index [0]: expected 'é', got b'\\xc3\\xa9' (2 of 2 values differ)"]


def test_bool_is_exact():
    assert diff([np.array([True, False])], [np.array([True, True])]) == [
        "output 0, index [1]: expected False, got True"]


def test_floats_within_tolerance():
    expected = [np.array([1.0, 100.0], f32)]
    assert diff(expected, [np.array([1.0005, 100.0], f32)], atol=1e-3) == []
    assert diff(expected, [np.array([1.002, 100.0], f32)], atol=1e-3)
    assert diff(expected, [np.array([1.0, 100.09], f32)], rtol=1e-3) == []
    assert diff(expected, [np.array([1.0, 100.2], f32)], rtol=1e-3)


def test_nan_equals_nan_only():
    nan = np.array([np.nan], f32)
    assert diff([nan], [nan.copy()]) == []
    assert diff([nan], [np.array([0.0], f32)], atol=1.0) == [
        "output 0, index [0]: expected nan, got 0.0"]
    assert diff([np.array([0.0], f32)], [nan], atol=1.0)


def test_infinities():
    inf = np.array([np.inf], np.float64)
    assert diff([inf], [inf.copy()], rtol=1e-3) == []
    assert diff([inf], [-inf], rtol=1e-3, atol=1.0)
    assert diff([inf], [np.array([1e308])], rtol=1e-3)


def test_small_float_types():
    for dtype, shown in ((ml_dtypes.bfloat16, "-2, got -1"), (ml_dtypes.float8_e4m3fn,
                          "-2, got -1"), (np.float16, "-2.0, got -1.0")):
        values = np.array([0.5, -2.0, np.nan], dtype)
        assert diff([values], [values.copy()]) == []
        other = np.array([0.5, -1.0, np.nan], dtype)
        assert diff([values], [other]) == [f"output 0, index [1]: expected {shown}"]
        assert diff([values], [np.array([0.5, -1.9, np.nan], dtype)], atol=0.2) == []


def test_complex_parts_compared():
    expected = np.array([1 + 2j, np.nan + 1j], np.complex64)
    assert diff([expected], [expected.copy()]) == []
    assert diff([expected], [np.array([1 + 3j, np.nan + 1j], np.complex64)])


def test_every_difference_is_listed():
    expected = [[np.ones(2, f32), np.ones(2, f32)], np.array(1)]
    actual = [[np.zeros(2, f32), np.ones(3, f32)], np.array(2)]
    assert diff(expected, actual, names=["s", "n"]) == [
        "output 0 (s), element 0, index [0]: expected 1.0, got 0.0 (2 of 2 values differ)",
        "output 0 (s), element 1: expected shape [2], got [3]",
        "output 1 (n): expected 1, got 2",
    ]


_dtypes = st.sampled_from([np.float32, np.float64, np.int8, np.int64, np.uint16, np.bool_])


@st.composite
def _values(draw, depth=0):
    kind = draw(st.sampled_from(["tensor", "seq", "none"] if depth == 0 else ["tensor"]))
    if kind == "none":
        return None
    if kind == "seq":
        return draw(st.lists(_values(depth=1), max_size=4))
    dtype = draw(_dtypes)
    return draw(hnp.arrays(dtype, hnp.array_shapes(min_dims=0, max_dims=3, max_side=3)))


@settings(max_examples=200, deadline=None)
@given(st.lists(_values(), max_size=3))
def test_a_value_equals_its_copy(outputs):
    copied = [None if o is None else [a.copy() for a in o] if isinstance(o, list) else o.copy()
              for o in outputs]
    assert diff(outputs, copied) == []


@settings(max_examples=200, deadline=None)
@given(_values(depth=1), st.data())
def test_a_changed_value_is_found(array, data):
    if array.size == 0:
        return
    index = tuple(data.draw(st.integers(0, n - 1)) for n in array.shape)
    changed = array.copy()
    if changed.dtype == np.bool_:
        changed[index] = not changed[index]
    elif np.issubdtype(changed.dtype, np.floating) and np.isnan(changed[index]):
        changed[index] = 0
    else:
        changed[index] = changed[index] - 1 if changed[index] > 0 else changed[index] + 1
    if changed[index] == array[index]:  # e.g. a huge float where -1 rounds away
        return
    problems = diff([array], [changed])
    assert len(problems) == 1
    assert f"index {list(index)}:" in problems[0] if index else "index" not in problems[0]


def test_exact_comparison_keeps_the_sign_of_zero_and_a_tolerance_does_not():
    from onnx_seq_tests._core.compare import compare_value

    zero, negative_zero = np.array([0.0], np.float32), np.array([-0.0], np.float32)
    assert compare_value(negative_zero, negative_zero, "v", atol=0, rtol=0) == []
    assert compare_value(negative_zero, zero, "v", atol=0, rtol=0) == [
        "v, index [0]: expected -0.0, got 0.0"]
    assert compare_value(negative_zero, zero, "v", atol=1e-7, rtol=0) == []


# -- NaN payloads: exact comparison is bit for bit ------------------------------------------------

def _bits(values, dtype):
    unsigned = np.dtype(f"u{np.dtype(dtype).itemsize}")
    return np.array(values, dtype=unsigned).view(dtype)


@pytest.mark.parametrize(("dtype", "expected", "other"), [
    (np.float32, 0x7FA00001, 0x7FE00001),  # signalling vs the same payload quieted
    (np.float32, 0xFFC00000, 0x7FC00000),  # the sign of a NaN
    (np.float32, 0x7FC12345, 0x7FC00000),  # a payload vs the canonical NaN
    (np.float16, 0x7D01, 0x7F01),
    (np.float64, 0x7FF0000000000001, 0x7FF8000000000001),
    (ml_dtypes.bfloat16, 0x7F81, 0x7FC1),
])
def test_exact_comparison_keeps_nan_bits(dtype, expected, other):
    """With no tolerance (every case of the suite: data movement), a NaN must come back as the
    same NaN; with a tolerance (a computed result) any NaN equals any NaN."""
    want, got = _bits([expected], dtype), _bits([other], dtype)
    assert compare_outputs([want], [_bits([expected], dtype)], atol=0, rtol=0) == []
    found = compare_outputs([want], [got], atol=0, rtol=0)
    assert len(found) == 1 and found[0].startswith("output 0, index [0]: expected nan")
    assert "nan(0x" in found[0]
    assert compare_outputs([want], [got]) == []


def test_nan_bits_are_shown_where_they_differ():
    want, got = _bits([0x7FA00001], np.float32), _bits([0x7FC00000], np.float32)
    assert compare_outputs([want], [got], atol=0, rtol=0) == [
        "output 0, index [0]: expected nan(0x7fa00001), got nan"]
