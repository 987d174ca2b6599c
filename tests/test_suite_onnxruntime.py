"""The whole suite on onnxruntime: every case passes except the known failures listed here, in
both forms (the cases as written and their tensor-boundary form).

A failure of onnxruntime on a case the spec defines is a finding about onnxruntime, never a reason
to change an expectation (those come from the spec and are checked by the oracle at build time).
The list is explicit so that a change either way, a newly failing case or a fixed one, is noticed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from onnx_seq_tests._verify.verifier import apply_xfail, load_xfail

ROOT = Path(__file__).resolve().parent.parent

#: onnxruntime 1.32 (CPU): the cases it does not pass, with the reasons, as an --xfail file that
#: the example workflow uses too.
XFAIL = ROOT / "xfail" / "onnxruntime.txt"


@pytest.fixture(scope="module")
def results(suite_verification):
    """The committed suite's results on onnxruntime (both forms), judged with the xfail file."""
    entries = load_xfail(XFAIL)
    found = [apply_xfail(r, entries) for r in suite_verification if r.backend == "onnxruntime"]
    assert len(found) > 700
    return entries, {r.name.removeprefix("test_"): r for r in found}


def test_onnxruntime_passes_every_case_but_the_known_failures(results):
    entries, by_name = results
    unexpected = {n: r.message[:200] for n, r in by_name.items()
                  if r.outcome not in ("pass", "xfail")}
    fixed = sorted(n for n, r in by_name.items() if r.outcome == "xpass")
    assert unexpected == {}, f"onnxruntime fails cases not listed in {XFAIL.name}"
    assert fixed == [], f"onnxruntime now passes cases listed in {XFAIL.name}; update it"
    assert [e.where for e in entries if not e.used] == [], "a listed pattern matches no case"


def test_the_wrong_answer_is_a_failure_not_an_error(results):
    _, by_name = results
    result = by_name["split_to_sequence_scalar_split_keepdims_ignored"]
    assert result.outcome == "xfail"
    assert "expected shape [1, 2], got [2]" in result.message


def test_edge_cases_run_on_onnxruntime(results):
    """The edge cases are written in types onnxruntime runs, so they test behaviour."""
    _, results = results
    for name in ("sequence_insert_at_length_append", "sequence_insert_into_empty",
                 "sequence_map_empty_sequence", "optional_v15_no_input_tensor_type",
                 "loop_v16_produces_empty_optional", "loop_v16_optional_sequence_starts_empty",
                 "if_v16_optional_either_branch", "concat_from_sequence_new_axis_negative",
                 "split_to_sequence_uneven_sizes", "sequence_erase_default_position"):
        assert results[name].outcome == "pass", (name, results[name].message)
