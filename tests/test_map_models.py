"""Models of real tools whose graph boundary holds a map (ai.onnx.ml's ZipMap and
DictVectorizer, tests/map_models.py) in a folder of folders, beside readable cases of the
committed suite: `show`, `coverage` and `docs` read them with the rest; `verify` judges them on
onnxruntime (which takes and gives maps through its Python API) and on onnx's inference;
`import` takes ZipMap's and refuses DictVectorizer's (its recorded shape is onnxruntime's, not
the schema's); a runtime
adapter refuses a map as a value kind. The kinds this tool cannot read (sparse tensors,
opaque values) are named in one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from conftest import MINI_CASES
from map_models import MAP_FOLDERS
from onnx import TensorProto, helper, numpy_helper

from onnx_seq_tests._cli import main
from onnx_seq_tests._core.errors import CannotTake
from onnx_seq_tests._runtimes.adapter import CPUBackend
from onnx_seq_tests._suite.layout import SUITE

READABLE = MINI_CASES[:2]
WHAT_IT_READS = "it reads tensors and maps, and sequences and optionals of them"


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


def test_show_shows_the_map_values_as_maps(suites):
    _, mixed = suites
    result = run("show", mixed)
    assert result.exit_code == 0 and result.stderr == "", result.output
    assert ("  x: map(len=2), key_type=string, value_type=tensor(float)\n"
            "    {\n      'a': 1.5\n      'c': 2.\n    }\n") in result.stdout
    assert ("  y: sequence(len=1), element_type=map(int64, tensor(float))\n"
            "    [0] map(len=3), key_type=int64, value_type=tensor(float)\n"
            "      {\n        0: 0.2\n        1: 0.5\n        2: 0.3\n      }\n") in result.stdout


@pytest.mark.parametrize("command", ["coverage", "docs"])
def test_coverage_and_docs_read_the_map_folders(suites, tmp_path, command):
    _, mixed = suites
    result = run(command, mixed, *(["-o", tmp_path / "pages"] if command == "docs" else []))
    assert result.exit_code == 0 and result.stderr == "", result.output


def test_import_takes_zipmap_and_refuses_the_dict_vectorizer_shape(suites, tmp_path):
    """ZipMap's folder becomes a case (domain ai.onnx.ml, ml_opset); DictVectorizer's is left
    out because its expected [1, 3] (onnxruntime's shape, which the folder records) is not the
    schema's 1-D 'Y': the spec oracle, which import runs, gives [3]."""
    _, mixed = suites
    target = tmp_path / "imported.yaml"
    result = run("import", mixed, "-o", target)
    assert result.exit_code == 1, result.output
    assert result.stderr.splitlines() == [
        f"skipped {mixed / 'ml' / 'test_dict_vectorizer'}: not expressible: the case format "
        "refuses it: line 20: case 'dict_vectorizer': data set 0 disagrees with the spec oracle "
        "(expected: the case file, got: the oracle): output 0 (y): expected shape [1, 3], got "
        "[3]"]
    text = target.read_text(encoding="utf-8")
    assert all(f"name: {name.removeprefix('test_')}\n" in text for name in READABLE), text
    assert "name: zipmap\n  opset: 17\n  ml_opset: 1\n" in text, text
    assert "  - op_type: ZipMap\n    domain: ai.onnx.ml\n" in text, text
    rebuilt = run("build", target, "-o", tmp_path / "rebuilt")
    assert rebuilt.exit_code == 0, rebuilt.output


def test_verify_judges_the_map_folders_on_onnxruntime_and_inference(suites, tmp_path):
    _, mixed = suites
    report = tmp_path / "report.json"
    result = run("verify", mixed, "-b", "onnxruntime", "--inference", "onnx", "--json", report)
    assert result.exit_code == 0, result.output
    results = json.loads(report.read_text(encoding="utf-8"))["results"]
    got = {(r["name"], r["backend"]): (r["outcome"], r["operator"]) for r in results}
    assert len(got) == len(results) == 2 * (len(READABLE) + len(MAP_FOLDERS))
    for subject in ("onnxruntime", "onnx-inference"):
        for name, (_, _, operator) in MAP_FOLDERS.items():
            assert got[name, subject] == ("pass", operator)


def test_verify_fails_a_wrong_map_naming_the_key(suites, tmp_path):
    """The expected map of ZipMap's folder with one value changed: onnxruntime's answer fails
    at that key."""
    folder = tmp_path / "suite" / "test_zipmap"
    shutil.copytree(suites[1] / "ml" / "test_zipmap", folder)
    path = folder / "test_data_set_0" / "output_0.pb"
    proto = onnx.SequenceProto()
    proto.ParseFromString(path.read_bytes())
    proto.map_values[0].values.tensor_values[1].CopyFrom(numpy_helper.from_array(np.float32(0.25)))
    path.write_bytes(proto.SerializeToString())
    result = run("verify", folder.parent, "-b", "onnxruntime")
    assert result.exit_code == 1, result.output
    assert "test_zipmap: data set 0: output 0 (y), element 0, key 1: expected 0.25, got 0.5" \
        in result.stdout, result.stdout


class NoMaps(CPUBackend):
    """An adapter as the third-party ones are (their runtimes are not installed here)."""

    rep = None  # prepare refuses before it makes a rep


@pytest.mark.parametrize("name", sorted(MAP_FOLDERS))
def test_an_adapter_refuses_a_map_as_a_value_kind(suites, name):
    model = onnx.load(suites[1] / "ml" / name / "model.onnx")
    value = MAP_FOLDERS[name][1].replace("graph ", "").replace(" is ", " ")
    role, quoted, text = value.split(" ", 2)
    with pytest.raises(CannotTake) as raised:
        NoMaps().prepare(model)
    assert str(raised.value) == f"test_map_models's API has no maps: graph {role} {quoted} " \
        f"is {text}"


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
    (helper.make_sequence_type_proto(helper.make_map_type_proto(
        TensorProto.INT64, _sparse())),
     "a sparse tensor: graph input {name} is seq(map(int64, sparse_tensor(float)))"),
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


def test_the_drop_in_judges_zipmap_on_onnxruntime_as_it_comes(suites):
    """`backend_test` runs onnxruntime's own backend, whose ZipMap maps hold Python floats:
    they are read as the map's 0-d float tensors, so the folders pass (without that, every
    value was 'expected a tensor of float (float32) with shape [], got a float')."""
    import io
    import unittest

    import onnxruntime.backend

    import onnx_seq_tests

    _, mixed = suites
    backend_test = onnx_seq_tests.backend_test(onnxruntime.backend, mixed / "ml")
    result = unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(
        backend_test.test_suite)
    assert result.testsRun == 2 * len(MAP_FOLDERS)  # on cpu and cuda (skipped)
    assert (result.failures, result.errors) == ([], [])
