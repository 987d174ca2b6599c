"""The comparator's differences are records (kind, where, expected, got) from which its
messages are rendered; the fuzzer's signatures read their kinds, not the messages; the records
cross verify's worker pipe and stay small."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import numpy as np
import pytest

from onnx_seq_tests._core.compare import compare_outputs, differences
from onnx_seq_tests._core.differences import SIGNATURE_KIND, Difference
from onnx_seq_tests._core.value_kinds import KINDS, parse_type
from onnx_seq_tests._fuzz.judge import Verdict
from onnx_seq_tests._run.verifier import verify

f32 = np.float32
sys.path.insert(0, str(Path(__file__).parent))  # module:attr backends from faulty_backends

#: (expected, actual, graph types or None, the record's kind, the signature's word, the message)
CASES = [
    ([np.ones(2, f32)], np.ones(2, f32), None, "outputs", "count",
     "expected a list of 1 output(s), got a tensor of float (float32) with shape [2]"),
    ([np.ones(2, f32)], [], None, "count", "count", "expected 1 output(s), got 0"),
    ([None], [np.ones(1, f32)], None, "optional", "optional",
     "output 0 (y): expected an empty optional, got a tensor of float (float32) with shape [1]"),
    ([[np.ones(1, f32)]], [None], ["optional(seq(tensor(float)))"], "optional", "optional",
     "output 0 (y): expected a present optional holding a sequence of length 1, got an empty "
     "optional"),
    ([np.ones(1, f32)], [None], ["tensor(float)"], "optional", "optional",
     "output 0 (y): expected a tensor of float (float32) with shape [1], got an empty optional "
     "(None)"),
    ([[np.ones(1, f32)]], [np.ones(1, f32)], None, "kind", "kind",
     "output 0 (y): expected a sequence of length 1, got a tensor of float (float32) with "
     "shape [1]"),
    ([[np.ones(1, f32)]], [[]], None, "length", "length",
     "output 0 (y): expected a sequence of length 1, got length 0"),
    ([[np.ones(1, f32)]], [[np.ones(1, np.float64)]], None, "dtype", "dtype",
     "output 0 (y), element 0: expected dtype float (float32), got double (float64)"),
    ([np.ones((1, 2), f32)], [np.ones(2, f32)], None, "shape", "shape",
     "output 0 (y): expected shape [1, 2], got [2]"),
    ([np.array([[1, 2], [3, 4]], f32)], [np.array([[1, 2], [5, 6]], f32)], None, "value",
     "value", "output 0 (y), index [1, 0]: expected 3.0, got 5.0 (2 of 4 values differ)"),
    ([np.array([-0.0, 1], f32)], [np.array([0.0, 1], f32)], None, "bits", "value",
     "output 0 (y), index [0]: expected -0.0, got 0.0"),
]


@pytest.mark.parametrize("expected, actual, types, kind, word, message", CASES,
                         ids=[c[3] + str(i) for i, c in enumerate(CASES)])
def test_each_difference_is_a_record_its_message_is_rendered_from(expected, actual, types, kind,
                                                                  word, message):
    value_types = [parse_type(t) for t in types] if types else None
    found = differences(expected, actual, atol=0, rtol=0, names=["y"], types=value_types)
    assert [d.kind for d in found] == [kind]
    assert [d.text() for d in found] == [message]
    assert compare_outputs(expected, actual, atol=0, rtol=0, names=["y"],
                           types=value_types) == [message]
    assert found[0].signature_kind() == word
    verdict = Verdict("b", "suite", "test_x", "fail", f"data set 0: {message}", tuple(found))
    assert verdict.kind() == word
    assert pickle.loads(pickle.dumps(found[0])) == found[0]


def test_every_kind_has_a_signature_word_and_a_bad_kind_is_refused():
    """The comparator's own kinds and each value kind's (its DIFFERENCES) are declared."""
    declared = {kind for value_kind in KINDS for kind in value_kind.DIFFERENCES}
    assert set(SIGNATURE_KIND) == declared | {"outputs", "count", "kind"}
    assert set(SIGNATURE_KIND) >= {"optional", "length", "keys", "dtype", "shape", "value",
                                   "bits"}
    with pytest.raises(ValueError, match="Difference.kind must be one of"):
        Difference("wrong", "1", "2")


def test_a_record_stays_small_whatever_the_values():
    """The expected and got texts are bounded summaries, not the values: a record of a
    million-element tensor with a long string pickles to a few hundred bytes."""
    big = np.array(["x" * 10_000] * 1000, dtype=object)
    other = big.copy()
    other[3] = "y" * 10_000
    found = differences([big], [other], atol=0, rtol=0, names=["y" * 50])
    assert len(found) == 1 and found[0].kind == "value"
    assert len(pickle.dumps(found[0])) < 600


def test_the_signature_of_an_error_is_its_exception_type_not_its_message():
    """An error's kind is the type the Judged carries; a message that merely starts like an
    exception's name does not make one."""
    assert Verdict("b", "s", "t", "error", "KeyError: 'x'", (), "KeyError").kind() == "KeyError"
    assert Verdict("b", "s", "t", "error", "Looks: like a type").kind() == "error"
    assert Verdict("b", "s", "t", "crash", "the backend crashed ...").kind() == "crash"


def test_verify_carries_the_records_from_its_workers(mini_suite):
    """A fail's records cross the worker pipe into verify's Result; its message is rendered
    from them, and an error's exception type comes along too."""
    results = verify(mini_suite, ["faulty_backends:ChangeValue", "faulty_backends:RaiseOnRun"])
    failed = [r for r in results if r.outcome == "fail"]
    assert failed
    for result in failed:
        assert result.differences and result.error_type == ""
        shown = result.message.split("\n")
        assert [d.message() for d in result.differences] == shown[:len(result.differences)]
    errors = [r for r in results if r.outcome == "error"]
    assert errors and all(r.error_type == "RuntimeError" and not r.differences for r in errors)


def test_a_long_string_is_cut_in_a_message_like_any_other_value():
    """A backend that gives a wrong 10,000-character string gets a message of one short line,
    not one as long as the string (a value of any other type was already cut at 80)."""
    expected = np.array(["x" * 10_000], dtype=object)
    got = np.array(["y" * 10_000], dtype=object)
    [message] = compare_outputs([expected], [got], atol=0, rtol=0)
    assert message == f"output 0, index [0]: expected '{'x' * 76}..., got '{'y' * 76}..."
