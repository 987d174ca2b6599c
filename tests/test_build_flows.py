"""The build's flow carries what it learnt: one `gen-seq-tests build` lists the case files once,
reads each once and parses the manifest at most once, however far it goes (the no-op answer from
the cache, an incremental build, a check), because freshness hands its listing, bytes, hashes,
manifest and cache to the build. Counted by wrapping the package's one reader of each (every
module's reference to it), with the real CLI in this process.
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path

import pytest
from test_publish import run, write_cases

from onnx_seq_tests._casefile import discovery
from onnx_seq_tests._core.errors import OutputError
from onnx_seq_tests._suite import freshness
from onnx_seq_tests._suite import manifest as manifests
from onnx_seq_tests._suite.build import build_known


def _wrap_everywhere(monkeypatch, original, counting) -> None:
    """Put `counting` wherever a module of the package holds `original` (imported by name)."""
    for name, module in list(sys.modules.items()):
        if name.startswith("onnx_seq_tests") and module is not None:
            for attribute, value in list(vars(module).items()):
                if value is original:
                    monkeypatch.setattr(module, attribute, counting)


@pytest.fixture
def counted(monkeypatch):
    """Counters of case-file reads (by path), listings, and manifest parses."""
    counts: Counter = Counter()
    read, listing, parse = discovery.read_case_file, discovery.case_files, manifests.load_json

    def read_case_file(path):
        counts[f"read {Path(path).name}"] += 1
        return read(path)

    def case_files(paths):
        counts["listings"] += 1
        return listing(paths)

    def load_json(data, where):
        if manifests.MANIFEST in str(where):
            counts["manifest parses"] += 1
        return parse(data, where)

    _wrap_everywhere(monkeypatch, read, read_case_file)
    _wrap_everywhere(monkeypatch, listing, case_files)
    _wrap_everywhere(monkeypatch, parse, load_json)
    return counts


def _cases(tmp_path: Path) -> Path:
    folder = tmp_path / "cases"
    folder.mkdir()
    for i in range(3):
        write_cases(folder / f"c{i}.yaml", [i])
    return folder


def _most_reads(counts: Counter) -> int:
    return max(n for what, n in counts.items() if what.startswith("read "))


@pytest.mark.parametrize("flow", ["cold", "one file changed", "no-op", "check", "no-op check"])
def test_a_build_lists_reads_and_parses_each_thing_once(tmp_path, counted, flow):
    """Before: a cold build listed the case files 4 times and read each twice; a build after
    one file changed listed them 3 times, read that file 3 times and the manifest twice."""
    cases, out = _cases(tmp_path), tmp_path / "out"
    if flow != "cold":
        assert run("build", cases, "-o", out).returncode == 0
    if flow in ("one file changed", "check"):
        write_cases(cases / "c1.yaml", [1], {1: 2.5})
    counted.clear()
    done = run("build", cases, "-o", out, *(["--check"] if "check" in flow else []))
    assert done.returncode == (1 if flow == "check" else 0), done.stderr
    assert _most_reads(counted) == 1, dict(counted)
    assert sum(n for what, n in counted.items() if what.startswith("read ")) == 3
    assert counted["listings"] == 1, dict(counted)
    assert counted["manifest parses"] <= 1, dict(counted)


@pytest.mark.parametrize("built_before", [False, True])
def test_duplicate_names_across_files_are_named_in_one_pass(tmp_path, counted, built_before):
    """Before, a duplicate made the build load every case file again to name both places
    (each file read 3 times); now the places come from the one compile, and for a case kept
    from the last build (not compiled again) from the bytes the build holds, not the disk."""
    cases, out = _cases(tmp_path), tmp_path / "out"
    if built_before:
        assert run("build", cases, "-o", out).returncode == 0
    write_cases(cases / "d.yaml", [1])  # pub_at_1 again, beside c1.yaml's
    counted.clear()
    done = run("build", cases, "-o", out)
    assert done.returncode == 2
    assert f"d.yaml:2:3: case name 'pub_at_1' is already used at {cases / 'c1.yaml'}:2:3" \
        in done.stderr
    assert _most_reads(counted) == 1, dict(counted)


def _global_statements(source: str) -> list[str]:
    return [name for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Global)
            for name in node.names]


def test_no_module_sets_state_with_global():
    """The compile channel was set with `global` (compiling.py); the stream workers now keep
    it in one documented place (compiling._StreamWorker), and no module rebinds a global."""
    package = Path(discovery.__file__).resolve().parent.parent
    found = {path.relative_to(package).as_posix(): names for path in package.rglob("*.py")
             if (names := _global_statements(path.read_text(encoding="utf-8")))}
    assert found == {}
    assert _global_statements("_channel = None\ndef start(c):\n    global _channel\n") \
        == ["_channel"]  # the probe: the shape compiling.py had


def test_what_the_no_op_check_read_is_trusted_only_while_the_file_is_unchanged(tmp_path):
    """The manifest `look` read is handed to the build; when the root's manifest went away
    since (another process), the build reads the root again: no manifest, so every path in
    the root is foreign, and the build refuses (exit 2) rather than run over it."""
    cases, out = _cases(tmp_path), tmp_path / "out"
    assert run("build", cases, "-o", out).returncode == 0
    write_cases(cases / "c1.yaml", [1], {1: 2.5})  # something to build
    known = freshness.look([cases], out, "undefined")
    assert known.count is None and known.manifest is not None
    (out / manifests.MANIFEST).unlink()
    with pytest.raises(OutputError, match="path.s. that no build wrote"):
        build_known(known, [cases], out, "undefined", 1)
