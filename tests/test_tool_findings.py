"""The tool findings (docs/findings/make_tool_findings.py): the committed pages and models are
what the script writes, every model is valid, and each bug still shows on the pinned tool
through the suite's own transforms (so a fixed upstream bug fails here, and its page goes)."""

import onnx
import pytest
from findings_scripts import assert_committed, load
from onnx.reference import ReferenceEvaluator

from onnx_seq_tests._core.errors import InvalidModel, TransformFailed
from onnx_seq_tests._transforms import (
    TRANSFORMS,
    apply_transforms,
)


def _script():
    return load("make_tool_findings")


@pytest.fixture(scope="module")
def found():
    return {f.name: f for f in _script().findings()}


def test_the_committed_models_and_pages_are_what_the_script_writes(found, tmp_path,
                                                                   monkeypatch):
    assert_committed("make_tool_findings", list(found.values()), tmp_path, monkeypatch)


#: Finding -> the transform that shows it, and what it raises.
SHOWN_BY = {
    "onnxoptimizer_sequence_output_type": ("onnxoptimizer", InvalidModel),
    "onnxslim_optional_input": ("onnxslim", TransformFailed),
    "onnxslim_optional_type_dropped": ("onnxslim", InvalidModel),
    "onnxslim_sequence_output_becomes_tensor": ("onnxslim", InvalidModel),
    "onnxscript_split_to_sequence_split_input": ("onnxscript-optimize", TransformFailed),
    "onnxscript_split_to_sequence_opset11": ("onnxscript-optimize", InvalidModel),
    "onnx_ir_cse_optional_type": ("onnx-ir-passes", TransformFailed),
    "onnx_version_converter_identity_16_to_14": ("version-lowest", TransformFailed),
    "onnxscript_split_to_sequence_int32_split": ("onnxscript-optimize", InvalidModel),
    "onnx_ir_identity_elimination_if_branch": ("onnx-ir-passes", InvalidModel),
    "onnx_version_converter_constant_to_11": ("version-lowest", TransformFailed),
    "onnx_version_converter_if_outer_optional": ("version-lowest", TransformFailed),
}


@pytest.mark.parametrize("name", sorted(SHOWN_BY))
def test_the_bug_still_shows_through_the_transform(found, name):
    transform, error = SHOWN_BY[name]
    with pytest.raises(error):
        apply_transforms(found[name].model, [TRANSFORMS[transform]])


def test_the_folded_keepdims_part_has_the_wrong_shape(found):
    model = found["onnxscript_split_to_sequence_keepdims"].model
    made = apply_transforms(model, [TRANSFORMS["onnxscript-optimize"]])
    assert ReferenceEvaluator(model).run(None, {})[0].shape == (1, 2)  # the spec's
    assert ReferenceEvaluator(made).run(None, {})[0].shape == (2,)  # the tool's


def test_the_loop_inference_finding_still_shows(found):
    model = onnx.ModelProto()
    model.CopyFrom(found["onnx_shape_inference_loop_carried_sequence"].model)
    model.graph.output[0].ClearField("type")
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    dims = inferred.graph.output[0].type.tensor_type.shape.dim
    assert [d.dim_value for d in dims] == [1, 1]  # the value has shape [1, 0]


def test_every_finding_is_shown_by_a_test(found):
    assert set(found) == {*SHOWN_BY, "onnxscript_split_to_sequence_keepdims",
                          "onnx_shape_inference_loop_carried_sequence"}
