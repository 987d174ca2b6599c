"""Transforms as subjects (onnx_seq_tests/_transforms/): every built-in transform runs for real
on models of the committed suite and either gives a model onnx's checker accepts or fails as
TransformFailed / InvalidModel naming itself, never otherwise; specs resolve or are refused in
one line; the chain runs in order."""

import onnx
import pytest
from conftest import GENERATED
from onnx import TensorProto, helper

from onnx_seq_tests._core.errors import ArgumentError, InvalidModel, TransformFailed
from onnx_seq_tests._transforms import (
    TRANSFORMS,
    Transform,
    apply_transforms,
    describe,
    load_transform,
)
from onnx_seq_tests._transforms.builtin import lowest_opset, unused_opsets_dropped

#: A few models of the committed suite, one per kind of thing the tools break: a sequence
#: output, an input-less Optional with a type, a SplitToSequence with a scalar split, a Loop.
SAMPLES = ["test_sequence_construct_newest_opset", "test_optional_v15_no_input_tensor_type",
           "test_split_to_sequence_scalar_split_initializer", "test_loop_v13_carries_sequence"]


def _model(name: str) -> onnx.ModelProto:
    matches = sorted(GENERATED.glob(f"*/{name}/model.onnx"))
    assert matches, f"no case folder {name} in generated/"
    return onnx.load(matches[0])


@pytest.fixture(scope="module")
def samples() -> dict[str, onnx.ModelProto]:
    return {name: _model(name) for name in SAMPLES}


def test_every_model_of_the_suite_passes_the_full_check_untransformed():
    """What makes InvalidModel the transform's fault: the suite's models are all valid."""
    for path in sorted(GENERATED.glob("*/*/model.onnx")):
        onnx.checker.check_model(onnx.load(path), full_check=True)


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_a_builtin_transform_gives_a_valid_model_or_says_whose_fault(name, samples):
    transform = TRANSFORMS[name]
    assert transform.summary and "not installed" not in describe(transform)
    for model in samples.values():
        try:
            made = apply_transforms(model, [transform])
        except (TransformFailed, InvalidModel) as error:
            assert error.transform == name
            assert str(error).startswith(name) and "\n" not in str(error)
        else:
            onnx.checker.check_model(made, full_check=True)


def test_onnxoptimizer_drops_the_type_of_a_sequence_output(samples):
    """onnx/optimizer#134: the model it makes has a graph output without a type."""
    with pytest.raises(InvalidModel, match="onnxoptimizer made an invalid model: .*type"):
        apply_transforms(samples["test_sequence_construct_newest_opset"],
                         [TRANSFORMS["onnxoptimizer"]])


def test_onnxruntime_offline_drops_its_unused_opset_so_onnxruntime_takes_the_model(samples):
    """onnxruntime saves an import of com.microsoft into every model it optimizes, and its own
    backend refuses a model importing an opset that is not released: the transform drops the
    imports no node uses, so the model is judged, not refused."""
    import onnxruntime.backend

    for name, model in samples.items():
        made = apply_transforms(model, [TRANSFORMS["onnxruntime-offline"]])
        assert {o.domain for o in made.opset_import} <= {"", "ai.onnx"}, name
        onnxruntime.backend.prepare(made, "CPU")


def test_unused_opsets_dropped_keeps_what_a_node_uses_even_in_a_subgraph():
    body = helper.make_graph(
        [helper.make_node("Gelu", ["x"], ["y"], domain="com.microsoft")], "body",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    graph = helper.make_graph(
        [helper.make_node("If", ["c"], ["y"], then_branch=body, else_branch=body)], "g",
        [helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    imports = [helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1),
               helper.make_opsetid("ai.onnx.ml", 3)]
    model = helper.make_model(graph, opset_imports=imports)
    kept = unused_opsets_dropped(model)
    assert [o.domain for o in kept.opset_import] == ["", "com.microsoft"]
    empty = helper.make_model(helper.make_graph([], "g", [], []), opset_imports=imports)
    assert [o.domain for o in unused_opsets_dropped(empty).opset_import] == [""]


def test_onnx_round_trips_keep_the_model(samples):
    for name in ("onnx-ir", "onnx-text"):
        for model in samples.values():
            made = apply_transforms(model, [TRANSFORMS[name]])
            assert made.graph.output == model.graph.output
            assert [n.op_type for n in made.graph.node] == [n.op_type for n in model.graph.node]


def _raises(model):
    raise RuntimeError("the tool broke\nsecond line")


def _gives_text(model):
    return "not a model"


def _drops_output_type(model):
    model.graph.output[0].ClearField("type")
    return model


def _renames_graph(model):
    model.graph.name = model.graph.name + "_renamed"
    return model


def test_a_transform_that_raises_is_transform_failed_on_one_line(samples):
    transform = load_transform(f"{__name__}:_raises")
    with pytest.raises(TransformFailed) as caught:
        apply_transforms(samples["test_sequence_construct_newest_opset"], [transform])
    assert str(caught.value) == f"{__name__}:_raises: RuntimeError: the tool broke"


def _wraps_its_error(model):
    try:
        hash({"type": model.graph.name})
    except TypeError as error:
        raise RuntimeError("An error occurred when running the '<Pass object at 0x7f12ab>' "
                           "pass\nsecond line") from error
    return model


def test_a_wrapped_error_is_named_with_its_root_and_no_address(samples):
    """A tool that wraps what it met (`raise ... from`, as onnx_ir's PassError) is reported
    with the root of its causes, so failures group by cause; no object address, which would
    differ from run to run."""
    with pytest.raises(TransformFailed) as caught:
        apply_transforms(samples["test_sequence_construct_newest_opset"],
                         [load_transform(f"{__name__}:_wraps_its_error")])
    assert str(caught.value) == (f"{__name__}:_wraps_its_error: RuntimeError from TypeError: "
                                 "unhashable type: 'dict'")
    assert "0x" not in str(caught.value)


def test_a_failure_message_holds_no_object_address(samples):
    """An address differs from run to run; the recorded verdicts must not."""
    def fails(model):
        raise RuntimeError(f"running {object()!r} failed")

    with pytest.raises(TransformFailed) as raised:
        apply_transforms(samples[SAMPLES[0]], [Transform("mine", fails, None, "")])
    assert "<object object> failed" in str(raised.value) and "0x" not in str(raised.value)


def test_a_transform_that_returns_no_model_is_transform_failed(samples):
    with pytest.raises(TransformFailed, match="returned str, not a ModelProto"):
        apply_transforms(samples["test_sequence_construct_newest_opset"],
                         [load_transform(f"{__name__}:_gives_text")])


def test_an_invalid_result_is_invalid_model_naming_the_transform(samples):
    with pytest.raises(InvalidModel, match=f"^{__name__}:_drops_output_type made an invalid"):
        apply_transforms(samples["test_sequence_construct_newest_opset"],
                         [load_transform(f"{__name__}:_drops_output_type")])


def test_the_chain_runs_in_order_on_copies(samples):
    model = samples["test_sequence_construct_newest_opset"]
    before = model.SerializeToString()
    rename = load_transform(f"{__name__}:_renames_graph")
    made = apply_transforms(model, [rename, TRANSFORMS["onnx-ir"], rename])
    assert made.graph.name == model.graph.name + "_renamed_renamed"
    assert model.SerializeToString() == before  # the caller's model is never changed
    with pytest.raises(InvalidModel, match=f"^{__name__}:_drops_output_type"):
        apply_transforms(model, [rename, load_transform(f"{__name__}:_drops_output_type"),
                                 load_transform(f"{__name__}:_raises")])


@pytest.mark.parametrize("spec, said", [
    ("nosuchtool", "not a transform name (onnxsim, "),
    ("no_such_module_xyz:f", "cannot import module 'no_such_module_xyz'"),
    ("onnx:no_such_function", "'onnx' has no attribute 'no_such_function'"),
    ("onnx:__version__", "'__version__' is not callable"),
    ("a b:c", "not a transform name"),
])
def test_a_bad_spec_is_one_line_naming_it(spec, said):
    with pytest.raises(ArgumentError) as caught:
        load_transform(spec)
    assert f"--transform {spec!r}: " in str(caught.value) and said in str(caught.value)
    assert "\n" not in str(caught.value)


def test_the_lowest_opset_is_the_newest_first_version_of_the_model_operators():
    graph = helper.make_graph(
        [helper.make_node("SequenceConstruct", ["x"], ["s"]),
         helper.make_node("Optional", ["s"], ["o"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_value_info("o", helper.make_optional_type_proto(
            helper.make_sequence_type_proto(
                helper.make_tensor_type_proto(TensorProto.FLOAT, [1]))))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    assert lowest_opset(model) == 15  # Optional first appears in opset 15, SequenceConstruct 11
