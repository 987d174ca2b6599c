"""Which suite, case files and xfail file the tool uses: the checkout's inside a checkout, else
the ones installed with the package (checked against the manifest). The installed wheel itself is
tried in tests_release/ (make check-dist)."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_diff import small_suite

import onnx_seq_tests
from onnx_seq_tests._cli import main
from onnx_seq_tests._core.errors import SuiteError
from onnx_seq_tests._published import resources
from onnx_seq_tests._runtimes.records import names
from onnx_seq_tests._transforms import TRANSFORMS

ROOT = Path(__file__).resolve().parent.parent


def test_inside_a_checkout_its_folders_win(monkeypatch):
    monkeypatch.chdir(ROOT / "tests")
    suite = resources.default_suite()
    assert suite.origin == "checkout" and suite.root.resolve() == ROOT / "generated"
    assert resources.cases_dir().resolve() == ROOT / "cases"
    assert resources.xfail_file("onnxruntime").resolve() == ROOT / "xfail" / "onnxruntime.txt"
    assert resources.schema_file().resolve() == ROOT / "schema" / "case.schema.json"
    given = resources.resolve_suite(ROOT)
    assert given.origin == "checkout" and given.root == ROOT / "generated"
    digest = hashlib.sha256((ROOT / "generated" / "manifest.json").read_bytes()).hexdigest()
    assert given.describe() == (f"suite: {ROOT / 'generated'} (checkout, onnx-seq-tests "
                                f"{onnx_seq_tests.__version__}, manifest sha256 {digest})")


def test_public_suite_dir():
    assert "suite_dir" in onnx_seq_tests.__all__
    root = onnx_seq_tests.suite_dir()
    assert root == resources.suite_dir() and (root / "manifest.json").is_file()


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """A small packaged suite (onnx_seq_tests/_data/ of an installed wheel), used from a folder
    outside any checkout."""
    data = tmp_path / "site" / "_data"
    names = ["sequence_insert_v11_float", "sequence_insert_v11_int64"]
    small_suite(data / "generated", names)
    shutil.copytree(ROOT / "xfail", data / "xfail")
    monkeypatch.setattr(resources, "DATA", data)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    return data


def test_outside_a_checkout_the_packaged_suite_runs(installed):
    assert resources.checkout_root() is None
    assert onnx_seq_tests.suite_dir() == installed / "generated"
    assert resources.xfail_file("onnxruntime") == installed / "xfail" / "onnxruntime.txt"
    done = CliRunner().invoke(main, ["verify", "-b", "onnxruntime", "--xfail", "onnxruntime"])
    assert done.exit_code == 0, done.output
    digest = hashlib.sha256((installed / "generated" / "manifest.json").read_bytes()).hexdigest()
    assert done.output.splitlines()[0] == (
        f"suite: {installed / 'generated'} (packaged, onnx-seq-tests "
        f"{onnx_seq_tests.__version__}, manifest sha256 {digest})")
    assert "2 passed" in done.output
    backend_test = onnx_seq_tests.backend_test("onnxruntime")
    assert sorted(backend_test.test_cases["OnnxBackendSequenceOptionalModelTest"].__dict__
                  ).count("test_sequence_insert_v11_float_cpu") == 1


def test_a_damaged_packaged_suite_is_one_line(installed):
    victim = next((installed / "generated").rglob("input_0.pb"))
    victim.write_bytes(b"")
    done = CliRunner().invoke(main, ["verify", "-b", "onnxruntime"])
    assert done.exit_code == 2
    (line,) = done.output.splitlines()
    assert line.startswith("error: the installed suite at ") and "reinstall" in line
    assert "does not match its manifest" in line
    with pytest.raises(SuiteError, match="does not match its manifest"):
        onnx_seq_tests.backend_test("onnxruntime")


@pytest.mark.parametrize("args, message", [
    (["verify", "{tmp}", "-b", "onnxruntime"], "neither a suite nor a checkout"),
    (["verify", "{tmp}/nope", "-b", "onnxruntime"], "is not a folder"),
    (["verify", "-b", "onnxruntime", "--xfail", "nosuch"], "no xfail file of that name "
                                                          "(known: " + ", ".join(sorted(
                                                              ["onnxruntime", *names(), *(
                                                                  f"{t}+onnxruntime"
                                                                  for t in TRANSFORMS)])) + ")"),
    (["verify", "-b", "onnxruntime", "--xfail", "no/such.txt"], "--xfail no/such.txt: no such"),
])
def test_bad_suite_or_xfail_is_one_line(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(ROOT)
    done = CliRunner().invoke(main, [a.replace("{tmp}", str(tmp_path)) for a in args])
    assert done.exit_code == 2
    (line,) = done.output.splitlines()
    assert message in line and line.startswith("error: ")


def test_another_form_in_a_sub_folder_is_checked_against_its_own_manifest(installed):
    typed = installed / "generated" / "typed"
    small_suite(typed, ["sequence_insert_v11_float"])
    assert resources.default_suite().origin == "packaged"
    next(typed.rglob("model.onnx")).write_bytes(b"")
    with pytest.raises(SuiteError, match=r"typed/sequence_optional/.*model.onnx: sha256"):
        resources.default_suite()


def test_release_metadata_pep_639():
    from importlib.metadata import metadata

    project = metadata("onnx-seq-tests")
    assert project["License-Expression"] == "Apache-2.0"
    assert project.get_all("License-File") == ["LICENSE"]
    assert "Apache License" in (ROOT / "LICENSE").read_text()[:200]
    assert any(c.startswith("Topic :: ") for c in project.get_all("Classifier"))
    assert project["Description-Content-Type"] == "text/markdown"


def test_a_transformed_subject_names_its_xfail_file_safely():
    """`--xfail 'T>B'` finds xfail/T+B.txt: no `>` or `:` in a file name that ships in the
    package (Windows refuses both); the stem itself is a name too."""
    for name in TRANSFORMS:
        subject = f"{name}>onnxruntime"
        path = resources.xfail_file(subject)
        assert path.name == f"{name}+onnxruntime.txt" and path.is_file()
        assert resources.xfail_file(f"{name}+onnxruntime") == path
    assert resources.xfail_stem("a.b:c>onnxruntime") == "a.b.c+onnxruntime"
