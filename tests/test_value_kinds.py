"""The value kinds (`_core/value_kinds/`): every kind of the registry implements every part,
and each part round-trips on a value of each kind (type text, TypeProto, .pb bytes, the
comparison of a value with itself and with a value of another kind, IR checks, rendering, the
case-file form and its schema, runtimes' Python values, fingerprints); no module outside the
kinds and the oracle names a map; maps of every key type onnx allows through .pb files,
compared exactly, in case files."""

import inspect
import re
from pathlib import Path

import jsonschema
import numpy as np
import pytest
import yaml
from onnx import SequenceProto, TensorProto, helper, numpy_helper

from onnx_seq_tests._casefile import json_schema
from onnx_seq_tests._casefile.nodes import INVALID
from onnx_seq_tests._casefile.tensors import DataReader
from onnx_seq_tests._casefile.writer import cases_text, value_data
from onnx_seq_tests._core import value_kinds
from onnx_seq_tests._core.errors import TypeTextError
from onnx_seq_tests._core.problems import Problems
from onnx_seq_tests._core.value_kinds import KINDS, decode, encode, parse_type
from onnx_seq_tests._core.value_kinds.base import ValueType
from onnx_seq_tests._core.value_kinds.map import KEY_TYPES
from onnx_seq_tests._runtimes.outputs import contract_problem
from onnx_seq_tests._suite.compiling import _canonical

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
                          "holds", "describe", "differ", "check", "render", "untensorable",
                          "read_case", "case_data", "parts", "python_form"}
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


def _parts_of(proto) -> list:
    return [proto] + [p for part in value_kinds.proto_parts(proto) for p in _parts_of(part)]


@pytest.mark.parametrize("word", sorted(SAMPLES))
def test_each_kind_round_trips_through_every_room(word):
    """The hooks each room dispatches through, on a value of each kind: written to a case file
    (valid by the case schema), read back, to a .pb file and back (its protos walked within
    limits), through runtimes' Python form and back, compared equal, fingerprinted alike, its
    entries checked as a backend's output."""
    text, value = SAMPLES[word]
    value_type = parse_type(text)
    written = cases_text([([], {"m": value_data(value, value_type, "input 'm'")})])
    schema = json_schema.case_schema()
    jsonschema.Draft7Validator({"$ref": "#/definitions/value", "definitions": schema[
        "definitions"]}).validate(yaml.safe_load(written)[0]["m"])
    read, problems = _read(yaml.compose(written).value[0].value[0][1], value_type)
    assert problems == [] and value_kinds.differ(value, read, value_type, 0, 0) == []
    proto = encode(read, value_type, "m")
    assert all(isinstance(p, (TensorProto, *(k.PROTO for k in KINDS))) for p in _parts_of(proto))
    assert len(_parts_of(proto)) > 1 or word == "tensor"
    back = decode(proto)
    assert value_kinds.differ(value, back, value_type, 0, 0) == []
    api = value_kinds.from_api(value_kinds.to_api(back, value_type), value_type)
    assert value_kinds.differ(value, api, value_type, 0, 0) == []
    assert repr(_canonical(value)) == repr(_canonical(back)) != repr(_canonical(None))
    assert contract_problem([back], [value_type]) is None
    inside = value_kinds.entries(back, value_type)
    assert inside is not None and all(t is not None for _, _, t in inside)
    assert value_type.python_form() and value_type.render("  m: ", back, True)


#: What names the map kind in code: its class, its case-file key, its key types, its protos and
#: their fields, a test of a type text's prefix, a word that tells a map from other values.
_MAP_NAMES = re.compile(r"\bMapType\b|\bMAP_KEY\w*|\bKEY_TYPES\b|\bMapProto\b|\bmap_type\b"
                        r"|\bmap_values?\b|\bMapValues\b|\b_\w+_map\b|[\"']map\(?[\"']")
#: Where a map may be named outside the kinds and the oracle (whose ML operators are the map
#: kind's operators): onnxruntime's binding limits, facts about a runtime, kept as data.
_MAY_NAME = {"_runtimes/backends.py": {'"map"'}}
_PACKAGE = Path(value_kinds.__file__).resolve().parents[2]


def _map_names(text: str) -> list[str]:
    return _MAP_NAMES.findall(text)


def test_no_module_outside_the_kinds_and_the_oracle_names_a_map():
    """A new value kind is its module in `_core/value_kinds/`, its registry entry, its
    operators and cases: every other room dispatches through the kind's hooks."""
    found = {}
    for path in sorted(_PACKAGE.rglob("*.py")):
        where = path.relative_to(_PACKAGE).as_posix()
        if not where.startswith(("_core/value_kinds/", "_oracle/")):
            names = set(_map_names(path.read_text(encoding="utf-8"))) - _MAY_NAME.get(where,
                                                                                     set())
            if names:
                found[where] = sorted(names)
    assert len(list(_PACKAGE.rglob("*.py"))) > 100
    assert found == {}, "dispatch through the kind (a ValueType hook), do not name it"


def test_the_map_name_check_can_fail():
    assert _map_names('if isinstance(t, MapType) or "map(" in text or k == MAP_KEY: '
                      '_bindable_map(proto.map_type, "map")') == [
        "MapType", '"map("', "MAP_KEY", "_bindable_map", "map_type", '"map"']
    assert _map_names("a map of keys, map(lambda x: x), self.maps, heatmap") == []


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
