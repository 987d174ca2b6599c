"""Run a suite in the standard layout on backends and judge each case with the comparator.

A suite is any folder holding case folders (`test_*/model.onnx`) at any depth. Each case is read
like any consumer reads it (layout.read_case_folder: .pb files decoded by the model's graph
types), prepared once per backend and run on every data set. Per case and backend the outcome is
  pass    every data set's outputs match
  fail    an output differs (the comparator's messages are kept)
  error   the backend raised, or the case folder could not be read (the message is kept)
  xfail   fail or error, and the case is listed in the --xfail file
  xpass   pass, but the case is listed in the --xfail file
Cases run in worker processes, so a backend that crashes its process ends as an error of the
case it was running rather than ending the run.
"""

from __future__ import annotations

import multiprocessing
import re
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures import TimeoutError as FutureTimeout  # not the builtin before 3.11
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from pathlib import Path

import onnx

from .._core.compare import compare_outputs
from .._core.problems import SeqTestsError
from .._core.value_types import from_type_proto, innermost
from .._suite.layout import CaseFolder, case_folders, read_case_folder
from .backends import load_backend, prepare, run_prepared

OUTCOMES = ("pass", "fail", "error", "xfail", "xpass")
#: Outcomes that make `verify` exit 1.
UNEXPECTED = ("fail", "error")
#: At most this many comparator messages are kept per case and backend.
MAX_MESSAGES = 10


@dataclass(frozen=True)
class Result:
    """One case on one backend."""

    case: str  # the case folder's path relative to the suite root, '/'-separated
    name: str  # the case folder's name, test_<name>
    backend: str  # the backend spec
    outcome: str  # one of OUTCOMES
    message: str  # why it did not pass; empty for a pass
    operator: str  # the operator the case tests, see case_operator
    element: str  # the element type(s) it moves, see case_elements
    seconds: float


class XfailError(SeqTestsError, ValueError):
    """A bad --xfail file; the message is `file:line:col: what is wrong`."""


@dataclass
class XfailEntry:
    """One line of an --xfail file: a regex over case names, for one backend or all."""

    pattern: re.Pattern
    backend: str | None
    where: str  # file:line
    used: bool = False


def load_xfail(path: Path) -> list[XfailEntry]:
    """Read an --xfail file: per line `PATTERN` or `BACKEND PATTERN`; `#` starts a comment.

    A pattern is a case name or a regex that must match the whole case name (or the case's
    path relative to the suite root); with BACKEND it applies to that --backend spec only.
    """
    entries = []
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, start=1):
        text = re.sub(r"(^|\s)#.*$", "", line).strip()
        if not text:
            continue
        fields = text.split()
        if len(fields) > 2:
            raise XfailError(f"{path}:{number}:1: expected `PATTERN` or `BACKEND PATTERN`, got "
                             f"{len(fields)} fields; write \\s for a space inside a regex")
        backend, pattern = (None, fields[0]) if len(fields) == 1 else fields
        column = line.index(pattern) + 1
        try:
            compiled = re.compile(pattern)
        except re.error as error:
            raise XfailError(f"{path}:{number}:{column}: {pattern!r} is not a valid regex: "
                             f"{error}") from None
        entries.append(XfailEntry(compiled, backend, f"{path}:{number}"))
    return entries


def apply_xfail(result: Result, entries: list[XfailEntry]) -> Result:
    """The result with fail/error turned into xfail, and pass into xpass, when listed."""
    for entry in entries:
        if entry.backend not in (None, result.backend):
            continue
        if entry.pattern.fullmatch(result.name) or entry.pattern.fullmatch(result.case):
            entry.used = True
            if result.outcome in UNEXPECTED:
                return replace(result, outcome="xfail")
            if result.outcome == "pass":
                return replace(result, outcome="xpass",
                               message=f"listed as an expected failure at {entry.where}")
    return result


def case_operator(model: onnx.ModelProto, name: str) -> str:
    """The operator a case tests: the longest op type of the model whose snake_case name is a
    `_`-separated part of the case name (test_sequence_insert_at_back -> SequenceInsert), else
    the op type of the graph's last node."""
    op_types = set(_op_types(model.graph))
    padded = f"_{name}_"
    named = [op for op in op_types if f"_{_snake(op)}_" in padded]
    if named:
        return max(named, key=lambda op: (len(op), op))
    if model.graph.node:
        return model.graph.node[-1].op_type
    return "(no node)"


def _snake(op_type: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", op_type).lower()


def _op_types(graph: onnx.GraphProto):
    for node in graph.node:
        yield node.op_type
        for attribute in node.attribute:
            if attribute.type == onnx.AttributeProto.GRAPH:
                yield from _op_types(attribute.g)
            for subgraph in attribute.graphs:
                yield from _op_types(subgraph)


def case_elements(model: onnx.ModelProto) -> str:
    """The element types a case moves: those of its sequence and optional values (graph
    boundary and, after shape inference, inside), else those of its graph inputs, else of its
    outputs; joined with '+'."""
    try:
        inferred = onnx.shape_inference.infer_shapes(model)
    except Exception:  # a model onnx cannot infer still gets a summary from its boundary
        inferred = model
    graph = inferred.graph
    boundary = [*graph.input, *graph.output]
    groups = ([v for v in [*boundary, *graph.value_info] if _is_container(v)],
              list(graph.input), list(graph.output))
    for group in groups:
        names = sorted({_element_name(v) for v in group} - {None})
        if names:
            return "+".join(names)
    return "(none)"


def _is_container(value: onnx.ValueInfoProto) -> bool:
    return value.type.WhichOneof("value") in ("sequence_type", "optional_type")


def _element_name(value: onnx.ValueInfoProto) -> str | None:
    try:
        value_type = from_type_proto(value.type)
    except (TypeError, KeyError):
        return None
    return innermost(value_type).element.name


def check_case(path: str, root: str, specs: tuple[str, ...]) -> list[Result]:
    """Run one case folder on every backend; never raises for a backend's or a folder's fault."""
    path, root = Path(path), Path(root)
    case = path.name if path == root else path.relative_to(root).as_posix()
    try:
        folder = read_case_folder(path)
        operator = case_operator(folder.model, path.name)
        element = case_elements(folder.model)
    except Exception as error:  # a broken folder is this case's error, not the run's end
        message = f"cannot read the case folder: {_error_text(error)}"
        return [Result(case, path.name, spec, "error", message, "(unreadable)", "(unreadable)",
                       0.0) for spec in specs]
    results = []
    for spec in specs:
        _quiet(spec)
        start = time.perf_counter()
        outcome, message = _run_on(folder, spec)
        results.append(Result(case, path.name, spec, outcome, message, operator, element,
                              round(time.perf_counter() - start, 6)))
    return results


def _quiet(spec: str) -> None:
    """Keep onnxruntime's warnings off the terminal: what a backend reports for a case is
    kept in its outcome's message."""
    if spec == "onnxruntime":
        import onnxruntime

        onnxruntime.set_default_logger_severity(4)  # 3 still prints errors to stderr


def _run_on(folder: CaseFolder, spec: str) -> tuple[str, str]:
    if not folder.data_sets:
        return "error", "the case folder has no test_data_set_* folder"
    names = [o.name for o in folder.model.graph.output]
    problems = []
    try:
        rep = prepare(load_backend(spec), folder.model)
        for k, (inputs, expected) in enumerate(folder.data_sets):
            actual = run_prepared(rep, inputs)
            found = compare_outputs(expected, actual, atol=folder.atol, rtol=folder.rtol,
                                    names=names, types=folder.output_types)
            problems.extend(f"data set {k}: {p}" for p in found)
    except Exception as error:  # the backend raised: an outcome, with its message kept
        return "error", _error_text(error)
    if problems:
        hidden = len(problems) - MAX_MESSAGES
        kept = problems[:MAX_MESSAGES] + ([f"... and {hidden} more"] if hidden > 0 else [])
        return "fail", "\n".join(kept)
    return "pass", ""


def _error_text(error: BaseException) -> str:
    text = str(error).strip() or "(no message)"
    return f"{type(error).__name__}: {text}"


def verify(root: Path, specs: list[str], *, xfail: list[XfailEntry] | None = None,
           jobs: int = 1, on_case=None, timeout: float | None = None) -> list[Result]:
    """Run every case folder under `root` on every backend spec, in `jobs` worker processes.

    `on_case(results)` is called as each case finishes. Results come back sorted by case, then
    in the order of `specs`. With `timeout`, a backend that gives no result for a case within
    that many seconds has its process ended, and the case is an error of that backend.
    """
    for spec in specs:  # fail early, in this process, on a spec that names nothing
        load_backend(spec)
    paths = [str(p) for p in case_folders(root)]
    order = {spec: i for i, spec in enumerate(specs)}
    collected: list[Result] = []

    def done(results: list[Result]) -> None:
        results = [apply_xfail(r, xfail or []) for r in results]
        collected.extend(results)
        if on_case:
            on_case(results)

    _run_in_workers(paths, str(root), tuple(specs), max(1, jobs), done, timeout)
    return sorted(collected, key=lambda r: (r.case, order[r.backend]))


def _run_in_workers(paths, root, specs, jobs, done, timeout) -> None:
    """Keep at most `jobs` cases in flight. When a worker dies, or a case overruns its time
    (`timeout` per backend), every case in flight then is rerun alone, one backend at a time,
    so the crash or the hang is pinned to a case and a backend."""
    context = multiprocessing.get_context("spawn")
    allowed = None if timeout is None else timeout * len(specs)
    pending = deque(paths)
    while pending:
        suspects: list[str] = []
        with ProcessPoolExecutor(jobs, mp_context=context) as pool:
            if timeout is not None:  # start the workers first: their imports are not timed
                wait([pool.submit(_load_backends, specs) for _ in range(jobs)])
            running, deadlines = {}, {}
            while (pending and not suspects) or running:
                while pending and len(running) < jobs and not suspects:
                    path = pending.popleft()
                    future = pool.submit(check_case, path, root, specs)
                    running[future] = path
                    if allowed is not None:
                        deadlines[future] = time.monotonic() + allowed
                wait_for = None if not deadlines else max(
                    0.0, min(deadlines[f] for f in running) - time.monotonic())
                finished, _ = wait(running, timeout=wait_for, return_when=FIRST_COMPLETED)
                for future in finished:
                    path = running.pop(future)
                    try:
                        done(future.result())
                    except BrokenProcessPool:
                        suspects.append(path)
                if not finished and any(deadlines[f] <= time.monotonic() for f in running):
                    suspects.extend(running.values())
                    running.clear()
                    _end_worker_processes()
        for path in suspects:
            done([_run_alone(path, root, spec, context, timeout) for spec in specs])


def _load_backends(specs) -> None:
    """Import every backend in this worker, before any case is timed."""
    for spec in specs:
        load_backend(spec)


def _end_worker_processes() -> None:
    """Kill this process's children: the workers, one of which is stuck in a backend."""
    for child in multiprocessing.active_children():
        child.kill()


def _run_alone(path: str, root: str, spec: str, context, timeout: float | None) -> Result:
    """One case on one backend in a fresh process; an error result if the process dies or
    gives no result within `timeout` seconds."""
    message = "the backend crashed the process running this case"
    with ProcessPoolExecutor(1, mp_context=context) as pool:
        try:
            if timeout is not None:
                pool.submit(_load_backends, (spec,)).result()
            return pool.submit(check_case, path, root, (spec,)).result(timeout)[0]
        except BrokenProcessPool:
            pass
        except FutureTimeout:
            message = f"the backend gave no result within {timeout:g} s; its process was ended"
            _end_worker_processes()
    path_, root_ = Path(path), Path(root)
    case = path_.name if path_ == root_ else path_.relative_to(root_).as_posix()
    try:
        model = onnx.load(str(path_ / "model.onnx"))
        operator, element = case_operator(model, path_.name), case_elements(model)
    except Exception:  # the folder's own problem is reported by the other backends' runs
        operator = element = "(unreadable)"
    return Result(case, path_.name, spec, "error", message, operator, element, 0.0)
