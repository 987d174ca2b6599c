"""Commands that walk a folder of folders (show, coverage, docs, import) read each folder on its
own: a folder they cannot read is one line on stderr naming it, with one of the words
`unreadable`, `corrupt`, `unsupported` (a value kind this tool cannot read yet) or, for import,
`not expressible`; the others are done; the exit status is 1 when a folder was left out.
And `docs -o` never removes or replaces a file it did not write."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from conftest import MINI_CASES
from onnx import SequenceProto, helper, numpy_helper

from onnx_seq_tests._cli import main
from onnx_seq_tests._read.operator_pages import MARKER
from onnx_seq_tests._suite.layout import SUITE

ROOT = Path(__file__).resolve().parent.parent
DAMAGED = "test_damaged"


def _pb(folder: Path) -> Path:
    return folder / "test_data_set_0" / "input_0.pb"


def _fifo(folder: Path) -> None:
    _pb(folder).unlink()
    os.mkfifo(_pb(folder))


def _dev_zero(folder: Path) -> None:
    _pb(folder).unlink()
    _pb(folder).symlink_to("/dev/zero")


def _truncated(folder: Path) -> None:
    _pb(folder).write_bytes(_pb(folder).read_bytes()[:-3])


def _corrupt_model(folder: Path) -> None:
    (folder / "model.onnx").write_bytes(b"\x08\x07\x12\xff\xff not a model")


def _wrong_type(folder: Path) -> None:  # a sequence where the graph declares a tensor
    _pb(folder).write_bytes(helper.make_sequence(
        "x", SequenceProto.TENSOR, [numpy_helper.from_array(np.float32([1]))])
        .SerializeToString())


def _sparse_input(folder: Path) -> None:  # a kind of value this tool cannot read
    model = onnx.load(folder / "model.onnx")
    model.graph.input[0].type.CopyFrom(onnx.TypeProto())
    model.graph.input[0].type.sparse_tensor_type.elem_type = onnx.TensorProto.FLOAT
    onnx.save(model, folder / "model.onnx")


DAMAGE = {  # how a folder is damaged -> the word its line says
    "fifo": (_fifo, "unreadable", "not a regular file (a FIFO)"),
    "dev-zero": (_dev_zero, "unreadable", "not a regular file (a character device)"),
    "truncated-pb": (_truncated, "corrupt", "not a valid TensorProto"),
    "corrupt-model": (_corrupt_model, "corrupt", "not a valid ONNX model"),
    "wrong-type": (_wrong_type, "corrupt", "TensorProto"),
    "sparse": (_sparse_input, "unsupported", "this tool cannot read a sparse tensor: graph "
               "input"),
}


def damaged_suite(mini_suite: Path, how: str) -> Path:
    """The mini-suite with one more folder, damaged as `how` says."""
    folder = mini_suite / SUITE / DAMAGED
    damage = DAMAGE[how][0]
    shutil.copytree(mini_suite / SUITE / MINI_CASES[0], folder)
    damage(folder)
    return mini_suite


def _skip_line(stderr: str, how: str) -> str:
    """The one line that names the damaged folder, checked to have the word for `how`."""
    _, word, why = DAMAGE[how]
    lines = [line for line in stderr.splitlines() if DAMAGED in line]
    assert len(lines) == 1, stderr
    assert lines[0].startswith("skipped ") and f"/{SUITE}/{DAMAGED}: {word}: " in lines[0] \
        and why in lines[0], lines[0]
    assert "Traceback" not in stderr
    return lines[0]


@pytest.mark.parametrize("how", sorted(DAMAGE))
def test_show_shows_every_readable_folder_beside_a_bad_one(mini_suite, how):
    suite = damaged_suite(mini_suite, how)
    result = CliRunner().invoke(main, ["show", str(suite)])
    assert result.exit_code == 1, result.output
    _skip_line(result.stderr, how)
    for name in MINI_CASES:
        assert f"{name}\n" in result.stdout
    # the same folder named itself is bad input: exit 2, one line
    alone = CliRunner().invoke(main, ["show", str(suite / SUITE / DAMAGED)])
    assert alone.exit_code == 2 and "Traceback" not in alone.output
    assert len(alone.stderr.splitlines()) == 1


def test_show_of_good_folders_exits_0(mini_suite):
    result = CliRunner().invoke(main, ["show", str(mini_suite)])
    assert result.exit_code == 0 and result.stderr == ""


@pytest.mark.parametrize("how", ["fifo", "sparse"])
def test_coverage_counts_every_readable_folder_beside_a_bad_one(mini_suite, tmp_path, how):
    good = CliRunner().invoke(main, ["coverage", str(mini_suite)])
    assert good.exit_code == 0, good.output
    suite = damaged_suite(mini_suite, how)
    result = CliRunner().invoke(main, ["coverage", str(suite)])
    assert result.exit_code == 1, result.output
    _skip_line(result.stderr, how)
    assert result.stdout == good.stdout  # the readable folders, counted as before
    markdown = tmp_path / "coverage.md"
    written = CliRunner().invoke(main, ["coverage", str(suite), "--markdown", str(markdown)])
    assert written.exit_code == 1
    _skip_line(written.stderr, how)
    assert markdown.read_text(encoding="utf-8") == good.stdout


@pytest.mark.parametrize("how", ["truncated-pb", "sparse"])
def test_docs_writes_the_pages_of_every_readable_folder_beside_a_bad_one(mini_suite, tmp_path,
                                                                        how):
    good_out, out = tmp_path / "good", tmp_path / "pages"
    assert CliRunner().invoke(main, ["docs", str(mini_suite), "-o", str(good_out)]).exit_code == 0
    suite = damaged_suite(mini_suite, how)
    result = CliRunner().invoke(main, ["docs", str(suite), "-o", str(out)])
    assert result.exit_code == 1, result.output
    _skip_line(result.stderr, how)
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in good_out.iterdir())
    check = CliRunner().invoke(main, ["docs", str(suite), "-o", str(out), "--check"])
    assert check.exit_code == 1 and "stale:" not in check.output
    _skip_line(check.stderr, how)


@pytest.mark.parametrize("how", sorted(DAMAGE))
def test_import_of_a_suite_whose_only_folder_is_bad_writes_nothing(tmp_path, how):
    suite = damaged_suite_of_one(tmp_path, how)
    target = tmp_path / "out.yaml"
    result = CliRunner().invoke(main, ["import", str(suite), "-o", str(target)])
    assert result.exit_code == 1, result.output
    _skip_line(result.stderr, how)
    assert result.stderr.splitlines()[-1] == "error: no case folder could be imported " \
        f"(1 {DAMAGE[how][1]}); nothing was written"
    assert not target.exists()
    target.write_text("# the user's cases\n", encoding="utf-8")
    again = CliRunner().invoke(main, ["import", str(suite), "-o", str(target)])
    assert again.exit_code == 1
    assert target.read_text(encoding="utf-8") == "# the user's cases\n"


def damaged_suite_of_one(tmp_path: Path, how: str) -> Path:
    suite = tmp_path / "suite"
    folder = suite / SUITE / DAMAGED
    damage = DAMAGE[how][0]
    shutil.copytree(ROOT / "generated" / SUITE / MINI_CASES[0], folder)
    damage(folder)
    return suite


def test_import_says_unreadable_corrupt_and_not_expressible_apart(mini_suite, tmp_path):
    suite = damaged_suite(mini_suite, "fifo")
    corrupt = suite / "more" / DAMAGED
    shutil.copytree(suite / SUITE / MINI_CASES[1], corrupt)
    _truncated(corrupt)
    inexpressible = suite / "ml" / DAMAGED
    shutil.copytree(suite / SUITE / MINI_CASES[2], inexpressible)
    model = onnx.load(inexpressible / "model.onnx")
    model.opset_import.append(helper.make_opsetid("com.example", 1))
    onnx.save(model, inexpressible / "model.onnx")
    target = tmp_path / "out.yaml"
    result = CliRunner().invoke(main, ["import", str(suite), "-o", str(target)])
    assert result.exit_code == 1, result.output
    lines = sorted(line for line in result.stderr.splitlines() if DAMAGED in line)
    assert len(lines) == 3, result.stderr
    assert f"{SUITE}/{DAMAGED}: unreadable: " in lines[2]
    assert f"more/{DAMAGED}: corrupt: " in lines[1]
    assert f"ml/{DAMAGED}: not expressible: imports the opset domain(s) com.example" in lines[0]
    assert f"wrote {len(MINI_CASES)} case(s) to {target}; left out: 1 corrupt, " \
           "1 not expressible, 1 unreadable" in result.stdout
    text = target.read_text(encoding="utf-8")
    assert text.count("\n- name: ") + text.startswith("- name: ") == len(MINI_CASES)


def test_import_of_every_folder_exits_0(mini_suite, tmp_path):
    result = CliRunner().invoke(main, ["import", str(mini_suite), "-o", str(tmp_path / "x.yaml")])
    assert result.exit_code == 0 and result.stderr == "", result.output


def test_help_says_what_the_exit_statuses_mean():
    for command in ("import", "show", "coverage", "docs", "list"):
        text = CliRunner().invoke(main, [command, "--help"]).output
        assert "Exit status: 0" in " ".join(text.split()), command
    assert "--force" in CliRunner().invoke(main, ["docs", "--help"]).output


# -- docs -o keeps what it did not write ------------------------------------------------------

def _docs(suite: Path, out: Path, *more: str):
    return CliRunner().invoke(main, ["docs", str(suite), "-o", str(out), *more])


def test_docs_keeps_the_users_markdown_files(mini_suite, tmp_path):
    """Pointed at a copy of the project's docs/, `docs -o` removed every Markdown file that was
    not one of its pages and replaced README.md."""
    out = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", out, ignore=shutil.ignore_patterns("operators"))
    before = {p.name: p.read_bytes() for p in out.glob("*.md")}
    assert {"README.md", "cli.md", "safety.md", "CHANGELOG.md"} <= before.keys()
    result = _docs(mini_suite, out)  # README.md: a page's name, not written by docs
    assert result.exit_code == 2, result.output
    assert f"{out / 'README.md'}: not written by `gen-seq-tests docs`" in result.stderr
    assert "--force" in result.stderr and len(result.stderr.splitlines()) == 1
    assert {p.name: p.read_bytes() for p in out.glob("*.md")} == before  # nothing touched
    result = _docs(mini_suite, out, "--force")
    assert result.exit_code == 0, result.output
    after = {p.name: p.read_bytes() for p in out.glob("*.md")}
    assert {n: t for n, t in after.items() if n in before and n != "README.md"} == \
        {n: t for n, t in before.items() if n != "README.md"}  # every other file kept
    assert b"Generated by `gen-seq-tests docs`" in after["README.md"]


def test_docs_refuses_a_page_name_it_did_not_write_unless_forced(mini_suite, tmp_path):
    out = tmp_path / "pages"
    out.mkdir()
    mine = out / "SequenceConstruct.md"
    mine.write_text("# My notes on SequenceConstruct\n", encoding="utf-8")
    result = _docs(mini_suite, out)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"{mine}: not written by" in result.stderr
    assert [p.name for p in out.iterdir()] == [mine.name]  # nothing written
    assert mine.read_text(encoding="utf-8") == "# My notes on SequenceConstruct\n"
    forced = _docs(mini_suite, out, "--force")
    assert forced.exit_code == 0, forced.output
    assert "Generated by" in mine.read_text(encoding="utf-8")
    assert _docs(mini_suite, out).exit_code == 0  # its own pages now: replaced freely


def test_docs_removes_only_its_own_stale_pages(mini_suite, tmp_path):
    out = tmp_path / "pages"
    assert _docs(mini_suite, out).exit_code == 0
    page = (out / "SequenceConstruct.md").read_text(encoding="utf-8")
    (out / "OldOperator.md").write_text(page, encoding="utf-8")  # a page it once wrote
    (out / "notes.md").write_text("mine\n", encoding="utf-8")
    os.mkfifo(out / "pipe.md")
    check = _docs(mini_suite, out, "--check")
    assert check.exit_code == 1 and f"stale: {out / 'OldOperator.md'}" in check.output
    assert "notes.md" not in check.output and "pipe.md" not in check.output
    result = _docs(mini_suite, out)
    assert result.exit_code == 0, result.output
    assert not (out / "OldOperator.md").exists()
    assert (out / "notes.md").read_text(encoding="utf-8") == "mine\n"
    assert (out / "pipe.md").is_fifo()
    assert _docs(mini_suite, out, "--check").exit_code == 0
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]


def test_list_lists_every_case_file_beside_a_bad_one(tmp_path):
    cases = tmp_path / "cases"
    cases.mkdir()
    for name in ("optional.yaml", "sequence_at_erase.yaml"):
        shutil.copy(ROOT / "cases" / name, cases / name)
    good = CliRunner().invoke(main, ["list", str(cases)])
    assert good.exit_code == 0 and good.stderr == "", good.output
    (cases / "broken.yaml").write_text("cases:\n  - name: [oops\n", encoding="utf-8")
    os.mkfifo(tmp_path / "pipe.yaml")
    result = CliRunner().invoke(main, ["list", str(cases), str(tmp_path / "pipe.yaml")])
    assert result.exit_code == 1, result.output
    assert result.stdout == good.stdout  # every case of the readable files
    lines = result.stderr.splitlines()
    assert len(lines) == 2 and "Traceback" not in result.output, lines
    assert lines[0].startswith(f"skipped {cases / 'broken.yaml'}: corrupt: "
                               f"{cases / 'broken.yaml'}:3:1: not valid YAML"), lines[0]
    assert lines[1].startswith(f"skipped {tmp_path / 'pipe.yaml'}: unreadable: "), lines[1]


def test_import_of_a_named_folder_the_format_cannot_express(mini_suite, tmp_path):
    """Named itself, a folder read whole but outside the case format is left out as `not
    expressible` (exit 1, no file: nothing was imported), not refused as bad input."""
    folder = mini_suite / SUITE / MINI_CASES[0]
    model = onnx.load(folder / "model.onnx")
    model.opset_import.append(helper.make_opsetid("com.example", 1))
    onnx.save(model, folder / "model.onnx")
    target = tmp_path / "out.yaml"
    result = CliRunner().invoke(main, ["import", str(folder), "-o", str(target)])
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith(f"skipped {folder}: not expressible: imports the opset")
    assert "error: no case folder could be imported (1 not expressible); nothing was written" \
        in result.stderr
    assert not target.exists()


def test_docs_of_a_suite_it_cannot_read_at_all_writes_nothing(tmp_path):
    """Pages of no case would replace the good ones: when every folder is left out, nothing is
    written (exit 1, each folder's line, then one error line)."""
    suite = damaged_suite_of_one(tmp_path, "fifo")
    out = tmp_path / "pages"
    out.mkdir()
    (out / "README.md").write_text("# Operators\n\n" + MARKER + "\n", encoding="utf-8")
    result = _docs(suite, out)
    assert result.exit_code == 1, result.output
    _skip_line(result.stderr, "fifo")
    assert result.stderr.splitlines()[-1] == \
        "error: no case folder could be read (1 unreadable); nothing was written"
    assert [p.name for p in out.iterdir()] == ["README.md"]
    assert (out / "README.md").read_text(encoding="utf-8").endswith(MARKER + "\n")


def test_coverage_of_a_suite_it_cannot_read_at_all_writes_nothing(tmp_path):
    suite = damaged_suite_of_one(tmp_path, "sparse")
    markdown = tmp_path / "coverage.md"
    markdown.write_text("# the committed report\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["coverage", str(suite), "--markdown", str(markdown)])
    assert result.exit_code == 1, result.output
    _skip_line(result.stderr, "sparse")
    assert result.stderr.splitlines()[-1] == \
        "error: no case folder could be read (1 unsupported); nothing was written"
    assert markdown.read_text(encoding="utf-8") == "# the committed report\n"
