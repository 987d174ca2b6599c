"""`gen-seq-tests fuzz` and `fuzz merge` on hostile inputs and a hostile backend (issue 31,
defect 12): a FIFO among merge's inputs, a backend that exits 0 mid-campaign, NaN and inf as
times, outputs that cannot be written, and example databases that are not a local folder.
Each test failed before its fix. docs/safety.md, "The fuzzer", states what holds."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from onnx_seq_tests._cli import main

#: A read-only folder even to root (the tests may run as root, for whom chmod stops nothing).
READ_ONLY = Path("/sys")


def _invoke(args, **kwargs):
    return CliRunner().invoke(main, args, **kwargs)


def _one_line_usage_error(result, *words):
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    errors = [line for line in result.stderr.splitlines()
              if line.startswith(("Error:", "error:"))]
    assert len(errors) == 1, result.stderr  # one line (click's usage lines aside)
    for word in words:
        assert word in result.stderr, result.stderr


# -- times -----------------------------------------------------------------------------------

@pytest.mark.parametrize("args", [
    ["fuzz", "-b", "oracle", "--timeout", "{}"],
    ["fuzz", "-b", "oracle", "--time-budget", "{}"],
    ["fuzz", "-b", "oracle", "--shrink-budget", "{}"],
    ["verify", "--timeout", "{}", "-b", "reference", "{suite}"],
    ["mutation", "--fuzz", "--time-budget", "{}"],
], ids=lambda a: " ".join(a[:4]))
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e400", "0", "-1"])
def test_a_time_that_is_not_a_finite_positive_number_is_a_usage_error(root, args, value):
    if value == "0" and "--shrink-budget" in args:
        return  # no shrinking at all: allowed
    result = _invoke([a.format(value, suite=root / "generated") for a in args])
    _one_line_usage_error(result, "finite number of seconds")


# -- a backend that exits 0 ------------------------------------------------------------------

@pytest.mark.parametrize("backend", ["ExitZeroOnSequenceEmpty", "SysExitZeroOnSequenceEmpty"])
def test_a_backend_exiting_0_is_a_crash_at_once_on_every_program(tmp_path, backend):
    """Each program holds a SequenceEmpty, on which the backend exits 0 without a verdict. The
    worker it ran in dies (a crash, seen at once); the next runs go to processes forked for
    the backend, which must be judged crashes too, not left to their timeout (once: six
    programs took 72 s at --timeout 5)."""
    programs, timeout = 4, 10
    report = tmp_path / "fuzz.json"
    began = time.monotonic()
    result = _invoke(["fuzz", "-b", f"faulty_backends:{backend}", "--op", "SequenceEmpty",
                      "--max-examples", str(programs), "--timeout", str(timeout),
                      "--shrink-budget", "0", "--json", str(report), "--no-progress"])
    took = time.monotonic() - began
    assert result.exit_code == 1, result.output
    runs = json.loads(report.read_text())["runs"][f"faulty_backends:{backend}"]
    assert runs == {form: {"crash": programs}
                    for form in ("sequence_optional", "sequence_optional_tensor_io")}
    findings = json.loads(report.read_text())["findings"]
    assert findings and all("exited with code 0" in f["message"] for f in findings), findings
    assert took < programs * timeout / 4, took


# -- fuzz merge --------------------------------------------------------------------------------

def _finding(folder: Path, signature: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{signature.replace(':', '_')}.yaml"
    path.write_text(f"# gen-seq-tests fuzz finding\n# signature: {signature}\n# reproduce: x\n"
                    "- name: fuzz_x\n", encoding="utf-8")
    return path


def _bounded(args, seconds: float, unblock=()):
    """The CLI's result, or None when it has not ended within `seconds` (then each FIFO of
    `unblock` is opened for writing and closed, so the blocked read ends)."""
    box = {}
    thread = threading.Thread(target=lambda: box.setdefault("result", _invoke(args)),
                              daemon=True)
    thread.start()
    thread.join(seconds)
    if not thread.is_alive():
        return box["result"]
    for fifo in unblock:
        with contextlib.suppress(OSError):
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    thread.join(10)
    return None


def test_merge_leaves_out_a_fifo_in_one_line_and_merges_the_rest(tmp_path):
    shard_a, shard_b, out = tmp_path / "a", tmp_path / "b", tmp_path / "out"
    kept = _finding(shard_a, "b:fail:value:SequenceAt:float")
    _finding(shard_b, "b:crash:crash:SequenceAt:float")
    fifo = shard_b / "pipe.yaml"
    os.mkfifo(fifo)
    (shard_b / "dev.yaml").symlink_to("/dev/zero")
    result = _bounded(["fuzz", "merge", str(shard_a), str(shard_b), "-o", str(out)], 20,
                      unblock=[fifo])
    assert result is not None, "fuzz merge blocked on a FIFO"
    assert result.exit_code == 1, result.output  # a partial result
    assert "Traceback" not in result.output
    left_out = [line for line in result.stderr.splitlines() if "left out" in line]
    assert len(left_out) == 2, result.stderr
    assert all("not a regular file" in line for line in left_out), left_out
    assert str(fifo) in result.stderr and "dev.yaml" in result.stderr
    assert "2 finding(s) read, 2 distinct signature(s)" in result.stdout
    assert len(list(out.iterdir())) == 2
    assert kept.read_bytes() in {p.read_bytes() for p in out.iterdir()}


def test_merge_of_readable_findings_exits_0(tmp_path):
    _finding(tmp_path / "a", "b:fail:value:SequenceAt:float")
    result = _invoke(["fuzz", "merge", str(tmp_path / "a"), "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert not result.stderr


@pytest.mark.parametrize("where", ["file/sub", "file", "read-only"])
def test_merge_refuses_an_output_it_cannot_write_before_reading(tmp_path, where):
    _finding(tmp_path / "a", "b:fail:value:SequenceAt:float")
    (tmp_path / "file").write_text("mine\n")
    out = READ_ONLY / "fuzz-merge-out" if where == "read-only" else tmp_path / where
    result = _invoke(["fuzz", "merge", str(tmp_path / "a"), "-o", str(out)])
    _one_line_usage_error(result, str(out))
    assert (tmp_path / "file").read_text() == "mine\n"


# -- fuzz's outputs --------------------------------------------------------------------------

FAST = ["-b", "mutant:sequence_length_int32", "--max-examples", "20", "--max-findings", "1",
        "--shrink-budget", "1", "--no-progress"]


@pytest.mark.parametrize("option,where", [
    ("-o", "file/sub"), ("-o", "file"), ("-o", "read-only"),
    ("--json", "file/sub.json"), ("--json", "read-only"), ("--json", "folder"),
])
def test_an_output_that_cannot_be_written_is_refused_before_the_campaign(tmp_path, option,
                                                                         where):
    (tmp_path / "file").write_text("mine\n")
    (tmp_path / "folder").mkdir()
    path = READ_ONLY / "fuzz-out" if where == "read-only" else tmp_path / where
    began = time.monotonic()
    result = _invoke(["fuzz", *FAST, option, str(path)])
    _one_line_usage_error(result, str(path))
    assert not result.stdout  # no campaign ran
    assert time.monotonic() - began < 5
    assert (tmp_path / "file").read_text() == "mine\n"


def test_a_write_refused_at_the_end_loses_nothing(tmp_path):
    """Writes over a file-size limit fail (EFBIG) after the checks passed: every finding and
    the statistics still reach the user (here on stdout: the temporary folder is under the
    same limit), with one line each saying so; exit 1, no traceback."""
    import resource
    import signal

    out, report = tmp_path / "out", tmp_path / "fuzz.json"
    limits = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (200, limits[1]))
    try:
        result = _invoke(["fuzz", *FAST, "-o", str(out), "--json", str(report)])
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limits)
        signal.signal(signal.SIGXFSZ, handler)
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        result.exception
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 2, result.stderr
    assert "1 finding(s) could not be written to" in errors[0] and "stdout" in errors[0]
    assert f"--json {report}: File too large" in errors[1] and "stdout" in errors[1]
    assert "# signature: mutant:sequence_length_int32:fail:dtype:" in result.stdout
    assert '"findings": [' in result.stdout
    assert not report.exists()
    assert not [p for p in out.iterdir()] if out.exists() else True  # no half file, no debris
    assert not list(Path(tempfile.gettempdir()).glob("gen-seq-tests-fuzz-*"))  # nor there


# -- --database ------------------------------------------------------------------------------

@pytest.mark.parametrize("spec", ["github:X/Y", "https://example.invalid/db", "file",
                                  "file/sub", "read-only"])
def test_a_database_that_is_not_a_writable_local_folder_is_refused(tmp_path, monkeypatch, spec):
    """Once `github:X/Y` without network made .hypothesis/ in the working folder and printed
    raw warnings, and a file or read-only folder silently kept nothing."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "file").write_text("mine\n")
    given = str(READ_ONLY / "fuzz-db") if spec == "read-only" else spec
    result = _invoke(["fuzz", *FAST, "--database", given])
    _one_line_usage_error(result, "--database", given)
    assert "Warning" not in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]  # no .hypothesis/


def test_a_database_folder_keeps_the_seeds_and_nothing_is_written_elsewhere(tmp_path,
                                                                         monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = _invoke(["fuzz", *FAST, "--database", "db"])
    assert result.exit_code == 1, result.output
    assert not result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["db"]  # no .hypothesis/
    # a FIFO in the folder is not a seed: the next campaign neither blocks nor fails on it
    fifos = [folder / "fifo" for folder in (tmp_path / "db").iterdir()]
    for fifo in fifos:
        os.mkfifo(fifo)
    again = _bounded(["fuzz", *FAST, "--database", "db"], 30, unblock=fifos)
    assert again is not None, "fuzz blocked on a FIFO in its database"
    assert again.exit_code == 1, again.output


def test_mutation_fuzz_refuses_a_json_it_cannot_write_before_its_campaign():
    path = READ_ONLY / "mutation-fuzz.json"
    result = _invoke(["mutation", "--fuzz", "--max-examples", "3", "--json", str(path)])
    _one_line_usage_error(result, str(path))
    assert "fuzz alone" not in result.stdout  # no campaign ran


def test_merge_never_writes_over_a_file_that_is_not_that_finding(tmp_path):
    _finding(tmp_path / "a", "b:fail:value:SequenceAt:float")
    first = _invoke(["fuzz", "merge", str(tmp_path / "a"), "-o", str(tmp_path / "out")])
    [written] = (tmp_path / "out").iterdir()
    written.write_text("my notes\n")
    again = _invoke(["fuzz", "merge", str(tmp_path / "a"), "-o", str(tmp_path / "out")])
    assert (first.exit_code, again.exit_code) == (0, 1), again.output
    assert written.read_text() == "my notes\n"
    assert "not overwritten" in again.stderr
