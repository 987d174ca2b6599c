"""Publishing: reproducible bytes, the manifest, the drift check, incremental and crash-safe
builds, and the reproducible archive.

The command runs in this process (click's runner) except where the process boundary is the
point: hash seed and time zone, and real kills. Crash safety is checked deterministically, a
fault at every step of the publishing in turn (tests/fault_injection.py), plus two real SIGKILLs.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass
from pathlib import Path

import onnx
import pytest
from click.testing import CliRunner
from fault_injection import Crashed, Faults

from onnx_seq_tests import __version__
from onnx_seq_tests._casefile.reader import load_cases
from onnx_seq_tests._cli import main
from onnx_seq_tests._suite import publish
from onnx_seq_tests._suite.build import SUITES, build
from onnx_seq_tests._suite.layout import SUITE
from onnx_seq_tests._suite.manifest import MANIFEST, tree_files, verify
from onnx_seq_tests._suite.publish import recover, work_dir

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent
COMMAND = [sys.executable, "-m", "onnx_seq_tests._cli"]


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


def run(*args) -> Ran:
    """The command, in this process."""
    result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return Ran(result.exit_code, result.stdout, result.stderr)


def run_process(*args, env: dict | None = None) -> subprocess.CompletedProcess:
    """The command in a process of its own, with `env` added to the environment."""
    return subprocess.run([*COMMAND, *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, **(env or {})})


def case_yaml(i: int, value: float = 1.5) -> str:
    """A small SequenceAt case; `value` appears in its input and its expected output."""
    return f"""
- name: pub_at_{i}
  opset: 11
  inputs:
    - {{name: seq, type: seq(tensor(float)), shape: [2]}}
    - {{name: pos, type: tensor(int64), shape: []}}
  outputs:
    - {{name: item, type: tensor(float), shape: [2]}}
  nodes:
    - op_type: SequenceAt
      inputs: {{input_sequence: seq, position: pos}}
      outputs: {{tensor: item}}
  data_sets:
    - inputs: {{seq: [[{i}.0, {value}], [0.5, -1.0]], pos: 0}}
      outputs: {{item: [{i}.0, {value}]}}
"""


def optional_case_yaml(i: int) -> str:
    """A small OptionalHasElement case whose first data set holds an empty optional."""
    return f"""
- name: pub_has_{i}
  opset: 18
  inputs:
    - {{name: maybe, type: optional(tensor(float)), shape: [2]}}
  outputs:
    - {{name: has, type: tensor(bool), shape: []}}
  nodes:
    - op_type: OptionalHasElement
      inputs: {{input: maybe}}
      outputs: {{output: has}}
  data_sets:
    - inputs: {{maybe: {{optional: empty}}}}
      outputs: {{has: false}}
    - inputs: {{maybe: [{i}.0, 1.5]}}
      outputs: {{has: true}}
"""


def write_cases(path: Path, numbers, values: dict | None = None) -> Path:
    path.write_text("".join(case_yaml(i, (values or {}).get(i, 1.5)) for i in numbers))
    return path


def snapshot(root: Path) -> dict[str, bytes]:
    return {r: (root / r).read_bytes() for r in tree_files(root)}


def stamps(root: Path) -> dict[str, tuple[int, int]]:
    return {r: (os.stat(root / r).st_ino, os.stat(root / r).st_mtime_ns)
            for r in tree_files(root)}


# -- reproducible bytes ----------------------------------------------------------------------------

#: A few of the project's case files, varied (subgraphs, optionals, sequences of sequences, a
#: body graph): built in two processes with other hash seeds, time zones, file order and jobs.
#: `make test` compares the whole committed suite with what cases/ gives, once, in a process of
#: its own (`gen-seq-tests build --check`).
SAMPLE = ["control_flow.yaml", "optional.yaml", "sequence_map.yaml",
          "seeds/sequence_construct_examples.yaml"]


def test_builds_agree_across_hash_seeds_time_zones_order_and_jobs(tmp_path, committed_suite):
    files = [ROOT / "cases" / name for name in SAMPLE]
    first = run_process("build", *files, "-o", tmp_path / "a",
                        env={"PYTHONHASHSEED": "0", "TZ": "UTC"})
    assert first.returncode == 0, first.stderr
    second = run_process("build", *reversed(files), "-o", tmp_path / "b", "-j", "2",
                         env={"PYTHONHASHSEED": "4242", "TZ": "Pacific/Chatham"})
    assert second.returncode == 0, second.stderr
    built = snapshot(tmp_path / "a")
    assert built == snapshot(tmp_path / "b")
    assert str(tmp_path).encode() not in built[MANIFEST]
    manifest = json.loads(built[MANIFEST])
    committed = json.loads((committed_suite / MANIFEST).read_bytes())
    assert len(manifest["cases"]) > 40
    assert {n: committed["cases"][n] for n in manifest["cases"]} == manifest["cases"]
    assert {r: committed["files"][r] for r in manifest["files"]} == manifest["files"]
    assert {r: (committed_suite / r).read_bytes() for r in built if r != MANIFEST} == {
        r: data for r, data in built.items() if r != MANIFEST}

# -- the manifest --------------------------------------------------------------------------------

def test_manifest_lists_every_file_with_its_sha256(tmp_path):
    cases_file = write_cases(tmp_path / "cases.yaml", range(4))
    assert run("build", cases_file, "-o", tmp_path / "out").returncode == 0
    out = tmp_path / "out"
    manifest = json.loads((out / MANIFEST).read_text())
    on_disk = [r for r in tree_files(out) if r != MANIFEST]
    # 5 files per case, 6 per tensor-boundary variant (one input per sequence element), 4 per
    # constant variant (no input file; two data sets of one output each)
    assert sorted(manifest["files"]) == on_disk and len(on_disk) == 4 * 5 + 4 * 6 + 4 * 4
    for relative, entry in manifest["files"].items():
        data = (out / relative).read_bytes()
        assert entry == {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    assert (manifest["generator"], manifest["generator_version"], manifest["onnx_version"]) == (
        "onnx-seq-tests", __version__, onnx.__version__)
    assert (manifest["suite"], manifest["empty_optional"]) == (SUITE, "undefined")
    for case in load_cases([cases_file]):
        assert manifest["cases"][case.name] == {
            "folder": f"{SUITE}/test_{case.name}", "operators": ["SequenceAt"], "opset": 11,
            "atol": 0.0, "rtol": 0.0, "data_sets": 1, "tensor_io": [f"{case.name}__len2"],
            "constant": [f"{case.name}__constant"],
            "source": f"{cases_file.as_posix()}:{case.where.line}"}
    assert verify(out) == []
    (out / SUITE / "test_pub_at_2" / "model.onnx").write_bytes(b"changed")
    (out / SUITE / "test_pub_at_3" / "extra.pb").write_bytes(b"")
    assert verify(out) == [f"{SUITE}/test_pub_at_2/model.onnx: sha256 or size differs from the "
                           "manifest", f"{SUITE}/test_pub_at_3/extra.pb: not in the manifest"]


# -- the drift check -----------------------------------------------------------------------------

def test_check_names_the_case_whose_value_changed_and_writes_nothing(tmp_path):
    cases_file = write_cases(tmp_path / "cases.yaml", range(5))
    out = tmp_path / "out"
    assert run("build", cases_file, "-o", out).returncode == 0
    passed = run("build", cases_file, "-o", out, "--check")
    assert passed.returncode == 0 and passed.stdout.strip() == f"{out} is exactly what the " \
                                                                "cases give"
    write_cases(cases_file, range(5), values={3: 2.5})
    before = stamps(out)
    failed = run("build", cases_file, "-o", out, "--check")
    assert failed.returncode == 1
    assert failed.stdout.splitlines() == [
        "changed: test_pub_at_3 (test_data_set_0/input_0.pb, test_data_set_0/output_0.pb)",
        "changed: test_pub_at_3__constant (model.onnx, test_data_set_0/output_0.pb, "
        "test_data_set_1/output_0.pb)",
        "changed: test_pub_at_3__len2 (test_data_set_0/input_0.pb, test_data_set_0/output_0.pb)",
        "changed: manifest.json (its entries differ)"]
    assert "run `gen-seq-tests build`" in failed.stderr
    assert stamps(out) == before


def test_check_names_missing_and_stale_folders(tmp_path):
    """Stale: a build's product (its manifest lists it) that no case gives any more."""
    cases_file = write_cases(tmp_path / "cases.yaml", range(4))
    out = tmp_path / "out"
    assert run("build", cases_file, "-o", out).returncode == 0
    write_cases(cases_file, range(3))
    shutil.rmtree(out / SUITE / "test_pub_at_0")
    result = run("build", cases_file, "-o", out, "--check")
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "missing: test_pub_at_0", "stale: test_pub_at_3 (no case builds it)",
        "stale: test_pub_at_3__constant (no case builds it)",
        "stale: test_pub_at_3__len2 (no case builds it)",
        "changed: manifest.json (its entries differ)"]
    (out / MANIFEST).unlink()  # then nothing in the tree is known to be a build's
    lines = run("build", cases_file, "-o", out, "--check").stdout.splitlines()
    why = "(no build wrote it; `gen-seq-tests build` refuses to run until it is moved out)"
    assert lines[:3] == [f"foreign: {folder}/ {why}" for folder in sorted(SUITES)]
    assert lines[-1] == "missing: manifest.json"


def test_check_names_foreign_paths_apart_from_stale_ones_and_writes_nothing(tmp_path):
    cases_file = write_cases(tmp_path / "cases.yaml", range(2))
    out = tmp_path / "out"
    assert run("build", cases_file, "-o", out).returncode == 0
    (out / "notes.txt").write_text("mine")
    (out / SUITE / "README").write_text("mine")
    (out / "extra").mkdir()
    (out / "extra" / "model.onnx").write_bytes(b"")
    shutil.copytree(out / SUITE / "test_pub_at_1", out / SUITE / "test_mine")
    (out / SUITE / "test_pub_at_0" / "notes.txt").write_text("mine")
    before = stamps(out)
    result = run("build", cases_file, "-o", out, "--check")
    assert result.returncode == 1
    why = "(no build wrote it; `gen-seq-tests build` refuses to run until it is moved out)"
    assert result.stdout.splitlines() == [
        f"foreign: extra/ {why}", f"foreign: notes.txt {why}", f"foreign: {SUITE}/README {why}",
        f"foreign: {SUITE}/test_mine/ {why}", f"foreign: {SUITE}/test_pub_at_0/notes.txt {why}"]
    assert "move the foreign paths out of" in result.stderr
    assert stamps(out) == before


def test_check_refuses_invalid_cases_with_exit_2(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(case_yaml(0).replace("op_type: SequenceAt", "optype: SequenceAt"))
    result = run("build", bad, "-o", tmp_path / "out", "--check")
    assert result.returncode == 2 and f"{bad}:" in result.stderr and "optype" in result.stderr
    assert not (tmp_path / "out").exists()


# -- incremental builds --------------------------------------------------------------------------

def test_only_changed_cases_are_rebuilt_and_gone_ones_removed(tmp_path):
    first, second = tmp_path / "first.yaml", tmp_path / "second.yaml"
    write_cases(first, range(0, 4))
    write_cases(second, range(4, 8))
    out = tmp_path / "out"
    assert run("build", tmp_path, "-o", out).stdout.startswith("built 8 case(s)")
    before = stamps(out)

    again = run("build", tmp_path, "-o", out)
    assert again.stdout.strip() == f"{out} is up to date: 8 case(s)"
    assert stamps(out) == before

    write_cases(first, range(0, 3), values={1: -7.25})  # case 1 changes, case 3 is gone
    changed = run("build", tmp_path, "-o", out)
    assert changed.stdout.strip() == f"built 7 case(s) into {out}: 1 rebuilt, 1 removed"
    after = stamps(out)
    assert not (out / SUITE / "test_pub_at_3").exists()
    kept = [r for r in before if not any(f"/test_pub_at_{i}{end}" in r for i in (1, 3)
                                         for end in ("/", "__")) and r != MANIFEST]
    assert {r: after[r] for r in kept} == {r: before[r] for r in kept}  # same files, linked
    assert after[f"{SUITE}/test_pub_at_1/model.onnx"] != before[f"{SUITE}/test_pub_at_1/model.onnx"]

    cold = tmp_path / "cold"
    assert run("build", tmp_path, "-o", cold).returncode == 0
    assert snapshot(out) == snapshot(cold)


def test_files_edited_by_hand_are_undone(tmp_path):
    cases_file = write_cases(tmp_path / "cases.yaml", range(3))
    out = tmp_path / "out"
    assert run("build", cases_file, "-o", out).returncode == 0
    expected = snapshot(out)
    target = out / SUITE / "test_pub_at_2" / "test_data_set_0" / "output_0.pb"
    target.write_bytes(bytes(reversed(target.read_bytes())))
    result = run("build", cases_file, "-o", out)
    assert result.stdout.strip() == f"built 3 case(s) into {out}: 1 rebuilt, 0 removed"
    assert snapshot(out) == expected


def test_files_added_by_hand_are_never_deleted(tmp_path):
    """A build once deleted files a person put inside the suite folders, with exit 0 and
    "0 rebuilt, 0 removed": it now refuses (exit 2), names each, and touches nothing."""
    cases_file = write_cases(tmp_path / "cases.yaml", range(3))
    out = tmp_path / "out"
    assert run("build", cases_file, "-o", out).returncode == 0
    expected = snapshot(out)
    (out / SUITE / "test_pub_at_0" / "test_data_set_0" / "input_9.pb").write_bytes(b"")
    (out / SUITE / "notes.txt").write_text("mine")
    shutil.copytree(out / SUITE / "test_pub_at_1", out / SUITE / "test_my_own_case")
    before = stamps(out)
    result = run("build", cases_file, "-o", out)
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1
    for path in (f"{SUITE}/test_pub_at_0/test_data_set_0/input_9.pb", f"{SUITE}/notes.txt",
                 f"{SUITE}/test_my_own_case/"):
        assert repr(path) in result.stderr
    assert "nothing was written" in result.stderr and "move them out" in result.stderr
    assert stamps(out) == before
    write_cases(cases_file, range(2))  # not even when the build would remove a case
    assert run("build", cases_file, "-o", out).returncode == 2 and stamps(out) == before
    write_cases(cases_file, range(3))
    for path in ("test_pub_at_0/test_data_set_0/input_9.pb", "notes.txt"):
        (out / SUITE / path).unlink()
    shutil.rmtree(out / SUITE / "test_my_own_case")
    assert run("build", cases_file, "-o", out).returncode == 0
    assert snapshot(out) == expected


def test_a_tree_without_a_manifest_is_never_replaced(tmp_path):
    """Without a manifest nothing says what a build wrote: the build refuses."""
    cases_file = write_cases(tmp_path / "cases.yaml", range(1))
    out = tmp_path / "out"
    (out / SUITE / "test_mine").mkdir(parents=True)
    (out / SUITE / "test_mine" / "model.onnx").write_bytes(b"mine")
    result = run("build", cases_file, "-o", out)
    assert result.returncode == 2 and f"'{SUITE}/'" in result.stderr
    assert tree_files(out) == [f"{SUITE}/test_mine/model.onnx"]


def test_changing_the_empty_optional_form_rebuilds_everything(tmp_path):
    """The form is part of the build key: no case changed, yet an incremental build in the other
    form gives the bytes a cold build in that form gives."""
    cases_file = tmp_path / "cases.yaml"
    cases_file.write_text(case_yaml(0) + optional_case_yaml(1))
    out = tmp_path / "out"
    assert run("build", cases_file, "-o", out).returncode == 0
    undefined = snapshot(out)
    result = run("build", cases_file, "-o", out, "--empty-optional", "typed")
    assert result.stdout.strip() == f"built 2 case(s) into {out}: 1 rebuilt, 0 removed"
    cold = tmp_path / "cold"
    assert run("build", cases_file, "-o", cold, "--empty-optional", "typed").returncode == 0
    assert snapshot(out) == snapshot(cold) != undefined
    assert json.loads((out / MANIFEST).read_text())["empty_optional"] == "typed"
    assert run("build", cases_file, "-o", out, "--check", "--empty-optional",
               "typed").returncode == 0
    assert run("build", cases_file, "-o", out, "--check").returncode == 1


def test_invalid_cases_change_nothing(tmp_path):
    cases_file = write_cases(tmp_path / "cases.yaml", range(2))
    out = tmp_path / "out"
    assert run("build", cases_file, "-o", out).returncode == 0
    before = stamps(out)
    cases_file.write_text(cases_file.read_text().replace("pos: 0", "pos: 7"))
    result = run("build", cases_file, "-o", out)
    assert result.returncode == 2 and "nothing was written" in result.stderr
    assert stamps(out) == before
    assert sorted(os.listdir(work_dir(out))) == ["cache.json"]


def test_an_output_root_holding_other_files_is_refused(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    result = run("build", write_cases(tmp_path / "cases.yaml", range(1)), "-o", out)
    assert result.returncode == 2 and "'notes.txt'" in result.stderr
    assert os.listdir(out) == ["notes.txt"]


# -- crash safety --------------------------------------------------------------------------------

@pytest.fixture
def update(tmp_path):
    """An output root holding an old build of three cases, and the case file of a new suite:
    one case gone, one changed, one kept, one new. `reset()` puts the old build back."""
    old_cases = write_cases(tmp_path / "old.yaml", range(0, 3))
    new_cases = write_cases(tmp_path / "new.yaml", range(1, 4), values={2: 3.0})
    pristine, expected = tmp_path / "pristine", tmp_path / "expected"
    build([old_cases], pristine)
    build([new_cases], expected)
    out = tmp_path / "out"

    def reset():
        for path in (out, work_dir(out)):
            shutil.rmtree(path, ignore_errors=True)
        shutil.copytree(pristine, out)
        shutil.copytree(work_dir(pristine), work_dir(out))

    reset()
    suites = {"old": snapshot(pristine), "new": snapshot(expected)}
    assert suites["old"] != suites["new"]
    return new_cases, out, suites, reset


def steps_of_a_build(new_cases: Path, out: Path, monkeypatch) -> list[str]:
    """The file-system changes a build makes, in order (the build is done)."""
    counting = Faults()
    with monkeypatch.context() as patch:
        counting.install(patch.setattr)
        build([new_cases], out)
    return counting.steps


@pytest.mark.parametrize("swap", ["exchange", "two-renames"])
@pytest.mark.parametrize("mode", ["error", "crash"])
def test_a_fault_at_any_step_of_publishing_leaves_a_whole_suite(update, monkeypatch, mode, swap):
    """For every k: the k-th write, link, rename, ... fails (error: that one step, the build's
    clean-up runs; crash: nothing from that step on reaches the disk, as if killed). The root
    then holds the old suite or the new one, whole (after the next build's recovery for a
    crash), and the next build gives the new suite and leaves no debris."""
    new_cases, out, suites, reset = update
    work = work_dir(out)
    if swap == "two-renames":  # as on a system without an atomic exchange of two paths
        monkeypatch.setattr(publish, "_exchange", lambda a, b: False)
    steps = steps_of_a_build(new_cases, out, monkeypatch)
    assert snapshot(out) == suites["new"]
    assert {"open", "write", "link", "exchange", "rename", "rmtree"} <= set(steps), steps
    first = 1
    if swap == "two-renames":  # the steps before the swap are those of the exchange variant
        first = steps.index("exchange") + 1
    outcomes = []
    for k in range(first, len(steps) + 1):
        reset()
        faults = Faults(k, mode)
        where = f"fault at step {k} of {len(steps)} ({steps[k - 1]})"
        with monkeypatch.context() as patch:
            faults.install(patch.setattr)
            try:
                build([new_cases], out)
            except (OSError, Crashed):
                pass
        assert faults.fired, where
        if mode == "crash":
            recover(out, work)  # what the next build does first
        assert verify(out) == [], where
        state = snapshot(out)
        outcome = [name for name, suite in suites.items() if state == suite]
        assert len(outcome) == 1, f"{where}: neither the old nor the new suite"
        outcomes.append(outcome[0])
        build([new_cases], out)
        assert snapshot(out) == suites["new"], where
        assert sorted(os.listdir(work)) == ["cache.json"], where
    assert outcomes[0] == "old" and outcomes[-1] == "new" and len(outcomes) > 1


def test_a_write_error_is_one_line_and_keeps_the_old_suite(update, monkeypatch):
    new_cases, out, suites, reset = update
    steps = steps_of_a_build(new_cases, out, monkeypatch)
    reset()
    with monkeypatch.context() as patch:
        Faults(steps.index("write") + 1).install(patch.setattr)
        result = run("build", new_cases, "-o", out)
    assert result.returncode == 1
    assert result.stderr.startswith(f"error: cannot write {out}: ")
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr
    assert snapshot(out) == suites["old"]
    assert sorted(os.listdir(work_dir(out))) == ["cache.json"]
    assert run("build", new_cases, "-o", out).returncode == 0
    assert snapshot(out) == suites["new"]


def killed_build(new_cases: Path, out: Path, step: int) -> subprocess.CompletedProcess:
    """The build in a process that SIGKILLs itself just before its `step`-th change."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import fault_injection; "
            "fault_injection.Faults(int(sys.argv[2]), 'kill').install(setattr); "
            "from onnx_seq_tests._cli import main; main(sys.argv[3:], prog_name='gen-seq-tests')")
    return subprocess.run([sys.executable, "-c", code, str(TESTS), str(step), "build",
                           str(new_cases), "-o", str(out)], capture_output=True, text=True)


@pytest.mark.parametrize("when, expected", [("staging", "old"), ("cleanup", "new")])
def test_a_build_killed_while_publishing_leaves_a_whole_suite(update, monkeypatch, when,
                                                              expected):
    """Two real kills: halfway through staging the new tree, and after the swap, before the old
    tree is deleted. The next build cleans up and gives the new suite."""
    new_cases, out, suites, reset = update
    steps = steps_of_a_build(new_cases, out, monkeypatch)
    reset()
    step = len(steps) // 2 if when == "staging" else len(steps) - steps[::-1].index("rmtree")
    assert steps.index("exchange") + 1 > step if when == "staging" else step > steps.index(
        "exchange") + 1
    killed = killed_build(new_cases, out, step)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert verify(out) == [] and snapshot(out) == suites[expected]
    assert len(os.listdir(work_dir(out))) > 1  # the debris of the killed build
    assert run("build", new_cases, "-o", out).returncode == 0
    assert snapshot(out) == suites["new"]
    assert sorted(os.listdir(work_dir(out))) == ["cache.json"]


def test_recover_puts_back_the_old_suite_after_a_halfway_swap(tmp_path):
    """Without an atomic swap, a build killed between its two renames leaves the old tree aside
    and the output root missing; the next build puts the old tree back first."""
    out = tmp_path / "out"
    assert run("build", write_cases(tmp_path / "cases.yaml", range(2)), "-o", out).returncode == 0
    before = snapshot(out)
    work = work_dir(out)
    (work / "staging" / SUITE).mkdir(parents=True)
    os.rename(out, work / "retired")
    recover(out, work)
    assert snapshot(out) == before and sorted(os.listdir(work)) == ["cache.json"]

# -- the archive ---------------------------------------------------------------------------------

@pytest.fixture
def time_zone(monkeypatch):
    """time_zone(name): this process's local time zone from now to the end of the test."""
    def set_zone(name: str) -> None:
        monkeypatch.setenv("TZ", name)
        time.tzset()

    yield set_zone
    monkeypatch.undo()
    time.tzset()


def test_pack_twice_gives_the_same_bytes(tmp_path, time_zone):
    cases_file = write_cases(tmp_path / "cases.yaml", range(3))
    out = tmp_path / "out"
    assert run("build", cases_file, "-o", out).returncode == 0
    time_zone("UTC")
    first = run("pack", out, "-o", tmp_path / "a.tar.gz")
    assert first.returncode == 0, first.stderr
    for path in (out / SUITE).rglob("*"):
        os.utime(path, (1_000_000, 1_000_000))
    time_zone("Asia/Kathmandu")
    assert time.localtime(0).tm_min == 30  # the zone is in effect: UTC+05:30 in 1970
    second = run("pack", out, "-o", tmp_path / "b.tar.gz")
    data = (tmp_path / "a.tar.gz").read_bytes()
    assert data == (tmp_path / "b.tar.gz").read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    identity = hashlib.sha256(gzip.decompress(data)).hexdigest()
    files = 1 + len(json.loads((out / MANIFEST).read_bytes())["files"])  # and the manifest
    assert first.stdout.splitlines() == [
        f"wrote {tmp_path / 'a.tar.gz'}: {files} files, sha256 {digest}",
        f"suite sha256 {identity} (the uncompressed tar, the same wherever it is packed: gzip -dc "
        f"{tmp_path / 'a.tar.gz'} | sha256sum)"]
    assert second.stdout.splitlines()[0].endswith(digest) and identity in second.stdout

    assert data[3] == 0 and data[4:8] == b"\0\0\0\0"  # gzip: no name, no time
    assert gzip.decompress(data)  # a whole gzip stream
    top = f"onnx-seq-tests-suite-{__version__}"
    with tarfile.open(tmp_path / "a.tar.gz") as tar:
        members = tar.getmembers()
        names = [m.name for m in members]
        assert names == sorted(names) and names[0] == top
        assert {(m.mtime, m.uid, m.gid, m.uname, m.gname) for m in members} == {(0, 0, 0, "", "")}
        assert {m.mode for m in members if m.isdir()} == {0o755}
        assert {m.mode for m in members if m.isfile()} == {0o644}
        files = {m.name[len(top) + 1:]: tar.extractfile(m).read() for m in members
                 if m.isfile()}
    assert files == snapshot(out)


def test_pack_refuses_a_suite_that_does_not_match_its_manifest(tmp_path):
    out = tmp_path / "out"
    assert run("build", write_cases(tmp_path / "cases.yaml", range(2)), "-o", out).returncode == 0
    (out / SUITE / "test_pub_at_1" / "data.json").write_text("{}")
    result = run("pack", out, "-o", tmp_path / "a.tar.gz")
    assert result.returncode == 1 and "test_pub_at_1/data.json" in result.stderr
    assert not (tmp_path / "a.tar.gz").exists()


def test_jobs_build_the_same_bytes(tmp_path):
    for k in range(3):
        write_cases(tmp_path / f"cases_{k}.yaml", range(10 * k, 10 * k + 10))
    assert run("build", tmp_path, "-o", tmp_path / "one").returncode == 0
    assert run("build", tmp_path, "-o", tmp_path / "many", "-j", "2").returncode == 0
    assert snapshot(tmp_path / "one") == snapshot(tmp_path / "many")
