"""docs/operators: the committed pages are what `gen-seq-tests docs` gives for generated/ (which
`build --check` keeps equal to cases/), and they hold the seed's examples."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from onnx_seq_tests._cli import main
from onnx_seq_tests._read.operator_pages import pages

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "operators"


def test_committed_pages_are_up_to_date():
    expected = pages(ROOT / "generated", DOCS, "generated")
    committed = {p.name: p.read_text(encoding="utf-8") for p in DOCS.glob("*.md")}
    stale = sorted(n for n in expected.keys() | committed.keys()
                   if expected.get(n) != committed.get(n))
    assert stale == [], f"docs/operators is stale ({', '.join(stale)}): run `make docs`"


def test_sequence_construct_page_holds_the_seed_examples():
    page = (DOCS / "SequenceConstruct.md").read_text(encoding="utf-8")
    seed = (Path(__file__).parent / "data" / "seed_sequence_construct.txt").read_text()
    for line in seed.split("\n"):
        if line.startswith("test_cc_"):
            assert f"### {line}\n" in page
    assert "- Domain: ai.onnx" in page and "- Since version: 11" in page
    assert "| opset | types | cases |" in page  # an expansion, shown once with its types


def test_index_links_every_page():
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    for page in DOCS.glob("*.md"):
        if page.name != "README.md":
            assert f"]({page.name})" in index


def test_cli_check_and_write(tmp_path):
    runner = CliRunner()
    out = tmp_path / "pages"
    result = runner.invoke(main, ["docs", str(ROOT / "generated"), "-o", str(out), "--check"])
    assert result.exit_code == 1 and "stale:" in result.output
    result = runner.invoke(main, ["docs", str(ROOT / "generated"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.glob("*.md")) == sorted(p.name for p in DOCS.glob("*.md"))
    result = runner.invoke(main, ["docs", str(ROOT / "generated"), "-o", str(out), "--check"])
    assert result.exit_code == 0, result.output


def test_cli_without_a_suite_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(main, ["docs", str(tmp_path), "-o", str(tmp_path / "x")])
    assert result.exit_code == 2 and "no case folders" in result.output
