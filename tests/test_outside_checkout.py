"""What a runtime's own CI sees outside a checkout of this project: `build --check` with no suite
says so in one line, and an --xfail path that does not exist suggests the name form."""

from __future__ import annotations

from click.testing import CliRunner

from onnx_seq_tests._cli import main


def test_build_check_with_no_suite_is_one_line_exit_2(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["build", "--check"])
    assert result.exit_code == 2
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: nothing to check: no suite at generated and not inside a "
                           "checkout of onnx-seq-tests")
    assert list(tmp_path.iterdir()) == []


def test_a_missing_xfail_path_suggests_the_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["verify", "-b", "onnxruntime", "--xfail",
                                       "xfail/onnxruntime.txt"])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "error: --xfail xfail/onnxruntime.txt: no such file; the known failures of onnxruntime "
        "installed with the package are named, not a path: --xfail onnxruntime"]
    result = CliRunner().invoke(main, ["verify", "-b", "onnxruntime", "--xfail", "mine.txt"])
    assert result.exit_code == 2 and result.stderr == "error: --xfail mine.txt: no such file\n"
