"""The files a build writes: names, order, proto kinds and names, as a consumer reads them."""

import json
from pathlib import Path

import numpy as np
import onnx
from click.testing import CliRunner
from onnx import OptionalProto, SequenceProto, TensorProto

from onnx_seq_tests._cli import main
from onnx_seq_tests._published.case_folder import read_case_folder
from onnx_seq_tests._suite.layout import SUITE

DATA = Path(__file__).parent / "data"


def build(out: Path, *extra: str) -> None:
    result = CliRunner().invoke(main, ["build", str(DATA / "layout_case.yaml"), "-o", str(out),
                                       *extra])
    assert result.exit_code == 0, result.output


def tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_golden_layout(tmp_path):
    build(tmp_path)
    case = tmp_path / SUITE / "test_golden_layout"
    assert [p for p in tree(case)] == [
        "data.json", "model.onnx",
        "test_data_set_0/input_0.pb", "test_data_set_0/input_1.pb", "test_data_set_0/input_2.pb",
        "test_data_set_0/output_0.pb", "test_data_set_0/output_1.pb",
        "test_data_set_1/input_0.pb", "test_data_set_1/input_1.pb", "test_data_set_1/input_2.pb",
        "test_data_set_1/output_0.pb", "test_data_set_1/output_1.pb",
    ]
    assert json.loads((case / "data.json").read_text()) == {"atol": 0.0, "rtol": 0.0}
    model = onnx.load(str(case / "model.onnx"))
    assert [n.input for n in model.graph.node][0] == ["seq", "item", ""]
    assert [(o.domain, o.version) for o in model.opset_import] == [("", 18)]
    assert model.graph.doc_string.startswith("SequenceInsert appends")

    def proto(kind, relative):
        message = kind()
        message.ParseFromString((case / relative).read_bytes())
        return message

    empty_seq = proto(SequenceProto, "test_data_set_0/input_0.pb")
    assert (empty_seq.name, empty_seq.elem_type, len(empty_seq.tensor_values)) == (
        "seq", SequenceProto.TENSOR, 0)
    empty_opt = proto(OptionalProto, "test_data_set_0/input_2.pb")
    assert (empty_opt.name, empty_opt.elem_type) == ("maybe", OptionalProto.UNDEFINED)
    present = proto(OptionalProto, "test_data_set_1/input_2.pb")
    assert present.elem_type == OptionalProto.TENSOR
    assert present.tensor_value.string_data == ["é".encode()]
    assert present.tensor_value.name == ""
    has = proto(TensorProto, "test_data_set_1/output_1.pb")
    assert (has.name, has.data_type, list(has.dims)) == ("has", TensorProto.BOOL, [])


def test_typed_empty_optional_option(tmp_path):
    build(tmp_path, "--empty-optional", "typed")
    message = OptionalProto()
    message.ParseFromString(
        (tmp_path / SUITE / "test_golden_layout/test_data_set_0/input_2.pb").read_bytes())
    assert message.elem_type == OptionalProto.TENSOR and not message.HasField("tensor_value")


def test_read_back_like_a_consumer(tmp_path):
    build(tmp_path)
    folder = read_case_folder(tmp_path / SUITE / "test_golden_layout")
    (in0, out0), (in1, out1) = folder.data_sets
    assert in0[0] == [] and in0[2] is None and out0[1] == np.array(False)
    assert [e.tolist() for e in out1[0]] == [[7], [8, 9, 10], [-1, 0]]
    assert [e.dtype for e in out1[0]] == [np.dtype(np.int32)] * 3
    assert in1[2] == np.array("é", dtype=object)


def test_same_bytes_every_build(tmp_path):
    build(tmp_path / "a")
    build(tmp_path / "b")
    files = tree(tmp_path / "a")
    assert files == tree(tmp_path / "b")
    for relative in files:
        assert (tmp_path / "a" / relative).read_bytes() == (tmp_path / "b" / relative).read_bytes()

