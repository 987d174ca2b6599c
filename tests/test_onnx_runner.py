"""The seed cases through onnx's own loader and Runner, run by onnxruntime, as a runtime would."""

import unittest
from pathlib import Path

import onnx
import onnx.backend.test.runner
import onnxruntime.backend
import pytest
from onnx.backend.test.loader import load_model_tests
from onnx.backend.test.runner import Runner

from onnx_seq_tests._casefile.reader import load_cases
from onnx_seq_tests._suite.layout import SUITE

ROOT = Path(__file__).resolve().parent.parent
SEED_CASES = {c.folder for c in load_cases([ROOT / "cases" / "seeds"])}


def seed_tests():
    return [t for t in load_model_tests(data_dir=str(ROOT / "generated"), kind=SUITE)
            if t.name in SEED_CASES]


def test_loader_finds_every_seed_case_with_exact_tolerance():
    tests = seed_tests()
    assert len(tests) == 17 + 12
    assert {(t.atol, t.rtol) for t in tests} == {(0.0, 0.0)}


def runner_without_onnx_suites(monkeypatch) -> Runner:
    """onnx's Runner as it is, holding no test yet: its __init__ would load all of onnx's own
    suites (generating every node case, seconds of work) only for us to drop them."""
    with monkeypatch.context() as patch:
        patch.setattr(onnx.backend.test.runner, "load_model_tests", lambda **_: [])
        runner = Runner(onnxruntime.backend, __name__)
    assert dict(runner._test_items) == {}
    return runner


def test_onnx_runner_with_onnxruntime_passes_every_seed_case(monkeypatch):
    runner = runner_without_onnx_suites(monkeypatch)
    for test in seed_tests():
        runner._add_model_test(test, SUITE)
    runner.include(r"_cpu$")  # this machine has no accelerator: the _cuda twins are skipped
    result = unittest.TextTestRunner(verbosity=0).run(runner.test_suite)
    problems = result.failures + result.errors
    assert not problems, "\n".join(f"{test}: {trace}" for test, trace in problems)
    assert {str(test).split()[0] for test, _ in result.skipped} == {
        f"{t.name}_cuda" for t in seed_tests()}
    assert result.testsRun - len(result.skipped) == 29


@pytest.mark.parametrize("test", seed_tests(), ids=lambda t: t.name)
def test_every_seed_model_passes_full_check_and_strict_inference(test):
    model = onnx.load(str(Path(test.model_dir) / "model.onnx"))
    onnx.checker.check_model(model, full_check=True)
    onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    assert model.ir_version == onnx.helper.find_min_ir_version_for(list(model.opset_import))
