"""One error base: every exception class of the package derives from SeqTestsError, no two
share a name, and each carries the exit status the command line gives it (2 bad input, 1 a
failed check), printed once by the command group."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import types

import pytest
from click.testing import CliRunner

import onnx_seq_tests
from onnx_seq_tests._cli import main
from onnx_seq_tests._core.problems import CaseFileError, CheckFailed, Problem, SeqTestsError


def _classes(package: types.ModuleType = onnx_seq_tests) -> list[type]:
    """Every class defined at the top level of a module of `package` (imported)."""
    found = []
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if info.name.endswith(".__main__"):
            continue  # running it is the point of that module
        module = importlib.import_module(info.name)
        found += [value for value in vars(module).values()
                  if inspect.isclass(value) and value.__module__ == module.__name__]
    return found


def _exception_classes(package: types.ModuleType = onnx_seq_tests) -> list[type]:
    """Every exception class defined at the top level of a module of `package` (imported)."""
    return [c for c in _classes(package) if issubclass(c, BaseException)]


def _not_derived(classes: list[type]) -> list[str]:
    return [f"{c.__module__}.{c.__qualname__}" for c in classes
            if not issubclass(c, SeqTestsError)]


def _shared_names(classes: list[type]) -> list[str]:
    by_name: dict[str, list[str]] = {}
    for c in classes:
        by_name.setdefault(c.__name__, []).append(c.__module__)
    return [f"{name}: {', '.join(modules)}" for name, modules in sorted(by_name.items())
            if len(modules) > 1]


@pytest.fixture(scope="module")
def classes() -> list[type]:
    return _exception_classes()


def test_every_error_of_the_package_derives_from_one_base(classes):
    assert len(classes) > 20  # the walk sees the package's errors (and can fail)
    assert not _not_derived(classes)


def test_no_two_error_classes_share_a_name(classes):
    assert not _shared_names(classes)


def test_no_two_classes_of_the_package_share_a_name():
    """Errors or not: a name found in a traceback or an import names one class."""
    every = _classes()
    assert len(every) > 100  # the walk sees the package's classes (and can fail)
    assert not _shared_names(every)


def test_the_checks_can_fail():
    """A stray exception class and a second class of one name are both named."""
    stray = type("StrayError", (ValueError,), {"__module__": "onnx_seq_tests._x"})
    first = type("TwiceError", (SeqTestsError,), {"__module__": "onnx_seq_tests._a"})
    second = type("TwiceError", (SeqTestsError,), {"__module__": "onnx_seq_tests._b"})
    assert _not_derived([stray, first]) == ["onnx_seq_tests._x.StrayError"]
    assert _shared_names([stray, first, second]) == [
        "TwiceError: onnx_seq_tests._a, onnx_seq_tests._b"]


def test_each_error_carries_its_exit_code(classes):
    assert {c.exit_code for c in classes} == {1, 2}
    assert SeqTestsError.exit_code == 2 and CheckFailed.exit_code == 1
    failed_checks = sorted(c.__name__ for c in classes if c.exit_code == 1)
    assert failed_checks == ["CheckFailed", "NothingRead", "PackError", "WriteFailed"]


def test_what_the_command_line_prints_for_an_error():
    assert SeqTestsError("a\nb").lines() == ["error: a\\nb"]
    error = CaseFileError([Problem("c.yaml", 2, 3, "bad"), Problem("c.yaml", 1, 1, "worse")])
    assert error.lines() == ["c.yaml:1:1: worse\nc.yaml:2:3: bad",
                             "2 problem(s) found; nothing was written."]


def test_one_place_turns_an_error_into_its_line_and_exit_code(tmp_path):
    """A SeqTestsError raised while converting an argument (the SuiteRoot type) and one raised
    by a command (a failed check) both come out as one line on stderr with their code."""
    result = CliRunner().invoke(main, ["mutation", str(tmp_path)])
    assert result.exit_code == 2
    assert result.output == (f"error: no case folders (test_*/model.onnx) under {tmp_path}; "
                             "build the suite first with `gen-seq-tests build`, or give its "
                             "output root\n")
    (tmp_path / "manifest.json").write_text("{}")
    result = CliRunner().invoke(main, ["pack", str(tmp_path), "-o", str(tmp_path / "a.tgz")])
    assert result.exit_code == 2 and result.output.startswith("error: ")
    assert result.output.count("\n") == 1
