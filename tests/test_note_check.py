"""Every note of docs/conformance-notes.yaml quotes what decides its cases (note_check): for each
case a note explains (live onnxruntime and reference results, and the third-party runtimes'
recorded verdicts behind docs/conformance.md), one of its quotes is a sentence of an operator
that case uses, in the version its opset selects, or an IR sentence; or the note says plainly
why no ONNX sentence decides."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from onnx_seq_tests._core.errors import InputError
from onnx_seq_tests._reports import note_check
from onnx_seq_tests._reports.note_check import Decision, Quote
from onnx_seq_tests._run.transformed import SETTLED

ROOT = Path(__file__).resolve().parent.parent
NOTES = ROOT / "docs" / "conformance-notes.yaml"
RECORDED = ROOT / "docs" / "conformance-runtimes.json"
TYPE_NOTES = ("Element types OpenVINO does not have", "Element types tinygrad does not have",
              "Element types tract does not have")


@pytest.fixture(scope="module")
def notes() -> list[dict]:
    return yaml.safe_load(NOTES.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def witnesses(notes, suite_verification) -> dict[int, dict]:
    """Note index -> {case: (operators, opset)} of the failed results it explains."""
    used = {r.case: (set(r.operators), r.opset) for r in suite_verification}
    failed = [(r.backend, r.case, r.message) for r in suite_verification
              if r.outcome not in SETTLED]
    for spec, groups in json.loads(RECORDED.read_text(encoding="utf-8")).items():
        failed += [(spec, case, g["message"]) for g in groups if g["outcome"] not in SETTLED
                   for case in g["cases"] if case in used]
    taken = note_check.first_matches(notes, failed)
    return {i: {case: used[case] for case in cases} for i, cases in taken.items()}


def test_every_note_decides_every_case_it_explains(notes, witnesses):
    problems = []
    for index, note in enumerate(notes):
        decision = note_check.decision_of(note)
        problems += [f"{note['title']}: {p}" for p in note_check.quote_problems(decision)]
        problems += [f"{note['title']}: {p}" for p in
                     note_check.witness_problems(decision, witnesses.get(index, {}))]
    assert problems == []


def test_the_element_type_notes_quote_the_failing_cases_own_operators(notes, witnesses):
    """The three notes once quoted SequenceConstruct alone for OptionalGetElement-28,
    OptionalHasElement-28 and Identity-25 failures; that quote alone no longer passes."""
    for title in TYPE_NOTES:
        index = next(i for i, n in enumerate(notes) if n["title"] == title)
        cases = witnesses[index]
        assert any("OptionalGetElement" in ops and opset == 28 for ops, opset in cases.values())
        old = Decision((Quote("SequenceConstruct", "Constrain input types to any tensor type."),))
        assert note_check.witness_problems(old, cases), title
        quoted = {q.source for q in note_check.decision_of(notes[index]).quotes}
        assert {"OptionalGetElement", "OptionalHasElement"} <= quoted


def test_api_limits_and_crashes_say_that_no_sentence_decides(notes):
    plain = {n["title"]: n for n in notes if "no_spec" in n}
    assert "read_model crashes on If branches that are Identity of outer sequences (bug)" in plain
    assert sum(t == "Sequence and optional values at the graph boundary (API)" for t in
               (n["title"] for n in plain.values())) == 1  # openvino's; tract's title repeats
    assert all("spec" not in n and "operator" not in n for n in plain.values())


def test_a_quote_must_be_of_the_version_the_case_selects():
    has_18 = Quote("OptionalHasElement", "Constrain input type to optional, tensor and sequence "
                                         "types.")
    decision = Decision((has_18,))
    assert note_check.witness_problems(decision, {"x": ({"OptionalHasElement"}, 18)}) == []
    assert note_check.witness_problems(decision, {"x": ({"OptionalHasElement"}, 15)})
    assert note_check.witness_problems(decision, {"x": ({"SequenceAt"}, 18)})
    ir = Decision((Quote(note_check.IR_SOURCE, "A symbolic variable represents an unknown "
                                               "dimension."),))
    assert note_check.quote_problems(ir) == []
    assert note_check.witness_problems(ir, {"x": ({"SequenceAt"}, 11)}) == []


@pytest.mark.parametrize(("fields", "problem"), [
    ({"operator": "SequenceAt"}, "operator and spec go together"),
    ({"no_spec": "an API limit", "spec": "x", "operator": "Identity"}, "drop operator, spec"),
    ({}, "say what decides"),
    ({"also": [{"operator": "Identity", "spec": "x"}]}, "give those first"),
    ({"operator": "Identity", "spec": "x", "also": [{"operator": "Identity"}]},
     "each entry of also"),
])
def test_a_note_makes_one_decision(fields, problem):
    with pytest.raises(InputError, match=problem):
        note_check.decision_of(fields)


def test_quotes_that_are_not_there_are_named():
    wrong = Decision((Quote("SequenceAt", "Returns the last tensor."),
                      Quote("Nope", "x"), Quote(note_check.IR_SOURCE, "Sequences are lists.")))
    assert note_check.quote_problems(wrong) == [
        "'Returns the last tensor.' is not in the ONNX documentation of SequenceAt; quote it "
        "exactly",
        "'Nope' is not an ONNX operator",
        "'Sequences are lists.' is not in the comments of onnx.proto or onnx-data.proto; quote "
        "it exactly"]
