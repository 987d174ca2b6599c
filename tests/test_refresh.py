"""`gen-seq-tests refresh`, what `make refresh` runs (onnx_seq_tests/_reports/refresh.py): the
third-party runtimes re-run only on the case folders that are new or changed since their
verdicts were recorded, and the recorded verdicts, their digests, docs/conformance.md and the
README's table rewritten."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from onnx_seq_tests._cli import main
from onnx_seq_tests._core.errors import RefreshError
from onnx_seq_tests._core.suite_forms import SuiteForm
from onnx_seq_tests._reports import refresh
from onnx_seq_tests._reports.writers import json_bytes
from onnx_seq_tests._run.verifier import Result
from onnx_seq_tests._suite.build import build

ROOT = Path(__file__).resolve().parent.parent


def case_yaml(name: str, value: float) -> str:
    return f"""
- name: {name}
  opset: 11
  inputs:
    - {{name: seq, type: seq(tensor(float)), shape: [1]}}
  outputs:
    - {{name: n, type: tensor(int64), shape: []}}
    - {{name: first, type: tensor(float), shape: [1]}}
  nodes:
    - op_type: SequenceLength
      inputs: {{input_sequence: seq}}
      outputs: {{length: n}}
    - op_type: SequenceAt
      inputs: {{input_sequence: seq, position: zero}}
      outputs: {{tensor: first}}
  initializers:
    - {{name: zero, type: tensor(int64), value: 0}}
  data_sets:
    - inputs: {{seq: [[{value}], [2.0]]}}
      outputs: {{n: 2, first: [{value}]}}
"""


@pytest.fixture()
def checkout(tmp_path) -> Path:
    """A checkout-shaped folder: two cases built into generated/, the conformance notes, a
    README with the table's markers, nothing recorded yet."""
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "mine.yaml").write_text(case_yaml("mine_a", 1.5)
                                                   + case_yaml("mine_b", 2.5))
    build([tmp_path / "cases"], tmp_path / "generated")
    (tmp_path / "docs").mkdir()
    shutil.copy(ROOT / refresh.NOTES, tmp_path / refresh.NOTES)
    markers = f"{refresh.PAGE_START}\n{refresh.PAGE_END}"
    (tmp_path / refresh.RUNTIMES_PAGE).write_text(f"# runtimes\n\n{markers}\n")
    markers = f"{refresh.TABLE_START}\n{refresh.TABLE_END}"
    (tmp_path / "README.md").write_text(f"# x\n\n{markers}\n\nend\n")
    return tmp_path


#: The transform the refresh tests re-run (one: each is one verify run), and its subject.
TRANSFORM = "onnx-text"
SUBJECT = f"{TRANSFORM}>onnxruntime"


def test_only_new_or_changed_case_folders_rerun(checkout):
    said: list[str] = []
    refresh.refresh(checkout, jobs=1, say=said.append, transforms=[TRANSFORM])
    folders = len(refresh.case_digests(checkout / "generated"))  # each case in every form
    assert folders == 2 * len(SuiteForm)
    assert (f"running {', '.join(refresh.RUNTIMES)} and the transforms on onnxruntime on "
            f"{folders} case folder(s)") in said
    recorded = json.loads((checkout / refresh.VERDICTS).read_text())
    digests = refresh.case_digests(checkout / "generated")
    assert list(recorded) == refresh.RECORDED and SUBJECT in refresh.SCOREBOARD_SUBJECTS
    for spec in [*refresh.RUNTIMES, SUBJECT]:
        assert sorted(c for g in recorded[spec] for c in g["cases"]) == sorted(digests)
    assert [g["outcome"] for g in recorded[SUBJECT]] == ["pass"]
    assert f"`{SUBJECT}`" in (checkout / refresh.CONFORMANCE).read_text()
    assert refresh.read_digests(checkout / refresh.DIGESTS) == digests
    readme = (checkout / "README.md").read_text()
    assert readme.startswith("# x\n\n" + refresh.TABLE_START) and readme.endswith("\n\nend\n")
    assert "| onnxruntime (CPU) |" + " 2 / 0 / 0 |" * len(SuiteForm) in readme
    assert (checkout / refresh.CONFORMANCE).read_text().startswith("# Conformance")

    said.clear()  # nothing changed: nothing re-runs, the same bytes
    before = {p: (checkout / p).read_bytes() for p in (refresh.VERDICTS, refresh.DIGESTS,
                                                       refresh.CONFORMANCE, "README.md")}
    refresh.refresh(checkout, jobs=1, say=said.append, transforms=[TRANSFORM])
    assert said[0] == "recorded verdicts: 0 case folder(s) new or changed, 0 gone"
    assert not any(line.startswith("running openvino") for line in said)
    assert {p: (checkout / p).read_bytes() for p in before} == before

    said.clear()  # one case changed, one gone, one new
    (checkout / "cases" / "mine.yaml").write_text(case_yaml("mine_a", 3.5)
                                                   + case_yaml("mine_c", 4.5))
    build([checkout / "cases"], checkout / "generated")
    refresh.refresh(checkout, jobs=1, say=said.append, transforms=[TRANSFORM])
    assert said[0] == (f"recorded verdicts: {2 * len(SuiteForm)} case folder(s) new or "
                       f"changed, {len(SuiteForm)} gone")
    recorded = json.loads((checkout / refresh.VERDICTS).read_text())
    for spec in ("tract", SUBJECT):  # a runtime and the transform re-ran on the changed cases
        cases = {c for g in recorded[spec] for c in g["cases"]}
        assert cases == set(refresh.case_digests(checkout / "generated"))
        assert not any("mine_b" in c for c in cases)


def test_merge_keeps_the_unchanged_and_replaces_the_rerun(tmp_path):
    path = tmp_path / "verdicts.json"
    path.write_text(json.dumps({"tract": [
        {"outcome": "error", "message": "no", "cases": ["s/test_a", "s/test_b", "s/test_c"]}]}))
    fresh = [Result("s/test_b", "test_b", "tract", "pass", "", (), "", 0.0)]
    refresh.merge_verdicts(path, fresh, {"s/test_b", "s/test_c"}, ["tract"])
    assert json.loads(path.read_text()) == {"tract": [
        {"outcome": "error", "message": "no", "cases": ["s/test_a"]},
        {"outcome": "pass", "message": "", "cases": ["s/test_b"]}]}


def test_stale_cases_and_malformed_digests(tmp_path):
    assert refresh.stale_cases({"a": "1", "b": "2"}, {"b": "3", "c": "4"}) == (["a", "b"], ["c"])
    bad = tmp_path / "digests"
    bad.write_text("nothex  s/test_a\n")
    with pytest.raises(RefreshError, match=r"digests:1:1: expected `SHA256  CASE`"):
        refresh.read_digests(bad)
    assert refresh.read_digests(tmp_path / "absent") == {}


def test_a_readme_without_the_markers_is_one_line_exit_2(tmp_path):
    (tmp_path / "README.md").write_text("# no table here\n")
    (tmp_path / "dist.json").write_text(json.dumps({"results": []}))
    (tmp_path / "generated").mkdir()
    done = CliRunner().invoke(main, ["refresh", "--root", str(tmp_path),
                                     "--recorded", str(tmp_path / "dist.json")])
    assert done.exit_code == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: ")
    assert "Traceback" not in done.output


def test_refresh_recorded_marks_every_case_and_writes_the_table(checkout):
    """`gen-seq-tests refresh --recorded JSON...` (after `make conformance`): the verdicts of
    the runtimes and the transforms recorded from the reports that ran them (onnxruntime, in
    both, taken once), the digests of every case folder, the scoreboard and the README's table;
    nothing is run."""
    def report(name: str, specs: list[str], outcome: str = "pass") -> Path:
        results = [Result(case, case.rpartition("/")[2], spec, outcome, "", (), "float", 0.0,
                          form=SuiteForm.of_case(case))
                   for case in refresh.case_digests(checkout / "generated") for spec in specs]
        (checkout / name).write_bytes(json_bytes(results, specs, []))
        return checkout / name

    backends = report("dist.json", [*refresh.CONFORMANCE_SPECS, *refresh.LIVE[2:]])
    transforms = report("t.json", ["onnxruntime", *refresh.TRANSFORM_SUBJECTS])
    done = CliRunner().invoke(main, ["refresh", "--root", str(checkout), "--recorded",
                                     str(backends), str(transforms)])
    assert done.exit_code == 0, done.output
    assert done.stdout == (f"wrote {refresh.VERDICTS}, {refresh.DIGESTS}, {refresh.CONFORMANCE}, "
                           f"{refresh.CONFORMANCE_HTML} and the tables in README.md and "
                           f"{refresh.RUNTIMES_PAGE}\n")
    page = (checkout / refresh.RUNTIMES_PAGE).read_text()
    assert page == f"# runtimes\n\n{refresh.runtimes_page_table()}\n"
    assert refresh.read_digests(checkout / refresh.DIGESTS) == refresh.case_digests(
        checkout / "generated")
    assert list(json.loads((checkout / refresh.VERDICTS).read_text())) == refresh.RECORDED
    table = (checkout / "README.md").read_text()
    for spec in refresh.CONFORMANCE_SPECS:
        assert f"| {refresh.LABELS[spec]} | 2 / 0 / 0 |" in table
    assert ">onnxruntime" not in table  # the README's table: runtimes only
    scoreboard = (checkout / refresh.CONFORMANCE).read_text()
    assert all(f"`{s}`" in scoreboard for s in refresh.SCOREBOARD_SUBJECTS)
    assert f"    {refresh.CONFORMANCE_COMMAND}\n" in scoreboard
    missing = CliRunner().invoke(main, ["refresh", "--root", str(checkout), "--recorded",
                                        str(backends)])
    assert missing.exit_code == 2 and "no result of onnxsim>onnxruntime" in missing.stderr
    alone = CliRunner().invoke(main, ["refresh", "--root", str(checkout), str(backends)])
    assert alone.exit_code == 2 and "only for --recorded" in alone.output


def test_refresh_help_and_bad_usage():
    done = CliRunner().invoke(main, ["refresh", "--help"])
    assert done.exit_code == 0 and "--recorded JSON..." in done.output and "--jobs" in done.output
    done = CliRunner().invoke(main, ["refresh", "-j", "-1"])
    assert done.exit_code == 2 and "Traceback" not in done.output
