"""The reports of a verify run, on results built by hand: every outcome of the shared contract
rendered in text, JSON, JUnit, Markdown and HTML; any string a backend can produce survives every
writer, capped with a note; the summary, the quiet mode and the progress line; tensor-boundary
variants counted under the operator their case is about; JSON reports merged by `report`.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import struct
import termios
import xml.etree.ElementTree as ET
from dataclasses import dataclass, replace
from io import StringIO
from pathlib import Path

import pytest
from click.testing import CliRunner

import onnx_seq_tests
from onnx_seq_tests._cli import main
from onnx_seq_tests._core.suite_forms import SuiteForm
from onnx_seq_tests._published.discovery import find_cases
from onnx_seq_tests._reports import merge
from onnx_seq_tests._reports.formats import FORMATS, RunReport, write_reports
from onnx_seq_tests._reports.scoreboard import markdown_report
from onnx_seq_tests._reports.tally import MESSAGE_LIMIT, SHOWN, WORST_FIRST, about_of, cap, rollup
from onnx_seq_tests._reports.text_report import (
    Progress,
    progress_shown,
    quiet_text,
    summary_text,
    text_report,
)
from onnx_seq_tests._reports.writers import write_json, write_junit
from onnx_seq_tests._run import verifier
from onnx_seq_tests._run.verifier import OUTCOMES, Result


@dataclass(frozen=True)
class Raw(Result):
    """A Result with the contract's `raw_outcome` (the outcome before the xfail list)."""

    raw_outcome: str = ""


#: The table of report formats by option.
by_option = {form.option: form for form in FORMATS}


def result(name, outcome, message="", backend="rt", operator="SequenceEmpty", raw="",
           folder="sequence_optional", element="float"):
    return Raw(f"{folder}/test_{name}", f"test_{name}", backend, outcome, message,
               tuple(operator.split("+")),
               element, 0.5, 17, f"cases/x.yaml:{len(name)}", raw,
               SuiteForm.of_case(f"{folder}/test_{name}"))


#: One result per outcome of the contract, in a shuffled order.
EVERY = [
    result("a_pass", "pass"),
    result("b_refused", "refused", "NOT_IMPLEMENTED: could not find a kernel"),
    result("c_error", "error", "RuntimeError: index 3 out of range\nat line 2"),
    result("d_fail", "fail", "data set 0: output 0 (y): expected 1, got 2"),
    result("e_crash", "crash", "the worker process died (signal 11, SIGSEGV)"),
    result("f_timeout", "timeout", "took longer than 5 s (--timeout)"),
    result("g_xfail", "xfail", "data set 0: output 0 (y): expected 1, got 3", raw="fail"),
    result("h_xpass", "xpass", "listed as an expected failure at x.txt:1", raw="pass"),
]


def test_the_contract_covers_the_verifier_outcomes():
    assert SHOWN == OUTCOMES == ("pass", "fail", "refused", "error", "crash", "timeout",
                                 "transform-failed", "invalid-model", "unjudged", "xfail",
                                 "xpass")
    assert sorted(WORST_FIRST) == sorted(verifier.UNEXPECTED)
    assert set(verifier.UNEXPECTED) == set(OUTCOMES) - {"pass", "xfail", "xpass", "unjudged"}


def test_text_shows_what_went_wrong_worst_first():
    text = text_report(EVERY, ["rt"])
    labels = [line.split()[0] for line in text.splitlines()[:6]]
    assert labels == ["FAIL", "CRASH", "TIMEOUT", "ERROR", "REFUSED", "XPASS"]
    assert "ERROR [rt] sequence_optional/test_c_error (cases/x.yaml:7): RuntimeError: index 3 " \
           "out of range (+1 more line(s))" in text
    assert "XFAIL 1 expected failure(s) (rt: 1); --json or --junit-xml lists them" in text
    assert text.splitlines()[-1] == ("rt: 1 passed, 1 failed, 1 refused, 1 error(s), "
                                     "1 crash(es), 1 timeout(s), 1 expected failure(s), "
                                     "1 unexpected pass(es) of 8 case(s)")
    quiet = quiet_text(EVERY, ["rt"]).splitlines()
    assert len(quiet) == 7 and quiet[0].startswith("FAIL ") and quiet[-1].startswith("rt: ")


def test_json_has_outcome_and_raw_outcome(tmp_path):
    write_json(EVERY, ["rt"], "s", tmp_path / "r.json")
    document = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert document["totals"]["rt"] == {o: sum(r.outcome == o for r in EVERY) for o in OUTCOMES}
    assert set(document["totals"]["rt"].values()) == {0, 1}
    by_name = {r["name"]: r for r in document["results"]}
    assert by_name["test_g_xfail"]["outcome"] == "xfail"
    assert by_name["test_g_xfail"]["raw_outcome"] == "fail"
    assert by_name["test_a_pass"]["raw_outcome"] == ""


def test_json_keeps_the_operator_key_and_merge_reads_back_the_operators(tmp_path):
    """Result.operators is a tuple; the JSON report holds it as the '+'-joined "operator" text,
    in the place of the field, and reading the report gives the tuple back."""
    results = [result("two", "pass", operator="Constant+SequenceEmpty"),
               replace(result("none", "pass"), operators=())]
    write_json(results, ["rt"], "s", tmp_path / "r.json")
    records = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["results"]
    assert list(records[0])[:7] == ["case", "name", "backend", "outcome", "message",
                                    "operator", "element"]
    assert [r["operator"] for r in records] == ["Constant+SequenceEmpty", ""]
    merged = {r.name: r for r in merge.merge_reports([tmp_path / "r.json"]).results}
    assert merged["test_two"].operators == ("Constant", "SequenceEmpty")
    assert merged["test_none"].operators == () and merged["test_none"].operator == ""


def test_junit_maps_each_outcome(tmp_path):
    write_junit(EVERY, ["rt"], tmp_path / "r.xml")
    suite = ET.parse(tmp_path / "r.xml").getroot().find("testsuite")
    assert (suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("1", "4", "1")
    cases = {c.get("name").rpartition("_")[2]: c for c in suite.iter("testcase")}
    assert cases["fail"].find("failure") is not None
    for outcome in ("refused", "error", "crash", "timeout"):
        assert cases[outcome].find("error").get("type") == outcome
    skipped = cases["xfail"].find("skipped")
    assert skipped.get("message").startswith("expected failure (fail): data set 0")
    assert cases["xpass"].find("system-out").text.startswith("unexpected pass")
    properties = {p.get("name"): p.get("value") for p in cases["xfail"].iter("property")}
    assert properties["raw_outcome"] == "fail"


def test_markdown_has_a_column_per_outcome_present_and_escapes_markup():
    results = [*EVERY, result("i_big", "fail", "expected 2**63 - 1, got *x* | <b>y</b> _z_")]
    text = markdown_report(results, ["rt"], "s", "cmd")
    assert "| backend | cases | % pass | pass | fail | refused | error | crash | timeout | " \
           "xfail | xpass |" in text
    assert "| `rt` | 9 | 22% | 1 | 2 | 1 | 1 | 1 | 1 | 1 | 1 |" in text
    assert r"expected 2\*\*63 - 1, got \*x\* \| \<b\>y\</b\> \_z\_" in text
    assert not [line for line in text.splitlines()
                if "**" in line and not line.startswith("| **total**")]


# -- any string a backend can produce ---------------------------------------------------------

HOSTILE = [
    "lone surrogate \udc80 and \ud800 here",
    "controls \x00\x07\x1b[31mred\x1b[0m\x0c\r\nnext line \u2028 \x85",
    "<script>alert(1)</script> & </script><!-- \"'",
    "x" * 100_000_000 + "\nsecond line",
]


@pytest.mark.parametrize("message", HOSTILE, ids=["surrogate", "controls", "html", "100MB"])
def test_every_writer_survives_any_string(message, tmp_path):
    results = [result("odd", "error", message, backend="rt\udc81"),
               result("odd_\udc82name", "fail", message), result("fine", "pass")]
    specs = ["rt", "rt\udc81"]
    text = text_report(results, specs) + summary_text(results, specs)
    assert all(len(line) < 2000 and line.isprintable() for line in text.splitlines())
    write_json(results, specs, "s", tmp_path / "r.json")
    write_junit(results, specs, tmp_path / "r.xml")
    write_reports(RunReport(results, specs, "s", "cmd"),
                  {by_option["--markdown"]: tmp_path / "r.md",
                   by_option["--html"]: tmp_path / "r.html"})
    for name in ("r.json", "r.xml", "r.md", "r.html"):
        size = (tmp_path / name).stat().st_size
        assert 0 < size < 2_000_000, (name, size)
        (tmp_path / name).read_text(encoding="utf-8")  # valid UTF-8
    document = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    ET.parse(tmp_path / "r.xml")
    stored = document["results"][0]["message"]
    if len(message) > MESSAGE_LIMIT:
        assert stored.endswith(f" [... {len(message) - MESSAGE_LIMIT:,} more character(s) cut]")
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "<script>alert" not in html and "</script><!--" not in html


def test_cap_notes_the_cut():
    assert cap("abc", 5) == "abc"
    assert cap("abcdefgh", 5) == "abcde [... 3 more character(s) cut]"
    assert cap("a\udc80b") == "a\\udc80b"


# -- summary, roll-up, progress -----------------------------------------------------------------

def test_a_variant_counts_under_the_operator_its_case_is_about():
    """A runtime's one SequenceEmpty bug, seen through the tensor-boundary variants that wrap
    the empty sequence in SequenceLength and Constant: filed under SequenceEmpty only."""
    results = [result("sequence_empty_float", "fail", "length", operator="SequenceEmpty"),
               result("sequence_empty_float__len0", "fail", "length",
                      operator="Constant+SequenceEmpty+SequenceLength",
                      folder="sequence_optional_tensor_io")]
    about = {"test_sequence_empty_float__len0": ("SequenceEmpty",)}  # from its CaseRef
    table = rollup(results, about)
    assert list(table) == ["SequenceEmpty"]
    assert table["SequenceEmpty"][("rt", SuiteForm.TENSOR_BOUNDARY)]["fail"] == 1
    # without `about`, a variant counts under the operators it uses: its name is not parsed
    assert list(rollup(results)) == ["SequenceEmpty", "SequenceLength", "Constant"]


def test_case_refs_carry_form_origin_and_about_from_the_committed_manifest(committed_suite):
    """The manifest is read once, when the cases are found: each CaseRef carries its form, the
    case it is derived from and that case's operators, which `about_of` hands the reports."""
    refs = find_cases(committed_suite)
    variants = [r for r in refs if r.form is not SuiteForm.AS_WRITTEN]
    originals = {r.name.removeprefix("test_"): r for r in refs
                 if r.form is SuiteForm.AS_WRITTEN}
    assert originals and len(variants) + len(originals) == len(refs)
    assert {r.form for r in variants} == set(SuiteForm.derived())
    for ref in variants:
        assert ref.case.startswith(f"{ref.form.folder}/")
        assert ref.derived_from in originals and ref.about == originals[ref.derived_from].operators
    assert all(r.derived_from is None and r.about is None for r in originals.values())
    about = about_of(refs)
    assert len(about) == len(variants) > 1000
    assert [n for n, ops in about.items() if ops == ("SequenceEmpty",)], (
        "a SequenceEmpty case has tensor-boundary variants")


def test_no_report_reads_the_manifest_or_parses_a_folder_name():
    """What the run knew comes with the results and the CaseRefs: no module of _reports that
    renders or reads a report reads a manifest, and none takes a case apart at `__` or by its
    folder (refresh.py hashes the manifest's file entries to know what changed: not a report)."""
    found = []
    for path in sorted((Path(onnx_seq_tests.__file__).parent / "_reports").glob("*.py")):
        text = path.read_text(encoding="utf-8") if path.name != "refresh.py" else ""
        found += [f"{path.name}: {word}" for word in (
            "nearest_manifest", "read_manifest", "manifest_entry", "case_entries", '"__"',
            ".case.split(", "TENSOR_IO_SUITE") if word in text]
    assert not found, found


def test_summary_fits_a_screen_with_failures_before_the_groups():
    many = [result(f"r{i}", "refused", f"NOT_IMPLEMENTED kernel {chr(65 + i % 26)} for 'Op{i}'")
            for i in range(700)]
    many += [result(f"f{i}", "fail", f"expected {i}") for i in range(15)]
    text = summary_text(many, ["rt"]).splitlines()
    assert len(text) <= 50
    assert text.index("Failures (15):") < text.index(
        "Errors and refusals by message (700 result(s), 26 distinct message(s)):")
    assert "... and 5 more (--quiet lists them)" in text


def test_progress_under_summary_shows_only_wrong_values_crashes_and_hangs():
    stream = StringIO()
    bar = Progress(len(EVERY), stream, terminal=False,
                          shown=progress_shown("summary"))
    for r in EVERY:
        bar.update([r])
    labels = [line.split()[0] for line in stream.getvalue().splitlines()
              if not line.startswith("verifying")]
    assert labels == ["FAIL", "CRASH", "TIMEOUT"]


@pytest.mark.parametrize("width", [40, 80, 200])
def test_progress_line_never_wraps(width):
    stream = StringIO()
    bar = Progress(3, stream, terminal=True, width=width)
    for r in EVERY[:3]:
        bar.update([r])
    bar.close()
    drawn = stream.getvalue()
    status = [part for line in drawn.split("\n") for part in line.split("\r\x1b[K")
              if part.startswith("verifying")]
    assert status and all(len(part) < width for part in status)
    assert drawn.count("\r\x1b[K") >= 3  # redrawn in place
    assert "REFUSED [rt]" in drawn


# -- report: JSON reports merged ----------------------------------------------------------------

def _json(tmp_path, name, results, specs, sha="ab" * 32):
    suite = [{"name": "generated", "version": "0.1.0", "manifest_sha256": sha}]
    write_json(results, specs, suite, tmp_path / name)
    return tmp_path / name


@pytest.mark.parametrize("about", ["not a map", [["test_x", ["SequenceAt"]]], 7])
def test_report_reads_a_report_whose_about_is_not_a_map_without_a_traceback(tmp_path, about):
    """`about` is the report's optional map of what variants are about: any other value is
    left out, as `described` is (it was an AttributeError traceback, exit 1)."""
    path = _json(tmp_path, "a.json", EVERY, ["rt"])
    document = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**document, "about": about}), encoding="utf-8")
    done = CliRunner().invoke(main, ["report", str(path)])
    assert done.exit_code == 0 and "Traceback" not in done.output, done.output
    assert "rt: 1 passed" in done.stdout


def test_report_merges_runtimes_and_refuses_another_suite(tmp_path):
    one = _json(tmp_path, "a.json", [r for r in EVERY], ["rt"])
    other = [Raw(r.case, r.name, "rt2", "pass", "", r.operators, r.element, 0.1, r.opset,
                 r.source) for r in EVERY]
    two = _json(tmp_path, "b.json", other, ["rt2"])
    done = CliRunner().invoke(main, ["report", str(one), str(two), "--markdown",
                                     str(tmp_path / "m.md"), "--html", str(tmp_path / "m.html")])
    assert done.exit_code == 0, done.output
    text = (tmp_path / "m.md").read_text(encoding="utf-8")
    assert "| `rt` | 8 | 25% |" in text and "| `rt2` | 8 | 100% |" in text
    assert "gen-seq-tests report" in text
    assert "rt2: 8 passed" in done.stdout
    foreign = _json(tmp_path, "c.json", other, ["rt3"], sha="cd" * 32)
    refused = CliRunner().invoke(main, ["report", str(one), str(foreign), "--markdown",
                                        str(tmp_path / "n.md")])
    assert refused.exit_code == 2 and not (tmp_path / "n.md").exists()
    assert refused.output.count("\n") == 1 and "ran another suite than" in refused.output
    agreeing = CliRunner().invoke(main, ["report", str(one), str(one)])  # kept once
    assert agreeing.exit_code == 0 and agreeing.stdout == CliRunner().invoke(
        main, ["report", str(one)]).stdout.replace(str(one), f"{one} {one}")
    flipped = [Raw(r.case, r.name, "rt", "pass", "", r.operators, r.element, 0.1, r.opset,
                   r.source) for r in EVERY]
    twice = CliRunner().invoke(main, ["report", str(one),
                                      str(_json(tmp_path, "d.json", flipped, ["rt"]))])
    assert twice.exit_code == 2 and "is in an earlier report too, with another outcome" \
        in twice.output
    (tmp_path / "bad.json").write_text("{")
    bad = CliRunner().invoke(main, ["report", str(tmp_path / "bad.json")])
    assert bad.exit_code == 2 and re.search(r"bad\.json: not JSON", bad.output)
    assert "Traceback" not in bad.output + refused.output + twice.output


def test_verify_writes_html_and_prints_summary_and_quiet(mini_suite, tmp_path):
    done = CliRunner().invoke(main, ["verify", str(mini_suite), "-b", "reference", "--summary",
                                     "--html", str(tmp_path / "r.html")])
    assert done.exit_code in (0, 1), done.output
    assert done.stdout.splitlines()[1].startswith("reference: ")
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "http" not in html.replace(
        "http-equiv", "")
    quiet = CliRunner().invoke(main, ["verify", str(mini_suite), "-b", "reference", "--quiet"])
    assert quiet.stdout.splitlines()[-1].startswith("reference: ")
    assert not [line for line in quiet.stdout.splitlines() if line.startswith("operator ")]
    assert len(quiet.stdout.splitlines()) == 2 + 3  # the suite, 3 results, the totals


def test_a_hostile_backend_message_through_the_cli(mini_suite, tmp_path):
    """A backend whose message holds lone surrogates, control characters, HTML and 30 MB:
    every report is written, bounded, and valid (the JSON report was a 0-byte file)."""
    paths = {name: tmp_path / f"r.{name}" for name in ("json", "xml", "md", "html")}
    done = CliRunner().invoke(main, [
        "verify", str(mini_suite), "-b", "faulty_backends:HostileErrorOnSequenceEmpty",
        "--json", str(paths["json"]), "--junit-xml", str(paths["xml"]),
        "--markdown", str(paths["md"]), "--html", str(paths["html"])])
    assert done.exit_code == 1, done.output
    assert not isinstance(done.exception, Exception) and "Traceback" not in done.output
    assert len(done.stdout) < 20_000 and "\\x1b[2J" in done.stdout  # escaped, on one line
    assert "\x1b" not in done.stdout and "\x00" not in done.stdout
    for path in paths.values():
        assert 0 < path.stat().st_size < 1_000_000, path
        path.read_text(encoding="utf-8")
    results = json.loads(paths["json"].read_text(encoding="utf-8"))["results"]
    hostile = [r for r in results if r["message"].startswith("RuntimeError: bad \\udc80")]
    assert len(hostile) == 1 and hostile[0]["message"].endswith("more character(s) cut]")
    ET.parse(paths["xml"])


def test_progress_takes_the_width_of_its_terminal():
    """On a real terminal (a pseudo-terminal 50 columns wide) the status line fits in 49."""
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 50, 0, 0))
    try:
        with open(terminal, "w", encoding="utf-8", closefd=False) as stream:
            bar = Progress(3, stream, terminal=True)
            for r in EVERY[:3]:
                bar.update([r])
            bar.close()
        drawn = os.read(controller, 1 << 16).decode("utf-8")
    finally:
        os.close(terminal)
        os.close(controller)
    status = [part.strip("\r") for line in drawn.split("\n") for part in line.split("\r\x1b[K")
              if part.startswith("verifying")]
    assert status and all(len(part) < 50 for part in status), status
