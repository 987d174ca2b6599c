"""The public API, what onnx.defs decides, onnx version drift, the CLI's conventions, and the
builds that decide "nothing to do" without importing onnx."""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from click.testing import CliRunner

import onnx_seq_tests
from onnx_seq_tests._cli import main
from onnx_seq_tests._core import operators, versions
from onnx_seq_tests._oracle import oracle
from onnx_seq_tests._published import case_features
from onnx_seq_tests._suite.compiling import fingerprint
from onnx_seq_tests._suite.manifest import MANIFEST

ROOT = Path(__file__).resolve().parent.parent

CASE = """
- name: hyg_at_{i}
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
    - inputs: {{seq: [[{i}.0, 1.5], [0.5, -1.0]], pos: 0}}
      outputs: {{item: [{i}.0, 1.5]}}
"""


def cli(*args) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def built(tmp_path) -> tuple[Path, Path]:
    """A two-case file built into tmp_path/out."""
    cases = tmp_path / "cases.yaml"
    cases.write_text(CASE.format(i=0) + CASE.format(i=1))
    out = tmp_path / "out"
    assert cli("build", cases, "-o", out)[0] == 0
    return cases, out


# -- the public API --------------------------------------------------------------------------------

def test_every_public_name_resolves_and_every_module_imports():
    assert onnx_seq_tests.__all__[0] == "__version__"
    assert set(onnx_seq_tests.__all__) == {"__version__", *onnx_seq_tests._PUBLIC}
    for name in onnx_seq_tests.__all__:
        assert getattr(onnx_seq_tests, name) is not None, name
    assert onnx_seq_tests.compare([np.float32(1)], [np.float32(2)])  # one difference
    with pytest.raises(AttributeError):
        onnx_seq_tests.no_such_name  # noqa: B018
    for info in pkgutil.walk_packages(onnx_seq_tests.__path__, "onnx_seq_tests."):
        if info.name == "onnx_seq_tests.__main__":
            continue  # running it is the point of that module
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", ()):
            assert hasattr(module, name), f"{info.name}.__all__ names {name}, which is missing"
    for name in ("build", "check", "load_cases", "verify", "read_case_folder", "backend_test"):
        assert callable(getattr(onnx_seq_tests, name))
    assert issubclass(onnx_seq_tests.CaseFileError, onnx_seq_tests.SeqTestsError)


def test_import_help_version_and_a_no_op_build_load_no_onnx(built):
    """In a fresh process (onnx is loaded in this one): the package, the CLI's --help and
    --version, and a build or build --check with nothing to do import no onnx."""
    cases, out = built
    code = f"""
import sys
import onnx_seq_tests
from onnx_seq_tests._cli import main
loaded = lambda: sorted(m for m in sys.modules if m == "onnx" or m.startswith("onnx."))
for args in (["--help"], ["--version"], ["build", "--help"],
             ["build", {str(cases)!r}, "-o", {str(out)!r}],
             ["build", "--check", {str(cases)!r}, "-o", {str(out)!r}]):
    try:
        main(args, prog_name="gen-seq-tests")
    except SystemExit as exit:
        assert not exit.code, (args, exit.code)
    assert not loaded(), (args, loaded()[:3])
print("no onnx")
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.rstrip().endswith("no onnx")
    assert f"{out} is up to date: 2 case(s)" in result.stdout
    assert f"{out} is exactly what the cases give" in result.stdout


def test_the_no_op_paths_notice_every_change(built):
    cases, out = built
    model = out / "sequence_optional" / "test_hyg_at_0" / "model.onnx"
    data = bytearray(model.read_bytes())
    data[-1] ^= 1
    stat = os.stat(model)
    model.write_bytes(bytes(data))
    os.utime(model, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same size, same mtime
    code, stdout, _ = cli("build", "--check", cases, "-o", out)
    assert code == 1 and "changed: test_hyg_at_0 (model.onnx)" in stdout
    os.utime(model)  # a new mtime: a build notices and rebuilds that case
    assert cli("build", cases, "-o", out)[1].startswith(f"built 2 case(s) into {out}: 1 rebuilt")
    assert cli("build", "--check", cases, "-o", out)[0] == 0
    copy = cases.with_name("copy.yaml")  # the same bytes twice: the loader's error, not a no-op
    copy.write_bytes(cases.read_bytes())
    code, _, stderr = cli("build", "--check", cases, copy, "-o", out)
    assert code == 2 and "case name 'hyg_at_0' is already used" in stderr
    cases.write_text(CASE.format(i=0))  # a changed case file: the full path removes a case
    assert "1 removed" in cli("build", cases, "-o", out)[1]
    assert cli("build", cases, "-o", out)[1] == f"{out} is up to date: 1 case(s)\n"


# -- what onnx.defs decides ------------------------------------------------------------------------

def test_sequence_operators_come_from_the_schemas_and_the_oracle_implements_each():
    found = {s.name for s in operators._history() if s.domain == "" and any(
        t.startswith(("seq(", "optional(")) for c in s.type_constraints
        for t in c.allowed_type_strs)}
    assert set(operators.CARRIERS) <= found
    assert set(operators.sequence_operators()) == found - set(operators.CARRIERS)
    assert case_features.MATRIX_OPERATORS == (operators.sequence_operators()
                                               + operators.map_operators())
    assert operators.map_operators() == ("CastMap", "DictVectorizer", "ZipMap")
    assert {"SequenceMap", "OptionalGetElement"} <= set(case_features.MATRIX_OPERATORS)
    missing = set(oracle.SPEC_OPERATORS) - set(oracle.OPERATORS)
    assert not missing, f"the spec oracle has no function for {missing}: write one in oracle.py"


def test_the_json_schema_and_the_reader_share_one_opset_ceiling():
    from onnx_seq_tests._casefile.json_schema import case_schema

    opset = case_schema()["definitions"]["case"]["properties"]["opset"]
    assert opset["maximum"] == operators.newest_released_opset() == max(
        operators.released_opsets())


def test_fingerprints_tell_apart_element_types_of_the_same_bytes():
    from onnx_seq_tests._suite.compiling import _canonical

    int4 = np.zeros(2, dtype=ml_dtypes.int4)
    uint4 = np.zeros(2, dtype=ml_dtypes.uint4)
    assert int4.dtype.str == uint4.dtype.str and int4.tobytes() == uint4.tobytes()
    assert _canonical(int4) != _canonical(uint4)
    assert callable(fingerprint)


def test_for_each_refuses_an_unreleased_opset_with_a_case_error(tmp_path, monkeypatch):
    """An onnx newer than its last release: SequenceMap (opset 17) when only 1..16 are released.
    The released opsets are the installed onnx's VERSION_TABLE: the environment, faked here."""
    monkeypatch.setattr(operators, "released_opsets", lambda: frozenset(range(1, 17)))
    monkeypatch.setattr(operators, "newest_released_opset", lambda: 16)
    path = tmp_path / "map.yaml"
    path.write_text("- name: map_{type}\n  for_each: {op: SequenceMap, param: S}\n"
                    "  outputs: [{name: y, type: seq(tensor(float))}]\n"
                    "  nodes: []\n  data_sets: []\n")
    code, _, stderr = cli("build", path, "-o", tmp_path / "out")
    assert code == 2
    assert stderr.splitlines()[0] == (
        f"{path}:2:18: SequenceMap changed at opset 17: no onnx release has ai.onnx opset 17, "
        "so no IR version goes with it; released opsets: " + ", ".join(map(str, range(1, 17)))
        + "; list the released ones under for_each.opsets")
    assert not (tmp_path / "out").exists()


# -- onnx version drift ----------------------------------------------------------------------------

def test_the_pin_comes_from_the_installed_metadata():
    text = (ROOT / "pyproject.toml").read_text()
    assert f'"onnx=={versions.pinned_onnx()}"' in text
    assert versions.installed_onnx() == __import__("onnx").__version__


def test_another_onnx_never_restamps_a_suite_unless_adopted(built, monkeypatch):
    """The installed onnx version is the environment: faked in-process."""
    cases, out = built
    pinned = versions.pinned_onnx()
    before = (out / MANIFEST).read_bytes()
    assert json.loads(before)["onnx_version"] == pinned
    monkeypatch.setattr(versions, "installed_onnx", lambda: "1.99.0")
    code, _, stderr = cli("build", cases, "-o", out)
    assert code == 2 and len(stderr.splitlines()) == 1
    assert stderr.startswith(f"error: {out} was built with onnx {pinned}; rebuilding it would "
                             "restamp it with onnx 1.99.0, so nothing was written: the installed "
                             f"onnx is 1.99.0, but onnx-seq-tests pins onnx=={pinned}")
    assert f"reinstall the pin (`pip install onnx=={pinned}`" in stderr
    assert "--adopt-onnx" in stderr
    assert (out / MANIFEST).read_bytes() == before
    code, stdout, stderr = cli("build", "--check", cases, "-o", out)
    assert stderr.startswith("warning: the installed onnx is 1.99.0, but onnx-seq-tests pins")
    assert code == 1 and stdout == f"changed: {MANIFEST} (onnx_version is '{pinned}', this build " \
                                   "gives '1.99.0')\n"
    assert stderr.splitlines()[-1].endswith("the installed onnx is not the pinned one (see the "
                                            "warning above), which alone can explain them")
    code, stdout, _ = cli("build", cases, "-o", out, "--adopt-onnx")
    assert code == 0
    assert json.loads((out / MANIFEST).read_bytes())["onnx_version"] == "1.99.0"


# -- the CLI's conventions -------------------------------------------------------------------------

def test_one_output_flag_jobs_zero_and_exit_codes(tmp_path, built):
    cases, out = built
    for command in ("build", "pack"):
        assert "-o, --output" in cli(command, "--help")[1], command
    assert "0: one per CPU" in cli("verify", "--help")[1]
    code, stdout, _ = cli("build", cases, "--output", out, "-j", "0")
    assert code == 0 and stdout == f"{out} is up to date: 2 case(s)\n"
    empty = tmp_path / "no\nsuite"  # no suite here: exit 2 everywhere, on one line
    empty.mkdir()
    for args in (("pack", empty), ("coverage", empty)):
        code, _, stderr = cli(*args)
        assert code == 2 and stderr.count("\n") == 1 and "no\\nsuite" in stderr, args
    (out / "sequence_optional" / "test_hyg_at_1" / "data.json").write_text("{}")
    code, _, stderr = cli("pack", out, "-o", tmp_path / "a.tar.gz")  # a failed check: exit 1
    assert code == 1 and "does not match its manifest" in stderr
