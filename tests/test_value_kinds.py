"""The value kinds (`_core/value_kinds/`): every kind of the registry implements every part,
and each part round-trips on a value of each kind (type text, TypeProto, .pb bytes, the
comparison of a value with itself and with a value of another kind, IR checks, rendering);
maps of every key type onnx allows through .pb files, compared exactly, in case files."""

import inspect

import numpy as np
import pytest
import yaml
from onnx import SequenceProto, TensorProto, helper, numpy_helper

from onnx_seq_tests._casefile.nodes import INVALID
from onnx_seq_tests._casefile.tensors import DataReader
from onnx_seq_tests._casefile.writer import cases_text, value_data
from onnx_seq_tests._core import value_kinds
from onnx_seq_tests._core.errors import TypeTextError
from onnx_seq_tests._core.problems import Problems
from onnx_seq_tests._core.value_kinds import KINDS, decode, encode, parse_type
from onnx_seq_tests._core.value_kinds.base import ValueType
from onnx_seq_tests._core.value_kinds.map import KEY_TYPES

#: One value type of each kind (a type text), with a value of it.
SAMPLES = {
    "tensor": ("tensor(float)", np.float32([[1.5, -0.0], [np.nan, 3]])),
    "seq": ("seq(tensor(int64))", [np.int64([1, 2]), np.int64([3])]),
    "optional": ("optional(seq(tensor(string)))", [np.array(["a", ""], dtype=object)]),
    "map": ("map(string, tensor(double))", {"b": np.float64(-0.0), "a": np.float64([1, 2])}),
}

PARTS = sorted(name for name, member in vars(ValueType).items()
               if getattr(member, "__isabstractmethod__", False))


def test_every_kind_implements_every_part():
    assert set(PARTS) >= {"from_text", "type_proto", "from_type_proto", "encode", "decode",
                          "holds", "describe", "differ", "check", "render", "untensorable"}
    for kind in KINDS:
        assert not inspect.isabstract(kind), (kind.__name__, kind.__abstractmethods__)
        for constant in ("WORD", "TYPE_FIELD", "PROTO", "FORMS"):
            assert getattr(kind, constant, None), (kind.__name__, constant)
    assert {kind.WORD for kind in KINDS} == set(SAMPLES), "a kind without a sample below"


def test_a_part_left_out_cannot_make_a_kind():
    class Half(ValueType):
        def __str__(self) -> str:
            return "half"
    with pytest.raises(TypeError, match="abstract"):
        Half()  # type: ignore[abstract]


@pytest.mark.parametrize("word", sorted(SAMPLES))
def test_each_part_of_each_kind(word):
    text, value = SAMPLES[word]
    value_type = parse_type(text)
    assert value_type.WORD == word and str(value_type) == text
    assert value_kinds.from_type_proto(value_type.type_proto()) == value_type
    proto = encode(value, value_type, "x")
    assert isinstance(proto, value_type.PROTO) and proto.name == "x"
    again = value_type.PROTO()
    again.ParseFromString(proto.SerializeToString())
    back = decode(again)
    assert value_kinds.differ(value, back, value_type, 0, 0) == []
    assert value_kinds.differ(value, back, None, 0, 0) == []
    other = {"tensor": [np.float32(1)], "seq": np.int64(1), "optional": np.int64(1),
             "map": [np.float64(1)]}[word]
    found = value_kinds.differ(value, other, value_type, 0, 0)
    assert found and found[0].kind in ("kind", "dtype"), found
    messages: list[str] = []
    value_type.check(value, "input 'x'", {}, messages)
    assert messages == []
    value_type.check(object(), "input 'x'", {}, messages)
    assert messages and messages[0].startswith("input 'x'"), messages
    lines = value_type.render("  x: ", value, False)
    assert lines[0].startswith("  x: ") and len(lines) > 1
    assert bool(value_type.untensorable()) == (word == "map")


# -- maps -------------------------------------------------------------------------------------

def _key(name: str, k: int):
    return f"k{k}" if name == "string" else k * 3 - 1 if name.startswith("int") else k * 3


@pytest.mark.parametrize("key", KEY_TYPES)
@pytest.mark.parametrize("value_text", ["tensor(float)", "tensor(string)", "seq(tensor(int8))",
                                        "map(int64, tensor(bool))"])
def test_a_map_of_each_key_type_round_trips_through_a_pb_file(key, value_text):
    """map(K, V) and seq(map(K, V)) and optional(map(K, V)): written, parsed from bytes, read
    back equal (keys of their type, in their order)."""
    inner = parse_type(value_text)
    samples = {"tensor": [np.float32(1.5), np.float32([-0.0, np.inf])],
               "seq": [[np.int8([1, -2])], []]}
    def value_of(value_type, k):
        if value_type.WORD == "map":
            return {_key("int64", j): np.bool_(j % 2) for j in range(k + 1)}
        if str(value_type) == "tensor(string)":
            return np.array([f"s{k}"], dtype=object)
        return samples[value_type.WORD][k % 2]
    value = {_key(key, k): value_of(inner, k) for k in (2, 0, 1)}
    for text, wrapped in ((f"map({key}, {value_text})", value),
                          (f"seq(map({key}, {value_text}))", [value, {}]),
                          (f"optional(map({key}, {value_text}))", value),
                          (f"optional(map({key}, {value_text}))", None)):
        value_type = parse_type(text)
        assert str(value_type) == text
        again = value_type.PROTO()
        again.ParseFromString(encode(wrapped, value_type, "m").SerializeToString())
        back = decode(again)
        assert value_kinds.differ(wrapped, back, value_type, 0, 0) == [], (text, back)
        if isinstance(back, dict):
            assert list(back) == list(value) and all(type(k) is type(w)
                                                     for k, w in zip(back, value, strict=True))


def test_maps_compare_exactly_key_sets_key_types_and_values():
    value_type = parse_type("seq(map(int64, tensor(float)))")
    want = [{0: np.float32(0.5), 1: np.float32(1)}]
    def texts(got):
        return [d.text("output 0 (y)") for d in value_kinds.differ(want, got, value_type, 0, 0)]
    assert texts([{1: np.float32(1), 0: np.float32(0.5)}]) == []  # the order is no part
    assert texts([{0: np.float32(0.5)}]) == [
        "output 0 (y), element 0: expected a map of keys [0, 1], got keys [0]"]
    assert texts([{"0": np.float32(0.5), 1: np.float32(1)}]) == [
        "output 0 (y), element 0: expected a map of keys [0, 1], got keys ['0', 1]"]
    assert texts([{0: np.float32(0.5), 1: np.float64(1)}]) == [
        "output 0 (y), element 0, key 1: expected dtype float (float32), got double (float64)"]
    assert texts([{0: np.float32(0.25), 1: np.float32(1)}]) == [
        "output 0 (y), element 0, key 0: expected 0.5, got 0.25"]
    assert texts([[np.float32(0.5)]]) == [
        "output 0 (y), element 0: expected a map of 2 entries, got a sequence of length 1"]


def test_a_map_breaks_its_type_when_a_key_is_of_another_type_or_out_of_range():
    value_type = parse_type("map(uint8, tensor(float))")
    messages: list[str] = []
    value_type.check({1: np.float32(1), "a": np.float32(2), 300: np.float32(3)}, "input 'm'",
                     {}, messages)
    assert messages == [
        "input 'm' is declared map(uint8, tensor(float)), but holds the key 'a'",
        "input 'm' is declared map(uint8, tensor(float)), but holds the key 300"]


@pytest.mark.parametrize("text", ["map(float, tensor(float))", "map(int64)",
                                  "seq(seq(tensor(float)))", "optional(optional(tensor(float)))"])
def test_a_type_text_of_no_kind_is_refused(text):
    with pytest.raises(TypeTextError):
        parse_type(text)


def _read(yaml_text, value_type):
    problems = Problems()
    node = yaml.compose(yaml_text) if isinstance(yaml_text, str) else yaml_text
    value = DataReader("case.yaml", problems).value(node, value_type, "input 'm'", True)
    return value, [str(p) for p in problems.found]


def test_a_map_in_a_case_file_is_written_and_read_back():
    value_type = parse_type("seq(map(string, tensor(int64)))", ())
    value, problems = _read("[{map: [[b, 2], [a, -1]]}, {map: []}]", value_type)
    assert problems == [] and value_kinds.differ(
        [{"b": np.int64(2), "a": np.int64(-1)}, {}], value, value_type, 0, 0) == []
    text = cases_text([([], {"m": value_data(value, value_type, "m")})])
    again, _ = _read(yaml.compose(text).value[0].value[0][1], value_type)
    assert value_kinds.differ(value, again, value_type, 0, 0) == [] and list(again[0]) == ["b", "a"]


@pytest.mark.parametrize("text, problem", [
    ("{map: [[1, 2], [1, 3]]}", "1:17: input 'm' has the key 1 twice"),
    ("{map: [[x, 2]]}", "1:9: key of entry 0 of input 'm': "),
    ("{map: [[1]]}", "1:8: entry 0 of input 'm' must be a pair [key, value]"),
    ("[[1, 2]]", "1:1: input 'm' is map(int64, tensor(int64)): write it {map: [[key, value], "),
    ("{optional: empty}", "1:1: input 'm' is map(int64, tensor(int64)): write it {map: "),
])
def test_a_map_in_a_case_file_that_is_not_right_is_one_problem(text, problem):
    value, problems = _read(text, parse_type("map(int64, tensor(int64))", ()))
    assert value is INVALID and len(problems) == 1 and problem in problems[0], problems


def test_a_map_proto_with_a_key_twice_or_a_value_short_is_no_map():
    twice = helper.make_map("m", TensorProto.INT64, [1, 1], helper.make_sequence(
        "", SequenceProto.TENSOR, [numpy_helper.from_array(np.float32(v)) for v in (1, 2)]))
    with pytest.raises(TypeError, match="a key twice"):
        decode(twice)
    del twice.values.tensor_values[1]
    with pytest.raises(TypeError, match="a map of 2 keys holds 1 values"):
        decode(twice)


def test_kinds_in_walks_every_type_inside():
    """What an adapter checks against the kinds its API takes (`CPUBackend.TAKES`)."""
    from onnx_seq_tests._core.value_kinds import kinds_in, parse_type

    assert kinds_in(parse_type("seq(map(int64, tensor(float)))", None)) == ("seq", "map",
                                                                           "tensor")
    assert kinds_in(parse_type("optional(seq(tensor(float)))", None)) == ("optional", "seq",
                                                                          "tensor")
    assert kinds_in(parse_type("tensor(int8)", None)) == ("tensor",)
