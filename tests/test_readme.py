"""The README and the hand-written docs pages: every link resolves (files and #anchors), every
case-file example builds, and every snippet marked `<!-- runnable: sh|pytest -->` runs."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from onnx_seq_tests._casefile.reader import load_cases
from onnx_seq_tests._cli import main
from onnx_seq_tests._published.discovery import case_folders
from onnx_seq_tests._suite.compiling import compile_cases

ROOT = Path(__file__).resolve().parent.parent
#: Pages written by generators (checked against what they render, elsewhere).
GENERATED = {"docs/conformance.md", "docs/coverage.md"}
PAGES = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").glob("*.md")
                                     if p.relative_to(ROOT).as_posix() not in GENERATED)]
FENCE = re.compile(r"^```.*?^```[ \t]*$", re.S | re.M)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
RUNNABLE = re.compile(r"<!-- runnable: (\w+) -->\n```\w*\n(.*?)^```", re.S | re.M)


def anchors(page: Path) -> set[str]:
    """The #anchors GitHub gives the headings of a Markdown page."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    found = set()
    for heading in re.findall(r"^#+ (.+?)\s*$", text, flags=re.M):
        found.add(re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-"))
    return found


def links(page: Path) -> list[str]:
    return LINK.findall(FENCE.sub("", page.read_text(encoding="utf-8")))


def snippets(kind: str) -> list[tuple[Path, str]]:
    return [(page, code) for page in PAGES
            for found_kind, code in RUNNABLE.findall(page.read_text(encoding="utf-8"))
            if found_kind == kind]


def test_every_link_resolves():
    broken = []
    for page in PAGES:
        for target in links(page):
            if re.match(r"[a-z]+:", target):
                continue  # a URL
            path, _, anchor = target.partition("#")
            resolved = (page.parent / path).resolve() if path else page
            where = f"{page.relative_to(ROOT)}: {target}"
            if not resolved.exists():
                broken.append(f"{where}: no such file")
            elif anchor and anchor not in anchors(resolved):
                broken.append(f"{where}: no heading gives #{anchor}")
    assert broken == []


def test_every_docs_page_is_linked_from_the_index():
    """Each page of docs/ can be reached from the README or the docs index."""
    linked = {(page.parent / t.partition("#")[0]).resolve().relative_to(ROOT).as_posix()
              for page in (ROOT / "README.md", ROOT / "docs" / "README.md")
              for t in links(page) if not re.match(r"[a-z]+:", t)}
    pages = {p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md")} - {
        "docs/README.md"}
    assert pages - linked == set()


def test_readme_is_a_front_door():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    for heading in ("Set-up", "Run the suite on your runtime", "Add a case",
                    "Where runtimes stand", "Documentation"):
        assert f"\n## {heading}\n" in text


def test_case_examples_build(tmp_path):
    """Every case-file example of the README and the docs builds (each page's on their own)."""
    names, files = set(), {}
    for number, page in enumerate(PAGES):
        blocks = re.findall(r"```yaml\n(- name: .*?)```", page.read_text(encoding="utf-8"), re.S)
        folder = tmp_path / str(number)
        folder.mkdir()
        for i, block in enumerate(blocks):
            (folder / f"example_{i}.yaml").write_text(block, encoding="utf-8")
        if blocks:
            cases = load_cases([folder])
            files.update(compile_cases(cases))
            names.update(c.name for c in cases)
    assert names >= {"sequence_at_negative", "sequence_length_float_opset11",
                     "sequence_at_middle_of_three", "sequence_at_position_initializer_example"}
    assert "test_sequence_at_negative/model.onnx" in files


def test_shell_snippets_run(tmp_path, monkeypatch):
    """The `gen-seq-tests` lines of runnable sh snippets, run in-process from a folder outside
    the checkout (as a runtime's CI runs them: the installed suite), exit 0."""
    found = snippets("sh")
    assert found
    monkeypatch.chdir(tmp_path)
    for page, code in found:
        for line in code.splitlines():
            argv = shlex.split(line, comments=True)
            assert argv[0] == "gen-seq-tests", f"{page.name}: run only gen-seq-tests: {line}"
            result = CliRunner().invoke(main, argv[1:])
            assert result.exit_code == 0, (page.name, line, result.output[-2000:])


def test_pytest_snippet_collects_the_suite_and_is_green(tmp_path, committed_suite):
    """The README's pytest file, run by pytest in a subprocess outside the checkout, collects two
    tests per case folder of the installed suite (cpu and cuda), and a sample of cases, one of
    them a known failure, is green: passed and xfailed. (The whole suite takes about a minute:
    tests_release runs it.)"""
    ((_, code),) = snippets("pytest")
    (tmp_path / "test_onnx_seq_tests.py").write_text(code, encoding="utf-8")
    # one run, not a --collect-only and a run: its header counts every test collected before
    # -k selects (the collection is most of the time: it loads the whole installed suite)
    sample = "split_to_sequence_scalar_split_keepdims_ignored or sequence_insert_into_empty"
    ran = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p",
                          "no:xdist", "test_onnx_seq_tests.py", "-k", sample], cwd=tmp_path,
                         text=True, capture_output=True, timeout=300)
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-2000:]
    folders = len(case_folders(committed_suite))
    assert re.search(rf"^collected {2 * folders} items / \d+ deselected / \d+ selected$",
                     ran.stdout, re.MULTILINE), ran.stdout[:2000]
    summary = ran.stdout.strip().splitlines()[-1]
    assert re.search(r"\d+ passed", summary) and re.search(r"\d+ xfailed", summary), summary
    assert "failed" not in summary.replace("xfailed", "")


@pytest.mark.parametrize("kind", ["sh", "pytest"])
def test_runnable_snippets_are_in_the_readme(kind):
    assert any(page.name == "README.md" and page.parent == ROOT for page, _ in snippets(kind))
