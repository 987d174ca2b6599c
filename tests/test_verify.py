"""`gen-seq-tests verify` on a hand-written suite the project never saw: honest onnxruntime
passes, every planted fault is caught, outcomes and reports say what happened."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import onnx
import pytest
from click.testing import CliRunner
from foreign_suite import FAULT_TARGETS, case_names, write_foreign_suite

from onnx_seq_tests._cli import main
from onnx_seq_tests._core.errors import NotesError
from onnx_seq_tests._reports.notes import load_notes
from onnx_seq_tests._reports.scoreboard import markdown_report
from onnx_seq_tests._run import worker_main
from onnx_seq_tests._run.verifier import Result, verify
from onnx_seq_tests._run.worker_main import case_elements, model_operators
from onnx_seq_tests._runtimes.records import names

TESTS = Path(__file__).resolve().parent
CLI = Path(sys.executable).parent / "gen-seq-tests"
FAULTS = [f"faulty_backends:{name}" for name in FAULT_TARGETS]


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> Path:
    return write_foreign_suite(tmp_path_factory.mktemp("foreign"))


def run_cli(*args, cwd=None) -> subprocess.CompletedProcess:
    """The installed console script, with this folder on PYTHONPATH for module:attr backends."""
    env = {**os.environ, "PYTHONPATH": str(TESTS)}
    return subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=300)


def by_backend(results: list[dict]) -> dict[str, dict[str, dict]]:
    table: dict[str, dict[str, dict]] = {}
    for r in results:
        table.setdefault(r["backend"], {})[r["name"]] = r
    return table


def test_cli_catches_every_planted_fault(suite, tmp_path):
    backends = [a for spec in ["onnxruntime", *FAULTS] for a in ("--backend", spec)]
    done = run_cli("verify", suite, *backends, "-j", "2", "--json", tmp_path / "r.json",
                   "--junit-xml", tmp_path / "r.xml")
    assert done.returncode == 1, done.stderr
    assert done.stderr == ""  # no traceback, and no progress bar when not on a terminal
    table = by_backend(json.loads((tmp_path / "r.json").read_text())["results"])
    assert set(table["onnxruntime"]) == set(case_names())
    assert {r["outcome"] for r in table["onnxruntime"].values()} == {"pass"}
    for fault, targets in FAULT_TARGETS.items():
        outcomes = table[f"faulty_backends:{fault}"]
        failed = {name for name, r in outcomes.items() if r["outcome"] == "fail"}
        assert failed == set(targets), fault
        assert {r["outcome"] for r in outcomes.values()} <= {"pass", "fail"}
    # one text line per case that did not pass, naming backend and case
    lines = [line for line in done.stdout.splitlines() if line.startswith("FAIL")]
    assert len(lines) == sum(len(t) for t in FAULT_TARGETS.values())
    assert ("FAIL  [faulty_backends:DropLast] seq/test_seq_of_scalars: data set 0: output 0 (s): "
            "expected a sequence of length 3, got length 2 (+1 more line(s))") in lines
    # JUnit: a testsuite per backend, a testcase per case in each
    root = ET.parse(tmp_path / "r.xml").getroot()
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert list(suites) == ["onnxruntime", *FAULTS]
    for element in suites.values():
        cases = element.findall("testcase")
        assert len(cases) == len(case_names()) == int(element.get("tests"))
        assert len({c.get("name") for c in cases}) == len(cases)
        assert len(element.findall("testcase/failure")) == int(element.get("failures"))
    failure = root.find("testsuite[@name='faulty_backends:FillEmptyOptional']/testcase"
                        "[@name='more/optional/test_optional_empty_typed_encoding']/failure")
    assert failure.get("message") == ("data set 0: output 0 (o): expected an empty optional, "
                                      "got a tensor of float (float32) with shape [0]")


def test_messages_say_what_each_fault_did(suite):
    results = verify(suite, FAULTS)
    message = {(r.backend.split(":")[1], r.name): r.message for r in results}
    assert message["EmptySequences", "test_strings_sequence"] == (
        "data set 0: output 0 (s): expected a sequence of length 2, got length 0")
    assert message["Reverse", "test_split_to_sequence_uneven"].startswith(
        "data set 0: output 0 (s), element 0: expected shape [2, 2], got [1, 2]")
    assert message["ChangeValue", "test_strings_sequence"] == (
        "data set 0: output 0 (s), element 0, index [0]: expected 'héllo', got 'héllox'")
    assert message["ChangeValue", "test_seq_of_int64_extremes"] == (
        "data set 0: output 0 (s), element 0: expected 9223372036854775807, got "
        "9223372036854775806")
    assert message["ChangeDtype", "test_optional_has_element_both_encodings"].startswith(
        "data set 0: output 0 (h): expected dtype bool, got int64")
    assert message["LeadingDim", "test_sequence_at_scalars"].startswith(
        "data set 0: output 0 (t): expected shape [], got [1]")
    assert message["FillEmptyOptional", "test_identity_optional_sequence"].splitlines() == [
        "data set 1: output 0 (r): expected an empty optional, got a tensor of float (float32) "
        "with shape [0]",
        "data set 2: output 0 (r): expected an empty optional, got a tensor of float (float32) "
        "with shape [0]"]


def test_honest_onnxruntime_passes_and_exits_0(suite):
    done = CliRunner().invoke(main, ["verify", str(suite), "--backend", "onnxruntime"])
    assert done.exit_code == 0, done.output
    assert (f"onnxruntime: {len(case_names())} passed, 0 failed, 0 error(s), 0 expected "
            "failure(s), 0 unexpected pass(es)") in done.output
    assert "verifying" not in done.output


def test_reference_evaluator_runs_to_the_end(suite):
    """Its wrong answers are failures and its exceptions are errors, not a crash of the run."""
    results = {r.name: r for r in verify(suite, ["reference"])}
    assert results["test_identity_optional_sequence"].outcome == "error"
    assert results["test_identity_optional_sequence"].message.startswith("TypeError: ")
    # Optional() gives [None] in the reference evaluator; the spec says an empty optional.
    assert results["test_optional_empty_typed_encoding"].message == (
        "data set 0: output 0 (o): expected an empty optional, got a sequence of length 1")
    assert results["test_strings_sequence"].outcome == "pass"


def test_a_crashing_backend_is_a_crash_of_its_case(suite):
    results = verify(suite, ["onnxruntime", "faulty_backends:CrashOnSequenceEmpty"], jobs=2)
    crashed = [r for r in results if r.outcome != "pass"]
    assert [(r.name, r.backend, r.outcome) for r in crashed] == [
        ("test_sequence_empty_int64", "faulty_backends:CrashOnSequenceEmpty", "crash")]
    assert "crashed" in crashed[0].message
    assert len(results) == 2 * len(case_names())


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_hanging_backend_is_a_timeout_of_its_case(suite, jobs):
    specs = ["onnxruntime", "faulty_backends:HangOnSequenceEmpty"]
    results = verify(suite, specs, jobs=jobs, timeout=2)
    stuck = [r for r in results if r.outcome != "pass"]
    assert [(r.name, r.backend, r.outcome) for r in stuck] == [
        ("test_sequence_empty_int64", "faulty_backends:HangOnSequenceEmpty", "timeout")]
    assert stuck[0].message == ("the backend gave no result within 2 s; its process was "
                                "ended")
    assert len(results) == 2 * len(case_names())


def test_jobs_do_not_change_results(suite):
    one = verify(suite, ["reference"], jobs=1)
    two = verify(suite, ["reference"], jobs=2)
    assert [(r.case, r.outcome, r.message) for r in one] == [
        (r.case, r.outcome, r.message) for r in two]


def test_unreadable_case_is_an_error_not_a_crash(suite, tmp_path):
    broken = tmp_path / "test_broken"
    shutil.copytree(suite / "seq" / "test_seq_of_scalars", broken)
    (broken / "test_data_set_0" / "input_0.pb").write_bytes(b"\xff\xff\xff")
    (result,) = verify(tmp_path, ["onnxruntime"])
    assert result.outcome == "error"
    assert result.message.startswith("cannot read the case folder: ")
    assert "input_0.pb: not a valid TensorProto (truncated or corrupt)" in result.message
    assert result.case == "test_broken"


def test_xfail_file(suite, tmp_path):
    listed = tmp_path / "known.txt"
    targets = "|".join(FAULT_TARGETS["DropLast"])
    listed.write_text("# planted faults, one backend each\n"
                      f"faulty_backends:DropLast ({targets})\n"
                      "test_sequence_erase_to_empty   # passes everywhere: an unexpected pass\n"
                      "test_no_such_case\n")
    done = run_cli("verify", suite, "--backend", "onnxruntime", "--backend",
                   "faulty_backends:DropLast", "--xfail", listed)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "XPASS [onnxruntime] seq/test_sequence_erase_to_empty: listed as an expected " \
           f"failure at {listed}:3" in done.stdout
    # failures first, expected failures counted in one line, warnings at the end
    assert "XFAIL 10 expected failure(s) (faulty_backends:DropLast: 10)" in done.stdout
    assert "[faulty_backends:DropLast] seq/test_seq_of_scalars" not in done.stdout
    assert done.stderr.splitlines() == [f"{listed}:4: warning: 'test_no_such_case' matched no case"]
    assert (f"faulty_backends:DropLast: {len(case_names()) - 11} passed, 0 failed, 0 error(s), "
            "10 expected failure(s), 1 unexpected pass(es)") in done.stdout


def test_bad_xfail_file_is_usage_error(suite, tmp_path):
    listed = tmp_path / "known.txt"
    listed.write_text("test_ok\n  onnxruntime test_(unclosed\n")
    done = CliRunner().invoke(main, ["verify", str(suite), "-b", "onnxruntime",
                                     "--xfail", str(listed)])
    assert done.exit_code == 2
    assert f"{listed}:2:15: 'test_(unclosed' is not a valid regex" in done.output
    assert "Traceback" not in done.output


@pytest.mark.parametrize("args, message", [
    (["-b", "nosuch"], f"unknown backend; use onnxruntime, reference, {', '.join(names())}, "
                       "or `module`, `module:attr`"),
    (["-b", "no_such_module_xyz:Backend"], "cannot import module 'no_such_module_xyz'"),
    (["-b", "faulty_backends:Nope"], "'faulty_backends' has no attribute 'Nope'"),
    (["-b", "faulty_backends:FAULTS"], "has no prepare(model, device)"),
    (["-b", "onnxruntime", "-b", "onnxruntime"], "onnxruntime given more than once"),
    ([], "Missing option '-b' / '--backend'"),
    (["-b", "onnxruntime", "-j", "-1"], "-j"),  # -j 0 is one per CPU
])
def test_bad_usage_exits_2(suite, args, message):
    sys.path.insert(0, str(TESTS))
    done = CliRunner().invoke(main, ["verify", str(suite), *args])
    assert done.exit_code == 2, done.output
    assert message in done.output
    assert "Traceback" not in done.output


def test_suite_folder_must_hold_cases(tmp_path):
    done = CliRunner().invoke(main, ["verify", str(tmp_path), "-b", "onnxruntime"])
    assert done.exit_code == 2
    assert f"no case folders (test_*/model.onnx) under {tmp_path}" in done.output
    done = CliRunner().invoke(main, ["verify", str(tmp_path / "nope"), "-b", "onnxruntime"])
    assert done.exit_code == 2


def test_case_operator_and_elements(suite):
    def load(name):
        return onnx.load(str(next(suite.rglob(f"{name}/model.onnx"))))

    model = load("test_tolerance_from_data_json")
    assert model_operators(model) == ["Constant", "Div", "SequenceConstruct"]
    assert case_elements(model) == "float"
    model = load("test_optional_has_element_both_encodings")
    assert model_operators(model) == ["OptionalHasElement"]
    assert case_elements(model) == "int32"
    model = load("test_sequence_length_of_empty")
    assert case_elements(model) == "float"


def test_case_elements_infers_only_where_inference_adds_something(committed_suite):
    """The summary skips shape inference for a graph whose nodes make only its outputs; over
    every model of the committed suite it says what inferring every model says, and the
    shortcut is taken for some of them and not for others."""
    def inferred_always(model) -> str:
        graph = onnx.shape_inference.infer_shapes(model).graph
        return case_elements(onnx.helper.make_model(onnx.helper.make_graph(
            [], "summary", [*graph.input], [*graph.output], value_info=[*graph.value_info])))

    skipped = 0
    for path in sorted(committed_suite.rglob("model.onnx")):
        model = onnx.load(str(path))
        skipped += worker_main._nothing_to_infer(model.graph)
        assert case_elements(model) == inferred_always(model), path
    assert 0 < skipped < len(list(committed_suite.rglob("model.onnx")))


@pytest.fixture(scope="module")
def both(suite) -> list:
    """The foreign suite on onnxruntime and the reference evaluator, once for the report
    tests below (they read the results and never change them)."""
    return verify(suite, ["onnxruntime", "reference"])


def test_markdown_report_quotes_checked_notes(suite, both, tmp_path):
    results = both
    notes_file = tmp_path / "notes.yaml"
    notes_file.write_text(
        "- backend: reference\n"
        "  cases: test_optional_(seq_)?empty_.*\n"
        "  operator: Optional\n"
        "  spec: >-\n"
        "    Constructs an optional-type value containing either an empty optional of a certain\n"
        "    type specified by the attribute, or a non-empty value containing the input element.\n"
        "  finding: Optional() with no input returns [None], a present value.\n")
    notes = load_notes(notes_file)
    text = markdown_report(results, ["onnxruntime", "reference"], str(suite), "cmd",
                                  notes)
    assert text == markdown_report(results, ["onnxruntime", "reference"], str(suite),
                                          "cmd", load_notes(notes_file))
    assert "| Optional | 15 | float | 3/3 | 0/3 3f |" in text  # one form here
    assert ("> Constructs an optional-type value containing either an empty optional of a "
            "certain type specified by the attribute, or a non-empty value containing the "
            "input element.") in text
    assert "<details><summary>3 case(s)</summary>" in text
    assert "`test_optional_of_sequence`" in text.split("Other cases that did not pass")[1]
    assert "### `onnxruntime`\n\nEvery case passes." in text


def test_notes_must_quote_onnx(tmp_path):
    notes_file = tmp_path / "notes.yaml"
    notes_file.write_text("- backend: reference\n  cases: test_x\n  operator: Optional\n"
                          "  spec: Optional returns a list.\n  finding: f\n"
                          "- backend: reference\n  cases: test_(\n  operator: Nope\n"
                          "  spec: s\n  finding: f\n  extra: 1\n"
                          "- backend: reference\n  cases: test_x\n  no_spec: a crash\n"
                          "  findng: f\n")
    with pytest.raises(NotesError) as caught:
        load_notes(notes_file)
    assert [str(p) for p in caught.value.problems] == [
        f"{notes_file}:4:9: 'Optional returns a list.' is not in the ONNX documentation of "
        "Optional; quote it exactly",
        f"{notes_file}:7:10: not a valid regex: missing ), unterminated subpattern at "
        "position 5",
        f"{notes_file}:11:3: unknown key 'extra' in a note; allowed: also, backend, cases, "
        "finding, ir, message, no_spec, operator, spec, title",
        f"{notes_file}:15:3: unknown key 'findng' in a note (did you mean 'finding'?); allowed: "
        "also, backend, cases, finding, ir, message, no_spec, operator, spec, title",
    ]


def test_a_note_about_two_subjects_explains_each_under_its_own_heading(suite, both, tmp_path):
    """`backend: [a, b]`: one cause shared by two subjects (a backend and its inference); each
    subject's findings show only its own results."""
    results = both
    notes_file = tmp_path / "notes.yaml"
    notes_file.write_text(
        "- backend: [onnxruntime, reference]\n"
        "  cases: test_.*\n"
        "  no_spec: every result, for the test\n"
        "  finding: Shared.\n")
    (note,) = load_notes(notes_file)
    assert note.backends == ("onnxruntime", "reference")
    failing = [Result(r.case, r.name, r.backend, "fail", "wrong", r.operators, r.element, 0.0,
                      form=r.form) for r in results]
    text = markdown_report(failing, ["onnxruntime", "reference"], str(suite), "cmd", [note])
    for spec in ("onnxruntime", "reference"):
        section = text.split(f"### `{spec}`")[1].split("### ")[0]
        count = sum(1 for r in failing if r.backend == spec)
        assert f"<details><summary>{count} case(s)</summary>" in section


def test_a_note_backend_list_must_name_subjects(tmp_path):
    notes_file = tmp_path / "notes.yaml"
    notes_file.write_text("- backend: []\n  cases: test_x\n  no_spec: n\n  finding: f\n"
                          "- backend: [onnxruntime, {a: 1}]\n  cases: test_x\n  no_spec: n\n"
                          "  finding: f\n")
    with pytest.raises(NotesError) as caught:
        load_notes(notes_file)
    assert [str(p) for p in caught.value.problems] == [
        f"{notes_file}:1:12: backend must name at least one backend",
        f"{notes_file}:5:26: an entry of backend must be a single value, not a mapping"]
