"""The value kinds (`_core/value_kinds/`): every kind of the registry implements every part,
and each part round-trips on a value of each kind (type text, TypeProto, .pb bytes, the
comparison of a value with itself and with a value of another kind, IR checks, rendering)."""

import inspect

import numpy as np
import pytest

from onnx_seq_tests._core import value_kinds
from onnx_seq_tests._core.value_kinds import KINDS, decode, encode, parse_type
from onnx_seq_tests._core.value_kinds.base import ValueType

#: One value type of each kind (a type text), with a value of it.
SAMPLES = {
    "tensor": ("tensor(float)", np.float32([[1.5, -0.0], [np.nan, 3]])),
    "seq": ("seq(tensor(int64))", [np.int64([1, 2]), np.int64([3])]),
    "optional": ("optional(seq(tensor(string)))", [np.array(["a", ""], dtype=object)]),
}

PARTS = sorted(name for name, member in vars(ValueType).items()
               if getattr(member, "__isabstractmethod__", False))


def test_every_kind_implements_every_part():
    assert set(PARTS) >= {"from_text", "type_proto", "from_type_proto", "encode", "decode",
                          "holds", "describe", "differ", "check", "render"}
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
    other = {"tensor": [np.float32(1)], "seq": np.int64(1), "optional": np.int64(1)}[word]
    found = value_kinds.differ(value, other, value_type, 0, 0)
    assert found and found[0].kind in ("kind", "dtype"), found
    messages: list[str] = []
    value_type.check(value, "input 'x'", {}, messages)
    assert messages == []
    value_type.check(object(), "input 'x'", {}, messages)
    assert messages and messages[0].startswith("input 'x'"), messages
    lines = value_type.render("  x: ", value, False)
    assert lines[0].startswith("  x: ") and len(lines) > 1
