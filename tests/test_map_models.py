"""Models of real tools whose graph boundary holds a map (ai.onnx.ml's ZipMap and
DictVectorizer, tests/map_models.py) in a folder of folders, beside readable cases of the
committed suite: `show`, `coverage`, `docs` and `import` give the readable ones, name each map
folder in one line and exit 1; `verify` judges the readable ones and reports each map folder as
`refused` of a value kind, under its operator, naming the value and its type."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import onnx
import pytest
from click.testing import CliRunner
from conftest import MINI_CASES
from map_models import MAP_FOLDERS
from onnx import TensorProto, helper

from onnx_seq_tests._cli import main
from onnx_seq_tests._suite.layout import SUITE

READABLE = MINI_CASES[:2]
WHAT_IT_READS = "it reads tensors, and sequences and optionals of them"


@pytest.fixture(scope="module")
def suites(committed_suite, tmp_path_factory) -> tuple[Path, Path]:
    """(the readable cases alone, the same cases beside the map folders)."""
    base = tmp_path_factory.mktemp("maps")
    readable, mixed = base / "readable", base / "mixed"
    for name in READABLE:
        shutil.copytree(committed_suite / SUITE / name, readable / SUITE / name)
    shutil.copytree(readable, mixed)
    for name, (write, _, _) in MAP_FOLDERS.items():
        write(mixed / "ml" / name)
    return readable, mixed


def run(*args: object):
    return CliRunner().invoke(main, [str(a) for a in args])


def assert_map_lines(stderr: str, suite: Path) -> None:
    """One line per map folder, `skipped FOLDER: unsupported: FOLDER/model.onnx: ...` naming
    the value and its type, and nothing else."""
    expected = sorted(
        f"skipped {suite / 'ml' / name}: unsupported: {suite / 'ml' / name / 'model.onnx'}: "
        f"this tool cannot read a map: {value}; {WHAT_IT_READS}"
        for name, (_, value, _) in MAP_FOLDERS.items())
    assert sorted(stderr.splitlines()) == expected, stderr


def test_show_shows_the_readable_cases_and_names_each_map_folder(suites):
    readable, mixed = suites
    alone = run("show", readable)
    assert alone.exit_code == 0 and alone.stderr == "", alone.output
    result = run("show", mixed)
    assert result.exit_code == 1, result.output
    assert_map_lines(result.stderr, mixed)
    assert result.stdout == alone.stdout.replace(str(readable), str(mixed))
    assert all(f"{name}\n" in result.stdout for name in READABLE)


def test_coverage_counts_the_readable_cases_and_names_each_map_folder(suites):
    readable, mixed = suites
    alone = run("coverage", readable)
    assert alone.exit_code == 0, alone.output
    result = run("coverage", mixed)
    assert result.exit_code == 1, result.output
    assert_map_lines(result.stderr, mixed)
    assert result.stdout == alone.stdout.replace(readable.as_posix(), mixed.as_posix())


def test_docs_writes_the_pages_of_the_readable_cases_and_names_each_map_folder(suites,
                                                                              tmp_path):
    readable, mixed = suites
    assert run("docs", readable, "-o", tmp_path / "alone").exit_code == 0
    result = run("docs", mixed, "-o", tmp_path / "pages")
    assert result.exit_code == 1, result.output
    assert_map_lines(result.stderr, mixed)
    assert sorted(p.name for p in (tmp_path / "pages").iterdir()) == \
        sorted(p.name for p in (tmp_path / "alone").iterdir())


def test_import_writes_the_readable_cases_and_names_each_map_folder(suites, tmp_path):
    _, mixed = suites
    target = tmp_path / "imported.yaml"
    result = run("import", mixed, "-o", target)
    assert result.exit_code == 1, result.output
    assert_map_lines(result.stderr, mixed)
    assert f"wrote {len(READABLE)} case(s) to {target}; left out: 2 unsupported" \
        in result.stdout
    text = target.read_text(encoding="utf-8")
    assert all(f"name: {name.removeprefix('test_')}\n" in text for name in READABLE), text


@pytest.mark.parametrize("name", sorted(MAP_FOLDERS))
def test_a_map_folder_named_itself_is_refused_in_one_line(suites, tmp_path, name):
    folder = suites[1] / "ml" / name
    for args in (["show", folder], ["import", folder, "-o", tmp_path / "x.yaml"]):
        result = run(*args)
        assert result.exit_code == 2, result.output
        assert result.stderr == f"error: {folder / 'model.onnx'}: this tool cannot read a map: " \
            f"{MAP_FOLDERS[name][1]}; {WHAT_IT_READS}\n"
    assert not (tmp_path / "x.yaml").exists()


def test_verify_refuses_a_map_folder_as_a_value_kind_under_its_operator(suites, tmp_path):
    _, mixed = suites
    report = tmp_path / "report.json"
    result = run("verify", mixed, "-b", "onnxruntime", "--inference", "onnx", "--json", report)
    assert result.exit_code == 1, result.output
    results = json.loads(report.read_text(encoding="utf-8"))["results"]
    got = {(r["name"], r["backend"]): (r["outcome"], r["message"], r["operator"])
           for r in results}
    assert len(got) == len(results) == 2 * (len(READABLE) + len(MAP_FOLDERS))
    for subject in ("onnxruntime", "onnx-inference"):
        for name in READABLE:
            assert got[name, subject][0] == "pass", got[name, subject]
        for name, (_, value, operator) in MAP_FOLDERS.items():
            assert got[name, subject] == (
                "refused", f"this tool cannot read a map: {value}; {WHAT_IT_READS}", operator)
    assert "(no node)" not in result.stdout


def _with_input_type(committed_suite: Path, folder: Path, type_proto: onnx.TypeProto) -> Path:
    shutil.copytree(committed_suite / SUITE / READABLE[0], folder)
    model = onnx.load(folder / "model.onnx")
    model.graph.input[0].type.CopyFrom(type_proto)
    onnx.save(model, folder / "model.onnx")
    return folder


def _opaque() -> onnx.TypeProto:
    proto = onnx.TypeProto()
    proto.opaque_type.domain, proto.opaque_type.name = "com.example", "Blob"
    return proto


def _sparse() -> onnx.TypeProto:
    proto = onnx.TypeProto()
    proto.sparse_tensor_type.elem_type = TensorProto.FLOAT
    return proto


@pytest.mark.parametrize("type_proto, said", [
    (_sparse(), "a sparse tensor: graph input {name} is sparse_tensor(float)"),
    (_opaque(), "an opaque value: graph input {name} is opaque('com.example.Blob')"),
    (helper.make_optional_type_proto(helper.make_map_type_proto(
        TensorProto.INT64, helper.make_tensor_type_proto(TensorProto.DOUBLE, None))),
     "a map: graph input {name} is optional(map(int64, tensor(double)))"),
])
def test_every_value_kind_it_cannot_read_is_named(committed_suite, tmp_path, type_proto, said):
    folder = _with_input_type(committed_suite, tmp_path / "test_kind", type_proto)
    name = repr(onnx.load(folder / "model.onnx").graph.input[0].name)
    result = run("show", tmp_path)
    assert result.exit_code == 1, result.output
    assert result.stderr == f"skipped {folder}: unsupported: {folder / 'model.onnx'}: this " \
        f"tool cannot read {said.format(name=name)}; {WHAT_IT_READS}\n"


def test_a_value_with_no_type_is_corrupt_not_unsupported(committed_suite, tmp_path):
    folder = _with_input_type(committed_suite, tmp_path / "test_untyped", onnx.TypeProto())
    result = run("show", tmp_path)
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith(f"skipped {folder}: corrupt: ")
    assert "is (no type), a type this tool cannot read" in result.stderr
