"""The whole committed suite (both forms: the cases as written and their tensor-boundary form) on
onnxruntime and the reference evaluator, verified once per session (conftest's
`suite_verification`): onnxruntime passes every case but the known failures, every case ends with
an outcome on both, and docs/conformance.md is what those results render.

A failure of onnxruntime on a case the spec defines is a finding about onnxruntime, never a reason
to change an expectation (those come from the spec and are checked by the oracle at build time).
The list is explicit so that a change either way, a newly failing case or a fixed one, is noticed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from onnx_seq_tests._cli import main
from onnx_seq_tests._published.discovery import case_folders, find_cases
from onnx_seq_tests._reports import refresh
from onnx_seq_tests._reports.merge import recorded_results
from onnx_seq_tests._reports.notes import attach_notes, load_notes
from onnx_seq_tests._reports.refresh import CONFORMANCE_SPECS, RUNTIMES
from onnx_seq_tests._reports.tally import about_of
from onnx_seq_tests._reports.text_report import summary_text
from onnx_seq_tests._run.verifier import apply_xfail, load_xfail
from onnx_seq_tests._transforms import TRANSFORMS

ROOT = Path(__file__).resolve().parent.parent

#: onnxruntime 1.32 (CPU): the cases it does not pass, with the reasons, as an --xfail file that
#: the example workflow uses too.
XFAIL = ROOT / "xfail" / "onnxruntime.txt"


@pytest.fixture(scope="module")
def results(suite_verification):
    """onnxruntime's results with its --xfail file applied, by case name."""
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


def test_every_case_ends_with_an_outcome_on_both_backends(suite_verification, committed_suite):
    """Whatever a backend answers, each case of the suite ends with one outcome per backend."""
    cases = [p.relative_to(committed_suite).as_posix() for p in case_folders(committed_suite)]
    assert [(r.case, r.backend) for r in suite_verification] == [
        (case, spec) for case in cases for spec in ("onnxruntime", "reference")]
    assert {r.outcome for r in suite_verification} <= {"pass", "fail", "refused", "error"}
    assert all(r.message for r in suite_verification if r.outcome != "pass")
    assert "Traceback" not in "".join(r.message for r in suite_verification)


def test_every_inference_disagreement_has_a_note(suite_inference):
    """Each case on which onnx's shape inference or onnxruntime's session types disagree with
    the declared types and the expected values (or refuse the model) is explained by a note of
    docs/conformance-notes.yaml; so is every refusal."""
    notes = load_notes(ROOT / "docs" / "conformance-notes.yaml")
    unsettled = [r for r in suite_inference if r.outcome != "pass"]
    explained = attach_notes(unsettled, notes)
    missing = [f"{r.backend} {r.case}: {r.outcome}: {r.message[:160]}"
               for i, r in enumerate(unsettled) if i not in explained]
    assert not missing, "no note in docs/conformance-notes.yaml explains:\n" + "\n".join(
        missing[:20])
    assert {r.backend for r in unsettled} <= {f"{i}-inference" for i in refresh.INFERRERS}


def test_committed_conformance_report_is_up_to_date(suite_verification, suite_inference):
    """docs/conformance.md and docs/conformance.html are what `make conformance` (or `make
    refresh`) renders from these very results and the recorded verdicts of the third-party
    runtimes and of the transforms on onnxruntime (whose currency `make verify-runtimes` and
    `make verify-transforms` check), with type inference judged beside them."""
    live = suite_verification + suite_inference  # what refresh.live_results gives
    notes = load_notes(ROOT / "docs" / "conformance-notes.yaml")
    committed = (ROOT / "docs" / "conformance.md").read_text(encoding="utf-8")
    assert committed == refresh.conformance_markdown(live, ROOT, notes), (
        "docs/conformance.md is stale: run `make refresh`")
    assert [n.where for n in notes if not n.matched] == [], "a note matches no case"
    committed = (ROOT / "docs" / "conformance.html").read_text(encoding="utf-8")
    assert committed == refresh.conformance_html(live, ROOT, notes), (
        "docs/conformance.html is stale: run `make refresh`")


def test_summary_of_onnxruntime_fits_a_screen_with_its_failures_on_top(suite_verification):
    """`verify --summary` on the whole suite: at most 50 lines; the wrong answers (one line
    each) come before the errors and refusals, which are grouped (a few dozen distinct
    causes)."""
    results = [r for r in suite_verification if r.backend == "onnxruntime"]
    lines = summary_text(results, ["onnxruntime"],
                                about_of(find_cases(ROOT / "generated"))).splitlines()
    assert len(lines) <= 50, "\n".join(lines)
    failures = [i for i, line in enumerate(lines) if line.startswith("FAIL ")]
    groups = next(i for i, line in enumerate(lines) if line.startswith("Errors and refusals"))
    assert len(failures) == sum(r.outcome == "fail" for r in results) > 0
    assert max(failures) < groups
    assert lines[0].startswith("onnxruntime: ") and lines[2].startswith("operator ")


def test_the_readme_table_of_runtimes_is_current(suite_verification):
    """The README's table of where runtimes stand is rendered from the same results."""
    results = recorded_results(ROOT / refresh.VERDICTS, suite_verification,
                                      CONFORMANCE_SPECS)
    table = refresh.runtime_table(results)
    assert table in (ROOT / "README.md").read_text(encoding="utf-8"), (
        "the runtime table in README.md is stale: run `make refresh`")


def test_every_case_folder_has_recorded_verdicts_and_digests(committed_suite):
    """Each recorded subject's verdicts (every third-party runtime's, every built-in
    transform's on onnxruntime) cover exactly the suite's case folders, recorded against their
    current files, so `make refresh` re-runs nothing on an unchanged suite."""
    digests = refresh.case_digests(committed_suite)
    assert refresh.stale_cases(digests, refresh.read_digests(ROOT / refresh.DIGESTS)) == ([], [])
    verdicts = json.loads((ROOT / refresh.VERDICTS).read_text(encoding="utf-8"))
    assert list(verdicts) == refresh.RECORDED
    assert [s for s in refresh.RECORDED if s not in RUNTIMES] == [
        f"{t}>onnxruntime" for t in TRANSFORMS]
    for spec, groups in verdicts.items():
        assert sorted(c for g in groups for c in g["cases"]) == sorted(digests), (
            f"{spec}: its recorded verdicts are not every case folder's; a runtime or "
            "transform new to the scoreboard is recorded by `make conformance`")


def test_verify_command_with_notes_json_and_report(mini_suite, tmp_path):
    """The command behind docs/conformance.md, on the mini-suite: an outcome for every case on
    both backends, exit 0 or 1, no traceback, the report and the JSON written."""
    report_file, json_file = tmp_path / "conformance.md", tmp_path / "r.json"
    result = CliRunner().invoke(main, [
        "verify", str(mini_suite), "-b", "onnxruntime", "-b", "reference",
        "--json", str(json_file), "--notes", str(ROOT / "docs/conformance-notes.yaml"),
        "--markdown", str(report_file)])
    assert result.exit_code in (0, 1), result.output
    assert not isinstance(result.exception, Exception), result.output
    assert "Traceback" not in result.output
    results = json.loads(json_file.read_text())["results"]
    assert len(results) == 2 * len(case_folders(mini_suite)) == 12
    assert {r["outcome"] for r in results} <= {"pass", "fail", "refused", "error"}
    text = report_file.read_text()
    assert "## Operator × version × element type" in text and "--markdown" in text
