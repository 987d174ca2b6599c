"""`onnx_seq_tests.backend_test`: onnx's Runner holding our suite only, judged by our
comparator, so harnesses built on onnx's Runner can run it as they are."""

from __future__ import annotations

import io
import re
import subprocess
import sys
import unittest
from pathlib import Path

import onnxruntime.backend
import pytest
from faulty_backends import FAULTS
from foreign_suite import FAULT_TARGETS, case_names, write_foreign_suite
from onnx.backend.test import BackendTest

import onnx_seq_tests
from onnx_seq_tests._run.backend_test import CATEGORY


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> Path:
    return write_foreign_suite(tmp_path_factory.mktemp("foreign"))


def run(backend_test) -> unittest.TestResult:
    return unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(
        backend_test.test_suite)


def names(pairs) -> set[str]:
    return {test.id().rsplit(".", 1)[1] for test, _ in pairs}


def test_only_the_suite_cases(suite):
    backend_test = onnx_seq_tests.backend_test(onnxruntime.backend, suite)
    assert isinstance(backend_test, BackendTest)
    (test_class,) = backend_test.test_cases.values()
    assert test_class.__name__ == f"OnnxBackend{CATEGORY}ModelTest"
    tests = {n for n in dir(test_class) if n.startswith("test_")}
    assert tests == {f"{case}_{device}" for case in case_names() for device in ("cpu", "cuda")}


def test_honest_onnxruntime_passes(suite):
    result = run(onnx_seq_tests.backend_test(onnxruntime.backend, suite))
    assert result.testsRun == 2 * len(case_names())
    assert (result.failures, result.errors) == ([], [])
    assert {reason for _, reason in result.skipped} == {"Backend doesn't support device CUDA"}


@pytest.mark.parametrize("fault", FAULTS, ids=lambda f: f.__name__)
def test_every_planted_fault_is_caught(suite, fault):
    result = run(onnx_seq_tests.backend_test(fault, suite))
    assert result.errors == []
    assert names(result.failures) == {f"{case}_cpu" for case in FAULT_TARGETS[fault.__name__]}
    assert all(re.search(r"OutputMismatch: data set \d+: output 0", trace)
               for _, trace in result.failures)


def test_runner_filters_still_work(suite):
    backend_test = onnx_seq_tests.backend_test("faulty_backends:DropLast", suite)
    backend_test.xfail("|".join(FAULT_TARGETS["DropLast"]))
    backend_test.exclude("_cuda$")
    result = run(backend_test)
    assert (result.failures, result.errors, result.unexpectedSuccesses) == ([], [], [])
    assert len(result.expectedFailures) == len(FAULT_TARGETS["DropLast"])
    assert len(result.skipped) == len(case_names())


def test_reference_spec_string(suite):
    backend_test = onnx_seq_tests.backend_test("reference", suite)
    backend_test.include("test_strings_sequence_cpu$")
    result = run(backend_test)
    assert result.testsRun == 2 * len(case_names())
    assert (result.failures, result.errors) == ([], [])
    assert len(result.skipped) == 2 * len(case_names()) - 1


def test_repeated_case_names_are_refused(suite, tmp_path):
    for part in ("a", "b"):
        (tmp_path / part / "test_same").mkdir(parents=True)
        (tmp_path / part / "test_same" / "model.onnx").write_bytes(b"")
    with pytest.raises(ValueError, match="repeated: test_same"):
        onnx_seq_tests.backend_test(onnxruntime.backend, tmp_path)


def test_export_is_lazy():
    code = ("import sys, onnx_seq_tests; assert 'onnx.backend.test.runner' not in sys.modules; "
            "assert callable(onnx_seq_tests.backend_test); "
            "assert 'onnx.backend.test.runner' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_xfail_by_runtime_name_marks_the_listed_cases(suite, tmp_path):
    """`xfail=` takes what `verify --xfail` takes; the cases it lists are expected failures
    (pytest: xfailed), the others run as before."""
    listed = tmp_path / "known.txt"
    listed.write_text("# planted\nDropLast " + " ".join(FAULT_TARGETS["DropLast"][:1]) + "\n"
                      + "".join(f"{name}\n" for name in FAULT_TARGETS["DropLast"][1:]))
    backend_test = onnx_seq_tests.backend_test("faulty_backends:DropLast", suite,
                                               xfail=listed)
    backend_test.exclude("_cuda$")
    result = run(backend_test)
    assert (result.failures, result.errors, result.unexpectedSuccesses) == ([], [], [])
    assert names(result.expectedFailures) == {f"{c}_cpu" for c in FAULT_TARGETS["DropLast"]}


def test_xfail_entries_that_pass_are_unexpected_successes(suite, tmp_path):
    listed = tmp_path / "known.txt"
    listed.write_text("onnxruntime " + case_names()[0] + "\n")
    backend_test = onnx_seq_tests.backend_test(onnxruntime.backend, suite, xfail=listed)
    backend_test.exclude("_cuda$")
    result = run(backend_test)
    assert names((t, "") for t in result.unexpectedSuccesses) == {f"{case_names()[0]}_cpu"}


def test_xfail_name_and_mistakes(suite, tmp_path):
    from onnx_seq_tests._core.errors import SuiteError, XfailError

    packaged = onnx_seq_tests.backend_test(onnxruntime.backend, suite, xfail="onnxruntime")
    assert isinstance(packaged, BackendTest)  # a name is the checkout's xfail/onnxruntime.txt
    with pytest.raises(SuiteError, match="no xfail file of that name"):
        onnx_seq_tests.backend_test(onnxruntime.backend, suite, xfail="nosuchruntime")
    bad = tmp_path / "bad.txt"
    bad.write_text("a b c\n")
    with pytest.raises(XfailError, match=r"bad\.txt:1:1: expected `PATTERN`"):
        onnx_seq_tests.backend_test(onnxruntime.backend, suite, xfail=bad)
