"""The case-file writer beside the reader: write-then-read is the identity over the whole suite,
`load_text` reads text as `load_file` reads a file, and tensor attributes read, build and
import back as written."""

from __future__ import annotations

import dataclasses
import struct

import numpy as np
import pytest

from onnx_seq_tests._casefile.nodes import INVALID
from onnx_seq_tests._casefile.reader import load_cases, load_file, load_text
from onnx_seq_tests._casefile.writer import case_data, tensor_data, write_cases
from onnx_seq_tests._core.errors import CaseFileError, NotExpressible
from onnx_seq_tests._core.problems import Problems
from onnx_seq_tests._read.importer import import_folders, to_yaml
from onnx_seq_tests._suite.build import build
from onnx_seq_tests._suite.compiling import compile_case
from onnx_seq_tests._suite.layout import SUITE
from onnx_seq_tests._suite.manifest import MANIFEST, tree_files


def same(obj):
    """`obj` made comparable with ==: positions and for_each origins left out (a written case
    is a plain case at new lines), arrays by dtype, shape and bytes, floats by their bits."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return (type(obj).__name__,) + tuple(
            same(getattr(obj, f.name)) for f in dataclasses.fields(obj)
            if f.name not in ("where", "expanded_from"))
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__,) + tuple(same(o) for o in obj)
    if isinstance(obj, np.ndarray):
        data = obj.tolist() if obj.dtype.kind == "O" else obj.tobytes()
        return "array", obj.dtype.str, obj.shape, data
    if isinstance(obj, float):
        return "float", struct.pack("<d", obj)
    return obj


@pytest.fixture(scope="module")
def round_trip(root):
    """Every case of cases/, and the cases read back from their written text."""
    cases = load_cases([root / "cases"])
    return cases, load_text(write_cases(cases), "written.yaml")


def test_write_then_read_is_the_identity_over_the_whole_suite(round_trip):
    cases, back = round_trip
    assert [c.name for c in back] == [c.name for c in cases]
    differ = [a.name for a, b in zip(cases, back, strict=True) if same(a) != same(b)]
    assert differ == []


def test_written_cases_build_the_same_files(round_trip):
    cases, back = round_trip
    for index in range(0, len(cases), max(1, len(cases) // 40)):  # a sample: a build is slow
        problems = Problems()
        assert compile_case(back[index], "undefined", problems) == compile_case(
            cases[index], "undefined", problems), cases[index].name
        assert not problems.found


def test_load_text_reads_as_load_file_reads(tmp_path):
    text = ("- name: x\n  opset: 18\n  outputs: [{name: y, type: tensor(float)}]\n"
            "  nodes: [{op_type: Idenity}]\n  data_sets: [{outputs: {y: 1}}]\n")
    path = tmp_path / "x.yaml"
    path.write_text(text, encoding="utf-8")
    from_file = Problems()
    load_file(path, from_file)
    from_text = Problems()
    assert load_text(text, str(path), from_text) == []
    assert from_text.found == from_file.found
    with pytest.raises(CaseFileError) as caught:
        load_text(text, "pasted")
    assert str(caught.value) == ("pasted:4:21: unknown op_type 'Idenity' (did you mean "
                                 "'Identity'?)")


def test_the_invalid_marker_has_no_truth_value():
    with pytest.raises(TypeError, match="is INVALID"):
        bool(INVALID)


def test_the_writer_refuses_what_nested_lists_cannot_hold():
    with pytest.raises(NotExpressible, match=r"shape \[0, 2\]"):
        tensor_data(np.zeros((0, 2), np.float32), "input 'x'")


# -- tensor attributes (issues 26, 29) ------------------------------------------------------------

TENSORS = """\
- name: tensor_attributes_{type}
  for_each: {op: ConstantOfShape, param: T2, opsets: [20], types: [int8, float16]}
  inputs:
    - {name: seq, type: seq(tensor(float)), shape: [1]}
  outputs:
    - {name: last, type: tensor(float), shape: [1]}
    - {name: grid, type: tensor(uint8), shape: [2, 2]}
    - {name: none, type: tensor(float), shape: [0, 3]}
    - {name: words, type: tensor(string), shape: [2]}
    - {name: flag, type: tensor(bool), shape: []}
    - {name: filled, type: "tensor({type})", shape: [2]}
  nodes:
    - op_type: Constant
      outputs: {output: position}
      attributes: {value: {type: tensor(int32), shape: [], value: -1}}
    - op_type: SequenceAt
      inputs: {input_sequence: seq, position: position}
      outputs: {tensor: last}
    - op_type: Constant
      outputs: {output: grid}
      attributes: {value: {type: tensor(uint8), value: [[0, 255], [7, 8]]}}
    - op_type: Constant
      outputs: {output: none}
      attributes: {value: {type: tensor(float), shape: [0, 3], value: []}}
    - op_type: Constant
      outputs: {output: words}
      attributes: {value: {type: tensor(string), shape: [2], value: ["é", ""]}}
    - op_type: Constant
      outputs: {output: flag}
      attributes: {value: {type: tensor(bool), shape: [], value: true}}
    - op_type: Constant
      outputs: {output: two}
      attributes: {value: {type: tensor(int64), shape: [1], value: [2]}}
    - op_type: ConstantOfShape
      inputs: {input: two}
      outputs: {output: filled}
      attributes: {value: {type: "tensor({type})", shape: [1],
                           value: {by_type: {int8: [-128], float16: [0.5]}}}}
  data_sets:
    - inputs: {seq: [[1.5], [2.5]]}
      outputs: {last: [2.5], grid: [[0, 255], [7, 8]], none: [], words: ["é", ""], flag: true,
                filled: {by_type: {int8: [-128, -128], float16: [0.5, 0.5]}}}
"""


def test_tensor_attributes_read_as_arrays_of_their_type():
    """`{type, shape, value}` gives an array of the element type and shape written (a shape
    left out is the value's; [] fills [0, 3]; by_type picks per expanded type)."""
    cases = load_text(TENSORS, "tensors.yaml")
    assert sorted(c.name for c in cases) == ["tensor_attributes_float16",
                                             "tensor_attributes_int8"]
    for case in cases:
        element = case.name.rsplit("_", 1)[1]
        values = [dict(n.attributes)["value"] for n in case.graph.nodes if n.attributes]
        assert [(v.dtype.name if v.dtype.kind != "O" else "string", v.shape) for v in values] \
            == [("int32", ()), ("uint8", (2, 2)), ("float32", (0, 3)), ("string", (2,)),
                ("bool", ()), ("int64", (1,)), (element, (1,))]
        assert values[0] == -1 and values[1].tolist() == [[0, 255], [7, 8]]
        assert values[3].tolist() == ["é", ""] and values[6].tolist() == (
            [-128] if element == "int8" else [0.5])


def test_tensor_attributes_round_trip_through_build_and_import(tmp_path):
    """YAML -> build -> import gives the case written (the same mapping, so the same YAML),
    and building that again gives the same files."""
    source = tmp_path / "tensors.yaml"
    source.write_text(TENSORS, encoding="utf-8")
    build([source], tmp_path / "out", jobs=1)
    cases = load_cases([source])
    imported = import_folders([tmp_path / "out" / SUITE / f"test_{c.name}" for c in cases])
    assert imported.skipped == [] and imported.notes == {}
    assert [case for _, case in imported.cases] == [case_data(c) for c in cases]
    back = tmp_path / "imported.yaml"
    back.write_text(to_yaml(imported), encoding="utf-8")
    assert [same(c) for c in load_cases([back])] == [same(c) for c in cases]
    build([back], tmp_path / "again", jobs=1)
    files = [r for r in tree_files(tmp_path / "out") if r != MANIFEST]
    assert [r for r in tree_files(tmp_path / "again") if r != MANIFEST] == files
    assert all((tmp_path / "out" / r).read_bytes() == (tmp_path / "again" / r).read_bytes()
               for r in files)
