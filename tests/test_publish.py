"""Publishing: reproducible bytes, the manifest, the drift check, incremental and crash-safe
builds, and the reproducible archive. Builds run as subprocesses of the real command."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import onnx

from onnx_seq_tests import __version__
from onnx_seq_tests._casefile.reader import load_cases
from onnx_seq_tests._suite.layout import SUITE, recover, work_dir
from onnx_seq_tests._suite.manifest import MANIFEST, tree_files, verify

ROOT = Path(__file__).resolve().parent.parent
COMMAND = [sys.executable, "-m", "onnx_seq_tests._cli"]


def run(*args, env: dict | None = None, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([*COMMAND, *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, **kwargs)


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


def write_cases(path: Path, numbers, values: dict | None = None) -> Path:
    path.write_text("".join(case_yaml(i, (values or {}).get(i, 1.5)) for i in numbers))
    return path


def snapshot(root: Path) -> dict[str, bytes]:
    return {r: (root / r).read_bytes() for r in tree_files(root)}


def stamps(root: Path) -> dict[str, tuple[int, int]]:
    return {r: (os.stat(root / r).st_ino, os.stat(root / r).st_mtime_ns)
            for r in tree_files(root)}


# -- reproducible bytes ----------------------------------------------------------------------------

def test_builds_agree_across_hash_seeds_time_zones_order_and_jobs(tmp_path):
    files = sorted((ROOT / "cases").rglob("*.yaml"))
    first = run("build", ROOT / "cases", "-o", tmp_path / "a",
                env={"PYTHONHASHSEED": "0", "TZ": "UTC"})
    assert first.returncode == 0, first.stderr
    second = run("build", *reversed(files), "-o", tmp_path / "b", "-j", "2",
                 env={"PYTHONHASHSEED": "4242", "TZ": "Pacific/Chatham"})
    assert second.returncode == 0, second.stderr
    built = snapshot(tmp_path / "a")
    assert built == snapshot(tmp_path / "b")
    assert str(tmp_path).encode() not in built[MANIFEST]
    committed = snapshot(ROOT / "generated")
    assert sorted(built) == sorted(committed), "generated/ is stale: run `make build`"
    assert [r for r in built if built[r] != committed[r]] == [], \
        "generated/ is stale: run `make build`"


def test_committed_suite_passes_the_drift_check():
    result = run("build", "--check", cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


# -- the manifest --------------------------------------------------------------------------------

def test_manifest_lists_every_file_with_its_sha256(tmp_path):
    cases_file = write_cases(tmp_path / "cases.yaml", range(4))
    assert run("build", cases_file, "-o", tmp_path / "out").returncode == 0
    out = tmp_path / "out"
    manifest = json.loads((out / MANIFEST).read_text())
    on_disk = [r for r in tree_files(out) if r != MANIFEST]
    # 5 files per case, 6 per tensor-boundary variant (one input per sequence element)
    assert sorted(manifest["files"]) == on_disk and len(on_disk) == 4 * 5 + 4 * 6
    for relative, entry in manifest["files"].items():
        data = (out / relative).read_bytes()
        assert entry == {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    assert (manifest["generator"], manifest["generator_version"], manifest["onnx_version"]) == (
        "onnx-seq-tests", __version__, onnx.__version__)
    assert (manifest["suite"], manifest["empty_optional"]) == (SUITE, "undefined")
    for case in load_cases([cases_file]):
        assert manifest["cases"][case.name] == {
            "folder": f"{SUITE}/test_{case.name}", "operators": ["SequenceAt"], "opset": 11,
            "atol": 0.0, "rtol": 0.0, "data_sets": 1, "tensor_io": [f"{case.name}__len2"]}
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
        "changed: test_pub_at_3__len2 (test_data_set_0/input_0.pb, test_data_set_0/output_0.pb)",
        "changed: manifest.json (its entries differ)"]
    assert "run `gen-seq-tests build`" in failed.stderr
    assert stamps(out) == before


def test_check_names_missing_and_stale_folders(tmp_path):
    cases_file = write_cases(tmp_path / "cases.yaml", range(3))
    out = tmp_path / "out"
    assert run("build", cases_file, "-o", out).returncode == 0
    shutil.rmtree(out / SUITE / "test_pub_at_0")
    shutil.copytree(out / SUITE / "test_pub_at_1", out / SUITE / "test_ghost")
    (out / MANIFEST).unlink()
    result = run("build", cases_file, "-o", out, "--check")
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "missing: test_pub_at_0", "stale: test_ghost (no case builds it)",
        "missing: manifest.json"]


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


def test_files_edited_or_added_by_hand_are_undone(tmp_path):
    cases_file = write_cases(tmp_path / "cases.yaml", range(3))
    out = tmp_path / "out"
    assert run("build", cases_file, "-o", out).returncode == 0
    expected = snapshot(out)
    target = out / SUITE / "test_pub_at_2" / "test_data_set_0" / "output_0.pb"
    target.write_bytes(bytes(reversed(target.read_bytes())))
    result = run("build", cases_file, "-o", out)
    assert result.stdout.strip() == f"built 3 case(s) into {out}: 1 rebuilt, 0 removed"
    assert snapshot(out) == expected
    (out / SUITE / "test_pub_at_0" / "test_data_set_0" / "input_9.pb").write_bytes(b"")
    (out / SUITE / "notes.txt").write_text("stray")
    result = run("build", cases_file, "-o", out)
    assert result.stdout.strip() == f"built 3 case(s) into {out}: 1 rebuilt, 0 removed"
    assert snapshot(out) == expected


def test_changing_the_empty_optional_form_rebuilds_everything(tmp_path):
    cases_file = write_cases(tmp_path / "cases.yaml", range(2))
    out = tmp_path / "out"
    assert run("build", cases_file, "-o", out).returncode == 0
    result = run("build", cases_file, "-o", out, "--empty-optional", "typed")
    assert result.stdout.strip() == f"built 2 case(s) into {out}: 0 rebuilt, 0 removed"
    assert json.loads((out / MANIFEST).read_text())["empty_optional"] == "typed"
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

def _killable_build(cases_file: Path, out: Path) -> subprocess.Popen:
    """A build that says 'ready' once its imports are done, so a kill lands in the build."""
    code = ("import sys; import onnx_seq_tests._suite.build, onnx_seq_tests._cli as c; "
            "print('ready', flush=True); sys.argv = ['gen-seq-tests', *sys.argv[1:]]; c.main()")
    process = subprocess.Popen([sys.executable, "-c", code, "build", str(cases_file), "-o",
                                str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    assert process.stdout.readline() == "ready\n"
    return process


def test_builds_killed_at_random_moments_leave_a_whole_suite(tmp_path):
    old_cases = write_cases(tmp_path / "old.yaml", range(0, 24))
    new_cases = write_cases(tmp_path / "new.yaml", range(8, 36), values={i: 3.0 for i in
                                                                         range(8, 16)})
    pristine = tmp_path / "pristine"
    assert run("build", old_cases, "-o", pristine).returncode == 0
    out, work = tmp_path / "out", work_dir(tmp_path / "out")
    expected_new = tmp_path / "expected"
    assert run("build", new_cases, "-o", expected_new).returncode == 0
    suites = {"old": snapshot(pristine), "new": snapshot(expected_new)}

    def reset():
        for path in (out, work):
            shutil.rmtree(path, ignore_errors=True)
        shutil.copytree(pristine, out)
        shutil.copytree(work_dir(pristine), work)

    reset()
    process = _killable_build(new_cases, out)
    start = time.perf_counter()
    assert process.wait() == 0
    duration = time.perf_counter() - start  # from the end of the imports to the exit
    outcomes = []
    chooser = random.Random(6)
    for _ in range(15):
        reset()
        delay = chooser.uniform(0, duration * 1.1)
        process = _killable_build(new_cases, out)
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait()
        assert verify(out) == [], f"killed after {delay:.3f}s"
        state = snapshot(out)
        outcome = [name for name, suite in suites.items() if state == suite]
        assert len(outcome) == 1, f"killed after {delay:.3f}s: neither the old nor the new suite"
        outcomes.append(outcome[0])
        assert run("build", new_cases, "-o", out).returncode == 0
        assert snapshot(out) == suites["new"]
        assert sorted(os.listdir(work)) == ["cache.json"]
    assert "old" in outcomes


def test_a_write_error_keeps_the_old_suite(tmp_path):
    cases_file = write_cases(tmp_path / "cases.yaml", range(30))
    out = tmp_path / "out"
    assert run("build", cases_file, "-o", out).returncode == 0
    before = snapshot(out)
    write_cases(cases_file, range(30), values={5: 9.5})
    limit = (out / MANIFEST).stat().st_size // 2  # the manifest does not fit: as on a full disk

    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    result = subprocess.run([*COMMAND, "build", str(cases_file), "-o", str(out)],
                            capture_output=True, text=True, preexec_fn=small_files)
    assert result.returncode == 1, result.stderr
    assert f"cannot write {out}" in result.stderr and "Traceback" not in result.stderr
    assert snapshot(out) == before and verify(out) == []
    assert sorted(os.listdir(work_dir(out))) == ["cache.json"]
    assert run("build", cases_file, "-o", out).returncode == 0 and verify(out) == []


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

def test_pack_twice_gives_the_same_bytes(tmp_path):
    cases_file = write_cases(tmp_path / "cases.yaml", range(3))
    out = tmp_path / "out"
    assert run("build", cases_file, "-o", out).returncode == 0
    first = run("pack", out, "-o", tmp_path / "a.tar.gz", env={"TZ": "UTC"})
    assert first.returncode == 0, first.stderr
    for path in (out / SUITE).rglob("*"):
        os.utime(path, (1_000_000, 1_000_000))
    second = run("pack", out, "-o", tmp_path / "b.tar.gz", env={"TZ": "Asia/Kathmandu"})
    data = (tmp_path / "a.tar.gz").read_bytes()
    assert data == (tmp_path / "b.tar.gz").read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    assert first.stdout.strip() == f"wrote {tmp_path / 'a.tar.gz'}: 34 files, sha256 {digest}"
    assert second.stdout.strip().endswith(digest)

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
