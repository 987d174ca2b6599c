"""Minimal models for the bugs the suite found in tools that rewrite models (optimizers, IR
libraries, onnx's version converter and shape inference), each written so it can be filed.

    python docs/findings/make_tool_findings.py         # write every <name>.onnx and <tool>.md
    python docs/findings/make_tool_findings.py --run   # also run each reproduction, in a child
                                                       # process, and print what it gives

Every model is valid (onnx's full check) and as small as the bug allows; what the tool should
give comes from the ONNX documentation or IR quoted beside it, never from another tool. Each
reproduction is one line that needs only onnx, numpy and the tool. The suite's transforms
(`onnx_seq_tests/_transforms/`) found them; the versions are the ones pinned there.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import onnx
from onnx import TensorProto, helper

HERE = Path(__file__).resolve().parent
F32, I64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
IR = "the ONNX IR (onnx.proto)"


@dataclass
class Finding:
    name: str
    tool: str  # the page it goes on: docs/findings/<tool>.md
    version: str  # the tool's version it was found with
    title: str
    source: str  # where the quote is: an operator's documentation, or the IR
    spec: str  # the sentence that decides it
    model: onnx.ModelProto
    command: str  # one line, run from docs/findings/
    expected: str
    thread: str = ""  # the upstream issue, where one exists


def _model(nodes, inputs, outputs, opset=18, initializers=()) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "finding", inputs, outputs,
                              initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              ir_version=8, producer_name="onnx-seq-tests findings")
    onnx.checker.check_model(model, full_check=True)
    return model


def _t(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def _seq(name, elem=F32, shape=(2,)):
    return helper.make_value_info(name, helper.make_sequence_type_proto(
        helper.make_tensor_type_proto(elem, list(shape))))


def _opt(name, elem=F32, shape=(2,)):
    return helper.make_value_info(name, helper.make_optional_type_proto(
        helper.make_tensor_type_proto(elem, list(shape))))


def _checked(tool_call: str, name: str) -> str:
    """A one-line reproduction: the tool on the model, then onnx's full check of its result."""
    return (f"python -c \"import onnx; {tool_call.format(m=f'onnx.load({name!r})')}; "
            "print(m.graph.output); onnx.checker.check_model(m, full_check=True); "
            "print('valid')\"")


def findings() -> list[Finding]:
    found = []
    optimizer = "onnxoptimizer 0.4.2"
    found.append(Finding(
        "onnxoptimizer_sequence_output_type", "onnxoptimizer", optimizer,
        "the default passes drop the type of a sequence graph output (also optional ones, and "
        "sequence or optional graph inputs): the model it writes is invalid",
        IR, "This field MUST be present in this version of the IR for inputs and outputs of the "
            "top-level graph.",
        _model([helper.make_node("SequenceConstruct", ["x"], ["s"])], [_t("x", F32, [2])],
               [_seq("s")]),
        _checked("import onnxoptimizer; m = onnxoptimizer.optimize({m})",
                 "onnxoptimizer_sequence_output_type.onnx"),
        "output s keeps its type seq(tensor(float)); the check passes",
        "https://github.com/onnx/optimizer/issues/134"))
    slim = "onnxslim 0.1.98"
    found.append(Finding(
        "onnxslim_optional_input", "onnxslim", slim,
        "any optional value at the graph's boundary crashes it (UnboundLocalError: "
        "'onnx_tensor')",
        "OptionalHasElement", "Returns true if (1) the input is an optional-type and contains "
                              "an element, or, (2) the input is a tensor or sequence type.",
        _model([helper.make_node("OptionalHasElement", ["o"], ["b"])], [_opt("o")],
               [_t("b", BOOL, [])]),
        _checked("import onnxslim; m = onnxslim.slim({m})", "onnxslim_optional_input.onnx"),
        "a model computing b as before; no exception"))
    found.append(Finding(
        "onnxslim_optional_type_dropped", "onnxslim", slim,
        "an Optional with no input loses its `type` attribute: the model it writes is invalid",
        "Optional", "Type of the element in the optional output",
        _model([helper.make_node("Optional", [], ["o"],
                                 type=helper.make_tensor_type_proto(F32, [2])),
                helper.make_node("OptionalHasElement", ["o"], ["b"])], [],
               [_t("b", BOOL, [])]),
        _checked("import onnxslim; m = onnxslim.slim({m})",
                 "onnxslim_optional_type_dropped.onnx"),
        "the Optional node keeps type = tensor(float); the check passes"))
    found.append(Finding(
        "onnxslim_sequence_output_becomes_tensor", "onnxslim", slim,
        "a sequence graph output is rewritten as a tensor output (Identity on a sequence)",
        IR, "This field MUST be present in this version of the IR for inputs and outputs of the "
            "top-level graph.",
        _model([helper.make_node("Identity", ["s"], ["y"])], [_seq("s")], [_seq("y")]),
        _checked("import onnxslim; m = onnxslim.slim({m})",
                 "onnxslim_sequence_output_becomes_tensor.onnx"),
        "output y keeps its type seq(tensor(float)); the check passes"))
    script = "onnxscript 0.7.2"
    split = helper.make_tensor("split", I64, [2], [1, 1])
    found.append(Finding(
        "onnxscript_split_to_sequence_keepdims", "onnxscript", script,
        "`optimizer.optimize` applies keepdims=0 to a SplitToSequence although `split` is "
        "given: the part it folds has shape [2], not [1, 2] (a wrong value, the model still "
        "valid)",
        "SplitToSequence", "If input 'split' is specified, this attribute is ignored.",
        _model([helper.make_node("SplitToSequence", ["x", "split"], ["parts"], axis=0,
                                 keepdims=0),
                helper.make_node("SequenceAt", ["parts", "zero"], ["y"])],
               [], [_t("y", F32, [1, 2])], initializers=[
                   helper.make_tensor("x", F32, [2, 2], [1, 2, 3, 4]), split,
                   helper.make_tensor("zero", I64, [], [0])]),
        "python -c \"import onnx; from onnx.reference import ReferenceEvaluator as R; "
        "from onnxscript import optimizer; m = onnx.load('onnxscript_split_to_sequence_keepdims"
        ".onnx'); print(R(m).run(None, {})[0].shape, R(optimizer.optimize(m)).run(None, {})[0]"
        ".shape)\"",
        "(1, 2) (1, 2)"))
    found.append(Finding(
        "onnxscript_split_to_sequence_split_input", "onnxscript", script,
        "`optimizer.optimize` crashes on a SplitToSequence whose `split` is a graph input "
        "(AttributeError: 'NoneType' object has no attribute 'ndim')",
        "SplitToSequence", "Length of each output. It can be either a scalar(tensor of empty "
                           "shape), or a 1-D tensor. All values must be >= 0.",
        _model([helper.make_node("SplitToSequence", ["x", "split"], ["parts"])],
               [_t("x", F32, [4]), _t("split", I64, [])], [_seq("parts", shape=[None])]),
        _checked("from onnxscript import optimizer; m = optimizer.optimize({m})",
                 "onnxscript_split_to_sequence_split_input.onnx"),
        "the model, optimized or unchanged; no exception"))
    found.append(Finding(
        "onnxscript_split_to_sequence_opset11", "onnxscript", script,
        "`optimizer.optimize` rewrites an opset-11 SplitToSequence as a Split with `split` as "
        "an input, a form Split has only from version 13: the model it writes is invalid",
        "Split", "length of each output",
        _model([helper.make_node("SplitToSequence", ["x", "split"], ["parts"])],
               [_t("x", F32, [2])], [_seq("parts", shape=[1])], opset=11,
               initializers=[split]),
        _checked("from onnxscript import optimizer; m = optimizer.optimize({m})",
                 "onnxscript_split_to_sequence_opset11.onnx"),
        "a model valid at opset 11 (Split-11 takes `split` as an attribute); the check passes"))
    found.append(Finding(
        "onnxscript_split_to_sequence_int32_split", "onnxscript", script,
        "`optimizer.optimize` hands SplitToSequence's int32 `split` to a Split, which takes "
        "int64 only: the model it writes is invalid",
        "SplitToSequence", "Constrain split size to integral tensor.",
        _model([helper.make_node("SplitToSequence", ["x", "split"], ["parts"], axis=-1)],
               [_t("x", F32, [2, 3]), _t("split", TensorProto.INT32, [2])],
               [_seq("parts", shape=[2, None])], opset=24),
        _checked("from onnxscript import optimizer; m = optimizer.optimize({m})",
                 "onnxscript_split_to_sequence_int32_split.onnx"),
        "a valid model (the split cast to int64, or the node kept); the check passes"))
    ir = "onnx-ir 1.1.0"
    found.append(Finding(
        "onnx_ir_cse_optional_type", "onnx-ir", ir,
        "the common-subexpression pass crashes on an Optional with a `type` attribute "
        "(TypeError: unhashable type: 'TypeAndShape'); onnxscript's optimizer runs it, so "
        "`optimizer.optimize` fails the same way",
        "Optional", "Type of the element in the optional output",
        _model([helper.make_node("Optional", [], ["o"],
                                 type=helper.make_tensor_type_proto(F32, [2])),
                helper.make_node("OptionalHasElement", ["o"], ["b"])], [],
               [_t("b", BOOL, [])]),
        "python -c \"import onnx, onnx_ir as ir; from onnx_ir.passes.common import "
        "CommonSubexpressionEliminationPass as P; m = ir.serde.deserialize_model(onnx.load("
        "'onnx_ir_cse_optional_type.onnx')); P()(m); print('done')\"",
        "done"))
    branches = {
        "then_branch": helper.make_graph([helper.make_node("SequenceErase", ["s"], ["erased"])],
                                         "then", [], [_seq("erased")]),
        "else_branch": helper.make_graph([helper.make_node("Identity", ["s"], ["kept"])],
                                         "else", [], [_seq("kept")])}
    found.append(Finding(
        "onnx_ir_identity_elimination_if_branch", "onnx-ir", ir,
        "the identity-elimination pass empties an If branch whose output is Identity of an "
        "outer value, renaming the outer value to the branch output: the model it writes is "
        "invalid (\"Graph output 'kept' is not an output of any node in graph\")",
        "If", "Graph to run if condition is false. Has N outputs: values you wish to be "
              "live-out to the enclosing scope. The number of outputs must match the number of "
              "outputs in the then_branch.",
        _model([helper.make_node("SequenceConstruct", ["x"], ["s"]),
                helper.make_node("If", ["cond"], ["y"], **branches)],
               [_t("cond", BOOL, []), _t("x", F32, [2])], [_seq("y")]),
        "python -c \"import onnx, onnx_ir as ir; from onnx_ir.passes.common import "
        "IdentityEliminationPass as P; m = ir.serde.deserialize_model(onnx.load("
        "'onnx_ir_identity_elimination_if_branch.onnx')); P()(m); m = ir.serde."
        "serialize_model(m); onnx.checker.check_model(m, full_check=True); print('valid')\"",
        "valid"))
    onnx_version = f"onnx {onnx.__version__}"
    found.append(Finding(
        "onnx_version_converter_identity_16_to_14", "onnx", onnx_version,
        "the version converter cannot take Identity on a sequence from opset 16 down to 14 "
        "(\"No Adapter From Version $16 for Identity\"; If and Constant alike), though the "
        "model is valid at opset 14",
        "Identity", "Constrain input and output types to all tensor and sequence types.",
        _model([helper.make_node("Identity", ["s"], ["y"])], [_seq("s")], [_seq("y")],
               opset=16),
        "python -c \"import onnx; from onnx import version_converter as v; m = v.convert_version("
        "onnx.load('onnx_version_converter_identity_16_to_14.onnx'), 14); "
        "onnx.checker.check_model(m, full_check=True); print('valid')\"",
        "valid", "https://github.com/onnx/onnx/issues/3984 (the same gap for SequenceInsert)"))
    found.append(Finding(
        "onnx_version_converter_constant_to_11", "onnx", onnx_version,
        "the version converter cannot take a Constant down to opset 11 (\"No Adapter To "
        "Version $11 for Constant\"), though a Constant with a `value` tensor means the same "
        "there",
        "Constant", "A constant tensor. Exactly one of the two attributes, either value or "
                    "sparse_value, must be specified.",
        _model([helper.make_node("Constant", [], ["c"], value=helper.make_tensor(
                    "c", F32, [2], [1, 2])),
                helper.make_node("SequenceConstruct", ["c"], ["s"])], [], [_seq("s")],
               opset=12),
        "python -c \"import onnx; from onnx import version_converter as v; m = v.convert_version("
        "onnx.load('onnx_version_converter_constant_to_11.onnx'), 11); "
        "onnx.checker.check_model(m, full_check=True); print('valid')\"",
        "valid"))
    outer = {
        "then_branch": helper.make_graph(
            [helper.make_node("OptionalGetElement", ["maybe"], ["got"])], "then", [],
            [_t("got", F32, [2])]),
        "else_branch": helper.make_graph(
            [helper.make_node("Identity", ["default"], ["fallback"])], "else", [],
            [_t("fallback", F32, [2])])}
    found.append(Finding(
        "onnx_version_converter_if_outer_optional", "onnx", onnx_version,
        "the version converter, taking a model from opset 18 to 15, refuses OptionalGetElement "
        "on an optional of the enclosing graph inside an If branch as a \"Non-Optional input\", "
        "though the input is an optional",
        "OptionalGetElement", "Constrain input type to optional tensor and optional sequence "
                              "types.",
        _model([helper.make_node("OptionalHasElement", ["maybe"], ["has"]),
                helper.make_node("If", ["has"], ["value"], **outer)],
               [_opt("maybe"), _t("default", F32, [2])], [_t("value", F32, [2])]),
        "python -c \"import onnx; from onnx import version_converter as v; m = v.convert_version("
        "onnx.load('onnx_version_converter_if_outer_optional.onnx'), 15); "
        "onnx.checker.check_model(m, full_check=True); print('valid')\"",
        "valid"))
    body = helper.make_graph(
        [helper.make_node("Identity", ["c"], ["c_out"]),
         helper.make_node("SequenceInsert", ["carried", "x"], ["grown"])], "body",
        [_t("i", I64, []), _t("c", BOOL, []),
         _seq("carried", elem=TensorProto.INT32, shape=[1, None])],
        [_t("c_out", BOOL, []), _seq("grown", elem=TensorProto.INT32, shape=[1, None])])
    found.append(Finding(
        "onnx_shape_inference_loop_carried_sequence", "onnx", onnx_version,
        "shape inference gives a Loop's carried sequence the element shape of its start "
        "value ([1, 1]), though the body inserts [1, 0] tensors: SequenceAt on the result is "
        "inferred [1, 1] where the value is [1, 0]",
        "Loop", "The initial values of any loop-carried dependencies (values that change "
                "across loop iterations)",
        _model([helper.make_node("SequenceConstruct", ["start_0"], ["start"]),
                helper.make_node("Loop", ["trip_count", "", "start"], ["seq"], body=body),
                helper.make_node("SequenceAt", ["seq", "one"], ["y"])],
               [_t("trip_count", I64, []), _t("x", TensorProto.INT32, [1, 0]),
                _t("start_0", TensorProto.INT32, [1, 1])],
               [_t("y", TensorProto.INT32, [1, None])], opset=16,
               initializers=[helper.make_tensor("one", I64, [], [1])]),
        "python -c \"import onnx; m = onnx.load('onnx_shape_inference_loop_carried_sequence.onnx'"
        "); m.graph.output[0].ClearField('type'); print(onnx.shape_inference.infer_shapes(m, "
        "strict_mode=True).graph.output[0].type.tensor_type.shape)\"",
        "dim 0 = 1, dim 1 unknown or 0 (the body inserts [1, 0] tensors)"))
    return found


def write(found: list[Finding]) -> None:
    pages: dict[str, list[Finding]] = {}
    for f in found:
        (HERE / f"{f.name}.onnx").write_bytes(f.model.SerializeToString())
        pages.setdefault(f.tool, []).append(f)
    for tool, items in pages.items():
        lines = [f"# Bugs found in {tool}", "",
                 "Each model is minimal and valid (onnx's full check); what the tool should give "
                 "comes from the ONNX documentation or IR quoted beside it. Written by `python "
                 "docs/findings/make_tool_findings.py`; `--run` runs each reproduction. Run the "
                 "one-line command from this folder.", ""]
        for f in items:
            lines += [f"## {f.title}", "",
                      f"Found with {f.version}. Model: [`{f.name}.onnx`]({f.name}.onnx). "
                      f"Expected: {f.expected}."
                      + (f" Upstream: {f.thread}." if f.thread else ""), "",
                      f"> {f.spec} ({f.source})", "", "    " + f.command, ""]
        (HERE / f"{tool}.md").write_text("\n".join(lines), encoding="utf-8")


def run(found: list[Finding]) -> None:
    for f in found:
        done = subprocess.run(["bash", "-c", f.command], cwd=HERE, capture_output=True,
                              text=True, timeout=300, env=os.environ)
        got = " ".join(done.stdout.split())[-300:] or f"(exit {done.returncode}, no output)"
        if done.returncode:
            errors = [line for line in done.stderr.splitlines() if line.strip()]
            got = f"exit {done.returncode}: {(errors or ['(no message)'])[-1].strip()[:300]}"
        print(f"{f.name}\n  expected: {f.expected}\n  got:      {got}")


if __name__ == "__main__":
    everything = findings()
    write(everything)
    if "--run" in sys.argv[1:]:
        run(everything)
