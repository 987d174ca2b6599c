"""The case-file writer beside the reader: write-then-read is the identity over the whole suite,
and `load_text` reads text as `load_file` reads a file."""

from __future__ import annotations

import dataclasses
import struct

import numpy as np
import pytest

from onnx_seq_tests._casefile.nodes import INVALID
from onnx_seq_tests._casefile.reader import load_cases, load_file, load_text
from onnx_seq_tests._casefile.writer import tensor_data, write_cases
from onnx_seq_tests._core.errors import CaseFileError, NotExpressible
from onnx_seq_tests._core.problems import Problems
from onnx_seq_tests._suite.compiling import compile_case


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
