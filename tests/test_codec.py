"""Round trips: YAML value -> case value -> proto -> bytes -> value, for every kind and type."""

import math

import numpy as np
import pytest
from onnx import OptionalProto, SequenceProto, numpy_helper

from onnx_seq_tests._core.elements import ELEMENTS
from onnx_seq_tests._core.value_kinds import (
    OptionalType,
    SequenceType,
    TensorType,
    decode,
    from_type_proto,
    innermost,
    parse_type,
    to_type_proto,
)
from onnx_seq_tests._suite.codec import encode, parse


def sample(name: str) -> np.ndarray:
    """A small 2x2 tensor every element type can hold exactly."""
    element = ELEMENTS[name]
    if element.kind == "string":
        return np.array([["a", "é"], ["", "z"]], dtype=object)
    if element.kind == "bool":
        return np.array([[True, False], [False, True]])
    if element.kind == "complex":
        return np.array([[1 + 2j, -0.5j], [3, 0]], dtype=element.dtype)
    if name == "float8e8m0":
        return np.array([[1, 2], [0.5, 4]], dtype=element.dtype)
    return np.array([[1, 0], [0, 1]], dtype=element.dtype)


def same(a, b) -> bool:
    if a is None or b is None:
        return a is b
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(same, a, b))
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)


def round_trip(value, value_type, empty_optional="undefined"):
    proto = encode(value, value_type, "x", empty_optional)
    assert proto.name == "x"
    return decode(parse(proto.SerializeToString(), value_type))


@pytest.mark.parametrize("name", sorted(ELEMENTS))
def test_tensor_round_trip_every_element_type(name):
    value = sample(name)
    assert same(round_trip(value, TensorType(ELEMENTS[name], (2, 2))), value)


@pytest.mark.parametrize("name", sorted(ELEMENTS))
def test_sequence_and_optional_round_trip_every_element_type(name):
    value = sample(name)
    tensor = TensorType(ELEMENTS[name], (None, 2))
    assert same(round_trip([value, value[:1]], SequenceType(tensor)), [value, value[:1]])
    assert same(round_trip(value, OptionalType(tensor)), value)
    assert same(round_trip([value], OptionalType(SequenceType(tensor))), [value])


def test_empty_sequence_is_tensor_kind_with_no_values():
    proto = encode([], SequenceType(TensorType(ELEMENTS["int64"])), "s")
    assert proto.elem_type == SequenceProto.TENSOR and len(proto.tensor_values) == 0
    assert round_trip([], SequenceType(TensorType(ELEMENTS["int64"]))) == []


@pytest.mark.parametrize("form,elem_type", [("undefined", OptionalProto.UNDEFINED),
                                            ("typed", OptionalProto.TENSOR)])
def test_empty_optional_both_encodings_read_back_as_none(form, elem_type):
    value_type = OptionalType(TensorType(ELEMENTS["float"], ()))
    proto = encode(None, value_type, "o", form)
    assert proto.elem_type == elem_type
    assert not proto.HasField("tensor_value")
    assert round_trip(None, value_type, form) is None


def test_undefined_empty_optional_is_what_numpy_helper_reads():
    proto = encode(None, OptionalType(SequenceType(TensorType(ELEMENTS["float"]))), "o")
    assert numpy_helper.to_optional(proto) is None


def test_typed_empty_optional_of_sequence_says_sequence():
    proto = encode(None, OptionalType(SequenceType(TensorType(ELEMENTS["float"]))), "o", "typed")
    assert proto.elem_type == OptionalProto.SEQUENCE


def test_nested_protos_carry_no_name():
    value_type = OptionalType(SequenceType(TensorType(ELEMENTS["float"])))
    proto = encode([np.zeros(2, np.float32)], value_type, "top")
    assert proto.name == "top"
    assert proto.sequence_value.name == ""
    assert proto.sequence_value.tensor_values[0].name == ""


def test_zero_d_tensors_in_sequence_and_special_floats():
    values = [np.array(math.nan, np.float32), np.array(-math.inf, np.float32),
              np.array(math.inf, np.float32)]
    back = round_trip(values, SequenceType(TensorType(ELEMENTS["float"], ())))
    assert [v.shape for v in back] == [(), (), ()]
    assert math.isnan(back[0]) and back[1] == -math.inf and back[2] == math.inf


def test_int64_and_uint64_extremes_survive():
    for name, extreme in (("int64", [-(2**63), 2**63 - 1]), ("uint64", [0, 2**64 - 1])):
        value = np.array(extreme, dtype=ELEMENTS[name].dtype)
        back = round_trip(value, TensorType(ELEMENTS[name], (2,)))
        assert [int(v) for v in back] == extreme


@pytest.mark.parametrize("text", [
    "tensor(float)", "seq(tensor(string))", "optional(tensor(bfloat16))",
    "optional(seq(tensor(float8e4m3fn)))", "tensor(int2)",
])
def test_type_string_round_trip(text):
    value_type = parse_type(text, ("N", 3, None))
    assert str(value_type) == text
    assert from_type_proto(to_type_proto(value_type)) == value_type


@pytest.mark.parametrize("text", ["tensor(float)", "seq(tensor(int8))",
                                  "optional(seq(tensor(string)))"])
@pytest.mark.parametrize("shape", [None, (), (2, "N", None)])
def test_a_type_string_holds_no_shape_so_parse_takes_it_back_apart(text, shape):
    """The value_types contract: str(t) drops the shape; parse_type(str(t), shape) gives t."""
    value_type = parse_type(text, shape)
    assert innermost(value_type).shape == shape and str(value_type) == text
    assert parse_type(str(value_type), innermost(value_type).shape) == value_type
    assert (parse_type(str(value_type)) == value_type) == (shape is None)
    assert from_type_proto(to_type_proto(value_type)) == value_type


def test_unknown_rank_has_no_shape_field_and_reads_back_as_none():
    proto = to_type_proto(parse_type("seq(tensor(int64))"))
    assert not proto.sequence_type.elem_type.tensor_type.HasField("shape")
    assert from_type_proto(proto) == parse_type("seq(tensor(int64))")



def test_type_strings_allow_spaces_around_parentheses_only():
    assert str(parse_type(" seq( tensor(float) ) ")) == "seq(tensor(float))"
    with pytest.raises(ValueError, match="is not a type"):
        parse_type("ten sor(float)")


def test_strings_keep_their_nul_characters():
    # onnx's numpy_helper.to_array drops trailing NULs (it goes through a fixed-width numpy
    # string); a string a runtime is fed, or is expected to give, must be the one written
    value = np.array([["\0", "a\0"], ["", "日本\0\0"]], dtype=object)
    assert numpy_helper.to_array(numpy_helper.from_array(value))[0, 0] == ""  # onnx's loss
    got = decode(encode(value, TensorType(ELEMENTS["string"], (2, 2))))
    assert got.dtype == object and got.shape == (2, 2)
    assert got.tolist() == [["\0", "a\0"], ["", "日本\0\0"]]
    assert decode(encode([np.array("\0", dtype=object)], SequenceType(
        TensorType(ELEMENTS["string"], ())))) [0].item() == "\0"
