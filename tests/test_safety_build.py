"""What the build and the readers of a built suite promise on any input (docs/safety.md):
nothing a build did not write is lost, bad input is one line and exit 2, work and memory are
bounded (archives, oracle budgets); and the build key covers the build's own code only.

Small case files are built into tmp folders (test_publish.py's helpers), in this process.
"""

from __future__ import annotations

import io
import os
import shutil
import tarfile
import tracemalloc
import zlib
from pathlib import Path

import pytest
from fault_injection import Crashed, Faults
from test_publish import run, snapshot, write_cases

from onnx_seq_tests import SeqTestsError, build, check
from onnx_seq_tests._core.errors import ArchiveError, ArgumentError
from onnx_seq_tests._published.archive import read_archive
from onnx_seq_tests._published.diff import load as load_side
from onnx_seq_tests._published.pack import pack
from onnx_seq_tests._suite import build as build_module
from onnx_seq_tests._suite import freshness
from onnx_seq_tests._suite.layout import SUITE
from onnx_seq_tests._suite.manifest import MANIFEST
from onnx_seq_tests._suite.publish import work_dir

PACKAGE = Path(freshness.__file__).resolve().parent.parent


# -- the build key: the build's own code only -----------------------------------------------------

def test_the_build_key_covers_the_modules_a_build_runs_and_no_other():
    modules = freshness.build_modules()
    for needed in ("_suite/build.py", "_suite/publish.py", "_suite/tensor_io.py",
                   "_oracle/oracle.py", "_casefile/reader.py", "_core/versions.py"):
        assert needed in modules
    # the layers above the build: the readers of a built suite (_published: resources,
    # coverage, diff, pack, archive), show and import, the verifier, the fuzzer
    above = [m for m in modules if m.split("/")[0]
             in ("_published", "_read", "_run", "_runtimes", "_reports", "_fuzz")]
    assert above == []
    assert not [m for m in modules if m.startswith("_oracle/mutants/")]  # never built


def test_editing_a_module_that_does_not_build_keeps_a_no_op_build_a_no_op(tmp_path,
                                                                           monkeypatch):
    """Appending a comment to `diff.py` (then in `_suite/`) once made a 0.3 s no-op build a
    full recompile."""
    package = tmp_path / "package"
    shutil.copytree(PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__", "_data"))
    monkeypatch.setattr(freshness, "_PACKAGE", package)
    cases_file = write_cases(tmp_path / "cases.yaml", range(2))
    out = tmp_path / "out"
    assert run("build", cases_file, "-o", out).returncode == 0
    assert freshness.unchanged([cases_file], out, "undefined") == 2
    for reader in ("_published/diff.py", "_published/pack.py", "_published/case_folder.py",
                   "_published/bounded.py", "_published/discovery.py", "_reports/merge.py"):
        with open(package / reader, "a") as file:
            file.write("# a comment\n")
    assert freshness.unchanged([cases_file], out, "undefined") == 2  # still a no-op
    with open(package / "_oracle" / "oracle.py", "a") as file:
        file.write("# a comment\n")
    assert freshness.unchanged([cases_file], out, "undefined") is None  # the build's code


def test_a_module_removed_while_the_key_is_computed_and_an_editor_lock_are_passed_over(
        tmp_path, monkeypatch):
    """A test writing a probe module into the checkout once made a build in another worker
    fail with a bare FileNotFoundError (listed, then removed before it was read); an editor's
    `.#name.py` lock link (dangling) did the same."""
    package = tmp_path / "package"
    shutil.copytree(PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__", "_data"))
    monkeypatch.setattr(freshness, "_PACKAGE", package)
    key = freshness.build_key("undefined")
    (package / "_core" / ".#atomic.py").symlink_to("root@host.1234:1700000000")
    assert "_core/.#atomic.py" not in freshness.build_modules()
    listed = freshness.build_modules()
    monkeypatch.setattr(freshness, "build_modules", lambda: [*listed, "_core/removed.py"])
    assert freshness.build_key("undefined") == key


# -- archives: every bound holds before tarfile allocates -----------------------------------------

def _header(name: bytes, size: int, kind: bytes) -> bytes:
    """One raw ustar header block (checksum filled in)."""
    block = bytearray(512)
    block[0:len(name)] = name
    block[100:108] = b"0000644\0"
    block[124:136] = b"%011o\0" % size
    block[136:148] = b"00000000000\0"
    block[156:157] = kind
    block[257:265] = b"ustar\x0000"
    block[148:156] = b" " * 8
    block[148:156] = b"%06o\0 " % sum(block)
    return bytes(block)


def _header_bomb(path: Path, kind: bytes, claimed: int) -> Path:
    """A .tar.gz whose first record (a GNU long name 'L' or a pax header 'x') claims
    `claimed` bytes, and holds them: zeros, which gzip shrinks a thousandfold."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [compressor.compress(_header(b"././@LongLink", claimed, kind))]
    chunk = bytes(1 << 20)
    for _ in range(claimed >> 20):
        parts.append(compressor.compress(chunk))
    parts.append(compressor.compress(_header(b"top/manifest.json", 0, b"0") + bytes(1024)))
    parts.append(compressor.flush())
    path.write_bytes(b"".join(parts))
    return path


@pytest.mark.parametrize("kind", [b"L", b"x"], ids=["long-name", "pax"])
def test_an_archive_header_bomb_is_refused_quickly_in_little_memory(tmp_path, kind):
    """A small archive whose long-name or pax header claims 256 MiB once made tarfile read it
    all into memory (2.1 GB and a traceback for a 9 MB archive): refused, in under 20 MiB."""
    bomb = _header_bomb(tmp_path / "bomb.tar.gz", kind, 256 << 20)
    assert bomb.stat().st_size < 2 << 20
    tracemalloc.start()
    try:
        with pytest.raises(ArchiveError, match="a header record of 268435456 bytes"):
            read_archive(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 << 20
    done = run("diff", bomb, bomb)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1


def test_an_archive_naming_a_file_twice_is_refused(tmp_path):
    """A second manifest.json once won silently, injecting a case into `diff`."""
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        for content in (b"{}", b'{"format": 1}'):
            info = tarfile.TarInfo("top/manifest.json")
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
    archive = tmp_path / "twice.tar.gz"
    archive.write_bytes(data.getvalue())
    with pytest.raises(ArchiveError, match="'top/manifest.json' appears twice"):
        read_archive(archive)


@pytest.mark.parametrize("name, message", [
    ("top/" + "a" * 5000, "longer than 4096 bytes"),
    ("top/" + "a/" * 40 + "f", "deeper than 32 folders"),
])
def test_archive_names_are_bounded(tmp_path, name, message):
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w", format=tarfile.PAX_FORMAT) as tar:
        info = tarfile.TarInfo(name)
        tar.addfile(info, io.BytesIO(b""))
    archive = tmp_path / "names.tar"
    archive.write_bytes(data.getvalue())
    with pytest.raises(ArchiveError, match=message):
        read_archive(archive)


# -- one line, not a traceback: manifests, special files, output roots ----------------------------

DEEP = b"[" * 100_000 + b"]" * 100_000


def test_a_deeply_nested_manifest_is_one_line_everywhere(tmp_path):
    """A deeply nested manifest.json once gave a RecursionError in diff and pack."""
    cases_file = write_cases(tmp_path / "cases.yaml", range(1))
    out = tmp_path / "out"
    assert run("build", cases_file, "-o", out).returncode == 0
    (out / MANIFEST).write_bytes(DEEP)
    alone = tmp_path / "deep.json"
    alone.write_bytes(b'{"format": 1, "x": ' + DEEP + b"}")
    for args in (("diff", out, out), ("diff", alone, alone), ("pack", out, "-o",
                                                             tmp_path / "a.tar.gz")):
        done = run(*args)
        assert done.returncode in (1, 2) and len(done.stderr.splitlines()) == 1, args
        assert "nested more than 32 deep" in done.stderr, args
    for args in (("build", cases_file, "-o", out), ("build", "--check", cases_file, "-o", out)):
        done = run(*args)  # no manifest to trust: the build refuses, the check names it
        assert done.returncode in (1, 2) and "Traceback" not in done.stderr, args


def test_special_files_are_never_read(tmp_path):
    """A FIFO as a case file, a manifest or a listed file once hung build, diff and pack."""
    cases_file = write_cases(tmp_path / "cases.yaml", range(1))
    out = tmp_path / "out"
    assert run("build", cases_file, "-o", out).returncode == 0
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    done = run("build", fifo, "-o", tmp_path / "other")
    assert done.returncode == 2 and "not a regular file" in done.stderr
    listed = next(p for p in (out / SUITE).rglob("*.pb"))
    listed.unlink()
    os.mkfifo(listed)
    for args in (("diff", out, out), ("pack", out, "-o", tmp_path / "a.tar.gz")):
        done = run(*args)
        assert done.returncode in (1, 2) and "not a regular file" in done.stderr, args
    (out / MANIFEST).unlink()
    os.mkfifo(out / MANIFEST)
    done = run("pack", out, "-o", tmp_path / "a.tar.gz")
    assert done.returncode in (1, 2) and "not a regular file" in done.stderr
    os.mkfifo(tmp_path / "pipe.tar.gz")
    with pytest.raises(ArchiveError, match="not a regular file"):
        read_archive(tmp_path / "pipe.tar.gz")


def test_an_unusable_output_root_is_exit_2_and_one_line(tmp_path):
    """A read-only output root once ended with exit 1, kept for a failed check."""
    cases_file = write_cases(tmp_path / "cases.yaml", range(1))
    a_file = tmp_path / "a_file"
    a_file.write_text("mine")
    for out in (a_file / "out", Path("/sys/onnx-seq-tests-out")):  # /sys: read-only, even to root
        done = run("build", cases_file, "-o", out)
        assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, out
        assert "cannot be used as the output root" in done.stderr
    assert a_file.read_text() == "mine"


@pytest.mark.parametrize("call, message", [
    (lambda c, o: build([c], o, empty_optional="bogus"), "empty_optional must be one of"),
    (lambda c, o: build([c], o, jobs=-3), "jobs must be an int >= 0"),
    (lambda c, o: build([c], o, jobs="2"), "jobs must be an int >= 0"),
    (lambda c, o: build(None, o), "paths must be a path or a list of paths"),
    (lambda c, o: build([3], o), "each of paths must be a path"),
    (lambda c, o: build([c], None), "out_root must be a path"),
    (lambda c, o: check([c], o, empty_optional="typo"), "empty_optional must be one of"),
    (lambda c, o: check([c], o, jobs=True), "jobs must be an int >= 0"),
    (lambda c, o: load_side(None), "path must be a path"),
    (lambda c, o: pack(None, o), "root must be a path"),
])
def test_bad_api_arguments_raise_argument_error(tmp_path, call, message):
    """`build(empty_optional='bogus')` and `jobs=-3` were once accepted silently."""
    cases_file = write_cases(tmp_path / "cases.yaml", range(1))
    with pytest.raises(ArgumentError, match=message) as raised:
        call(cases_file, tmp_path / "out")
    assert isinstance(raised.value, SeqTestsError) and isinstance(raised.value, ValueError)
    assert not (tmp_path / "out").exists()


def test_one_path_is_a_list_of_one(tmp_path):
    """`build("cases.yaml", out)` once iterated the string's characters."""
    cases_file = write_cases(tmp_path / "cases.yaml", range(1))
    assert build(str(cases_file), tmp_path / "out").cases == 1


# -- budgets: the builder and the oracle stop, with file:line:col --------------------------------

LOOP_CASE = """
- name: runaway_loop
  opset: 16
  inputs:
    - {name: trip_count, type: tensor(int64), shape: []}
    - {name: initial, type: seq(tensor(int64)), shape: []}
  outputs:
    - {name: final, type: seq(tensor(int64)), shape: []}
  nodes:
    - op_type: Loop
      inputs: {M: trip_count, cond: "", v_initial: [initial]}
      outputs: {v_final_and_scan_outputs: [final]}
      attributes:
        body:
          inputs:
            - {name: iteration, type: tensor(int64), shape: []}
            - {name: cond_in, type: tensor(bool), shape: []}
            - {name: sequence_in, type: seq(tensor(int64)), shape: []}
          outputs:
            - {name: cond_out, type: tensor(bool), shape: []}
            - {name: sequence_out, type: seq(tensor(int64)), shape: []}
          nodes:
            - op_type: Identity
              inputs: {input: cond_in}
              outputs: {output: cond_out}
            - op_type: Identity
              inputs: {input: sequence_in}
              outputs: {output: sequence_out}
  data_sets:
    - inputs: {trip_count: 1000000000000, initial: []}
      outputs: {final: []}
"""


def _broadcast_case(n: int) -> str:
    column = "[" + ", ".join(["[1.0]"] * n) + "]"
    return f"""
- name: huge_broadcast
  opset: 14
  inputs:
    - {{name: a, type: tensor(float), shape: [{n}, 1]}}
    - {{name: b, type: tensor(float), shape: [1, {n}]}}
  outputs:
    - {{name: c, type: tensor(float), shape: [~, ~]}}
  nodes:
    - op_type: Add
      inputs: {{A: a, B: b}}
      outputs: {{C: c}}
  data_sets:
    - inputs: {{a: {column}, b: [[{column[1:-1].replace("[", "").replace("]", "")}]]}}
      outputs: {{c: [[2.0]]}}
"""


def _aliased_string_case(size: int, times: int) -> str:
    return f"""
- name: aliased_strings
  opset: 11
  inputs:
    - {{name: s, type: seq(tensor(string)), shape: []}}
  outputs:
    - {{name: n, type: tensor(int64), shape: []}}
  nodes:
    - op_type: SequenceLength
      inputs: {{input_sequence: s}}
      outputs: {{length: n}}
  data_sets:
    - inputs: {{s: [&big "{'x' * size}", {", ".join(["*big"] * times)}]}}
      outputs: {{n: {times + 1}}}
"""


@pytest.mark.parametrize("text, where, budget", [
    (LOOP_CASE, ":30:7: case 'runaway_loop': data set 0: Loop iterations", "MAX_LOOP_ITERATIONS"),
    (_broadcast_case(10_000), ":14:7: case 'huge_broadcast': data set 0: Add's result would "
                              "hold 100000000 elements", "MAX_ELEMENTS"),
    (_aliased_string_case(3_000_000, 1000), ":13:", "MAX_YAML_TEXT_BYTES"),
], ids=["loop-trip-count-10**12", "broadcast-of-1e8-elements", "3MB-string-aliased-1000x"])
def test_the_builder_and_the_oracle_have_budgets(tmp_path, text, where, budget):
    """A Loop with trip count 10**12 once ran forever in the oracle; a broadcast asked numpy
    for 18.6 GiB; one 3 MB string aliased 1,000 times reached 3 GB (a MemoryError traceback in
    the fingerprint). Each is now one line at its place, naming the budget, within seconds and
    in little memory."""
    cases_file = tmp_path / "budget.yaml"
    cases_file.write_text(text)
    tracemalloc.start()
    try:
        done = run("build", cases_file, "-o", tmp_path / "out")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[0].startswith(f"{cases_file}{where}"), done.stderr
    assert budget in done.stderr and "_core/budgets.py" in done.stderr
    assert not (tmp_path / "out").exists()
    assert peak < 200 << 20


# -- a streamed build (compiling in workers while writing) is as crash-safe ----------------------

@pytest.mark.parametrize("mode", ["error", "crash"])
def test_a_fault_while_a_streamed_build_writes_leaves_the_old_suite(tmp_path, monkeypatch, mode):
    """A build that compiles in workers and writes while they compile (at least STREAM_BYTES
    of case files; lowered here to keep the test small): a fault at a write leaves the old
    suite whole and no debris."""
    monkeypatch.setattr(build_module, "STREAM_BYTES", 1)
    old_cases = write_cases(tmp_path / "cases.yaml", range(12))
    out = tmp_path / "out"
    build([old_cases], out)
    before = snapshot(out)
    write_cases(old_cases, range(12), values={i: -2.5 for i in range(0, 12, 3)})
    faults = Faults(5, mode)
    with monkeypatch.context() as patch:
        faults.install(patch.setattr)
        with pytest.raises((OSError, Crashed)):
            build([old_cases], out)
    assert faults.fired and snapshot(out) == before
    report = build([old_cases], out)
    assert len(report.rebuilt) == 4 and sorted(os.listdir(work_dir(out))) == ["cache.json"]
    cold = tmp_path / "cold"
    build([old_cases], cold, jobs=2)
    assert snapshot(cold) == snapshot(out)
