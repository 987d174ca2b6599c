"""One module of errors: every exception class of the package is defined in _core/errors.py,
derives from SeqTestsError, no two share a name, and each carries the exit status the command
line gives it (2 bad input or usage, 1 a failed check), which the command group reads from the
class (its `exit_code`), never from a list of classes; printed once by the command group."""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import pkgutil
import types
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import onnx_seq_tests
from onnx_seq_tests._cli import main
from onnx_seq_tests._cli.conventions import Commands
from onnx_seq_tests._core import errors
from onnx_seq_tests._core.errors import CaseFileError, CheckFailed, NothingRead, SeqTestsError
from onnx_seq_tests._core.problems import Problem

PACKAGE = Path(onnx_seq_tests.__file__).parent
ERRORS = PACKAGE / "_core" / "errors.py"


def _classes(package: types.ModuleType = onnx_seq_tests) -> list[type]:
    """Every class defined at the top level of a module of `package` (imported)."""
    found = []
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if info.name.endswith(".__main__"):
            continue  # running it is the point of that module
        module = importlib.import_module(info.name)
        found += [value for name, value in vars(module).items()
                  if inspect.isclass(value) and value.__module__ == module.__name__
                  and value.__name__ == name]  # errors.py's older names are its classes
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


def _error_names() -> set[str]:
    """The names errors.py gives its classes (their own and the older ones)."""
    return {name for name, value in vars(errors).items()
            if inspect.isclass(value) and issubclass(value, BaseException)}


def _strays(sources: dict[str, str]) -> list[str]:
    """`path:line: Name` of each class (at any depth) of `sources` (path -> text) that derives
    from an exception: a builtin one, one of errors.py, or one these sources define."""
    builtin = {name for name, value in vars(builtins).items()
               if inspect.isclass(value) and issubclass(value, BaseException)}
    known = builtin | _error_names()
    trees = {path: ast.parse(text) for path, text in sources.items()}
    found: list[str] = []
    grew = True
    while grew:  # a class deriving from a stray one is a stray too
        grew = False
        for path, tree in trees.items():
            for node in ast.walk(tree):
                if not isinstance(node, ast.ClassDef):
                    continue
                bases = {ast.unparse(b).rsplit(".", 1)[-1] for b in node.bases}
                entry = f"{path}:{node.lineno}: {node.name}"
                if bases & known and entry not in found:
                    found.append(entry)
                    known.add(node.name)
                    grew = True
    return sorted(found)


def _package_sources() -> dict[str, str]:
    return {str(p.relative_to(PACKAGE.parent)): p.read_text(encoding="utf-8")
            for p in sorted(PACKAGE.rglob("*.py")) if p != ERRORS}


def test_every_error_class_is_defined_in_errors_py(classes):
    """An ast walk of every module but errors.py finds no class deriving from an exception (at
    any depth, inside functions too), and every exception class found by importing the
    package is errors.py's."""
    assert len(_package_sources()) > 50  # the walk sees the package (and can fail)
    assert _strays(_package_sources()) == []
    assert sorted({c.__module__ for c in classes}) == ["onnx_seq_tests._core.errors"]


def test_the_walk_finds_an_error_class_defined_elsewhere():
    """The probes: a class deriving from a builtin exception, from an errors.py class, from
    such a stray one, and one defined inside a function are each named; others are not."""
    probe = {"onnx_seq_tests/_x/probe.py": (
        "from .._core.errors import InputError\n"
        "class Plain:\n    pass\n"
        "class Mine(InputError):\n    pass\n"
        "class Deeper(Mine):\n    pass\n"
        "def f():\n    class Local(RuntimeError):\n        pass\n"
        "class Aliased(errors.ManifestError):\n    pass\n")}
    assert _strays(probe) == ["onnx_seq_tests/_x/probe.py:11: Aliased",
                              "onnx_seq_tests/_x/probe.py:4: Mine",
                              "onnx_seq_tests/_x/probe.py:6: Deeper",
                              "onnx_seq_tests/_x/probe.py:9: Local"]


def _near_collisions(names: set[str]) -> list[str]:
    """Pairs of error names that differ by a plural (NoteError, NotesError) or where one is the
    other with a prefix (ReportError, XfailReportError)."""
    found = []
    for a in sorted(names):
        for b in sorted(names):
            stem_a, stem_b = a.removesuffix("Error"), b.removesuffix("Error")
            if a != b and (stem_b == stem_a + "s" or (b.endswith(a) and a.endswith("Error"))):
                found.append(f"{a}, {b}")
    return found


def test_no_two_error_names_nearly_collide():
    """Every name errors.py gives (its classes' and the older ones), and the names the old
    modules used show that the check can fail."""
    assert len(_error_names()) > 20
    assert _near_collisions(_error_names()) == []
    assert _near_collisions({"NoteError", "NotesError", "ReportError", "XfailReportError",
                             "OutputError", "FuzzOutputError", "ReadError"}) == [
        "NoteError, NotesError", "OutputError, FuzzOutputError",
        "ReportError, XfailReportError"]


def test_each_error_carries_its_exit_code(classes):
    """2 (bad input or usage) unless a check failed (1): exactly CheckFailed and its
    subclasses say 1."""
    assert {c.exit_code for c in classes} == {1, 2}
    assert SeqTestsError.exit_code == 2 and CheckFailed.exit_code == 1
    failed_checks = sorted(c.__name__ for c in classes if c.exit_code == 1)
    assert failed_checks == sorted(c.__name__ for c in classes if issubclass(c, CheckFailed))
    assert failed_checks == ["CheckFailed", "NothingRead", "OutputMismatch"]


def test_the_command_group_exits_with_the_code_the_error_carries():
    """The group reads `exit_code` from the error, whatever its class: a probe error saying 3
    exits 3, one line on stderr; an error's own lines() are what is printed."""
    probe = type("ProbeError", (SeqTestsError,), {"exit_code": 3})

    @click.group(cls=Commands)
    def group() -> None:
        pass

    @group.command()
    def three() -> None:
        raise probe("three it is")

    @group.command()
    def nothing() -> None:
        raise NothingRead("no folder read", [])

    result = CliRunner().invoke(group, ["three"])
    assert (result.exit_code, result.output) == (3, "error: three it is\n")
    result = CliRunner().invoke(group, ["nothing"])
    assert (result.exit_code, result.output) == (1, "error: no folder read (none); nothing was "
                                                    "written\n")


def test_a_refusal_is_a_type_and_its_name_is_kept():
    """verify's `refused` outcome is told by CannotTake's type (worker_main.refusal); the class
    keeps its name, which reports show (`CannotTake: ...`), and it is public, for backends of
    one's own."""
    from onnx_seq_tests._run.worker_main import refusal

    assert onnx_seq_tests.CannotTake is errors.CannotTake
    assert errors.CannotTake.__name__ == "CannotTake"
    assert refusal(errors.CannotTake("x cannot take a sequence input"))
    assert not refusal(RuntimeError("x cannot take a sequence input"))
    assert not refusal(type("CannotTake", (RuntimeError,), {})("x"))


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
