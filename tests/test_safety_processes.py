"""Processes and signals (docs/safety.md): no process a backend starts outlives verify, also one
that leaves the worker's session (setsid, a double fork); SIGINT and SIGTERM end every command
cleanly (exit 130 / 143, no traceback, no staging tree left, the old output whole); backends are
never imported from the working folder; a refused build leaves nothing beside the output root;
a build whose root changes under it refuses (exit 2) instead of failing or deleting."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from faulty_backends import daemon_file

from onnx_seq_tests._cli import main
from onnx_seq_tests._run.verifier import verify
from onnx_seq_tests._suite import new_tree

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
sys.path.insert(0, str(TESTS))  # module:attr backends from faulty_backends
CLI = Path(sys.executable).parent / "gen-seq-tests"
DAEMONS = ["SetsidDaemon", "DoubleForkDaemon", "SetsidDaemonThenCrash"]


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


def daemons(caller: int) -> list[int]:
    """The pids of the daemons the backends of `caller`'s verify run started."""
    path = Path(daemon_file(caller))
    return [int(line) for line in path.read_text().split()] if path.exists() else []


@pytest.fixture
def noted():
    """Forget the daemons noted for a caller before the test; kill any left after it."""
    callers = []

    def start(caller: int) -> None:
        Path(daemon_file(caller)).unlink(missing_ok=True)
        callers.append(caller)

    yield start
    for caller in callers:
        for pid in daemons(caller):
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        Path(daemon_file(caller)).unlink(missing_ok=True)


def left_running(pids: list[int]) -> list[int]:
    deadline = time.monotonic() + 5
    while any(map(alive, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [pid for pid in pids if alive(pid)]


# -- no process escapes verify ----------------------------------------------------------------

@pytest.mark.parametrize("backend", DAEMONS)
def test_a_daemon_a_backend_starts_ends_with_verify_from_the_api(mini_suite, noted, backend):
    noted(os.getpid())
    results = verify(mini_suite, [f"faulty_backends:{backend}"], jobs=2)
    assert results
    started = daemons(os.getpid())
    assert started, "the backend started no daemon"
    assert left_running(started) == []


@pytest.mark.parametrize("backend", DAEMONS)
def test_a_daemon_a_backend_starts_ends_with_verify_from_the_cli(mini_suite, noted, backend):
    process = subprocess.Popen(
        [str(CLI), "verify", str(mini_suite), "-b", f"faulty_backends:{backend}", "-j", "2"],
        env={**os.environ, "PYTHONPATH": str(TESTS)}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    noted(process.pid)
    out, err = process.communicate(timeout=120)
    assert process.returncode in (0, 1), out + err
    assert "Traceback" not in err
    started = daemons(process.pid)
    assert started, out + err
    assert left_running(started) == []


def test_a_daemon_a_backend_starts_ends_with_fuzz(noted, tmp_path):
    """fuzz runs its backends in verify's workers: the same holds."""
    process = subprocess.Popen(
        [str(CLI), "fuzz", "-b", "faulty_backends:DoubleForkDaemon", "--max-examples", "3",
         "-j", "2"], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(TESTS)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    noted(process.pid)
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, out + err
    started = daemons(process.pid)
    assert started, out + err
    assert left_running(started) == []


# -- signals -----------------------------------------------------------------------------------

def _default_sigint() -> None:
    """In the child: SIGINT handled as a terminal's Ctrl-C would reach it (a background job of
    a non-interactive shell starts with it ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def tree_state(root: Path) -> dict[str, tuple[int, int, int]]:
    """Each file under `root` with its inode, size and modification time: a file rewritten,
    replaced or moved aside and back as a copy changes it (and it reads no file's bytes)."""
    found = {}
    for folder, _, names in os.walk(root):
        for name in names:
            state = os.lstat(os.path.join(folder, name))
            found[os.path.relpath(os.path.join(folder, name), root)] = (
                state.st_ino, state.st_size, state.st_mtime_ns)
    return found


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """A copy of cases/ (big enough that a build streams, so its staging tree is written while
    the workers compile) built into out/ with the default empty-optional form."""
    base = tmp_path_factory.mktemp("signals")
    shutil.copytree(ROOT / "cases", base / "cases")
    result = CliRunner().invoke(main, ["build", str(base / "cases"), "-o", str(base / "out")])
    assert result.exit_code == 0, result.output
    return base


@pytest.mark.parametrize("signum, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
@pytest.mark.parametrize("group", [False, True], ids=["process", "group"])
def test_a_signal_during_build_cleans_up_and_exits_128_plus_its_number(built, signum, status,
                                                                      group):
    """To the build's process, or to its whole process group (a terminal's Ctrl-C: the
    compiling processes get it too)."""
    out, work = built / "out", built / ".out.build"
    before = tree_state(out)
    process = subprocess.Popen(
        [str(CLI), "build", str(built / "cases"), "-o", str(out), "--empty-optional", "typed",
         "-j", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=_default_sigint, start_new_session=group)
    deadline = time.monotonic() + 60
    while not (work / "staging").is_dir() and time.monotonic() < deadline:
        time.sleep(0.002)
    assert (work / "staging").is_dir(), "the build never staged a tree"
    time.sleep(0.2)
    if group:
        os.killpg(process.pid, signum)
    else:
        process.send_signal(signum)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == status, stdout + stderr
    assert "Traceback" not in stderr and "Aborted" not in stderr
    assert stderr.strip() == f"error: interrupted by {signal.Signals(signum).name}"
    assert sorted(os.listdir(work)) in ([], ["cache.json"])
    assert tree_state(out) == before


def test_sigterm_during_verify_ends_every_process_and_exits_143(mini_suite, noted):
    process = subprocess.Popen(
        [str(CLI), "verify", str(mini_suite), "-b", "faulty_backends:SetsidDaemonThenHang"],
        env={**os.environ, "PYTHONPATH": str(TESTS)}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    noted(process.pid)
    deadline = time.monotonic() + 60
    while not daemons(process.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # it hangs on the case with a SequenceEmpty node, or runs the others
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 143, out + err
    assert "interrupted" in err and "Traceback" not in err
    started = daemons(process.pid)
    assert started
    assert left_running(started) == []


# -- the working folder ------------------------------------------------------------------------

def test_backends_never_resolve_against_the_working_folder(mini_suite, tmp_path):
    """A folder holding `onnxruntime/` and `numpy/` (each raising on import) and `mymod.py`: the
    built-in backend imports the installed packages; `mymod:Backend` is refused in one line
    saying to put its folder on PYTHONPATH."""
    for package in ("onnxruntime", "numpy"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text(f"raise RuntimeError('the {package} "
                                                        "of the working folder')\n")
    (tmp_path / "mymod.py").write_text("import onnxruntime.backend as Backend\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    for command in ([str(CLI)], [sys.executable, "-m", "onnx_seq_tests"]):
        run = subprocess.run([*command, "verify", str(mini_suite), "-b", "onnxruntime"],
                             cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stdout + run.stderr
        assert "working folder" not in run.stderr and "Traceback" not in run.stderr
        refused = subprocess.run([*command, "verify", str(mini_suite), "-b", "mymod:Backend"],
                                 cwd=tmp_path, env=env, capture_output=True, text=True,
                                 timeout=300)
        assert refused.returncode == 2
        assert "Traceback" not in refused.stderr
        assert ("mymod.py is in the working folder, which backends are never imported from; "
                f"put its folder on PYTHONPATH (PYTHONPATH={tmp_path})") in refused.stderr


# -- builds: nothing left behind, a root that changes under the build --------------------------

def test_a_refused_build_leaves_nothing_beside_the_root(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "notes.txt").write_text("mine")
    result = CliRunner().invoke(main, ["build", str(ROOT / "cases" / "optional.yaml"), "-o",
                                       str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    assert "nothing was written" in result.output
    bad = tmp_path / "bad.yaml"
    bad.write_text("cases: [1\n")
    result = CliRunner().invoke(main, ["build", str(bad), "-o", str(tmp_path / "new")])
    assert result.exit_code == 2, result.output
    assert sorted(os.listdir(tmp_path)) == ["bad.yaml", "out"]


def test_a_build_whose_root_changes_under_it_refuses_with_2(tmp_path, monkeypatch):
    """Another writer creates and removes a file in the root while the build runs (once its
    staging tree exists): the build refuses (exit 2) naming it or the root, every time, and the
    root keeps its old tree. The swap waits for the writer to have written (a hook on the real
    `swap_in`), so the race goes the same way every run, on two small case files."""
    cases = tmp_path / "cases"
    cases.mkdir()
    for name in ("optional.yaml", "sequence_construct.yaml"):
        shutil.copy(ROOT / "cases" / name, cases / name)
    out = tmp_path / "out"
    assert CliRunner().invoke(main, ["build", str(cases), "-o", str(out)]).exit_code == 0
    before = tree_state(out)
    churned = threading.Event()
    real_swap_in = new_tree.swap_in

    def swap_in_once_churned(*args, **kwargs) -> None:
        assert churned.wait(60), "the other writer never saw the staging tree"
        real_swap_in(*args, **kwargs)

    def churn() -> None:
        deadline = time.monotonic() + 60
        while not (tmp_path / ".out.build" / "staging").is_dir() and time.monotonic() < deadline:
            time.sleep(0.001)
        (out / "churn.txt").write_text("x")
        (out / "churn.txt").unlink()
        churned.set()

    monkeypatch.setattr(new_tree, "swap_in", swap_in_once_churned)
    for _ in range(2):
        churned.clear()
        thread = threading.Thread(target=churn)
        thread.start()
        try:
            result = CliRunner().invoke(main, ["build", str(cases), "-o", str(out),
                                               "--empty-optional", "typed"])
        finally:
            thread.join()
        assert churned.is_set()
        assert result.exit_code == 2, result.output
        assert "'churn.txt'" in result.output or "'./'" in result.output, result.output
        assert "while the build ran" in result.output
        assert tree_state(out) == before
