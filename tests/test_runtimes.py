"""The built-in runtime adapters (openvino, tinygrad, tract, tvm, iree) on a handful of tiny models
and of the generated suite's cases (both forms, the TVM and IREE findings among them): tensors
converted bit for bit, sequences and optionals passed where the runtime takes them and refused
with a clear message where it cannot, a missing package named in one line; and backends that
return the wrong number of outputs, a wrong kind, a list where a tensor belongs, or raise, are
judged by verify rather than ending it."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from foreign_suite import (
    I64,
    opt_type,
    seq_type,
    sequence,
    tensor,
    tensor_type,
    write_case,
    write_foreign_suite,
)
from onnx import OptionalProto, TensorProto, helper, numpy_helper

from onnx_seq_tests._cli import main
from onnx_seq_tests._run.verifier import verify
from onnx_seq_tests._runtimes import backends
from onnx_seq_tests._runtimes.records import names

RUNTIMES = list(names())
BF16 = ml_dtypes.bfloat16


def _identity_case(root, name, elem, array):
    array = np.asarray(array)
    write_case(root, name, [helper.make_node("Identity", ["x"], ["y"])],
               [("x", tensor_type(elem, list(array.shape)))],
               [("y", tensor_type(elem, list(array.shape)))],
               [([numpy_helper.from_array(array)], [numpy_helper.from_array(array)])])


@pytest.fixture(scope="module")
def iree_cache(tmp_path_factory):
    """A fresh cache of compiled IREE modules, for this module's runs (and their workers)."""
    folder = tmp_path_factory.mktemp("iree-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ONNX_SEQ_TESTS_CACHE", str(folder))
        yield folder


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory, iree_cache) -> dict[tuple[str, str], tuple[str, str]]:
    """(case, runtime) -> (outcome, message) for a tiny suite run on the five runtimes."""
    root = tmp_path_factory.mktemp("runtimes")
    floats = np.array([[1.5, -0.0, np.inf], [np.nan, -2.25, 3e-5]], np.float32)
    _identity_case(root, "test_identity_float", TensorProto.FLOAT, floats)
    _identity_case(root, "test_identity_int64", TensorProto.INT64, np.array([-7, 0, 2**31 - 1]))
    _identity_case(root, "test_identity_bool_0d", TensorProto.BOOL, np.array(True))
    _identity_case(root, "test_identity_string", TensorProto.STRING,
                   np.array(["ab", "", "é"], dtype=object))
    _identity_case(root, "test_identity_bfloat16", TensorProto.BFLOAT16,
                   np.array([1.5, -0.0, 3.0], BF16))
    write_case(root, "test_sequence_length_input",
               [helper.make_node("SequenceLength", ["s"], ["n"])],
               [("s", seq_type(TensorProto.FLOAT, [2]))], [("n", tensor_type(I64, []))],
               [([sequence([np.ones(2, np.float32)] * 3)], [tensor(np.array(3, np.int64))])])
    write_case(root, "test_optional_has_element_empty",
               [helper.make_node("OptionalHasElement", ["o"], ["b"])],
               [("o", opt_type(tensor_type(TensorProto.FLOAT, [2])))],
               [("b", tensor_type(TensorProto.BOOL, []))],
               [([OptionalProto(elem_type=OptionalProto.TENSOR)], [tensor(np.array(False))])])
    results = verify(root, RUNTIMES, jobs=2)
    return {(r.name, r.backend): (r.outcome, r.message) for r in results}


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("case", ["test_identity_float", "test_identity_bool_0d"])
def test_plain_tensors_pass_on_every_runtime(outcomes, case, runtime):
    assert outcomes[case, runtime] == ("pass", "")


def test_what_each_runtime_takes_or_refuses(outcomes):
    expected = {
        ("test_identity_int64", "openvino"): ("pass", ""),
        ("test_identity_int64", "tinygrad"): ("pass", ""),
        ("test_identity_int64", "tract"): ("pass", ""),
        ("test_identity_string", "openvino"): ("pass", ""),
        ("test_identity_string", "tinygrad"): (
            "refused", "CannotTake: tinygrad has no string tensors (input 'x')"),
        ("test_identity_string", "tract"): (
            "refused", "CannotTake: tract's Python API takes no string tensors (input 'x')"),
        ("test_identity_string", "tvm"): ("refused", "RuntimeError: unknown dtype `object`"),
        ("test_identity_string", "iree"): (
            "refused", "CannotTake: iree has no string tensors (input 'x')"),
        ("test_identity_int64", "tvm"): ("pass", ""),
        ("test_identity_int64", "iree"): ("pass", ""),
        ("test_identity_bfloat16", "tvm"): ("pass", ""),
        ("test_identity_bfloat16", "iree"): ("pass", ""),
        ("test_identity_bfloat16", "openvino"): ("pass", ""),
        ("test_identity_bfloat16", "tinygrad"): ("pass", ""),
        ("test_identity_bfloat16", "tract"): (
            "refused", "RuntimeError: translating to fact: Tensor { elem_type: Bfloat16, shape: "
                     "Some(TensorShapeProto { dim: [Dimension { denotation: \"\", value: "
                     "Some(DimValue(3)) }] }) }"),
        ("test_sequence_length_input", "openvino"): (
            "refused", "CannotTake: openvino cannot take a sequence input ('s'): OpenVINO's "
                     "runtime API passes tensors only"),
        ("test_sequence_length_input", "tinygrad"): (
            "refused", "NotImplementedError: op='SequenceLength' is not supported"),
        ("test_sequence_length_input", "tract"): (
            "refused", "CannotTake: tract cannot take a sequence input ('s'): tract has no "
                     "sequence or optional values"),
        ("test_optional_has_element_empty", "openvino"): (
            "refused", "RuntimeError: the model was not fully converted: No conversion rule found "
                     "for operations: OptionalHasElement-18"),
        ("test_optional_has_element_empty", "tinygrad"): ("pass", ""),
        ("test_optional_has_element_empty", "tract"): (
            "refused", "CannotTake: tract cannot take an optional input ('o'): tract has no "
                     "sequence or optional values"),
        ("test_sequence_length_input", "tvm"): (
            "refused", "CannotTake: tvm cannot take a sequence input ('s'): TVM's Relax frontend "
                     "reads every graph input as a tensor"),
        ("test_sequence_length_input", "iree"): (
            "refused", "CannotTake: iree cannot take a sequence input ('s'): IREE's compiled "
                     "functions take and give tensors only"),
        ("test_optional_has_element_empty", "tvm"): (
            "refused", "CannotTake: tvm cannot take an empty optional input ('o'): the Relax "
                     "frontend erases optionals to their value"),
        ("test_optional_has_element_empty", "iree"): (
            "refused", "CannotTake: iree cannot take an optional input ('o'): IREE's compiled "
                     "functions take and give tensors only"),
    }
    assert {key: outcomes[key] for key in expected} == expected


SAMPLES = {
    "float32": np.array([[1.5, -0.0], [np.nan, -np.inf]], np.float32),
    "float64": np.array([1e300, -5e-324]),
    "float16": np.array([65504, -0.0], np.float16),
    "bfloat16": np.array([3.0e38, -0.0, 1.5], BF16),
    "float8e4m3fn": np.array([448, -0.0, 0.5], ml_dtypes.float8_e4m3fn),
    "float8e5m2": np.array([57344, -0.0, np.inf], ml_dtypes.float8_e5m2),
    "int64": np.array([-(2**63), 2**63 - 1], np.int64),
    "uint64": np.array([2**64 - 1, 0], np.uint64),
    "int8": np.array([-128, 127], np.int8),
    "bool": np.array([True, False]),
    "0-d": np.array(7, np.int32),
    "zero-size": np.zeros((0, 3), np.float32),
}


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return (a.dtype == b.dtype and a.shape == b.shape
            and a.tobytes() == np.require(b, requirements="C").tobytes())


@pytest.mark.parametrize("name", SAMPLES)
def test_openvino_tensors_round_trip_by_their_bits(name):
    import openvino as ov

    from onnx_seq_tests._runtimes.openvino import _from_tensor, _to_tensor

    array = SAMPLES[name]
    assert _same_bits(array, _from_tensor(ov, _to_tensor(ov, array)))


def test_openvino_messages_leave_out_the_numbers_it_gives_its_nodes():
    """OpenVINO numbers the nodes it makes per process (`NullNode_146100`, `Parameter_552924`):
    the same model's message is the same in every run, so recorded reports do not churn."""
    from onnx_seq_tests._runtimes.openvino import first_line

    text = ("While validating node 'util::SequenceErase ei8 (opset1::Parameter Parameter_552924"
            "[0]:string[]) -> (dynamic[...])' with friendly_name 'ei8': Input descriptor\nmore")
    assert first_line(text) == (
        "While validating node 'util::SequenceErase ei8 (opset1::Parameter Parameter[0]:"
        "string[]) -> (dynamic[...])' with friendly_name 'ei8': Input descriptor")
    assert first_line("Check failed. Operation name: NullNode_146100 is bad") == (
        "Check failed. Operation name: NullNode is bad")


def test_openvino_strings_round_trip():
    import openvino as ov

    from onnx_seq_tests._runtimes.openvino import _from_tensor, _to_tensor

    for array in (np.array(["ab", "", "é"], dtype=object), np.array("x", dtype=object)):
        back = _from_tensor(ov, _to_tensor(ov, array))
        assert back.dtype == object and back.shape == array.shape
        assert [type(v) for v in back.flat] == [str] * array.size and (back == array).all()


def test_openvino_refuses_a_string_ending_in_nul_rather_than_cut_it():
    import openvino as ov

    from onnx_seq_tests._core.errors import CannotTake
    from onnx_seq_tests._runtimes.openvino import _from_tensor, _to_tensor

    inside = np.array(["a\0b", "\0x"], dtype=object)  # a NUL inside a string travels
    assert _from_tensor(ov, _to_tensor(ov, inside)).tolist() == ["a\0b", "\0x"]
    # numpy's fixed-width strings, all OpenVINO's Python API takes, drop trailing NULs
    assert np.array(["end\0"], dtype=str)[0] == "end"
    with pytest.raises(CannotTake, match="ends in NUL"):
        _to_tensor(ov, np.array(["ok", "end\0"], dtype=object))


@pytest.mark.parametrize("name", [n for n in SAMPLES if n != "float64"])
def test_tinygrad_tensors_round_trip_by_their_bits(name):
    """float64 is left out: tinygrad's PYTHON device holds it as a Python float, the same bits."""
    from onnx_seq_tests._runtimes.tinygrad import _from_value, _to_value

    backends.load_backend("tinygrad")
    array = SAMPLES[name]
    assert _same_bits(array, _from_value(_to_value(array, "x")))


def test_tinygrad_takes_sequences_and_empty_optionals_as_they_are():
    from onnx_seq_tests._runtimes.tinygrad import _from_value, _to_value

    backends.load_backend("tinygrad")
    value = [np.array([1, 2], np.int32), np.array([3, 4], np.int32)]
    back = _from_value(_to_value(value, "s"))
    assert isinstance(back, list) and [b.tolist() for b in back] == [[1, 2], [3, 4]]
    assert _from_value(_to_value(None, "o")) is None


#: Cases of the generated suite, both forms: (runtime's outcome, a piece of its message).
GENERATED_CASES = {
    "sequence_optional/test_sequence_empty_then_length": {
        "tvm": ("pass", ""), "iree": ("fail", "output 0 (length): expected 0, got 1")},
    "sequence_optional/test_sequence_insert_negative_position_initializer": {
        "tvm": ("refused", "tvm cannot take a sequence input ('seq')"),
        "iree": ("refused", "iree cannot take a sequence input ('seq')")},
    "sequence_optional_tensor_io/test_cc_sequence_length__tensors": {
        "tvm": ("pass", ""), "iree": ("pass", "")},
    "sequence_optional_tensor_io/test_sequence_insert_negative_position_initializer__len3_len4": {
        "tvm": ("fail", "output 3 (longer_2), index [0]: expected 7, got 30"),
        "iree": ("refused", "iree-compile: failed to legalize operation 'torch.constant.int' "
                            "(onnx.SequenceInsert)")},
    # the tensor-boundary form declares the shapes its data sets fix, so TVM's shared symbol for
    # unknown dims no longer stands in front of SequenceLength ...
    "sequence_optional_tensor_io/test_sequence_length_v11_float__len3": {
        "tvm": ("pass", ""), "iree": ("pass", "")},
    # ... and is pinned by the cases that declare unnamed unknown dims on purpose
    "sequence_optional/test_unknown_dims_independent_lengths": {
        "tvm": ("error", "Check failed: input_shape[i] == heap_data[reg] (2 vs. 3)"),
        "iree": ("refused", "(onnx.ConcatFromSequence)")},
    # a Shape TVM knows when converting comes back as a shape (a tuple of ints), given as int64
    "sequence_optional_constant/test_split_to_sequence_keepdims_ignored_part_shape__constant": {
        "tvm": ("pass", "")},
    # no TIR function: the executable is serialized and loaded back (tvm.runnable), as TVM's
    # jit does, so a [2, 0] constant fails to load as it does there
    "sequence_optional_constant/test_sequence_insert_zero_element_tensor__constant": {
        "tvm": ("refused", "Invalid DLTensor file format")},
}


@pytest.fixture(scope="module")
def generated_outcomes(root, iree_cache) -> dict[tuple[str, str], tuple[str, str]]:
    pattern = "^(" + "|".join(re.escape(c) for c in GENERATED_CASES) + ")$"
    results = verify(root / "generated", ["tvm", "iree"], jobs=2, select=[pattern])
    return {(r.case, r.backend): (r.outcome, r.message) for r in results}


@pytest.mark.parametrize("case", GENERATED_CASES)
def test_tvm_and_iree_on_generated_cases_of_both_forms(generated_outcomes, case):
    """The findings show as failures (TVM's SequenceInsert at -1, IREE's empty sequence of
    length 1), the shared-symbol bug as TVM's error, the boundary limits as refusals."""
    for runtime, (outcome, words) in GENERATED_CASES[case].items():
        got = generated_outcomes[case, runtime]
        assert got[0] == outcome and words in got[1], (runtime, got)


def test_tvm_and_iree_tensors_round_trip_by_their_bits():
    """What each runtime holds comes back bit for bit; what it cannot hold is CannotTake."""
    import iree.runtime as rt

    from onnx_seq_tests._core.errors import CannotTake
    from onnx_seq_tests._runtimes.iree import from_device
    from onnx_seq_tests._runtimes.tvm import from_value, to_tensor

    device = rt.get_device("local-sync")
    for name, array in SAMPLES.items():
        assert _same_bits(array, from_value(to_tensor(array, "x"))), ("tvm", name)
        assert _same_bits(array, from_device(rt.asdevicearray(device, array))), ("iree", name)
    for array in (np.array(["a"], dtype=object), np.array([1j], np.complex64),
                  np.array([1], ml_dtypes.int4)):
        with pytest.raises(CannotTake, match="tvm"):
            to_tensor(array, "x")


def test_iree_compiles_once_per_model_and_ends_a_compiler_that_overruns(iree_cache,
                                                                         monkeypatch):
    """The module is cached by model hash (a second prepare compiles nothing); a compiler that
    overruns its timeout is ended and its verdict not cached; a refusal is cached."""
    from onnx_seq_tests._runtimes import iree

    graph = helper.make_graph([helper.make_node("Neg", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    folder = iree.cache_folder()
    assert folder.parent == iree_cache
    monkeypatch.setenv("ONNX_SEQ_TESTS_IREE_COMPILE_TIMEOUT", "0.001")
    with pytest.raises(RuntimeError, match=r"iree-compile gave no result within 0.001 s"):
        iree.compiled(model)
    before = set(folder.glob("*")) if folder.exists() else set()
    monkeypatch.delenv("ONNX_SEQ_TESTS_IREE_COMPILE_TIMEOUT")
    module = iree.compiled(model)
    added = set(folder.glob("*")) - before
    assert [p.suffix for p in added] == [".vmfb"] and next(iter(added)).read_bytes() == module
    monkeypatch.setenv("ONNX_SEQ_TESTS_IREE_COMPILE_TIMEOUT", "0.001")  # no compile: cached
    rep = iree.load().prepare(model)
    assert rep.run([np.array([1.5, -0.0, 2], np.float32)])[0].tolist() == [-1.5, 0.0, -2.0]


def test_xfail_update_writes_a_runtimes_file_from_a_json_report(outcomes, tmp_path):
    """`gen-seq-tests xfail-update`: every case a runtime did not pass, grouped by message; a
    report without that runtime is one line, exit 2."""
    from onnx_seq_tests._reports.writers import write_json
    from onnx_seq_tests._reports.xfail_files import xfail_text
    from onnx_seq_tests._run.verifier import Result

    results = [Result(c, c, b, o, m, (), "float32", 0.0) for (c, b), (o, m) in outcomes.items()]
    report = tmp_path / "r.json"
    write_json(results, sorted({r.backend for r in results}), "s", report)
    done = CliRunner().invoke(main, ["xfail-update", str(report), "-b", "tvm", "-b", "iree",
                                     "-o", str(tmp_path / "xfail")])
    assert done.exit_code == 0, done.output
    text = (tmp_path / "xfail" / "iree.txt").read_text(encoding="utf-8")
    assert text == xfail_text(results, "iree", version_of("iree"))
    assert text.startswith(f"# Case folders iree {iree_version()} (compiler) does not pass (3)")
    entries = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert entries == ["iree test_sequence_length_input", "iree test_optional_has_element_empty",
                       "iree test_identity_string"]
    done = CliRunner().invoke(main, ["xfail-update", str(report), "-b", "nosuch"])
    assert done.exit_code == 2 and done.output.count("\n") == 1
    assert "no result of backend nosuch" in done.output


def iree_version() -> str:
    from importlib.metadata import version

    return version("iree-base-compiler")


def version_of(backend: str) -> str:
    return backends.describe(backend).split(",")[0]


def test_a_missing_runtime_package_is_one_line_naming_the_extra(monkeypatch):
    backends.load_backend.cache_clear()
    monkeypatch.setitem(sys.modules, "tract", None)  # what Python does for a missing package
    try:
        done = CliRunner().invoke(main, ["verify", "generated", "-b", "tract"])
    finally:
        backends.load_backend.cache_clear()
    assert done.exit_code == 2
    message = [line for line in done.output.splitlines() if "tract" in line]
    assert len(message) == 1 and "pip install 'onnx-seq-tests[tract]'" in message[0]


@pytest.fixture(scope="module")
def foreign(tmp_path_factory):
    return write_foreign_suite(tmp_path_factory.mktemp("foreign"))


def test_bad_backends_are_judged_not_a_traceback(foreign):
    from faulty_backends import BAD_SHAPES

    specs = [f"faulty_backends:{fault.__name__}" for fault in BAD_SHAPES]
    results = verify(foreign, specs, jobs=2)
    per_backend = {spec: [r for r in results if r.backend == spec] for spec in specs}
    cases = {r.name for r in results}
    def has_tensor_output(result) -> bool:
        model = onnx.load(str(foreign / result.case / "model.onnx"))
        return any(o.type.HasField("tensor_type") for o in model.graph.output)

    for spec, mine in per_backend.items():
        assert {r.name for r in mine} == cases, spec
        judged = [r for r in mine if spec != "faulty_backends:ListForTensor"
                  or has_tensor_output(r)]  # the others have no tensor output to wrap
        assert judged and all(r.outcome in ("fail", "error") for r in judged), spec
        assert all("Traceback" not in r.message for r in mine), spec
    first = {spec: next(r.message for r in mine if r.message).splitlines()[0]
             for spec, mine in per_backend.items()}
    assert "expected 1 output(s), got 2" in first["faulty_backends:ExtraOutput"]
    assert "got a sequence" in first["faulty_backends:ListForTensor"]
    assert first["faulty_backends:RaiseOnRun"] == "RuntimeError: planted failure"


def test_readme_adapter_example_runs(foreign, tmp_path, monkeypatch):
    """The own-runtime example, taken from the README (or docs/verifying.md), verifies a suite:
    it passes what onnxruntime passes, and an empty optional input is refused in its own
    words (it raises onnx_seq_tests.CannotTake)."""
    root = Path(__file__).resolve().parent.parent
    pages = [root / "README.md", root / "docs" / "verifying.md"]  # wherever it is shown
    text = "".join(p.read_text(encoding="utf-8") for p in pages if p.is_file())
    code = re.search(r'```python\n("""my_backend\.py:.*?)```', text, flags=re.S).group(1)
    assert len(code.splitlines()) <= 40
    (tmp_path / "my_backend.py").write_text(code, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    results = verify(foreign, ["onnxruntime", "my_backend:MyBackend"], jobs=2)
    outcomes = {(r.name, r.backend): (r.outcome, r.message) for r in results}
    names = {r.name for r in results}
    mine = {n: outcomes[n, "my_backend:MyBackend"] for n in names}
    assert sum(o == "pass" for o, _ in mine.values()) >= 10
    for name in names:
        if mine[name][0] == "pass":
            assert outcomes[name, "onnxruntime"][0] == "pass", name
    refused = [(o, m) for o, m in mine.values() if "cannot take an empty optional" in m]
    assert refused and all(o == "refused" and m.startswith("CannotTake: my runtime cannot take")
                           for o, m in refused)  # onnx_seq_tests.CannotTake: a refusal


def test_onnxruntime_native_error_log_stays_out_of_verify_output(root, tmp_path):
    """A case on which onnxruntime logs a kernel error: the error is the case's message, and
    nothing of onnxruntime's own log reaches the terminal."""
    case = "test_split_to_sequence_scalar_split_2_keepdims_ignored"
    shutil.copytree(root / "generated" / "sequence_optional" / case, tmp_path / case)
    cli = Path(sys.executable).parent / "gen-seq-tests"
    done = subprocess.run([str(cli), "verify", str(tmp_path), "-b", "onnxruntime"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert f"ERROR [onnxruntime] {case}: Fail: [ONNXRuntimeError]" in done.stdout
    assert done.stderr == ""


def test_tinygrad_keeps_a_signalling_nan_of_a_rank_2_tensor():
    """Found by the tinygrad fuzz campaign: the adapter built a rank-2 tensor with a reshape,
    which tinygrad's PYTHON device runs as a kernel in Python floats, quieting a signalling
    NaN (0x7fa00001 came back 0x7fe00001). It now hands the array over as tinygrad's own runner
    does."""
    from onnx_seq_tests._runtimes.tinygrad import _from_value, _to_value

    backends.load_backend("tinygrad")
    bits = np.array([[0x7FA00001, 0x3FC00000], [0xFFC00000, 0x7F800001]], np.uint32)
    back = _from_value(_to_value(bits.view(np.float32), "x"))
    assert back.view(np.uint32).tolist() == bits.tolist()


def test_tvm_runs_a_model_without_tir_functions_as_its_jit_would_without_linking():
    """tvm.compile gives a model with no TIR function an empty C module, which jit links with
    the system's C compiler; `runnable` loads the serialized executable back instead: the same
    outputs, the same load failure (a constant with a zero dim), no compiler run."""
    import tvm
    from onnx import TensorProto, helper, numpy_helper
    from tvm import relax
    from tvm.relax.frontend.onnx import from_onnx

    from onnx_seq_tests._runtimes.tvm import runnable

    backends.load_backend("tvm")

    def model(constant):
        graph = helper.make_graph(
            [helper.make_node("Identity", ["c"], ["y"])], "g", [],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(constant.shape))],
            [numpy_helper.from_array(constant, "c")])
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])

    def compiled(constant):
        return tvm.compile(from_onnx(model(constant)), target="llvm")

    value = np.array([[1.5, -2.0]], np.float32)
    loaded = runnable(compiled(value))
    assert not isinstance(loaded, tvm.runtime.Executable)  # nothing left for jit to link
    assert relax.VirtualMachine(loaded, tvm.cpu())["main"]().numpy().tolist() == value.tolist()
    for load in (runnable, lambda executable: executable):  # ours, then TVM's own jit
        with pytest.raises(Exception, match="Invalid DLTensor file format"):
            relax.VirtualMachine(load(compiled(np.zeros((2, 0), np.float32))), tvm.cpu())


@pytest.mark.parametrize("name, where", [("", ""), ("split", " at node 'split'")])
def test_iree_names_the_operator_and_the_node_it_refuses(iree_cache, name, where):
    """Every operation is located at its ONNX node (numbered, in a copy of the model), so a
    refusal names the node's operator, and the node itself when it has a name: a model's
    node names say where, and fuzz's packs say whose program it is (packing.located)."""
    from onnx_seq_tests._runtimes import iree

    nodes = [helper.make_node("SplitToSequence", ["x"], ["s"], keepdims=0, name=name),
             helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=0)]
    graph = helper.make_graph(nodes, "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [6])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    before = model.SerializeToString()
    with pytest.raises(RuntimeError) as refused:
        iree.compiled(model)
    assert str(refused.value) == (
        "iree-compile: failed to legalize operation 'torch.operator' that was explicitly "
        f"marked illegal (onnx.SplitToSequence){where}")
    assert model.SerializeToString() == before, "the model given is left as it is"


def test_iree_names_the_graph_input_or_output_it_refuses(iree_cache):
    """A refusal about a graph input or output names it: the importer's element type it
    cannot map, and iree-compile's result type that does not match the value returned
    (fuzz's packs read whose program it is from the name: packing.located)."""
    from onnx_seq_tests._runtimes import iree

    def refusal(nodes, inputs, outputs, initializers=()):
        graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
        with pytest.raises(RuntimeError) as refused:
            iree.compiled(helper.make_model(graph,
                                            opset_imports=[helper.make_opsetid("", 21)]))
        return str(refused.value)

    float4 = TensorProto.FLOAT4E2M1
    assert refusal([helper.make_node("Identity", ["x"], ["y"])],
                   [helper.make_tensor_value_info("x", float4, [2])],
                   [helper.make_tensor_value_info("y", float4, [2])]) == (
        f"importer: Unknown ONNX tensor element type: {float4} at input 'x'")
    assert refusal([helper.make_node("Cast", ["x"], ["y"], to=float4)],
                   [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                   [helper.make_tensor_value_info("y", float4, [2])]) == (
        f"importer: Unknown ONNX tensor element type: {float4} at output 'y'")
    parts = [helper.make_tensor(f"t{k}", TensorProto.INT16, [k + 1], [k] * (k + 1))
             for k in range(3)]
    zero = helper.make_tensor("zero", TensorProto.INT64, [], [0])
    assert refusal([helper.make_node("Identity", ["x"], ["w"]),
                    helper.make_node("SequenceConstruct", ["t0", "t1", "t2"], ["s"]),
                    helper.make_node("SequenceAt", ["s", "zero"], ["y"])],
                   [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                   [helper.make_tensor_value_info("w", TensorProto.FLOAT, [2]),
                    helper.make_tensor_value_info("y", TensorProto.INT16, ["N"])],
                   [*parts, zero]) == (
        "iree-compile: type of return operand 1 ('!torch.vtensor<[1],si16>') doesn't match "
        "function result type ('!torch.vtensor<[?],si16>') at output 'y'")


def test_iree_names_the_operator_of_an_initializer_and_of_no_place():
    """An initializer is imported as an onnx.Constant at its own name; an error at no place
    of the model keeps the operator quoted in it (or none), as iree-compile gave it."""
    from onnx_seq_tests._runtimes.iree import Places, _compiler_line

    places = Places({"#0": ("", "Identity"), "five": ("", "Constant")})
    text = ('<unknown>:0: error: loc("five"): \'stream.tensor.constant\' op failed to calculate'
            ' total byte count\n<unknown>:0: note: loc("five"): see current operation: %4 = 1')
    assert _compiler_line(text, 1, places) == (
        "'stream.tensor.constant' op failed to calculate total byte count (onnx.Constant)")
    text = ("<unknown>:0: error: loc(unknown): type of return operand 1 ('!torch.vtensor<[2]"
            ",si32>') doesn't match function result type in function @test_x")
    assert _compiler_line(text, 1, places) == (
        "type of return operand 1 ('!torch.vtensor<[2],si32>') doesn't match function result "
        "type")
    text = ('<unknown>:0: error: loc("#0"): failed to legalize operation \'torch.operator\': %3 '
            '= "torch.operator"(%2) <{name = "onnx.If"}>')
    assert _compiler_line(text, 1, places) == \
        "failed to legalize operation 'torch.operator' (onnx.If)"


def test_iree_names_the_nodes_an_error_located_nowhere_left_unconverted():
    """The IR printed after the failed pass (`--mlir-print-ir-after-failure`) names the nodes
    whose torch operations are left, by location or by alias, in order, each once; not torch_c's
    casts, torch's constants, nor nodes without a name of their own; an error located at a node
    names that node only."""
    from onnx_seq_tests._runtimes.iree import Places, _compiler_line

    places = Places({"#0": ("p2_s", "SplitToSequence"), "#1": ("p2_n", "SequenceLength"),
                     "#2": ("", "Neg"), "#3": ("p0_y", "Abs")})
    dump = [
        "<unknown>:0: error: failed to legalize operation 'torch.constant.int': %2 = "
        '"torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int loc(unknown)',
        "// -----// IR Dump After FinalizingBackendTypeConversion Failed //----- //",
        '  %int1 = torch.constant.int 1 loc("#3")',
        '  %1 = torch_c.from_builtin_tensor %0 : tensor<i16> -> !torch.vtensor<[],si16> '
        'loc("#3")',
        '  %2 = torch.aten.neg %1 : !torch.vtensor<[],si16> -> !torch.vtensor<[],si16> loc("#2")',
        "  %3 = torch.aten.split.Tensor %1, %int1, %int1 : !torch.vtensor<[1,1],si32> -> "
        '!torch.list<vtensor<[1,1],si32>> loc("#0")',
        '  %4:2 = torch.aten.len.t %3 : !torch.list<vtensor<[1,1],si32>> -> !torch.int loc(#loc5)',
        '  torch.aten.insert.t %3, %int1, %1 : !torch.list<vtensor<[],si16>> loc("#0")',
        '#loc5 = loc("#1")']
    assert _compiler_line("\n".join(dump), 1, places) == (
        "failed to legalize operation 'torch.constant.int' (left unconverted: node 'p2_s', "
        "node 'p2_n')")
    located = dump[0].replace("error: failed", 'error: loc("#3"): failed')
    assert _compiler_line("\n".join([located, *dump[1:]]), 1, places) == (
        "failed to legalize operation 'torch.constant.int' (onnx.Abs) at node 'p0_y'")
    assert _compiler_line(dump[0], 1, places) == (
        "failed to legalize operation 'torch.constant.int'")
