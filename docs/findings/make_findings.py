"""Minimal models for the runtime bugs the suite and its fuzzer found, each written so it can be
filed upstream: one page per runtime (openvino.md, tvm.md, iree.md) and an index (README.md).

    python docs/findings/make_findings.py          # write every <name>.onnx and the pages here
    python docs/findings/make_findings.py --check  # run each one-line reproduction on the
                                                   # installed runtime, in a child process, and
                                                   # say which bugs are still there and which fixed

Every model keeps its values as graph inputs where the runtime takes them (constant folding hides
some of these bugs), and its expected outputs come from the ONNX operator documentation quoted
beside it, never from a runtime (tests/test_runtime_findings.py checks them against the suite's
spec oracle). The one-line command printed for each finding needs only numpy and the runtime (for
IREE, the iree-import-onnx, iree-compile and iree-run-module tools of its packages, on PATH).
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

HERE = Path(__file__).resolve().parent
#: Per runtime: its distribution, the version every finding was last confirmed on (--check), and
#: what it is.
RUNTIMES = {
    "onnxruntime": ("onnxruntime", "1.32.0", "onnxruntime's CPU execution provider"),
    "reference": ("onnx", "1.23.2", "onnx's reference evaluator (`onnx.reference`)"),
    "openvino": ("openvino", "2026.4.1", "OpenVINO's ONNX frontend and CPU plugin"),
    "tvm": ("apache-tvm", "0.27.0.post1", "TVM's Relax ONNX frontend (`from_onnx`), built "
            "for llvm"),
    "iree": ("iree-base-compiler", "3.13.0", "IREE: torch-mlir's ONNX importer "
             "(iree-import-onnx) and iree-compile for llvm-cpu"),
    "tinygrad": ("tinygrad", "0.14.0", "tinygrad's ONNX runner on its PYTHON device"),
    "tract": ("tract", "0.23.9", "tract's ONNX loader"),
}
#: What a runtime's page says when it has no finding.
NOTHING_FOUND = {
    "tract": "No finding: tract has no sequence or optional values and refuses every model with "
             "a sequence operator, so neither the suite nor a 20-minute fuzz campaign "
             "(docs/fuzzing.md: 4,864 programs, all refused) reached anything to judge.",
}
#: How long --check waits for one reproduction, and the memory it may take (a hang found by the
#: fuzzer grows without bound).
CHECK_SECONDS, CHECK_MEMORY_KIB = 180, 8 * 1024 * 1024
F32, F64, I64, I8, BOOL, STR = (TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.INT64,
                                TensorProto.INT8, TensorProto.BOOL, TensorProto.STRING)


@dataclass
class Finding:
    name: str
    runtime: str
    title: str
    spec: str  # the ONNX sentence that decides it
    model: onnx.ModelProto
    feeds: str  # a Python literal of numpy inputs: a dict by input name, or a list by position
    expected: str  # what the ONNX documentation says the outputs are
    crash: bool = False  # the bug is a crash of the process, not a wrong value
    iree_inputs: str = ""  # the feeds as iree-run-module's --input flags (IREE findings)
    # The outputs the spec gives, in order: a Python expression of numpy arrays (printed as
    # the one-liner prints them), or for IREE the text iree-run-module prints for the result.
    expected_values: str = ""
    got: str = ""  # what the runtime gave, at its version in RUNTIMES
    upstream: str = ""  # the upstream thread(s), Markdown
    hangs: bool = False  # the bug is a run that never ends (the check stops it)

    def fixed_text(self) -> str:
        """What the one-liner prints once the bug is fixed (whitespace collapsed)."""
        if self.crash:
            return "read"
        if self.runtime == "iree":
            return self.expected_values
        return " ".join(str(eval(self.expected_values, {"np": np})).split())  # noqa: S307

    def command(self) -> str:
        if self.runtime == "onnxruntime":
            return ("python -c \"import numpy as np, onnxruntime as ort; "
                    f"s = ort.InferenceSession('{self.name}.onnx'); "
                    f"print(s.run(None, {self.feeds}))\"")
        if self.runtime == "reference":
            return ("python -c \"import numpy as np; from onnx.reference import "
                    f"ReferenceEvaluator as R; print(R('{self.name}.onnx').run(None, "
                    f"{self.feeds}))\"")
        if self.runtime == "tinygrad":
            return ("DEV=PYTHON python -c \"import numpy as np; from tinygrad import Device, "
                    "Tensor; from tinygrad.nn.onnx import OnnxRunner; r = OnnxRunner(Tensor(open("
                    f"'{self.name}.onnx', 'rb').read()))({self.feeds}); "
                    "print([v.clone(Device.DEFAULT).numpy() for v in r.values()])\"")
        if self.runtime == "tvm":
            return ("python -c \"import numpy as np, onnx, tvm; from tvm import relax; "
                    "from tvm.relax.frontend.onnx import from_onnx; m = from_onnx(onnx.load("
                    f"'{self.name}.onnx')); f = relax.VirtualMachine(tvm.compile(m, "
                    "target='llvm'), tvm.cpu())['main']; "
                    f"r = f(*[tvm.runtime.tensor(v) for v in {self.feeds}.values()]); "
                    "print([t.numpy() for t in ([r] if hasattr(r, 'numpy') else r)])\"")
        if self.runtime == "iree":
            out = f"/tmp/{self.name}"
            return (f"iree-import-onnx {self.name}.onnx -o {out}.mlir && iree-compile {out}.mlir "
                    f"--iree-hal-target-backends=llvm-cpu -o {out}.vmfb && iree-run-module "
                    f"--module={out}.vmfb --device=local-sync --function=finding"
                    + (f" {self.iree_inputs}" if self.iree_inputs else ""))
        if self.crash:
            return (f"python -c \"import openvino as ov; ov.Core().read_model('{self.name}.onnx'); "
                    "print('read')\"")
        return ("python -c \"import numpy as np, openvino as ov; "
                f"m = ov.Core().compile_model('{self.name}.onnx', 'CPU'); "
                f"print([v for v in m({self.feeds}).values()])\"")


#: The upstream threads of each finding, as searched on 2026-12-04: a report of the same bug, or
#: the closest thread and how it relates (none is a report unless it says so).
OV, TVM = "https://github.com/openvinotoolkit/openvino", "https://github.com/apache/tvm"
UPSTREAM = {
    "openvino_sequence_at_negative_position_input":
        "not reported; a fix attempt, closed unmerged, added SequenceAt for positions computed "
        f"at run time \"including negative indices\": [openvino#35713]({OV}/pull/35713)",
    "openvino_sequence_erase_negative_position_input":
        "not reported; related: the sequence position handling of "
        f"[openvino#36445]({OV}/pull/36445)",
    "openvino_if_else_empty_sequence_length":
        "not reported; related: If and SequenceLength handling in "
        f"[openvino#36445]({OV}/pull/36445)",
    "openvino_loop_zero_trips":
        "not reported; related (zero iterations, a different bug): "
        f"[openvino#37247]({OV}/pull/37247)",
    "openvino_split_to_sequence_strings_0d":
        "not reported for OpenVINO; onnxruntime had the same symptom (\"returns the first "
        "element n times\"): [onnxruntime#19726](https://github.com/microsoft/onnxruntime/issues/"
        "19726)",
    "openvino_int64_cut_to_32_bits":
        "the CPU plugin's known limit (\"i64 is not supported\"): "
        f"[openvino#24072]({OV}/issues/24072), [openvino#37957]({OV}/issues/37957)",
    "openvino_double_squeezed_to_float":
        f"reported: [openvino#37968]({OV}/issues/37968); a fix attempt, closed: "
        f"[openvino#34249]({OV}/pull/34249)",
    "openvino_if_sequence_of_one_tensor_length":
        f"not reported; related: sequences from If outputs in [openvino#36228]({OV}/pull/36228)",
    "openvino_if_branches_change_outer_sequence":
        f"not reported; related: sequences from If outputs in [openvino#36228]({OV}/pull/36228)",
    "openvino_loop_constant_false_condition":
        "not reported; related (zero iterations, a different bug): "
        f"[openvino#37247]({OV}/pull/37247)",
    "openvino_concat_from_sequence_constant_last_empty":
        "not reported; related: the cases `SequenceConcatReplacer` matches, in "
        f"[openvino#36015]({OV}/pull/36015)",
    "tvm_size_of_shape":
        f"not reported for Size; the same error for Resize, fixed by [tvm#18209]({TVM}/pull/"
        f"18209); Gather and Where take Shape outputs since [tvm#20179]({TVM}/pull/20179) and "
        f"[tvm#20210]({TVM}/pull/20210)",
    "tvm_sequence_insert_negative_position":
        "not reported; the same arithmetic (`len(input_sequence) + position + 1`) is in the "
        f"older Relay converter of [tvm#13865]({TVM}/pull/13865); the Relax converters came with "
        f"[tvm#17427]({TVM}/pull/17427)",
    "tvm_unknown_dims_one_symbol":
        f"not reported; the frontend keys dims by name since [tvm#15919]({TVM}/pull/15919) "
        "(\"ValueInfoProto with same name will map to same SizeVar\")",
    "tvm_zero_dim_read_as_unknown":
        "not reported (the frontend's `get_info` reads a dim value of 0 like a missing one)",
    "tvm_zero_element_constant":
        "not reported (the suite's zero-element cases in their constant form, "
        "docs/conformance.md \"Zero-element initializers cannot be loaded\")",
    "tvm_constant_value_int":
        f"the same error for `value_float`: [tvm#15719]({TVM}/issues/15719)",
    "tvm_split_to_sequence_single_chunk":
        f"not reported; the behaviour came with [tvm#17642]({TVM}/pull/17642) (\"return a "
        "TensorStructInfo instead of a TupleStructInfo if the operator produces only one "
        "split\")",
    "iree_sequence_empty_length":
        "not reported; the lowering came with "
        "[torch-mlir#3425](https://github.com/llvm/torch-mlir/pull/3425)",
    "iree_unknown_output_dim_refused":
        "not reported; the same error the other way round (operand `?`, result static): "
        "[iree#18269](https://github.com/iree-org/iree/issues/18269)",
}


def _model(nodes, inputs, outputs, opset=18, ml_opset=None) -> onnx.ModelProto:
    """A checked model of one graph named `finding` (IREE names its function after it);
    `ml_opset`: the ai.onnx.ml opset it imports too."""
    graph = helper.make_graph(nodes, "finding", inputs, outputs)
    imports = [helper.make_opsetid("", opset)]
    if ml_opset is not None:
        imports.append(helper.make_opsetid("ai.onnx.ml", ml_opset))
    model = helper.make_model(graph, opset_imports=imports,
                              ir_version=8, producer_name="onnx-seq-tests findings")
    onnx.checker.check_model(model, full_check=True)
    return model


def _t(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def _const(name, value):
    return helper.make_node("Constant", [], [name],
                            value=helper.make_tensor(name, I64, [], [value]))


def _three_floats():
    return ([_t(n, F32, [2]) for n in ("x0", "x1", "x2")],
            helper.make_node("SequenceConstruct", ["x0", "x1", "x2"], ["seq"]))


def _insert_body(tensor, elem, shape):
    """A Loop body that passes its condition on and inserts `tensor` into its carried sequence."""
    return helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("SequenceInsert", ["seq_in", tensor], ["seq_out"])], "body",
        [_t("i", I64, []), _t("cond_in", BOOL, []),
         helper.make_tensor_sequence_value_info("seq_in", elem, shape)],
        [_t("cond_out", BOOL, []), helper.make_tensor_sequence_value_info("seq_out", elem, shape)])


def findings() -> list[Finding]:
    three = "'x0': np.array([0., 0.], np.float32), 'x1': np.array([1., 1.], np.float32), " \
            "'x2': np.array([2., 2.], np.float32)"
    found = []

    inputs, construct = _three_floats()
    found.append(Finding(
        "openvino_sequence_at_negative_position_input", "openvino",
        "SequenceAt with a negative position given as a graph input returns the wrong element",
        "Negative value means counting positions from the back.",
        _model([construct, helper.make_node("SequenceAt", ["seq", "position"], ["y"])],
               [*inputs, _t("position", I64, [])], [_t("y", F32, [2])]),
        "{" + three + ", 'position': np.array(-3, np.int64)}", "y = [0., 0.] (x0)",
        expected_values='[np.array([0., 0.], np.float32)]',
        got='[array([2., 2.], dtype=float32)] (x2, the last)'))

    inputs, construct = _three_floats()
    found.append(Finding(
        "openvino_sequence_erase_negative_position_input", "openvino",
        "SequenceErase with a negative position given as a graph input erases the wrong element",
        "Negative value means counting positions from the back.",
        _model([construct, helper.make_node("SequenceErase", ["seq", "position"], ["rest"]),
                helper.make_node("SequenceLength", ["rest"], ["n"]), _const("zero", 0),
                _const("one", 1), helper.make_node("SequenceAt", ["rest", "zero"], ["y0"]),
                helper.make_node("SequenceAt", ["rest", "one"], ["y1"])],
               [*inputs, _t("position", I64, [])],
               [_t("n", I64, []), _t("y0", F32, [2]), _t("y1", F32, [2])]),
        "{" + three + ", 'position': np.array(-1, np.int64)}",
        "n = 2, y0 = [0., 0.] (x0), y1 = [1., 1.] (x1)",
        expected_values=("[np.array(2), np.array([0., 0.], np.float32), "
                         "np.array([1., 1.], np.float32)]"),
        got=('[array(2), array([1., 1.], dtype=float32), array([2., 2.], dtype=float32)] (x0 '
             'erased)')))

    then_branch = helper.make_graph(
        [helper.make_node("SequenceConstruct", ["x0", "x1"], ["then_seq"])], "then", [],
        [helper.make_tensor_sequence_value_info("then_seq", F32, [2])])
    else_branch = helper.make_graph(
        [helper.make_node("SequenceEmpty", [], ["else_seq"], dtype=F32)], "else", [],
        [helper.make_tensor_sequence_value_info("else_seq", F32, [2])])
    found.append(Finding(
        "openvino_if_else_empty_sequence_length", "openvino",
        "If whose else branch gives an empty sequence: SequenceLength of its output is not 0",
        "Graph to run if condition is false.",
        _model([helper.make_node("If", ["cond"], ["seq"], then_branch=then_branch,
                                 else_branch=else_branch),
                helper.make_node("SequenceLength", ["seq"], ["n"])],
               [_t("cond", BOOL, []), _t("x0", F32, [2]), _t("x1", F32, [2])],
               [_t("n", I64, [])]),
        "{'cond': np.array(False), 'x0': np.array([0., 0.], np.float32), "
        "'x1': np.array([1., 1.], np.float32)}", "n = 0",
        expected_values='[np.array(0)]',
        got='[array(2)]'))

    body = _insert_body("x", F32, [2])
    found.append(Finding(
        "openvino_loop_zero_trips", "openvino",
        "Loop whose condition input is false runs its body once",
        "This is an input to the op that determines whether to run the first iteration and "
        "also a loop-carried dependency for the body graph.",
        _model([helper.make_node("SequenceEmpty", [], ["empty"], dtype=F32),
                helper.make_node("Loop", ["", "cond", "empty"], ["final"], body=body),
                helper.make_node("SequenceLength", ["final"], ["n"])],
               [_t("cond", BOOL, []), _t("x", F32, [2])], [_t("n", I64, [])]),
        "{'cond': np.array(False), 'x': np.array([1., 2.], np.float32)}", "n = 0",
        expected_values='[np.array(0)]',
        got='[array(1)]'))

    found.append(Finding(
        "openvino_split_to_sequence_strings_0d", "openvino",
        "SplitToSequence of a string tensor into 0-d parts (keepdims=0) gives wrong strings",
        "Keep the split dimension or not. Default 1, which means we keep split dimension.",
        _model([helper.make_node("SplitToSequence", ["text"], ["parts"], keepdims=0),
                _const("zero", 0), _const("one", 1), _const("two", 2),
                helper.make_node("SequenceAt", ["parts", "zero"], ["p0"]),
                helper.make_node("SequenceAt", ["parts", "one"], ["p1"]),
                helper.make_node("SequenceAt", ["parts", "two"], ["p2"])],
               [_t("text", STR, [3])], [_t(n, STR, []) for n in ("p0", "p1", "p2")]),
        "{'text': np.array(['a', 'façade', 'b'])}", "p0 = 'a', p1 = 'façade', p2 = 'b'",
        expected_values="[np.array('a'), np.array('façade'), np.array('b')]",
        got="[array('a', dtype='<U1'), array('a', dtype='<U1'), array('a', dtype='<U1')]"))

    found.append(Finding(
        "openvino_int64_cut_to_32_bits", "openvino",
        "int64 values are cut to 32 bits (Identity of an int64 graph input)",
        "Tensor to copy input into.",
        _model([helper.make_node("Identity", ["x"], ["y"])], [_t("x", I64, [2])],
               [_t("y", I64, [2])]),
        "{'x': np.array([2**40 + 3, -2**63], np.int64)}", "y = [1099511627779, "
        "-9223372036854775808]",
        expected_values='[np.array([2**40 + 3, -2**63], np.int64)]',
        got='[array([3, 0])]'))

    found.append(Finding(
        "openvino_double_squeezed_to_float", "openvino",
        "double values are squeezed to the float range (SequenceAt of a sequence of doubles, "
        "position given as a graph input)",
        "Outputs a tensor copy from the tensor at 'position' in 'input_sequence'.",
        _model([helper.make_node("SequenceConstruct", ["d0", "d1"], ["seq"]),
                helper.make_node("SequenceAt", ["seq", "position"], ["y"])],
               [_t("d0", F64, [2]), _t("d1", F64, [2]), _t("position", I64, [])],
               [_t("y", F64, [2])]),
        "{'d0': np.array([0., 1.]), 'd1': np.array([1e300, -np.inf]), "
        "'position': np.array(1, np.int64)}", "y = [1e300, -inf]",
        expected_values='[np.array([1e300, -np.inf])]',
        got='[array([ 3.40282347e+38, -3.40282347e+38])]'))

    then_branch = helper.make_graph(
        [helper.make_node("SequenceConstruct", ["x"], ["then_seq"])], "then", [],
        [helper.make_tensor_sequence_value_info("then_seq", F32, ["N"])])
    else_branch = helper.make_graph(
        [helper.make_node("SequenceEmpty", [], ["else_seq"], dtype=F32)], "else", [],
        [helper.make_tensor_sequence_value_info("else_seq", F32, ["N"])])
    found.append(Finding(
        "openvino_if_sequence_of_one_tensor_length", "openvino",
        "If whose then branch is SequenceConstruct of one tensor of dynamic shape: SequenceLength "
        "of its output is not 1 (0 for a zero-element tensor, 3 for a tensor of shape [3])",
        "Construct a tensor sequence containing 'inputs' tensors.",
        _model([helper.make_node("If", ["cond"], ["seq"], then_branch=then_branch,
                                 else_branch=else_branch),
                helper.make_node("SequenceLength", ["seq"], ["n"])],
               [_t("cond", BOOL, []), _t("x", F32, ["N"])], [_t("n", I64, [])], opset=16),
        "{'cond': np.array(True), 'x': np.zeros(0, np.float32)}",
        "n = 1 (a sequence holding the one tensor x, whatever its size)",
        expected_values='[np.array(1)]',
        got='[array(0)]'))

    then_branch = helper.make_graph([helper.make_node("Identity", ["left"], ["then_seq"])],
                                    "then", [],
                                    [helper.make_tensor_sequence_value_info("then_seq", F32, [2])])
    else_branch = helper.make_graph([helper.make_node("Identity", ["right"], ["else_seq"])],
                                    "else", [],
                                    [helper.make_tensor_sequence_value_info("else_seq", F32, [2])])
    found.append(Finding(
        "openvino_read_model_crash_if_identity_outer_sequence", "openvino",
        "read_model kills the process (segfault) for If branches that are Identity of outer "
        "sequences",
        "Graph to run if condition is false.",
        _model([helper.make_node("SequenceConstruct", ["x0"], ["left"]),
                helper.make_node("SequenceEmpty", [], ["right"], dtype=F32),
                helper.make_node("If", ["cond"], ["chosen"], then_branch=then_branch,
                                 else_branch=else_branch),
                helper.make_node("SequenceLength", ["chosen"], ["n"])],
               [_t("cond", BOOL, []), _t("x0", F32, [2])], [_t("n", I64, [])]),
        "{'cond': np.array(True), 'x0': np.array([1., 2.], np.float32)}",
        "the model loads; n = 1", crash=True,
        expected_values="[np.array(1)]",
        got="the process is killed by signal 11 (segmentation fault)"))
    found += openvino_sequence_findings()
    found += tvm_findings() + iree_findings() + other_findings()
    for f in found:
        f.upstream = UPSTREAM.get(f.name, "")
    return found


def openvino_sequence_findings() -> list[Finding]:
    """OpenVINO: found by the structural mutants (cases/structural_mutants.yaml), their
    sequences built here from tensor inputs (the runtime takes tensors only)."""
    found = []
    then_branch = helper.make_graph(
        [helper.make_node("SequenceErase", ["seq"], ["shorter"])], "then", [],
        [helper.make_tensor_sequence_value_info("shorter", F32, [2])])
    else_branch = helper.make_graph(
        [helper.make_node("SequenceInsert", ["seq", "extra"], ["longer"])], "else", [],
        [helper.make_tensor_sequence_value_info("longer", F32, [2])])
    found.append(Finding(
        "openvino_if_branches_change_outer_sequence", "openvino",
        "If whose then branch erases from an outer sequence and whose else branch inserts into "
        "it gives, with the condition true, the else branch's tensor in a sequence of three",
        "Graph to run if condition is true. Has N outputs: values you wish to be live-out to "
        "the enclosing scope.",
        _model([helper.make_node("SequenceConstruct", ["x0", "x1"], ["seq"]),
                helper.make_node("If", ["cond"], ["changed"], then_branch=then_branch,
                                 else_branch=else_branch),
                helper.make_node("SequenceLength", ["changed"], ["n"]), _const("zero", 0),
                helper.make_node("SequenceAt", ["changed", "zero"], ["y0"])],
               [_t("cond", BOOL, []), _t("x0", F32, [2]), _t("x1", F32, [2]),
                _t("extra", F32, [2])], [_t("n", I64, []), _t("y0", F32, [2])], opset=16),
        "{'cond': np.array(True), 'x0': np.array([1., 2.], np.float32), "
        "'x1': np.array([3., 4.], np.float32), 'extra': np.array([5., 6.], np.float32)}",
        "n = 1, y0 = [1., 2.] (x0: the then branch erased x1)",
        expected_values="[np.array(1), np.array([1., 2.], np.float32)]",
        got="[array(3), array([5., 6.], dtype=float32)] (a sequence of three tensors, the else "
            "branch's inserted tensor first)"))
    body = _insert_body("i", I64, [])
    found.append(Finding(
        "openvino_loop_constant_false_condition", "openvino",
        "Loop with a constant false condition over a carried sequence: the compiled model "
        "loses its inputs' names (the seed input takes the name of the output read from the "
        "sequence, and a model read from memory loses the trip-count input), so the inputs "
        "cannot be fed by name",
        "This is an input to the op that determines whether to run the first iteration and "
        "also a loop-carried dependency for the body graph.",
        _model([helper.make_node("Constant", [], ["go"],
                                 value=helper.make_tensor("go", BOOL, [], [False])),
                helper.make_node("SequenceConstruct", ["x"], ["seed"]),
                helper.make_node("Loop", ["trips", "go", "seed"], ["grown"], body=body),
                helper.make_node("SequenceLength", ["grown"], ["n"]), _const("zero", 0),
                helper.make_node("SequenceAt", ["grown", "zero"], ["y0"])],
               [_t("trips", I64, []), _t("x", I64, [])], [_t("n", I64, []), _t("y0", I64, [])],
               opset=13),
        "{'trips': np.array(2, np.int64), 'x': np.array(7, np.int64)}",
        "n = 1, y0 = 7 (x: no iteration runs)",
        expected_values="[np.array(1), np.array(7)]",
        got=("RuntimeError: ... Port for tensor name x was not found. (the compiled model's "
             "inputs are named trips and y0; read from memory, y0 alone, and a caller feeding "
             "by position then gives the trip count for y0)")))
    found.append(Finding(
        "openvino_concat_from_sequence_constant_last_empty", "openvino",
        "ConcatFromSequence of a sequence of constants whose last tensor has no elements is "
        "refused (\"SequenceConcatReplacer ... Accessing out-of-range dimension\")",
        "All input tensors must have the same shape, except for the dimension size of the axis "
        "to concatenate on.",
        _model([helper.make_node("Constant", [], ["a"],
                                 value=helper.make_tensor("a", I64, [2], [1, 2])),
                helper.make_node("Constant", [], ["b"],
                                 value=helper.make_tensor("b", I64, [0], [])),
                helper.make_node("SequenceConstruct", ["a", "b"], ["seq"]),
                helper.make_node("ConcatFromSequence", ["seq"], ["joined"], axis=0)],
               [], [_t("joined", I64, [2])], opset=11),
        "{}", "joined = [1, 2] (a, joined with the empty b)",
        expected_values="[np.array([1, 2])]",
        got=("RuntimeError: ... [ov::frontend::pass::SequenceConcatReplacer] ... CALLBACK "
             "HAS THROWN ... Accessing out-of-range dimension")))
    return found


def tvm_findings() -> list[Finding]:
    """TVM 0.27's Relax frontend: positions must be constants there, so they are here."""
    found = []
    inputs = [_t(n, F32, [1]) for n in ("x0", "x1", "x2")]
    found.append(Finding(
        "tvm_sequence_insert_negative_position", "tvm",
        "SequenceInsert at position -1 appends at the back (it inserts at seq_len + position + 1 "
        "instead of seq_len + position)",
        "Negative value means counting positions from the back.",
        _model([helper.make_node("SequenceConstruct", ["x0", "x1"], ["seq"]),
                _const("position", -1),
                helper.make_node("SequenceInsert", ["seq", "x2", "position"], ["longer"]),
                _const("zero", 0), _const("one", 1), _const("two", 2),
                helper.make_node("SequenceAt", ["longer", "zero"], ["y0"]),
                helper.make_node("SequenceAt", ["longer", "one"], ["y1"]),
                helper.make_node("SequenceAt", ["longer", "two"], ["y2"])],
               inputs, [_t(n, F32, [1]) for n in ("y0", "y1", "y2")]),
        "{'x0': np.array([0.], np.float32), 'x1': np.array([1.], np.float32), "
        "'x2': np.array([2.], np.float32)}",
        "y0 = [0.] (x0), y1 = [2.] (x2, inserted before the last tensor), y2 = [1.] (x1)",
        expected_values=("[np.array([0.], np.float32), np.array([2.], np.float32), "
                         "np.array([1.], np.float32)]"),
        got=('[array([0.], dtype=float32), array([1.], dtype=float32), array([2.], '
             'dtype=float32)] (x2 appended at the back)')))

    def concat(name, shapes):
        return _model([helper.make_node("SequenceConstruct", [n for n, _ in shapes], ["seq"]),
                       helper.make_node("ConcatFromSequence", ["seq"], ["joined"], axis=0)],
                      [_t(n, F32, shape) for n, shape in shapes], [_t("joined", F32, [None])])

    found.append(Finding(
        "tvm_unknown_dims_one_symbol", "tvm",
        "every unknown, unnamed input dim becomes one shared symbol, so inputs of different "
        "lengths are refused at run time",
        "All tensors in 'inputs' must have the same data type.",
        concat("x", [("x", [None]), ("y", [None])]),
        "{'x': np.array([1., 2.], np.float32), 'y': np.array([3., 4., 5.], np.float32)}",
        "joined = [1., 2., 3., 4., 5.] (the ONNX IR: a dim with neither dim_value nor dim_param "
        "\"represents an unknown dimension unrelated to other unknown dimensions\")",
        expected_values='[np.array([1., 2., 3., 4., 5.], np.float32)]',
        got=('RuntimeError: Check failed: input_shape[i] == heap_data[reg] (3 vs. 2) ... '
             'match_cast error, shape[0] mismatch to a previous populated value.')))
    found.append(Finding(
        "tvm_zero_dim_read_as_unknown", "tvm",
        "an input dim declared 0 is read as unknown (and joins the shared symbol of the "
        "unknown dims)",
        "All tensors in 'inputs' must have the same data type.",
        concat("x", [("x", [None]), ("empty", [0])]),
        "{'x': np.array([1., 2.], np.float32), 'empty': np.zeros(0, np.float32)}",
        "joined = [1., 2.] (empty has the declared shape [0])",
        expected_values='[np.array([1., 2.], np.float32)]',
        got=('RuntimeError: Check failed: input_shape[i] == heap_data[reg] (0 vs. 2) ... '
             'match_cast error, shape[0] mismatch to a previous populated value.')))
    found.append(Finding(
        "tvm_constant_value_int", "tvm",
        "Constant with a value_int (or value_ints) attribute is refused (\"no value in "
        "Constant\")",
        "The value for the sole element for the scalar, int64, output tensor.",
        _model([helper.make_node("Constant", [], ["three"], value_int=3),
                helper.make_node("Add", ["x", "three"], ["y"])],
               [_t("x", I64, [])], [_t("y", I64, [])]),
        "{'x': np.array(4, np.int64)}", "y = 7",
        expected_values='[np.array(7)]',
        got='ValueError: no value in Constant'))
    found.append(Finding(
        "tvm_split_to_sequence_single_chunk", "tvm",
        "SplitToSequence that gives a single chunk returns it as a tensor, not a sequence of "
        "length 1 (SequenceLength of it then fails: \"object of type 'Call' has no len()\")",
        "Split a tensor into a sequence of tensors, along the specified 'axis'.",
        _model([_const("one", 1),
                helper.make_node("SplitToSequence", ["x", "one"], ["parts"]),
                helper.make_node("SequenceLength", ["parts"], ["n"]),
                _const("zero", 0),
                helper.make_node("SequenceAt", ["parts", "zero"], ["y"])],
               [_t("x", F32, [1])], [_t("n", I64, []), _t("y", F32, [1])]),
        "{'x': np.array([7.], np.float32)}", "n = 1, y = [7.]",
        expected_values='[np.array(1), np.array([7.], np.float32)]',
        got="TypeError: object of type 'Call' has no len()"))
    found.append(Finding(
        "tvm_split_to_sequence_unknown_axis_concat", "tvm",
        "SplitToSequence without `split` along an axis of size 1, then ConcatFromSequence: the "
        "conversion never ends and its memory grows without bound (13 GiB after four minutes; "
        "stop it by hand); with the axis's size unknown it is refused instead (\"SplitToSequence "
        "with dynamic dim size and scalar split is not supported\")",
        "If 'split' is not specified, 'input' is split into equally sized chunks of size 1 "
        "along 'axis'.",
        _model([helper.make_node("SplitToSequence", ["x"], ["parts"], axis=-3),
                helper.make_node("ConcatFromSequence", ["parts"], ["joined"], axis=0)],
               [_t("x", I8, [1, 3, 2])], [_t("joined", I8, [None, None, None])],
               opset=17),
        "{'x': np.array([[[6, 126], [0, 2], [1, 1]]], np.int8)}",
        "joined = x (one chunk of size 1 along axis 0, joined again)",
        expected_values="[np.array([[[6, 126], [0, 2], [1, 1]]], np.int8)]",
        got=f"no answer: stopped after {CHECK_SECONDS} s",
        hangs=True))
    found.append(Finding(
        "tvm_split_to_sequence_scalar_split_sections", "tvm",
        "SplitToSequence with a scalar split s over an axis of size n cuts it into ceil(n / s) "
        "equal sections instead of chunks of s (3 over 4 gives 2 and 2, not 3 and 1)",
        "If 'split' is a scalar, then 'input' will be split into chunks all of size 'split' if "
        "possible. The last chunk alone may be smaller than 'split' if the 'input' size along "
        "the given axis 'axis' is not divisible by 'split'.",
        _model([_const("three", 3),
                helper.make_node("SplitToSequence", ["x", "three"], ["parts"]),
                _const("zero", 0), _const("one", 1),
                helper.make_node("SequenceAt", ["parts", "zero"], ["y0"]),
                helper.make_node("SequenceAt", ["parts", "one"], ["y1"])],
               [_t("x", F32, [4])], [_t("y0", F32, [None]), _t("y1", F32, [None])]),
        "{'x': np.array([1., 2., 3., 4.], np.float32)}", "y0 = [1., 2., 3.], y1 = [4.]",
        expected_values="[np.array([1., 2., 3.], np.float32), np.array([4.], np.float32)]",
        got="[array([1., 2.], dtype=float32), array([3., 4.], dtype=float32)]"))
    found.append(Finding(
        "tvm_size_of_shape", "tvm",
        "Size of a Shape output (a tensor's rank, as torch's export of hstack reads it) is "
        "refused (\"Node cannot handle ShapeExpr inputs\")",
        "Takes a tensor as input and outputs a int64 scalar that equals to the total number of "
        "elements of the input tensor.",
        _model([helper.make_node("Shape", ["x"], ["shape"]),
                helper.make_node("Size", ["shape"], ["rank"], name="size")],
               [_t("x", F32, [2, 3])], [_t("rank", I64, [])]),
        "{'x': np.zeros((2, 3), np.float32)}", "rank = 2",
        expected_values="[np.array(2)]",
        got="ValueError: Node size cannot handle ShapeExpr inputs."))
    found.append(Finding(
        "tvm_zero_element_constant", "tvm",
        "a constant with no elements (a [2, 0] tensor) that reaches an output compiles, and "
        "then the virtual machine cannot load the module TVM built (\"Invalid DLTensor file "
        "format\"; folded into another operator, as in Concat, it is not seen)",
        "This operator produces a constant tensor.",
        _model([helper.make_node("Constant", [], ["none"],
                                 value=helper.make_tensor("none", F32, [2, 0], [])),
                helper.make_node("Identity", ["none"], ["y"])],
               [], [_t("y", F32, [2, 0])]),
        "{}", "y = a float tensor of shape [2, 0]",
        expected_values="[np.zeros((2, 0), np.float32)]",
        got="InternalError: Check failed: (read_ret) is false: Invalid DLTensor file format"))
    return found


def iree_findings() -> list[Finding]:
    """IREE 3.13: torch-mlir's ONNX importer and iree-compile for llvm-cpu."""
    found = [Finding(
        "iree_sequence_empty_length", "iree",
        "an empty sequence has length 1 (SequenceEmpty is lowered to a list holding one empty "
        "tensor)",
        "Construct an empty tensor sequence, with given data type.",
        _model([helper.make_node("SequenceEmpty", [], ["seq"], dtype=F32),
                helper.make_node("SequenceLength", ["seq"], ["n"])], [], [_t("n", I64, [])]),
        "{}", "n = 0", expected_values="i64=0",
        got="EXEC @finding result[0]: hal.buffer_view i64=1")]
    found.append(Finding(
        "iree_unknown_output_dim_refused", "iree",
        "a valid model whose output dim is declared unknown is refused (\"type of return operand "
        "0 ('!torch.vtensor<[2],f32>') doesn't match function result type "
        "('!torch.vtensor<[?],f32>')\")",
        "Outputs a tensor copy from the tensor at 'position' in 'input_sequence'.",
        _model([helper.make_node("SequenceConstruct", ["x", "y"], ["seq"]),
                _const("zero", 0), helper.make_node("SequenceAt", ["seq", "zero"], ["first"])],
               [_t("x", F32, [2]), _t("y", F32, [3])], [_t("first", F32, [None])]),
        "{'x': np.array([1., 2.], np.float32), 'y': np.array([3., 4., 5.], np.float32)}",
        "the model compiles; first = [1., 2.] (x). The ONNX IR lets a declared dim be unknown: "
        "a dim with neither dim_value nor dim_param \"represents an unknown dimension\"",
        iree_inputs="--input=2xf32=1,2 --input=3xf32=3,4,5", expected_values="2xf32=1 2",
        got="error: type of return operand 0 ('!torch.vtensor<[2],f32>') doesn't match "
            "function result type ('!torch.vtensor<[?],f32>') in function @finding"))
    return found


def other_findings() -> list[Finding]:
    """onnxruntime, onnx's reference evaluator and tinygrad: found by their fuzz campaigns
    (docs/fuzzing.md) and the suite."""
    found = [Finding(
        "onnxruntime_split_to_sequence_keepdims_with_split", "onnxruntime",
        "SplitToSequence applies keepdims=0 although `split` is given, so the parts lose the "
        "split axis (torch's TorchScript exporter relies on it for `unbind`)",
        "If input 'split' is specified, this attribute is ignored.",
        _model([_const("one", 1),
                helper.make_node("SplitToSequence", ["x", "one"], ["parts"], keepdims=0),
                _const("zero", 0), helper.make_node("SequenceAt", ["parts", "zero"], ["y"])],
               [_t("x", F32, [2, 3])], [_t("y", F32, [None, None])]),
        "{'x': np.array([[1., 2., 3.], [4., 5., 6.]], np.float32)}",
        "y = [[1., 2., 3.]] (shape [1, 3]: keepdims is ignored, the split axis stays)",
        expected_values="[np.array([[1., 2., 3.]], np.float32)]",
        got="[array([1., 2., 3.], dtype=float32)] (shape [3])")]
    found.append(Finding(
        "onnxruntime_castmap_2d", "onnxruntime",
        "CastMap gives a tensor of shape [1, N] where its output type says 'The output is a 1-D "
        "tensor' (the values, ordered by key, are right)",
        "The output is a 1-D tensor of string, float, or integer.",
        _model([helper.make_node("CastMap", ["x"], ["y"], domain="ai.onnx.ml")],
               [helper.make_value_info("x", helper.make_map_type_proto(
                   I64, helper.make_tensor_type_proto(F32, None)))],
               [_t("y", F32, [None])], opset=17, ml_opset=1),
        "{'x': {1: 0.5, 0: 2.0, 2: -1.0}}", "y = [2.0, 0.5, -1.0] (shape [3])",
        expected_values="[np.array([2.0, 0.5, -1.0], np.float32)]",
        got="[array([[ 2. ,  0.5, -1. ]], dtype=float32)] (shape [1, 3])"))
    found.append(Finding(
        "reference_optional_empty_is_a_list", "reference",
        "Optional with no input gives [None], a list, which OptionalHasElement reports as an "
        "element",
        "Constructs an optional-type value containing either an empty optional of a certain "
        "type specified by the attribute, or a non-empty value containing the input element.",
        _model([helper.make_node("Optional", [], ["empty"],
                                 type=helper.make_tensor_type_proto(F32, [2])),
                helper.make_node("OptionalHasElement", ["empty"], ["has"])],
               [], [_t("has", BOOL, [])]),
        "{}", "has = False", expected_values="[np.array(False)]", got="[array(True)]"))
    inputs, construct = _three_floats()
    found.append(Finding(
        "reference_sequence_insert_at_length", "reference",
        "SequenceInsert at position n (the sequence's length, which the spec accepts: it "
        "appends) inserts before the last tensor",
        "Accepted range in `[-n, n]`, where `n` is the number of tensors in 'input_sequence'.",
        _model([helper.make_node("SequenceConstruct", ["x0", "x1"], ["seq"]),
                helper.make_node("SequenceInsert", ["seq", "x2", "position"], ["longer"]),
                _const("two", 2), helper.make_node("SequenceAt", ["longer", "two"], ["y"])],
               [*inputs, _t("position", I64, [])], [_t("y", F32, [2])]),
        "{'x0': np.array([0., 0.], np.float32), 'x1': np.array([1., 1.], np.float32), "
        "'x2': np.array([2., 2.], np.float32), 'position': np.array(2, np.int64)}",
        "y = [2., 2.] (x2, appended)", expected_values="[np.array([2., 2.], np.float32)]",
        got="[array([1., 1.], dtype=float32)] (x1)"))
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Add", ["total_in", "step"], ["total_out"])], "body",
        [_t("i", I64, []), _t("cond_in", BOOL, []), _t("total_in", F32, [])],
        [_t("cond_out", BOOL, []), _t("total_out", F32, [])])
    found.append(Finding(
        "reference_loop_condition_omitted", "reference",
        "Loop with the condition input omitted runs no iteration (it must run the trip count's)",
        "A boolean termination condition. Optional. Pass empty string to skip.",
        _model([helper.make_node("Loop", ["trips", "", "start"], ["total"], body=body)],
               [_t("trips", I64, []), _t("start", F32, []), _t("step", F32, [])],
               [_t("total", F32, [])]),
        "{'trips': np.array(3, np.int64), 'start': np.array(0., np.float32), "
        "'step': np.array(1., np.float32)}",
        "total = 3. (three iterations)", expected_values="[np.array(3., np.float32)]",
        got="[array(0., dtype=float32)]"))
    found.append(Finding(
        "tinygrad_optional_has_element_zero_elements", "tinygrad",
        "OptionalHasElement of a tensor with no elements is false (\"not None and numel() > 0\")",
        "Returns true if (1) the input is an optional-type and contains an element, or, (2) the "
        "input is a tensor or sequence type.",
        _model([helper.make_node("OptionalHasElement", ["x"], ["has"])],
               [_t("x", F32, [3, 0])], [_t("has", BOOL, [])]),
        "{'x': np.zeros((3, 0), np.float32)}", "has = True",
        expected_values="[np.array(True)]", got="[array(False)]"))
    return found


def write(found: list[Finding]) -> None:
    """Every model, one page per runtime and the index."""
    for f in found:
        (HERE / f"{f.name}.onnx").write_bytes(f.model.SerializeToString())
    rows = []
    for runtime, (distribution, version, what) in RUNTIMES.items():
        mine = [f for f in found if f.runtime == runtime]
        rows.append(f"| [{runtime}]({runtime}.md) | {distribution} {version} | {len(mine)} |")
        lines = [f"# {runtime}: bugs found by onnx-seq-tests", ""]
        if not mine:
            lines += [f"{what}, {distribution} {version}. {NOTHING_FOUND[runtime]}", ""]
        else:
            lines += [f"{what}, {distribution} {version}: every finding below was reproduced on "
                      "it with its one-line command, run from this folder (`python "
                      "make_findings.py --check` runs them all and says which are fixed). Each "
                      "model is minimal and valid (onnx's full check); the expected outputs are "
                      "the ONNX documentation's, quoted.", ""]
        for f in mine:
            lines += [f"## {f.title}", "",
                      f"- Model: [`{f.name}.onnx`]({f.name}.onnx)",
                      f"- Expected: {f.expected}", f"- Got ({distribution} {version}): {f.got}",
                      f"- The ONNX sentence: \"{f.spec}\"",
                      f"- Upstream: {f.upstream or 'no thread found'}", "",
                      "    " + f.command(), ""]
        (HERE / f"{runtime}.md").write_text("\n".join(lines), encoding="utf-8")
    index = ["# Bugs found by onnx-seq-tests", "",
             "Minimal, self-contained models of the runtime bugs the suite and `gen-seq-tests "
             "fuzz` found, one page per runtime, each with a one-line reproduction that needs "
             "only the runtime. Written by `python docs/findings/make_findings.py`; "
             "`--check` re-runs every reproduction on the installed runtimes and says which "
             "bugs are fixed.", "", "| runtime | confirmed on | findings |", "|---|---|---:|",
             *rows, "",
             "Bugs found in the tools that rewrite models between an exporter and a runtime, "
             "one page per tool (written by `python docs/findings/make_tool_findings.py`): "
             "[onnxoptimizer](onnxoptimizer.md), [onnxslim](onnxslim.md), "
             "[onnxscript](onnxscript.md), [onnx-ir](onnx-ir.md), and onnx's own version "
             "converter and shape inference: [onnx](onnx.md).", ""]
    (HERE / "README.md").write_text("\n".join(index), encoding="utf-8")


def reproduce(f: Finding) -> tuple[str, str]:
    """Run a finding's one-liner in a child shell (memory and time bounded): (status, got),
    status being `fixed`, `still there` or `changed` (neither: look at it by hand)."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    try:
        done = subprocess.run(["bash", "-c", f"ulimit -v {CHECK_MEMORY_KIB}; {f.command()}"],
                              cwd=HERE, capture_output=True, text=True, timeout=CHECK_SECONDS,
                              env={**os.environ, "PATH": path})
    except subprocess.TimeoutExpired:
        return ("still there" if f.hangs else "changed"), f"no answer in {CHECK_SECONDS} s"
    got = " ".join(done.stdout.split())
    if done.returncode == 0 and f.fixed_text() in got:
        return "fixed", got
    if done.returncode < 0:
        return ("still there" if f.crash else "changed"), f"killed by signal {-done.returncode}"
    if done.returncode > 0:
        errors = [line for line in done.stderr.splitlines() if "rror" in line]
        got = f"exit {done.returncode}: {(errors or ['(no message)'])[-1].strip()[:300]}"
    recorded = f.got.split(" (")[0]  # without its comment; " ... " elides lines between parts
    printed = f"{got} {' '.join(done.stderr.split())}"
    shown = all(part in printed for part in recorded.split(" ... "))
    return ("still there" if shown and not f.hangs else "changed"), got


def check(found: list[Finding]) -> int:
    """Print each finding's status on the installed runtimes; 1 when any is fixed or changed."""
    counts: dict[str, int] = {}
    for f in found:
        distribution, version, _ = RUNTIMES[f.runtime]
        try:
            installed = metadata.version(distribution)
        except metadata.PackageNotFoundError:
            status, got = "not run", f"{distribution} is not installed"
        else:
            status, got = reproduce(f)
            got = f"{got} ({distribution} {installed})"
        counts[status] = counts.get(status, 0) + 1
        print(f"{status:12} {f.name}\n             expected: {f.fixed_text()}\n"
              f"             got:      {got}")
    print(", ".join(f"{n} {status}" for status, n in sorted(counts.items())))
    return 1 if counts.get("fixed") or counts.get("changed") else 0


if __name__ == "__main__":
    everything = findings()
    write(everything)
    if "--check" in sys.argv[1:]:
        sys.exit(check(everything))
