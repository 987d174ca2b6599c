"""`verify` on runtimes that crash, hang, print control characters or are not backends at all:
isolation, honest timeouts, loud mistakes, selection, progress and reports people read."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import onnxruntime.backend
import pytest
from click.testing import CliRunner
from foreign_suite import case_names, write_foreign_suite

import onnx_seq_tests
from onnx_seq_tests._cli import main
from onnx_seq_tests._core.errors import BackendSpecError, NoCasesError
from onnx_seq_tests._published.discovery import find_cases
from onnx_seq_tests._reports.scoreboard import markdown_report
from onnx_seq_tests._run import verifier
from onnx_seq_tests._run.verifier import Result, apply_xfail, check_xfail, load_xfail, verify
from onnx_seq_tests._runtimes.backends import load_backend, prepare, probe_model

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
EMPTY_CASE = "test_sequence_empty_int64"  # the one case with a SequenceEmpty node
sys.path.insert(0, str(TESTS))  # module:attr backends from faulty_backends


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> Path:
    return write_foreign_suite(tmp_path_factory.mktemp("foreign"))


def cli(*args) -> CliRunner:
    return CliRunner().invoke(main, ["verify", *map(str, args)])


def not_passed(results: list[Result]) -> list[tuple[str, str, str]]:
    return [(r.name, r.backend, r.outcome) for r in results if r.outcome != "pass"]


def our_workers() -> list:
    return [p for p in multiprocessing.active_children() if p.name == "seq-verify-worker"]


# -- crashes and hangs ------------------------------------------------------------------------

@pytest.mark.parametrize("fault, expected", [
    ("AbortOnSequenceEmpty", "was killed by signal 6 (SIGABRT); last lines of its stderr:\n"
                             "fatal: planted abort in SequenceEmpty"),
    ("SegfaultOnSequenceEmpty", "was killed by signal 11 (SIGSEGV)"),
    ("CrashOnSequenceEmpty", "exited with code 70; it wrote nothing on stderr"),
])
def test_a_crash_names_its_signal_or_exit_code_and_stderr(suite, fault, expected):
    spec = f"faulty_backends:{fault}"
    results = verify(suite, ["onnxruntime", spec, "reference"], jobs=2,
                     select=["sequence_empty", "strings"])
    assert not_passed(results) == [(EMPTY_CASE, spec, "crash")]
    (crashed,) = [r for r in results if r.outcome == "crash"]
    assert crashed.message.startswith("the backend crashed the process running this case: it ")
    assert expected in crashed.message
    # the backends after the crashed one still ran the case, in another worker
    assert {r.backend for r in results if r.name == EMPTY_CASE} == {"onnxruntime", spec,
                                                                   "reference"}
    assert our_workers() == []


def test_a_crash_costs_its_real_time(suite):
    results = verify(suite, ["faulty_backends:AbortOnSequenceEmpty"], select=["sequence_empty"])
    assert results[0].outcome == "crash" and results[0].seconds >= 0.2


def test_a_backend_that_crashes_on_every_case_still_gives_every_result(suite):
    results = verify(suite, ["faulty_backends:CrashAlways", "onnxruntime"], jobs=2)
    assert len(results) == 2 * len(case_names())
    outcomes = {(r.backend, r.outcome) for r in results}
    assert outcomes == {("faulty_backends:CrashAlways", "crash"), ("onnxruntime", "pass")}
    # after its first crash the backend runs each case in a forked process: same message
    assert {r.message for r in results if r.outcome == "crash"} == {
        "the backend crashed the process running this case: it exited with code 70; it wrote "
        "nothing on stderr"}


def test_kept_workers_serve_run_after_run_with_the_results_of_a_fresh_run(suite):
    """verifier.kept_pool (fuzz's packs: one runtime loaded per batch): the same worker
    process runs one verify run after another, each with the results a run of its own gives
    (a crash replaces the worker as in any run); close() ends what is left."""
    refs = find_cases(suite)
    for spec in ("onnxruntime", "faulty_backends:CrashOnSequenceEmpty"):
        alone = [(r.name, r.outcome, r.message) for r in verify(suite, [spec])]
        arguments = verifier.check_arguments([spec], 1, 20.0)
        pool = verifier.kept_pool(arguments)
        try:
            for _ in range(2):
                results = verifier.run(arguments, refs, pool=pool)
                assert [(r.name, r.outcome, r.message) for r in results] == alone
                kept = [p.pid for p in our_workers()]
                assert kept, "the workers stay for the next run (after a crash, a spare too)"
                if spec == "onnxruntime":
                    assert len(verifier.run(arguments, refs[:2], pool=pool)) == 2
                    assert [p.pid for p in our_workers()] == kept and len(kept) == 1
        finally:
            pool.close()
        assert our_workers() == []


def test_cases_given_as_results_come_run_in_the_same_run(suite):
    """verifier.run's `more` (fuzz's packs: what a pack's verdict leaves to judge starts at
    once): each case's results are handed over as they come; the cases it gives run in the
    same run, in the same workers (after a crash too), with the results a run of its own
    gives, and every result is returned."""
    refs = find_cases(suite)
    spec = "faulty_backends:CrashOnSequenceEmpty"
    alone = sorted((r.name, r.outcome, r.message) for r in verify(suite, [spec]))
    assert any(outcome == "crash" for _, outcome, _ in alone)
    first, later = refs[::2], refs[1::2]
    partner = dict(zip((r.name for r in first), later, strict=False))  # first[k] gives later[k]
    handed: list[str] = []

    def more(results):
        (result,) = results
        handed.append(result.name)
        return [partner[result.name]] if result.name in partner else []

    arguments = verifier.check_arguments([spec], 2, 20.0)
    pool = verifier.kept_pool(arguments)
    try:
        results = verifier.run(arguments, first, pool=pool, more=more)
    finally:
        pool.close()
    assert sorted((r.name, r.outcome, r.message) for r in results) == alone
    assert sorted(handed) == sorted(r.name for r in refs)
    assert our_workers() == []


def test_the_timeout_is_per_backend_whatever_else_is_listed(suite):
    """1.5 s with --timeout 1 is an error alone and next to other backends."""
    spec = "faulty_backends:SlowOnSequenceEmpty"
    for specs in ([spec], ["reference", spec, "onnxruntime"]):
        results = verify(suite, specs, timeout=1, select=["sequence_empty"])
        assert not_passed(results) == [(EMPTY_CASE, spec, "timeout")], specs
        (slow,) = [r for r in results if r.outcome == "timeout"]
        assert slow.message == "the backend gave no result within 1 s; its process was ended"
        assert 1.0 <= slow.seconds < 1.5
    # with room to spare it passes, alone or not
    assert not_passed(verify(suite, [spec, "reference"], timeout=3,
                             select=["sequence_empty"])) == []


def test_a_timeout_spares_the_callers_own_processes(suite):
    bystander = multiprocessing.get_context("spawn").Process(target=time.sleep, args=(60,))
    bystander.start()
    try:
        results = verify(suite, ["faulty_backends:HangOnSequenceEmpty"], timeout=1, jobs=2)
        assert not_passed(results) == [(EMPTY_CASE, "faulty_backends:HangOnSequenceEmpty",
                                        "timeout")]
        assert bystander.is_alive()
        assert our_workers() == []
    finally:
        bystander.kill()
        bystander.join()


# -- loud mistakes ----------------------------------------------------------------------------

@pytest.mark.parametrize("spec", ["onnxruntime.backend", "onnxruntime:backend",
                                  "onnx_seq_tests._runtimes.backends:ReferenceBackend"])
def test_backend_specs_import_what_they_name(spec):
    assert callable(load_backend(spec).prepare)


def test_onnxruntime_opens_each_session_on_one_thread():
    """-b onnxruntime: one intra-op thread per session (the workers run one per core);
    -b onnxruntime.backend: onnxruntime's own defaults (0: its choice)."""
    ours = prepare(load_backend("onnxruntime"), probe_model())
    assert ours._session.get_session_options().intra_op_num_threads == 1
    default = prepare(load_backend("onnxruntime.backend"), probe_model())
    assert default._session.get_session_options().intra_op_num_threads == 0


def test_workers_start_with_one_blas_thread_and_the_callers_environment_is_kept(suite):
    """The fork server, so every worker, starts with OPENBLAS_NUM_THREADS=1 unless the caller
    set it; the caller's own environment is unchanged."""
    before = os.environ.get("OPENBLAS_NUM_THREADS")
    results = verify(suite, ["faulty_backends:BlasThreads"], select=["sequence_empty"])
    assert results and {r.message for r in results} == {
        f"RuntimeError: OPENBLAS_NUM_THREADS={before or 1}"}
    assert os.environ.get("OPENBLAS_NUM_THREADS") == before


@pytest.mark.parametrize("spec, message", [
    ("faulty_backends:NoPrepare", "prepare(model, 'CPU') returned None; it must return a rep "
                                  "with run(inputs)"),
    ("faulty_backends:PrepareRaises", "prepare(model, 'CPU') failed on a one-node Identity "
                                      "model: NotImplementedError: prepare is not written yet"),
    ("faulty_backends", "'faulty_backends' has no prepare(model, device)"),
])
def test_a_backend_that_cannot_prepare_is_refused_up_front(suite, spec, message):
    done = cli(suite, "-b", "onnxruntime", "-b", spec)
    assert done.exit_code == 2, done.output
    assert message in done.output
    assert done.output.count("\n") <= 4 and "Traceback" not in done.output
    with pytest.raises(BackendSpecError, match="prepare"):
        onnx_seq_tests.backend_test(load_backend_or_module(spec), suite)
    assert our_workers() == []


def load_backend_or_module(spec: str):
    import importlib

    module, _, attr = spec.partition(":")
    found = importlib.import_module(module)
    return getattr(found, attr) if attr else found


def test_a_folder_without_cases_is_an_error_naming_it(tmp_path):
    (tmp_path / "empty").mkdir()
    done = cli(tmp_path / "empty", "-b", "onnxruntime")
    assert done.exit_code == 2
    assert f"no case folders (test_*/model.onnx) under {tmp_path / 'empty'}" in done.output
    with pytest.raises(NoCasesError, match=str(tmp_path / "empty")):
        onnx_seq_tests.backend_test(onnxruntime.backend, tmp_path / "empty")
    with pytest.raises(NoCasesError, match=str(tmp_path / "nowhere")):
        onnx_seq_tests.backend_test("reference", tmp_path / "nowhere")


@pytest.mark.parametrize("args, message", [
    (["-k", "test_("], "Invalid value for -k: 'test_(' is not a valid regex"),
    (["-k", "no_such_case_at_all"], "matches no_such_case_at_all"),
    (["--json", "/no/such/folder/r.json"], "the folder of /no/such/folder/r.json does not exist"),
    (["--markdown", "/no/such/folder/r.md"], "--markdown"),
    (["--timeout", "0"], "--timeout"),
])
def test_bad_flags_are_one_line_and_exit_2(suite, args, message):
    done = cli(suite, "-b", "onnxruntime", *args)
    assert done.exit_code == 2, done.output
    assert message in done.output
    assert "Traceback" not in done.output


def test_notes_go_through_the_case_file_reader(suite, tmp_path):
    notes = tmp_path / "notes.yaml"
    notes.write_text("- backend: reference\n  ? [a, b]\n  : x\n")
    done = cli(suite, "-b", "reference", "--notes", notes, "--markdown", tmp_path / "r.md")
    assert done.exit_code == 2, done.output
    assert f"{notes}:2:5: keys in a note must be plain words" in done.output
    notes.write_text("- !!python/object:os.system x\n")
    done = cli(suite, "-b", "reference", "--notes", notes, "--markdown", tmp_path / "r.md")
    assert done.exit_code == 2 and f"{notes}:1:3: YAML tag" in done.output
    done = cli(suite, "-b", "reference", "--notes", notes)
    assert done.exit_code == 2 and "add --markdown FILE" in done.output


# -- --xfail --------------------------------------------------------------------------------

def test_xfail_names_with_or_without_test_and_warnings_at_the_end(suite, tmp_path):
    listed = tmp_path / "known.txt"
    listed.write_text("faulty_backends:CrashOnSequenceEmpty sequence_empty_int64\n"
                      "tract strings_sequence\n"
                      "no_such_case\n")
    done = cli(suite, "-b", "onnxruntime", "-b", "faulty_backends:CrashOnSequenceEmpty",
               "--xfail", listed)
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    assert "XFAIL 1 expected failure(s) (faulty_backends:CrashOnSequenceEmpty: 1); --json or " \
           "--junit-xml lists them" in lines
    assert lines[-2:] == [
        f"{listed}:2: warning: backend 'tract' is not being run (--backend onnxruntime, "
        "faulty_backends:CrashOnSequenceEmpty); the entry is ignored",
        f"{listed}:3: warning: 'no_such_case' matched no case"]
    done = cli(suite, "-b", "onnxruntime", "--xfail", listed, "--strict-xfail")
    assert done.exit_code == 2
    assert f"{listed}:3: 'no_such_case' matched no case" in done.output


def test_the_shipped_xfail_file_is_for_onnxruntime_only():
    entries = load_xfail(ROOT / "xfail" / "onnxruntime.txt")
    assert entries and {e.backend for e in entries} == {"onnxruntime"}
    name = "test_split_to_sequence_scalar_split_keepdims_ignored"
    for backend, outcome, expected in [("reference", "pass", "pass"),
                                       ("onnxruntime", "fail", "xfail")]:
        result = Result(f"sequence_optional/{name}", name, backend, outcome, "", (), "", 0.0)
        assert apply_xfail(result, entries).outcome == expected
    assert check_xfail(entries, ["onnxruntime", "reference"], []) != []  # no case: warnings


# -- selection --------------------------------------------------------------------------------

def test_select_several_suites_and_symlinks(suite, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    shutil.copytree(suite / "seq" / "test_seq_of_scalars", other / "test_copied")
    (other / "linked").symlink_to(suite / "more", target_is_directory=True)
    (other / "loop").symlink_to(other, target_is_directory=True)  # a cycle is walked once
    refs = find_cases([suite, other], ["copied", "optional_of_sequence"])
    # the case key is relative to the folder named (neither has a manifest), each real case
    # folder once: other/linked is the same folder as suite/more
    assert [r.case for r in refs] == ["more/optional/test_optional_of_sequence",
                                      "test_copied"]
    done = cli(suite, other, "-b", "onnxruntime", "-k", "copied", "-k", "of_sequence", "--json",
               tmp_path / "r.json")
    assert done.exit_code == 0, done.output
    assert len(json.loads((tmp_path / "r.json").read_text())["results"]) == 2


# -- progress ---------------------------------------------------------------------------------

def test_progress_only_when_asked_off_a_terminal(suite):
    quiet = cli(suite, "-b", "faulty_backends:DropLast", "-k", "seq_of")
    assert "verifying" not in quiet.output
    shown = cli(suite, "-b", "faulty_backends:DropLast", "-k", "seq_of", "--progress")
    assert "verifying 2/2 cases: 0 pass, 2 fail, 0 error, 0 xfail, 0 xpass;" in shown.output
    first_status = shown.output.index("verifying ")
    assert shown.output.index("FAIL  [faulty_backends:DropLast] seq/test_seq_of") < first_status


# -- reports ----------------------------------------------------------------------------------

def test_junit_is_well_formed_with_control_characters_and_real_times(suite, tmp_path):
    specs = ["faulty_backends:AnsiErrorOnSequenceEmpty", "faulty_backends:HangOnSequenceEmpty"]
    done = cli(suite, *(a for s in specs for a in ("-b", s)), "-k", "sequence_empty",
               "--timeout", "1", "--junit-xml", tmp_path / "r.xml")
    assert done.exit_code == 1, done.output
    root = ET.parse(tmp_path / "r.xml").getroot()
    error = root.find("testsuite[@name='faulty_backends:AnsiErrorOnSequenceEmpty']/testcase/error")
    assert error.get("message") == ("RuntimeError: #x1B[31mkernel missing#x1B[0m#x07 for "
                                    "<SequenceEmpty> & #x00")
    hung = root.find("testsuite[@name='faulty_backends:HangOnSequenceEmpty']/testcase")
    assert float(hung.get("time")) >= 1.0


@pytest.fixture(scope="module")
def manifest_suite(suite, tmp_path_factory) -> Path:
    """Two cases of the foreign suite under a manifest that says what they test and where they
    are written: a case named like Optional but listed as a Loop case."""
    root = tmp_path_factory.mktemp("listed") / "mini"
    for name in ("test_optional_of_sequence", "test_optional_empty_typed_encoding"):
        shutil.copytree(suite / "more" / "optional" / name, root / "cases" / name)
    manifest = {"format": 1, "generator_version": "9.9.9", "cases": {
        "optional_of_sequence": {"folder": "cases/test_optional_of_sequence",
                                 "operators": ["Loop", "Optional"], "opset": 21,
                                 "source": "cases/loop.yaml:12"},
        "optional_empty_typed_encoding": {"folder": "cases/test_optional_empty_typed_encoding",
                                          "operators": ["Optional"], "opset": 18}}}
    (root / "manifest.json").write_text(json.dumps(manifest))
    return root


def test_reports_take_operators_opset_and_source_from_the_manifest(manifest_suite, tmp_path):
    done = cli(manifest_suite, "-b", "reference", "--markdown", tmp_path / "r.md",
               "--junit-xml", tmp_path / "r.xml", "--json", tmp_path / "r.json")
    assert done.exit_code == 1, done.output
    assert ("FAIL  [reference] cases/test_optional_of_sequence (cases/loop.yaml:12): data set 0"
            in done.output)
    text = (tmp_path / "r.md").read_text()
    digest = __import__("hashlib").sha256((manifest_suite / "manifest.json").read_bytes())
    assert (f"Every case of the suite `mini` (version 9.9.9, manifest.json sha256 "
            f"{digest.hexdigest()}) (2 cases)") in text
    assert str(manifest_suite) not in text
    assert "| Loop | 21 | float | 0/1 1f |" in text  # from the manifest, not from the name
    assert "| Optional | 15 | float | 0/2 2f |" in text  # Optional-15 is in force at opset 18/21
    assert ("- 1 × fail: data set 0: output 0 (o): expected a sequence of length 2, got length "
            "1 -- `test_optional_of_sequence` (cases/loop.yaml:12)") in text
    case = ET.parse(tmp_path / "r.xml").getroot().find(
        "testsuite/testcase[@name='cases/test_optional_of_sequence']")
    assert (case.get("file"), case.get("line")) == ("cases/loop.yaml", "12")
    results = json.loads((tmp_path / "r.json").read_text())["results"]
    assert {r["source"] for r in results} == {"cases/loop.yaml:12", ""}


def test_identical_messages_are_grouped(suite):
    results = verify(suite, ["reference"], select=["optional_(seq_)?empty"])
    text = markdown_report(results, ["reference"], "foreign", "cmd")
    assert ("- 3 × fail: data set 0: output 0 (o): expected an empty optional, got a sequence "
            "of length 1 -- `test_optional_empty_typed_encoding`, "
            "`test_optional_empty_undefined_encoding`, `test_optional_seq_empty_typed_encoding`"
            ) in text


def test_workers_are_reused(suite):
    """Healthy cases run in the same few processes: one fork per worker, not per case."""
    results = verify(suite, ["faulty_backends:Pid"], jobs=2)
    pids = {r.message for r in results}
    assert len(results) == len(case_names()) and len(pids) <= 2
    assert f"RuntimeError: {os.getpid()}" not in pids


def test_a_backend_that_is_not_fork_safe_runs_in_its_worker_after_a_crash(suite):
    """After a crash, an isolated backend runs each case in a fresh fork (a new process id per
    case) unless it says fork_safe = False: a runtime whose thread pool deadlocks a forked
    child (OpenVINO's) then runs in its worker, the same few processes."""
    forked = verify(suite, ["faulty_backends:PidAfterAbort"], jobs=1)
    kept = verify(suite, ["faulty_backends:PidAfterAbortNotForkSafe"], jobs=1)
    for results in (forked, kept):
        assert any("SIGABRT" in r.message for r in results)
    def pids(results):
        return [r.message for r in results if r.message.startswith("RuntimeError: ")]
    assert len(set(pids(forked))) > 5  # a fork per case after the crash (9 here)
    # the worker, its replacement after the crash, and the spare kept ready after a crash
    assert len(set(pids(kept))) <= 3


def descendants(pid: int) -> set[int]:
    found, todo = set(), [pid]
    while todo:
        current = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{current}/task")
        except FileNotFoundError:
            continue
        for task in tasks:
            try:
                children = open(f"/proc/{current}/task/{task}/children").read().split()
            except FileNotFoundError:
                continue
            for child in map(int, children):
                if child not in found:
                    found.add(child)
                    todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        return open(f"/proc/{pid}/stat").read().split()[2] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["TERM", "KILL"])
def test_nothing_is_left_running_when_the_verifier_is_ended(suite, how):
    """A backend stuck with no --timeout: ending the verify process ends its workers too."""
    env = {**os.environ, "PYTHONPATH": str(TESTS)}
    cli_path = Path(sys.executable).parent / "gen-seq-tests"
    process = subprocess.Popen([str(cli_path), "verify", str(suite), "-b",
                                "faulty_backends:HangOnSequenceEmpty", "-k", "sequence_empty"],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while len(descendants(process.pid)) < 3 and time.monotonic() < deadline:
        time.sleep(0.2)  # the fork server, a worker, the resource tracker
    time.sleep(1)  # the worker reaches the hanging case
    started = descendants(process.pid)
    assert len(started) >= 3
    process.send_signal(how)
    process.wait(30)
    deadline = time.monotonic() + 10
    while any(alive(p) for p in started) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [p for p in started if alive(p)] == []
