"""What the commands write (docs/safety.md, "Outputs: what every command writes"): no command
writes over its own input, inside a suite it reads, twice to one file or onto a folder; a write
that fails leaves the old file whole and no debris, in one line; names from data never build a
path outside the output folder; the Markdown report escapes HTML from data; `report` refuses
unknown outcomes and reports over its bounds."""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import examples, small_suite
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from selenium.webdriver.common.by import By
from test_report_browser import browser  # noqa: F401  (the headless Chromium fixture)

from onnx_seq_tests._cli import main
from onnx_seq_tests._reports import json_report
from onnx_seq_tests._reports.writers import write_json
from onnx_seq_tests._run.verifier import Result

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ROOT / "generated"
COMMAND = [sys.executable, "-m", "onnx_seq_tests._cli"]
CASES = ["sequence_construct_v11_float", "sequence_insert_at_length_append",
         "optional_v15_no_input_tensor_type"]


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every path under `folder` with its bytes (None: a folder or a FIFO; a link: its
    target)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        key = path.relative_to(folder).as_posix()
        if path.is_symlink():
            found[key] = os.readlink(path).encode()
        elif path.is_dir() or not path.is_file():  # a folder, a FIFO
            found[key] = None
        else:
            found[key] = path.read_bytes()
    return found


def a_report(path: Path, results: list[Result] | None = None, specs=("alpha",)) -> Path:
    """A `verify --json` report of made-up results."""
    results = results or [Result(f"sequence_optional/test_{c}", f"test_{c}", "alpha", "fail",
                                 "wrong", ("SequenceAt",), "float", 0.1, 18, "")
                          for c in CASES]
    write_json(results, list(specs), [{"name": "S"}], path)
    return path


@pytest.fixture
def work(tmp_path, monkeypatch):
    """tmp_path as the working folder, holding a suite S and a report r.json."""
    monkeypatch.chdir(tmp_path)
    small_suite(tmp_path / "S", CASES)
    a_report(tmp_path / "r.json")
    (tmp_path / "F").write_text("the user's file\n")
    return tmp_path


MODEL = f"S/sequence_optional/test_{CASES[0]}/model.onnx"

#: Each command writing over what it reads, or twice to one file: refused, exit 2.
OVER_INPUTS = {
    "verify --json over a model": ["verify", "S", "-b", "reference", "--json", MODEL],
    "verify --html over the manifest": ["verify", "S", "-b", "reference", "--html",
                                        "S/manifest.json"],
    "verify --json F --html F": ["verify", "S", "-b", "reference", "--json", "F",
                                 "--html", "F"],
    "report --html over its report": ["report", "r.json", "--html", "r.json"],
    "report --markdown over a link to its report": ["report", "r.json", "--markdown",
                                                    "link.json"],
    "report --markdown over a hard link to its report": ["report", "r.json", "--markdown",
                                                         "hard.json"],
    "import -o over a model": ["import", "S", "-o", MODEL],
    "pack -o over the manifest": ["pack", "S", "-o", "S/manifest.json"],
    "diff -o inside a side": ["diff", "S", "S", "-o", "S/diff.txt"],
    "coverage --markdown over the manifest": ["coverage", "S", "--markdown",
                                              "S/manifest.json"],
    "mutation --markdown inside the suite": ["mutation", "S", "--markdown", "S/score.md"],
    "xfail-update -o over its report": ["xfail-update", "rep/alpha.txt", "-b", "alpha", "-o",
                                        "rep"],
    "xfail-update twice one file": ["xfail-update", "r.json", "-b", "alpha", "-b", "alpha"],
    "xfail-update onto a folder": ["xfail-update", "r.json", "-b", "alpha", "-o", "X"],
}


@pytest.mark.parametrize("args", OVER_INPUTS.values(), ids=OVER_INPUTS)
def test_an_output_over_an_input_or_another_output_is_refused_and_nothing_touched(work, args):
    (work / "link.json").symlink_to("r.json")
    os.link(work / "r.json", work / "hard.json")
    (work / "X" / "alpha.txt").mkdir(parents=True)
    (work / "rep").mkdir()
    shutil.copy(work / "r.json", work / "rep" / "alpha.txt")
    before = snapshot(work)
    result = run(*args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert re.search(r"which this command reads|same file as|is a folder", lines[0])
    assert snapshot(work) == before


def test_verify_writes_its_reports_beside_the_suite_it_reads(work):
    result = run("verify", "S", "-b", "reference", "--json", "r2.json", "-k", CASES[0])
    assert result.exit_code == 0, result.output
    assert json.loads((work / "r2.json").read_text())["results"]


def _limited(args, limit: int, cwd: Path) -> subprocess.CompletedProcess:
    """The command in a process whose files may grow to `limit` bytes (RLIMIT_FSIZE)."""
    return subprocess.run([*COMMAND, *map(str, args)], capture_output=True, text=True, cwd=cwd,
                          preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE,
                                                                (limit, limit)),
                          timeout=600)


FAILED_WRITES = {
    "verify --json": ["verify", "S", "-b", "reference", "--json", "OLD"],
    "report --html": ["report", "r.json", "--html", "OLD"],
    "import -o": ["import", "S", "-o", "OLD"],
    "pack -o": ["pack", "S", "-o", "OLD"],
}


@pytest.mark.parametrize("args", FAILED_WRITES.values(), ids=FAILED_WRITES)
def test_a_write_that_fails_keeps_the_old_file_whole_in_one_line(work, args):
    old = b"old output " * 50  # 550 bytes: under the limit, shorter than what is written
    (work / "OLD").write_bytes(old)
    before = snapshot(work)
    ran = _limited(args, 1024, work)
    assert ran.returncode == 1, ran.stderr
    assert "Traceback" not in ran.stderr
    errors = [line for line in ran.stderr.splitlines() if line.startswith("error:")]
    assert errors == [line for line in ran.stderr.splitlines() if line], ran.stderr
    assert len(errors) == 1 and errors[0].startswith("error: cannot write OLD: "), ran.stderr
    assert snapshot(work) == before  # OLD whole, no temporary file, nothing else written


@pytest.mark.parametrize("name", ["../../X", "../X", "ABSOLUTE", "a/b", "..", ".", "", "x\0y",
                                  "x" * 300])
def test_xfail_update_refuses_a_backend_name_that_is_not_a_plain_file_name(work, name):
    name = str(work / "elsewhere" / "X") if name == "ABSOLUTE" else name
    before = snapshot(work)
    result = run("xfail-update", "r.json", "-b", name, "-o", "deep/er")
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "not a plain file name" in lines[0], result.stderr
    assert snapshot(work) == before


HOSTILE = ("<script>document.title='owned'</script><img src=x onerror=\"alert(1)\"> | a`b` "
           "& c\n<iframe src=javascript:alert(2)>")


class _Elements(HTMLParser):
    """Every element of an HTML text, with its attributes."""

    def __init__(self):
        super().__init__()
        self.found: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))


def _hostile_report(path: Path) -> Path:
    results = [Result(f"sequence_optional/test_x{HOSTILE}", f"test_x{HOSTILE}", f"b{HOSTILE}",
                      outcome, f"message{HOSTILE}", (f"Op{HOSTILE}",), f"float{HOSTILE}", 0.1,
                      18, f"cases/x.yaml{HOSTILE}:3")
               for outcome in ("fail", "pass")]
    a_report(path, results[:1], specs=(f"b{HOSTILE}",))
    document = json.loads(path.read_text())
    document["suite"] = [{"name": f"S{HOSTILE}", "version": f"1{HOSTILE}",
                          "manifest_sha256": f"ab{HOSTILE}"}]
    document["described"] = {f"b{HOSTILE}": f"runtime{HOSTILE}"}
    document["about"] = {f"test_x{HOSTILE}": [f"About{HOSTILE}"]}
    path.write_text(json.dumps(document))
    return path


def _hostile_markdown(work: Path) -> str:
    """The Markdown `report` writes of a report whose every field carries HOSTILE."""
    _hostile_report(work / "h.json")
    result = run("report", "h.json", "--markdown", "h.md")
    assert result.exit_code == 0, result.output
    return (work / "h.md").read_text()


def _rendered(markdown: str) -> str:
    """The Markdown as CommonMark renders it, raw HTML allowed, with GFM tables."""
    return MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)


def test_the_markdown_report_escapes_html_in_every_field_from_data(work):
    text = _hostile_markdown(work)
    # no '<' from data is left raw: only the report's own <details> and <summary>
    assert not re.search(r"(?<!\\)<(?!/?(details|summary)>)", text), text
    html = _rendered(text)
    parser = _Elements()
    parser.feed(html)
    tags = {tag for tag, _ in parser.found}
    assert not tags & {"script", "img", "iframe"}, tags
    assert not [a for _, attrs in parser.found for a in attrs if a.startswith("on")]
    assert "&lt;script&gt;" in html and "| a`b` &amp; c" in html
    # every row of a table keeps its cells: a '|' from data stays inside its cell
    for table in re.findall(r"<table>.*?</table>", html, re.S):
        rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)
        widths = {len(re.findall(r"<t[hd][ >]", row)) for row in rows}
        assert len(widths) == 1, table


def test_no_script_of_the_markdown_report_runs_in_a_browser(work, browser):  # noqa: F811
    page = work / "h.html"
    page.write_text("<!doctype html><html><head><meta charset='utf-8'><title>report</title>"
                    f"</head><body>{_rendered(_hostile_markdown(work))}</body></html>",
                    encoding="utf-8")
    browser.get(page.as_uri())
    assert browser.title == "report"
    assert browser.find_elements(By.CSS_SELECTOR, "body script, body img, body iframe") == []
    assert "<script>document.title='owned'</script>" in browser.find_element(
        By.TAG_NAME, "body").text


def test_report_refuses_an_unknown_outcome_naming_file_and_outcome(work):
    document = json.loads((work / "r.json").read_text())
    document["results"][1]["outcome"] = "maybe"
    (work / "r.json").write_text(json.dumps(document))
    result = run("report", "r.json")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "error: r.json: results[1] has outcome 'maybe', not one of pass, fail, refused, error, "
        "crash, timeout, transform-failed, invalid-model, unjudged, xfail, xpass; was it "
        "written by another version?"]


def test_report_refuses_a_report_over_its_byte_bound_before_reading_it(work):
    with open(work / "big.json", "wb") as big:  # sparse: no disk used
        big.truncate(json_report.MAX_REPORT_BYTES + 1)
    result = run("report", "big.json")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"error: big.json: larger than {json_report.MAX_REPORT_BYTES} bytes "
        "(MAX_REPORT_BYTES); not a verify report of this suite"]


def test_report_refuses_more_results_than_its_bound(work, monkeypatch):
    monkeypatch.setattr(json_report, "MAX_REPORT_RESULTS", len(CASES) - 1)
    result = run("report", "r.json")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"error: r.json: more than {len(CASES) - 1} results in the reports read "
        "(MAX_REPORT_RESULTS); merge fewer reports at a time"]


def test_report_refuses_a_report_of_more_values_than_its_bound_before_parsing_it(work):
    lists = json_report.MAX_REPORT_VALUES // 2 + 1  # each `[]` but the first counts '[' and ','
    (work / "many.json").write_text('{"suite": [], "backends": [], "results": ['
                                    + ",".join(["[]"] * lists) + "]}")
    result = run("report", "many.json")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"error: many.json: more than {json_report.MAX_REPORT_VALUES} JSON values "
        "(MAX_REPORT_VALUES); not a verify report of this suite"]


#: Output paths for `report --markdown A --html B`, by kind: (path, what it writes: a target
#: name, or "INPUT" for the report itself, "FOLDER" for a folder).
_KINDS = {
    "new": ("out.md", "out.md"), "other new": ("deep/../out2.md", "out2.md"),
    "user's file": ("mine.txt", "mine.txt"), "the report": ("r.json", "INPUT"),
    "the report by ..": ("sub/../r.json", "INPUT"), "a link to the report": ("link.json", "INPUT"),
    "a hard link to the report": ("hard.json", "INPUT"), "a folder": ("sub", "FOLDER"),
    "a link to a folder": ("subl", "FOLDER"),
}


@settings(max_examples=examples(100))
@given(markdown=st.sampled_from(sorted(_KINDS)), html=st.sampled_from(sorted(_KINDS)))
def test_report_writes_only_outputs_that_are_no_input_no_folder_and_not_each_other(markdown,
                                                                                   html):
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        a_report(work / "r.json")
        (work / "mine.txt").write_text("the user's file\n")
        (work / "sub").mkdir()
        (work / "deep").mkdir()
        (work / "subl").symlink_to("sub")
        (work / "link.json").symlink_to("r.json")
        os.link(work / "r.json", work / "hard.json")
        before = snapshot(work)
        (md_path, md_target), (html_path, html_target) = _KINDS[markdown], _KINDS[html]
        refused = ({md_target, html_target} & {"INPUT", "FOLDER"}) or md_target == html_target
        cwd = os.getcwd()
        os.chdir(work)
        try:
            result = run("report", "r.json", "--markdown", md_path, "--html", html_path)
        finally:
            os.chdir(cwd)
        if refused:
            errors = [line for line in result.stderr.splitlines()
                      if line.lower().startswith("error")]  # click's own: after a usage line
            assert result.exit_code == 2 and len(errors) == 1, result.output
            assert snapshot(work) == before
        else:
            assert result.exit_code == 0, result.output
            after = snapshot(work)
            assert {k for k in after if after[k] != before.get(k)} == {md_target, html_target}


def test_xfail_update_refuses_a_fifo_as_its_report_instead_of_waiting(work):
    os.mkfifo(work / "fifo.json")
    before = snapshot(work)
    signal.signal(signal.SIGALRM, _expired)
    signal.alarm(20)
    try:
        result = run("xfail-update", "fifo.json", "-b", "alpha")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "error: fifo.json: cannot read it: not a regular file (a FIFO, a device or a socket)"]
    assert snapshot(work) == before


def _expired(signum, frame):
    raise TimeoutError("still reading after 20 s")
