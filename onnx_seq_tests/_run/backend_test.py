"""The drop-in for harnesses built on onnx's Runner: `backend_test(backend, data_dir)`.

It returns an `onnx.backend.test.BackendTest` whose tests are the suite's cases only, so a
runtime whose tests already subclass onnx's Runner keeps its `.include/.exclude/.xfail`,
`test_cases` and pytest collection:

    import onnxruntime.backend
    import onnx_seq_tests

    backend_test = onnx_seq_tests.backend_test(onnxruntime.backend, parent_module=__name__,
                                               xfail="onnxruntime")
    backend_test.exclude("_cuda$")
    globals().update(backend_test.test_cases)   # pytest collects them

Differences from onnx's own Runner, on purpose: onnx's suites are not loaded; .pb files are read
through this project's codec (both encodings of an empty optional, sequences of 0-d tensors and
strings); outputs are judged by `compare.assert_outputs_match` (sequence lengths, optionals,
exact integers and strings) instead of onnx's `assert_similar_outputs`.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import onnx
from onnx.backend.test.case.test_case import TestCase
from onnx.backend.test.runner import Runner

from .._core.compare import DEFAULT_ATOL, DEFAULT_RTOL, assert_outputs_match
from .._core.errors import BackendSpecError, OutputMismatch
from .._core.problems import path_argument
from .._core.value_kinds import from_api, from_type_proto
from .._published.case_folder import read_tolerance, read_value
from .._published.discovery import CaseRef, find_cases
from .._runtimes.backends import check_backend, resolve
from .verifier import Result, apply_xfail, load_xfail

#: The test category: tests land in the unittest class `OnnxBackendSequenceOptionalModelTest`.
CATEGORY = "SequenceOptional"


def backend_test(backend, data_dir=None, parent_module: str | None = None, *,
                 xfail=None) -> SuiteBackendTest:
    """A BackendTest running every case folder under `data_dir` (at any depth) on `backend`.

    `data_dir` defaults to the checkout's generated/, or outside a checkout the suite installed
    with the package (see onnx_seq_tests.suite_dir()).

    `xfail` names known failures as `verify --xfail` takes them: a runtime's name
    (`"onnxruntime"`: xfail/onnxruntime.txt of the checkout, else the one installed with the
    package) or an xfail file. Every entry of it applies, whatever BACKEND it names; the cases it
    matches are marked expected failures (pytest reports them as xfailed, and as failed when
    they pass). A missing file or a name without a file is a SuiteError; a bad line an
    XfailError naming it as file:line:col.

    `backend` is an onnx backend (class or module with `prepare` and `supports_device`) or a
    spec string (`onnxruntime`, `reference`, `module`, `module:attr`). Raises SuiteError (a
    ValueError) naming `data_dir` when it holds no case folder, and BackendSpecError when the
    backend cannot prepare a one-node model into a rep with run(inputs).
    """
    if data_dir is None:
        from .._published.resources import default_suite

        data_dir = default_suite().root
    data_dir = path_argument(data_dir, "data_dir")
    resolved = resolve(backend)
    name = backend if isinstance(backend, str) else getattr(backend, "__name__", repr(backend))
    if not callable(getattr(resolved, "prepare", None)):
        raise BackendSpecError(f"backend {name}: has no prepare(model, device); give an "
                               "onnx.backend.base.Backend class or a module with prepare")
    problem = check_backend(resolved, name)
    if problem:
        raise BackendSpecError(problem)
    suite = SuiteBackendTest(resolved, data_dir, parent_module)
    if xfail is not None:
        from .._published.resources import xfail_file

        for name in known_failures(suite.cases, xfail_file(xfail)):
            suite.xfail(f"^{re.escape(name)}_[a-z]+$")  # test_<case>_<device>
    return suite


def known_failures(cases: list[CaseRef], path: Path) -> list[str]:
    """The names of the case folders that the xfail file at `path` lists (under any BACKEND),
    matched as `verify --xfail` matches them."""
    entries = load_xfail(path)
    names = []
    for ref in cases:
        probe = Result(ref.case, ref.name, "", "fail", "", (), "", 0.0)
        if any(apply_xfail(replace(probe, backend=entry.backend or ""), [entry]).outcome
               == "xfail" for entry in entries):
            names.append(ref.name)
    return names


class SuiteBackendTest(Runner):
    """onnx's Runner holding one suite's cases and judging them with our comparator."""

    def __init__(self, backend, data_dir, parent_module: str | None = None,
                 test_kwargs: dict | None = None) -> None:
        # Runner.__init__ always loads onnx's own suites, so it is not called; these are the
        # attributes it sets (onnx is pinned, see pyproject.toml).
        self.backend = backend
        self._parent_module = parent_module
        self._include_patterns = set()
        self._exclude_patterns = set()
        self._xfail_patterns = set()
        self._test_kwargs = test_kwargs or {}
        self._test_items = defaultdict(dict)
        self.cases = find_cases(Path(data_dir))  # CaseRef: path, case (relative path), name
        folders = [ref.path for ref in self.cases]
        names = [folder.name for folder in folders]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"case names must be unique under {data_dir}; repeated: "
                             + ", ".join(repeated))
        for folder in folders:
            self._add_model_test(_test_case(folder), CATEGORY)

    def _load_proto(self, proto_filename, target_list, model_type_proto) -> None:
        """Read a .pb file by its graph type, through the project's codec; the data set it
        belongs to is named in the messages of the comparison that follows."""
        self._data_set = Path(proto_filename).parent.name
        target_list.append(read_value(proto_filename, from_type_proto(model_type_proto),
                                       strict=False))

    def assert_similar_outputs(  # type: ignore[override]  # onnx: a classmethod; ours reads self
            self, ref_outputs, outputs, rtol, atol, model_dir=None) -> None:
        """Our comparator in place of onnx's; names and types come from the case's model, and
        each message starts with its data set (`data set 0: output 0 (s): ...`)."""
        names = types = None
        if model_dir is not None:
            graph = onnx.load(str(Path(model_dir) / "model.onnx")).graph
            names = [o.name for o in graph.output]
            types = [from_type_proto(o.type) for o in graph.output]
        data_set = getattr(self, "_data_set", "")
        label = "data set " + data_set.removeprefix("test_data_set_") if data_set else ""
        if types is not None and len(types) == len(outputs):  # a Python API's own forms
            outputs = [from_api(o, t) for o, t in zip(outputs, types, strict=True)]
        try:
            assert_outputs_match(ref_outputs, outputs, atol=atol, rtol=rtol, names=names,
                                 types=types)
        except OutputMismatch as error:
            if not label:
                raise
            raise OutputMismatch("\n".join(f"{label}: {line}" for line in
                                           str(error).splitlines())) from None


def _test_case(folder: Path) -> TestCase:
    """onnx's TestCase for a case folder, with the tolerances of its data.json."""
    atol, rtol = read_tolerance(folder)
    atol = DEFAULT_ATOL if atol is None else atol
    rtol = DEFAULT_RTOL if rtol is None else rtol
    return TestCase(name=folder.name, model_name=folder.name, url=None, model_dir=str(folder),
                    model=None, data_sets=None, kind=CATEGORY, rtol=rtol, atol=atol)
