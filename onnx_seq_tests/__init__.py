"""onnx-seq-tests: a conformance suite for ONNX sequence and optional operators, and its tools.

The public API is what `__all__` lists; everything under a module whose name starts with `_` is
private. Names are imported on first use, so `import onnx_seq_tests` loads no onnx:

    load_cases(paths) -> list[Case]            case files (YAML) to cases; CaseFileError
    build(paths, out_root) -> BuildReport      compile cases into a suite folder, incrementally
    check(paths, out_root) -> list[str]        the drift check: what differs, [] when nothing
    verify(root, specs) -> list[Result]        run a built suite on backends and judge it
    read_case_folder(path) -> CaseFolder       one test_<name> folder read as a consumer reads it,
                                               as untrusted data (bounded); ReadError for bad input
    compare(expected, actual, ...) -> list[str]  the verifier's comparator, one line per difference
    backend_test(backend, data_dir)            onnx's backend-test Runner over a built suite
    CannotTake                                 what a backend raises to refuse a value kind
"""

from __future__ import annotations

from typing import TYPE_CHECKING

#: public name -> (private module, name there)
_PUBLIC = {
    "load_cases": ("._casefile.reader", "load_cases"),
    "build": ("._suite.build", "build"),
    "check": ("._suite.build_check", "check"),
    "BuildReport": ("._suite.build", "BuildReport"),
    "OutputError": ("._core.errors", "OutputError"),
    "verify": ("._run.verifier", "verify"),
    "Result": ("._run.verifier", "Result"),
    "read_case_folder": ("._published.case_folder", "read_case_folder"),
    "CaseFolder": ("._published.case_folder", "CaseFolder"),
    "ReadError": ("._core.errors", "ReadError"),
    "compare": ("._core.compare", "compare_outputs"),
    "assert_outputs_match": ("._core.compare", "assert_outputs_match"),
    "backend_test": ("._run.backend_test", "backend_test"),
    "Case": ("._core.cases", "Case"),
    "Graph": ("._core.cases", "Graph"),
    "Node": ("._core.cases", "Node"),
    "ValueDecl": ("._core.cases", "ValueDecl"),
    "DataSet": ("._core.cases", "DataSet"),
    "TensorType": ("._core.value_kinds", "TensorType"),
    "SequenceType": ("._core.value_kinds", "SequenceType"),
    "OptionalType": ("._core.value_kinds", "OptionalType"),
    "ElementType": ("._core.elements", "ElementType"),
    "SeqTestsError": ("._core.errors", "SeqTestsError"),
    "CaseFileError": ("._core.errors", "CaseFileError"),
    "CannotTake": ("._core.errors", "CannotTake"),
    "Problem": ("._core.problems", "Problem"),
    "suite_dir": ("._published.resources", "suite_dir"),
}

__all__ = ["__version__", "BuildReport", "CannotTake", "Case", "CaseFileError", "CaseFolder",
           "DataSet", "ElementType", "Graph", "Node", "OptionalType", "OutputError", "Problem",
           "ReadError", "Result", "SeqTestsError", "SequenceType", "TensorType", "ValueDecl",
           "assert_outputs_match", "backend_test", "build", "check", "compare", "load_cases",
           "read_case_folder", "suite_dir", "verify"]

if TYPE_CHECKING:  # what a type checker or an IDE sees; at run time __getattr__ imports lazily
    from ._casefile.reader import load_cases
    from ._core.cases import Case, DataSet, Graph, Node, ValueDecl
    from ._core.compare import assert_outputs_match
    from ._core.compare import compare_outputs as compare
    from ._core.elements import ElementType
    from ._core.errors import CannotTake, CaseFileError, OutputError, ReadError, SeqTestsError
    from ._core.problems import Problem
    from ._core.value_kinds import OptionalType, SequenceType, TensorType
    from ._published.case_folder import CaseFolder, read_case_folder
    from ._published.resources import suite_dir
    from ._run.backend_test import backend_test
    from ._run.verifier import Result, verify
    from ._suite.build import BuildReport, build
    from ._suite.build_check import check


def __getattr__(name: str):
    """Import a public name on first use (most of them pull in onnx); `__version__` is read
    from the installed metadata on first use too."""
    if name == "__version__":
        from ._core.versions import package_version

        return package_version()
    try:
        module_name, attribute = _PUBLIC[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    from importlib import import_module

    value = getattr(import_module(module_name, __name__), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC})
