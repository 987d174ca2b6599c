"""`verify`'s outcomes (refused, error, crash, timeout beside pass and fail), the adapter output
contract, capped messages, argument checks, and the processes it starts: none left behind, the
caller's script not run again, Ctrl-C exits 130, --timeout covers reading the case folder."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from foreign_suite import case_names, write_foreign_suite

from onnx_seq_tests._cli import main
from onnx_seq_tests._core.errors import SeqTestsError, WorkerStartError
from onnx_seq_tests._run.verifier import (
    OUTCOMES,
    UNEXPECTED,
    Result,
    apply_xfail,
    load_xfail,
    verify,
)
from onnx_seq_tests._run.worker_main import MAX_TEXT

TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS))  # module:attr backends from faulty_backends
EMPTY_CASE = "test_sequence_empty_int64"  # the one case with a SequenceEmpty node
CLI = Path(sys.executable).parent / "gen-seq-tests"


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> Path:
    return write_foreign_suite(tmp_path_factory.mktemp("foreign"))


def by_name(results: list[Result]) -> dict[str, Result]:
    return {r.name: r for r in results}


# -- outcomes ---------------------------------------------------------------------------------

def test_the_outcomes_are_the_shared_contract():
    assert OUTCOMES == ("pass", "fail", "refused", "error", "crash", "timeout",
                        "transform-failed", "invalid-model", "unjudged", "xfail", "xpass")
    assert UNEXPECTED == ("fail", "refused", "error", "crash", "timeout", "transform-failed",
                          "invalid-model")


def test_prepare_raising_is_refused_and_running_raising_is_error(suite):
    results = verify(suite, ["faulty_backends:Pid", "faulty_backends:RaiseOnRun",
                             "faulty_backends:CannotTakeOnRun"], jobs=2,
                     select=["seq_of_scalars"])
    outcomes = {r.backend: (r.outcome, r.message.splitlines()[0]) for r in results}
    assert outcomes["faulty_backends:Pid"][0] == "refused"  # raised in prepare
    assert outcomes["faulty_backends:RaiseOnRun"] == ("error", "RuntimeError: planted failure")
    assert outcomes["faulty_backends:CannotTakeOnRun"] == (
        "refused", "CannotTake: this runtime cannot take a sequence input ('s')")


def test_a_refusal_is_told_by_its_type_not_by_a_name_or_a_message(suite):
    """An error of a class named CannotTake whose message says "cannot take", but not of the
    package's CannotTake type, is the backend's error, not a refusal."""
    results = verify(suite, ["faulty_backends:SaysCannotTake"], select=["seq_of_scalars"])
    assert {(r.outcome, r.message.splitlines()[0]) for r in results} == {
        ("error", "CannotTake: this runtime cannot take a sequence input ('s')")}


def test_a_foreign_tensor_type_is_an_adapter_error_naming_it(suite):
    results = by_name(verify(suite, ["faulty_backends:ForeignArrays"],
                             select=["sequence_length_of_empty", "split_to_sequence_uneven"]))
    tensor = results["test_sequence_length_of_empty"]
    assert (tensor.outcome, tensor.message) == (
        "error", "adapter error: output 0 is a faulty_backends.ArrayImpl, expected "
                 "numpy.ndarray")
    sequence = results["test_split_to_sequence_uneven"]
    assert (sequence.outcome, sequence.message) == (
        "error", "adapter error: output 0, element 0 is a faulty_backends.ArrayImpl, expected "
                 "numpy.ndarray")


@pytest.mark.parametrize("fault, message", [
    ("NotAList", "adapter error: run(inputs) returned a dict, expected a list of outputs"),
    ("WrongKind", "adapter error: output 0 is a str, expected "),
])
def test_outputs_outside_the_contract_are_adapter_errors(suite, fault, message):
    results = verify(suite, [f"faulty_backends:{fault}"], select=["seq_of_scalars"])
    assert results[0].outcome == "error" and results[0].message.startswith(message)


def test_xfail_keeps_the_raw_outcome(suite, tmp_path):
    listed = tmp_path / "known.txt"
    listed.write_text(f"{EMPTY_CASE}\nseq_of_scalars\n")
    results = verify(suite, ["faulty_backends:CrashOnSequenceEmpty"], jobs=2,
                     select=["sequence_empty", "seq_of_scalars", "strings"],
                     xfail=load_xfail(listed))
    got = {r.name: (r.outcome, r.raw_outcome) for r in results}
    assert got == {EMPTY_CASE: ("xfail", "crash"), "test_seq_of_scalars": ("xpass", "pass"),
                   "test_strings_sequence": ("pass", "")}
    listed.write_text("a\n")
    for outcome in UNEXPECTED:  # an entry matches every outcome but pass
        result = Result("x/test_a", "test_a", "b", outcome, "m", (), "", 0.0)
        assert apply_xfail(result, load_xfail(listed)).raw_outcome == outcome
        assert apply_xfail(result, load_xfail(listed)).outcome == "xfail"


# -- messages are capped at the source ---------------------------------------------------------

def test_a_huge_backend_message_is_capped_with_a_note(suite):
    (result,) = verify(suite, ["faulty_backends:HugeMessage"], select=["seq_of_scalars"])
    assert result.outcome == "refused"
    cut = 10_000_000 + len("RuntimeError: ") - MAX_TEXT
    assert result.message.endswith(f"\n... [{cut} more characters cut]")
    assert len(result.message) < MAX_TEXT + 100


# -- bad arguments ----------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, message", [
    ({"timeout": -1}, "timeout must be a number of seconds > 0"),
    ({"timeout": 0}, "timeout must be"),
    ({"timeout": float("nan")}, "timeout must be"),
    ({"timeout": "5"}, "timeout must be"),
    ({"jobs": -3}, "jobs must be an int >= 0"),
    ({"jobs": 1.5}, "jobs must be"),
    ({"specs": "onnxruntime"}, "specs must be a list of backend specs"),
    ({"specs": []}, "specs is empty"),
])
def test_bad_arguments_are_value_errors(suite, kwargs, message):
    kwargs = {"specs": ["onnxruntime"], **kwargs}
    with pytest.raises(ValueError, match=message):
        verify(suite, **kwargs)


def test_worker_start_error_is_a_seq_tests_error():
    assert issubclass(WorkerStartError, SeqTestsError)


# -- processes --------------------------------------------------------------------------------

def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def sleepers(caller: int) -> list[int]:
    """The live `sleep 3600.<caller>` processes (faulty_backends.SpawnSleepers')."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv[:2] == [b"sleep", f"3600.{caller}".encode()] and alive(int(entry)):
            found.append(int(entry))
    return found


def test_verify_leaves_no_process_of_a_backend_behind_from_the_api(suite):
    results = verify(suite, ["faulty_backends:SpawnSleepers"], jobs=2)
    assert len(results) == len(case_names())
    assert {r.outcome for r in results} == {"pass"}
    assert sleepers(os.getpid()) == []


def test_a_timeout_ends_what_the_backend_started(suite):
    start = time.monotonic()
    results = verify(suite, ["faulty_backends:SpawnSleepersThenHang"], jobs=2, timeout=1,
                     select=["sequence_empty", "seq_of_scalars"])
    assert [(r.name, r.outcome) for r in results if r.outcome != "pass"] == [
        (EMPTY_CASE, "timeout")]
    assert time.monotonic() - start < 30
    assert sleepers(os.getpid()) == []


def _default_sigint() -> None:
    """In the child: SIGINT handled as a terminal's Ctrl-C would reach it. A test runner started
    in the background of a non-interactive shell (`make test &`) ignores SIGINT, and a process
    that starts with SIGINT ignored rightly keeps ignoring it, so verify would never see it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def cli_process(*args) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(TESTS)}
    return subprocess.Popen([str(CLI), "verify", *map(str, args)], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=_default_sigint)


def test_verify_leaves_no_process_of_a_backend_behind_from_the_cli(suite):
    process = cli_process(suite, "-b", "faulty_backends:SpawnSleepers", "-j", "2")
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, out + err
    assert sleepers(process.pid) == []


def test_ctrl_c_ends_everything_and_exits_130(suite):
    process = cli_process(suite, "-b", "faulty_backends:SpawnSleepersThenHang",
                          "-k", "sequence_empty")
    deadline = time.monotonic() + 60
    while len(sleepers(process.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)  # the worker is in the hanging case, its sleepers started
    assert len(sleepers(process.pid)) == 2
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, out + err
    assert "interrupted" in err and "Traceback" not in err
    deadline = time.monotonic() + 5
    while sleepers(process.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert sleepers(process.pid) == []


def test_a_script_without_a_main_guard_runs_once(suite, tmp_path):
    """The fork server does not import the caller's __main__, so a script that calls verify at
    module level is not run again (nor its builds, nor its side effects)."""
    script = tmp_path / "check_runtime.py"
    log = tmp_path / "runs.txt"
    script.write_text(textwrap.dedent(f"""\
        import onnx_seq_tests

        with open({str(log)!r}, "a") as f:
            f.write("ran\\n")
        results = onnx_seq_tests.verify({str(suite)!r}, ["onnxruntime"], jobs=2)
        print(len(results), {{r.outcome for r in results}})
        """))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"{len(case_names())} {{'pass'}}"
    assert log.read_text() == "ran\n"


# -- --timeout covers reading the case folder ----------------------------------------------------

def test_a_fifo_as_model_ends_its_case_within_the_timeout(mini_suite, tmp_path):
    case = next(mini_suite.rglob("test_sequence_construct_v11_float"))
    (case / "model.onnx").unlink()
    os.mkfifo(case / "model.onnx")
    report = tmp_path / "r.json"  # outside the suite: verify writes nothing inside what it reads
    start = time.monotonic()
    done = CliRunner().invoke(main, ["verify", str(mini_suite), "-b", "onnxruntime",
                                     "--timeout", "2", "--json", str(report)])
    assert time.monotonic() - start < 30
    assert done.exit_code == 1, done.output
    results = {r["name"]: r for r in json.loads(report.read_text())["results"]}
    fifo = results["test_sequence_construct_v11_float"]
    assert fifo["outcome"] in ("timeout", "error"), fifo
    if fifo["outcome"] == "timeout":
        assert fifo["message"] == ("the case folder was not read within 2 s; its process was "
                                   "ended")
    assert {r["outcome"] for name, r in results.items() if name != fifo["name"]} == {"pass"}
