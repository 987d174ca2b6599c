"""Type and shape inference judged (onnx_seq_tests/_run/inference.py): onnx's shape inference
and onnxruntime's session types, from scratch, against the declared types and the spec's
expected values."""

import json
import shutil
from dataclasses import replace

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from conftest import GENERATED
from onnx import TensorProto, helper

from onnx_seq_tests._cli import main
from onnx_seq_tests._core.errors import NotJudged
from onnx_seq_tests._core.value_kinds import parse_type
from onnx_seq_tests._published.case_folder import read_case_folder
from onnx_seq_tests._published.discovery import find_cases
from onnx_seq_tests._run.inference import InferenceFinding, judge


def _folder(name: str):
    return read_case_folder(sorted(GENERATED.glob(f"*/{name}"))[0])


def test_onnx_infers_the_loop_carried_sequence_from_its_start_not_its_body():
    """Loop's inference keeps the start value's element shape [1, 1] for a carried sequence
    that the body grows with [1, 0] tensors (body output declared [1, ?]): the spec's values,
    computed by the oracle, have shape [1, 0]."""
    found = judge(_folder("test_loop_v16_zero_element_tensor_into_sequence__len1_len3"), "onnx")
    assert [(f.output, f.kind, f.message) for f in found] == [
        ("seq_1", "shape", "infers shape [1, 1], data set 0 expects [1, 0]"),
        ("seq_2", "shape", "infers shape [1, 1], data set 0 expects [1, 0]")]


def test_inference_that_knows_less_is_no_finding():
    """ConcatFromSequence: onnx infers [unk, 3] where the values are [6, 3]."""
    folder = _folder("test_cc_concat_from_sequence_axis_0")
    assert judge(folder, "onnx") == [] and judge(folder, "onnxruntime") == []


def _identity_folder(declared: str, value: np.ndarray):
    """A case folder read as a consumer reads it, its model an Identity on float [2]."""
    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    folder = _folder("test_cc_concat_from_sequence_axis_0")
    return replace(folder, model=model, output_types=[parse_type(declared)],
                   data_sets=[([value], [value])])


def test_a_type_that_differs_from_the_declared_one_is_a_type_finding():
    folder = _identity_folder("tensor(int64)", np.zeros(2, np.int64))
    for inferrer in ("onnx", "onnxruntime"):
        assert judge(folder, inferrer) == [InferenceFinding(
            folder.name, inferrer, "y", "type",
            "infers tensor(float), the case declares tensor(int64)")]


def test_a_shape_the_values_contradict_is_a_shape_finding():
    folder = _identity_folder("tensor(float)", np.zeros(3, np.float32))
    assert judge(folder, "onnx") == [InferenceFinding(
        folder.name, "onnx", "y", "shape", "infers shape [2], data set 0 expects [3]")]
    assert judge(folder, "onnxruntime") == []  # its shapes are not judged


def test_a_model_the_runtime_refuses_as_written_is_not_judged():
    """onnxruntime has no complex128 sequences: a refusal, not an inference finding."""
    folder = _folder("test_concat_from_sequence_v11_complex128")
    with pytest.raises(NotJudged, match="complex128"):
        judge(folder, "onnxruntime")


def test_an_inferrer_that_raises_is_a_raised_finding_on_one_line():
    folder = _identity_folder("tensor(float)", np.zeros(2, np.float32))
    broken = onnx.ModelProto()
    broken.CopyFrom(folder.model)
    broken.graph.node[0].op_type = "Reshape"  # Reshape needs two inputs: strict mode raises
    found = judge(replace(folder, model=broken), "onnx")
    assert [(f.kind, f.output) for f in found] == [("raised", "")]
    assert "\n" not in found[0].message and found[0].message


def test_the_whole_suite_as_results_of_two_subjects(committed_suite, suite_inference):
    """run_inference (the session's `suite_inference`: every case folder, onnx and
    onnxruntime) gives one Result per case folder and inferrer, named `<inferrer>-inference`,
    so every report takes them; the known finding is a `fail` with its output."""
    refs = find_cases([committed_suite])
    results = suite_inference
    assert len(results) == 2 * len(refs)
    assert {r.backend for r in results} == {"onnx-inference", "onnxruntime-inference"}
    failed = {(r.backend, r.name): r.message for r in results if r.outcome == "fail"}
    key = ("onnx-inference", "test_loop_v16_zero_element_tensor_into_sequence__len1_len3")
    assert failed[key].startswith("seq_1: infers shape [1, 1], data set 0 expects [1, 0]; ")
    assert {r.outcome for r in results} <= {"pass", "fail", "refused"}
    assert all(r.outcome == "refused" for r in results
               if r.backend == "onnxruntime-inference" and "complex128" in r.name)


def _copy(name: str, root):
    source = sorted(GENERATED.glob(f"*/{name}"))[0]
    shutil.copytree(source, root / name)


def test_verify_inference_is_a_subject_beside_the_backends(tmp_path):
    """`verify --inference onnx`: the known finding fails as `onnx-inference` (exit 1), in
    the printed results and the JSON and Markdown reports; an --xfail line for it passes the
    run; a case the inferrer agrees on passes."""
    suite = tmp_path / "suite"
    for name in ("test_loop_v16_zero_element_tensor_into_sequence__len1_len3",
                 "test_cc_concat_from_sequence_axis_0"):
        _copy(name, suite)
    args = ["verify", str(suite), "-b", "onnxruntime", "--inference", "onnx",
            "--json", str(tmp_path / "r.json"), "--markdown", str(tmp_path / "r.md")]
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 1, done.output
    assert ("FAIL  [onnx-inference] test_loop_v16_zero_element_tensor_into_sequence__len1_len3"
            in done.output)
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["backends"] == ["onnxruntime", "onnx-inference"]
    assert report["described"]["onnx-inference"].startswith("onnx ")
    outcomes = {(r["backend"], r["name"]): r["outcome"] for r in report["results"]}
    assert outcomes[("onnx-inference", "test_cc_concat_from_sequence_axis_0")] == "pass"
    assert "onnx-inference" in (tmp_path / "r.md").read_text()
    assert "--inference onnx" in (tmp_path / "r.md").read_text()
    xfail = tmp_path / "xfail.txt"
    xfail.write_text("onnx-inference test_loop_v16_zero_element_tensor_into_sequence__.*\n")
    done = CliRunner().invoke(main, ["verify", str(suite), "-b", "onnxruntime", "--inference",
                                     "onnx", "--xfail", str(xfail), "--strict-xfail"])
    assert done.exit_code == 0, done.output


def test_verify_inference_takes_only_the_known_inferrers(tmp_path):
    done = CliRunner().invoke(main, ["verify", str(GENERATED), "-b", "reference",
                                     "--inference", "tvm"])
    assert done.exit_code == 2 and "Traceback" not in done.output
    assert "'tvm' is not one of 'onnx', 'onnxruntime'" in done.output
