"""The kills of the stored fuzz-alone score (docs/mutation-fuzz.json), a sample of them: each
killing program, drawn again from its seed and shrunk as `mutation --fuzz` shrinks it, is at
most 3 nodes in its main graph, builds from its case file, fails its mutant and answers nothing
wrong on the oracle and onnxruntime, and no mutant of another operator answers wrong on it
(kill_check.py says how "only" is read). benchmarks/check_mutation_kills.py checks every kill."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from onnx_seq_tests._fuzz import kill_check

STORED = Path(__file__).resolve().parent.parent / "docs" / "mutation-fuzz.json"
#: Kills of different operators and kinds of wrong answer: an If branch, a negative position, a
#: split, an empty optional, a Loop body's condition, a NaN payload at the boundary.
SAMPLE = ("if_sequence_outputs_empty", "sequence_erase_negative_position_input",
          "split_to_sequence_remainder_dropped", "optional_has_element_missing_input_true",
          "loop_body_condition_ignored", "nan_canonicalised")


@pytest.fixture(scope="module")
def kills():
    return json.loads(STORED.read_text(encoding="utf-8"))["kills"]


@pytest.mark.parametrize("name", SAMPLE)
def test_a_kill_shrinks_to_a_small_case_failing_its_mutant_only(kills, name):
    result = kill_check.check_kill(name, kills[name]["seed"])
    assert result.problems() == [], result
    assert result.main_nodes <= kill_check.MAX_NODES and result.builds and result.fails_mutant


def test_each_broken_rule_is_reported():
    """The check can fail: a result with 4 main-graph nodes, a wrong answer from onnxruntime
    and another operator's mutant answering wrong breaks three rules."""
    result = kill_check.KillCheck("m", "0:0", main_nodes=4, builds=True, fails_mutant=True,
                                  honest={"onnxruntime": ["fail"]}, unrelated=["x"])
    assert len(result.problems()) == 3
