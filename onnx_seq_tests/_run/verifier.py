"""Run suites in the standard layout on backends and judge each case with the comparator.

A suite is any folder holding case folders (`test_*/model.onnx`) at any depth, symbolic links
followed (found by _published/discovery.py, which also gives each case its key and manifest entry).
Each case is read like any consumer reads it (case_folder.read_case_folder: .pb files decoded by the
model's graph types, bounded, external data refused), prepared once per backend and run on
every data set. Per case and
backend the outcome is (the message says why, for all but a pass)
  pass     every data set's outputs match
  fail     an output differs (the comparator's messages are kept)
  refused  the runtime would not prepare the model (prepare raised), or its API cannot take a
           value kind (the adapter raised CannotTake: the type, not a name or a message), or
           a graph input or output has a value kind this tool cannot read (a sparse tensor:
           Unsupported, worker_main.unread)
  error    a run raised after a successful prepare, the outputs broke the adapter's output
           contract (outputs.py; the message starts `adapter error:`), or the case folder could
           not be read
  crash    the process running the backend died (its signal or exit code, its stderr's end)
  timeout  the backend overran --timeout (which counts reading the case folder too)
  transform-failed  (a transformed subject `T>B`, verify --transform) a transform raised or
           returned no model
  invalid-model  (a transformed subject) onnx's full check refused the model a transform made
  unjudged (a transformed subject) its backend does not pass the untransformed case in the same
           run: nothing to judge the transform by (transformed.py); not unexpected
  xfail    any of the above but pass and unjudged, and the case is listed in the --xfail file
  xpass    pass, but the case is listed in the --xfail file
Cases run in worker processes (workers.py), so a backend that crashes or hangs ends as a crash
or timeout of the case it was running rather than ending the run. A case's operators, opset and
source come from the suite's manifest.json when it lists the case, else from its model.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .._core.differences import Difference
from .._core.errors import (
    ArgumentError,
    BackendSpecError,
    NoCasesError,
    WorkerStartError,
    XfailError,
    one_line,
)
from .._core.problems import Problems, Where, quote
from .._core.suite_forms import SuiteForm
from .._published.discovery import CaseRef, find_cases
from .._runtimes.backends import check_spec
from . import fork_server, transformed
from .workers import Pool, Task

__all__ = ["OUTCOMES", "UNEXPECTED", "Arguments", "Result", "XfailEntry", "apply_xfail",
           "check_arguments", "check_xfail", "load_xfail", "run", "verify"]

OUTCOMES = ("pass", "fail", "refused", "error", "crash", "timeout", "transform-failed",
            "invalid-model", "unjudged", "xfail", "xpass")
#: Outcomes that make `verify` exit 1 (unless the case is listed in the --xfail file).
UNEXPECTED = ("fail", "refused", "error", "crash", "timeout", "transform-failed",
              "invalid-model")


@dataclass(frozen=True)
class Result:
    """One case on one backend."""

    case: str  # the case folder's path relative to the suite root, '/'-separated
    name: str  # the case folder's name, test_<name>
    backend: str  # the backend spec
    outcome: str  # one of OUTCOMES
    message: str  # why it did not pass; empty for a pass
    operators: tuple[str, ...]  # the case's operator types (manifest, else the model's nodes)
    element: str  # the element type(s) it moves, see case_elements
    seconds: float  # wall time of this backend on this case, also when it crashed or hung
    opset: int | None = None  # the case's opset (manifest, else the model's)
    source: str = ""  # where the case is written, `file:line`, when the manifest says
    raw_outcome: str = ""  # the outcome before the --xfail list was applied; "": the same
    form: SuiteForm = SuiteForm.AS_WRITTEN  # the suite form of the case (CaseRef.form)
    #: What the message says, as records, for the fuzzer (not in the JSON report: `json`
    #: False): a fail's differences (the first ones the message shows, the comparator's
    #: records), and the type's name of the exception behind an error or a refusal.
    differences: tuple[Difference, ...] = field(default=(), metadata={"json": False})
    error_type: str = field(default="", metadata={"json": False})

    def __post_init__(self) -> None:
        if not isinstance(self.operators, tuple):  # a '+'-joined str would pass silently
            raise TypeError("Result.operators is a tuple of operator names, not "
                            f"{type(self.operators).__name__}")
        if not isinstance(self.form, SuiteForm):
            raise TypeError(f"Result.form is a SuiteForm, not {type(self.form).__name__}")

    @property
    def operator(self) -> str:
        """The operators as reports show them: '+'-joined ("" for none); the JSON report's
        "operator" key and the JUnit "operator" property hold this text."""
        return "+".join(self.operators)


@dataclass
class XfailEntry:
    """One line of an --xfail file: a regex over case names, for one backend or all."""

    pattern: re.Pattern
    backend: str | None
    where: str  # file:line
    used: bool = False


def load_xfail(path: Path) -> list[XfailEntry]:
    """Read an --xfail file: per line `PATTERN` or `BACKEND PATTERN`; `#` starts a comment.

    A pattern is a case name or a regex that must match the whole case name, with or without
    its `test_` prefix (or the case's path relative to the suite root); with BACKEND it applies
    to that --backend spec only. XfailError lists every bad line as `file:line:col: ...`.
    """
    problems = Problems()
    entries = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        problems.add(Where(str(path), 1, 1), f"cannot read the file: {error}")
        lines = []
    for number, line in enumerate(lines, start=1):
        text = re.sub(r"(^|\s)#.*$", "", line).strip()
        if not text:
            continue
        fields = text.split()
        if len(fields) > 2:
            problems.add(Where(str(path), number, 1), "expected `PATTERN` or `BACKEND PATTERN`, "
                         f"got {len(fields)} fields; write \\s for a space inside a regex")
            continue
        backend, pattern = (None, fields[0]) if len(fields) == 1 else fields
        try:
            compiled = re.compile(pattern)
        except re.error as error:
            problems.add(Where(str(path), number, line.index(pattern) + 1),
                         f"{pattern!r} is not a valid regex: {error}")
            continue
        entries.append(XfailEntry(compiled, backend, f"{path}:{number}"))
    problems.raise_if_any(XfailError)
    return entries


def apply_xfail(result: Result, entries: list[XfailEntry]) -> Result:
    """The result with any unexpected outcome (UNEXPECTED) turned into xfail, and pass into
    xpass, when listed; `raw_outcome` then keeps the outcome it had."""
    for entry in entries:
        if entry.backend not in (None, result.backend):
            continue
        if _xfail_matches(entry, result.name, result.case):
            entry.used = True
            if result.outcome in UNEXPECTED:
                return replace(result, outcome="xfail", raw_outcome=result.outcome)
            if result.outcome == "pass":
                return replace(result, outcome="xpass", raw_outcome="pass",
                               message=f"listed as an expected failure at {entry.where}")
    return result




def _xfail_matches(entry: XfailEntry, name: str, case: str) -> bool:
    short = name.removeprefix("test_")
    folder, _, _ = case.rpartition("/")
    candidates = (name, short, case, f"{folder}/{short}" if folder else short)
    return any(entry.pattern.fullmatch(text) for text in candidates)


def check_xfail(entries: list[XfailEntry], specs: list[str], cases: list[CaseRef]) -> list[str]:
    """Warnings about --xfail entries: each that names a backend not being run, or matches no
    case of the suite; `file:line: warning: ...`."""
    warnings = []
    for entry in entries:
        if entry.backend is not None and entry.backend not in specs:
            warnings.append(f"{entry.where}: warning: backend {entry.backend!r} is not being run "
                            f"(--backend {', '.join(specs)}); the entry is ignored")
        elif not any(_xfail_matches(entry, c.name, c.case) for c in cases):
            warnings.append(f"{entry.where}: warning: {entry.pattern.pattern!r} matched no case")
    return warnings


def verify(root: object, specs: list[str], *, xfail: list[XfailEntry] | None = None,
           jobs: int = 1, on_case: OnCase | None = None, timeout: float | None = None,
           select: list[str] | tuple[str, ...] = (), cases: list[CaseRef] | None = None,
           transforms: list[str] | tuple[str, ...] = ()) -> list[Result]:
    """Run every case folder under `root` (a folder or a list of them) on every backend spec,
    in `jobs` worker processes (0: one per CPU).

    `select` keeps the cases whose name or path a regex finds; `cases` (from find_cases) is
    used as given instead. `transforms` (transform specs, one chain) adds the subject `T>B`
    beside each backend B (transformed.py). `on_case(results)` is called as each case
    finishes. Results come back sorted by case, then in the order of `specs`. With `timeout`,
    a backend that gives no result for a case within that many seconds has its process group
    ended, and the case is its `timeout`; the limit is per backend and case, whatever other
    backends are listed, and for the first backend of a case it counts reading the case folder
    too. Every process a worker or a backend started in the worker's process group is ended
    before this returns.

    Raises ValueError for a bad argument (`specs` not a non-empty list of distinct strings,
    `jobs` not an int >= 0, `timeout` not a number > 0, `select` not regexes), NoCasesError for
    a root without cases and BackendSpecError for a backend that cannot be used (checked once,
    up front: prepare(model, device) must give a rep with run); see check_arguments.
    """
    arguments = check_arguments(specs, jobs, timeout, select, transforms=transforms)
    refs = find_cases(root, arguments.select) if cases is None else cases
    if not refs:
        raise NoCasesError(f"no case under {root} matches -k {' -k '.join(select)}")
    return run(arguments, refs, xfail=xfail, on_case=on_case)


@dataclass(frozen=True)
class Arguments:
    """verify's arguments once checked (check_arguments): what a run is made of."""

    specs: tuple[str, ...]  # backend specs, each usable, none twice
    jobs: int  # worker processes, >= 0 (0: one per CPU)
    timeout: float | None  # seconds per backend and case
    select: tuple[re.Pattern, ...]  # the -k regexes, compiled
    transforms: tuple[str, ...] = ()  # one chain of transform specs, each loadable, in order

    @property
    def subjects(self) -> tuple[str, ...]:
        """What the run judges: each backend, then the chain on it (`T>T2>B`) with
        --transform."""
        return transformed.subjects(self.specs, self.transforms)


#: What check_arguments raises for a bad argument: refuse(argument, text, error) gives the
#: exception; `argument` is "specs", "jobs", "timeout", "select" or "transforms", `text` one
#: line, `error`
#: the exception that found it (a BackendSpecError, a re.error) or None.
Refuse = Callable[[str, str, Exception | None], Exception]
#: What verify calls with each case's results as soon as every backend gave one.
OnCase = Callable[[list[Result]], object]
#: run's `more`: a case's results -> the cases to run next in the same run.
More = Callable[[list[Result]], list[CaseRef]]


def _refused(argument: str, text: str, error: Exception | None) -> Exception:
    """The API's refusal: a BackendSpecError as it is, else ArgumentError `verify: ...`."""
    return error if isinstance(error, BackendSpecError) else ArgumentError(f"verify: {text}")


def check_arguments(specs: object, jobs: object = 1, timeout: object = None,
                    select: object = (), *, refuse: Refuse = _refused,
                    transforms: object = ()) -> Arguments:
    """verify's arguments checked, in the one place where the API (verify) and the command
    line (`gen-seq-tests verify`, through session.checked) check them, once per run: `specs` a
    non-empty list of backend specs, none given twice, each naming a backend that can be loaded
    (check_spec), `jobs` an int >= 0, `timeout` a number > 0 or None, `select` regexes (a str:
    one), `transforms` transform specs each load_transform takes (one chain). The first bad
    one raises refuse(argument, text, error) (see Refuse; by default ArgumentError, or the
    BackendSpecError itself). Once `specs` are known to be strings, the
    workers' fork server is started (fork_server.start_fork_server, from here only), so it
    imports the backends while the rest is checked."""
    specs = _checked_specs(specs, refuse)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 0:
        raise refuse("jobs", f"jobs must be an int >= 0 (0: one per CPU), got {jobs!r}", None)
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                or not math.isfinite(timeout) or timeout <= 0):
        raise refuse("timeout", "timeout must be a number of seconds > 0 or None, got "
                     f"{timeout!r}", None)
    fork_server.start_fork_server(specs)  # it imports the backends while this process goes on
    repeated = sorted({s for s in specs if specs.count(s) > 1})
    if repeated:
        raise refuse("specs", f"{', '.join(repeated)} given more than once", None)
    for spec in specs:  # fail early, in this process, on a spec that names nothing
        try:
            check_spec(spec)
        except BackendSpecError as error:
            raise refuse("specs", one_line(str(error)), error) from None
    return Arguments(tuple(specs), jobs, timeout, _compiled(select, refuse),
                     _checked_transforms(transforms, refuse))


def _checked_transforms(transforms: Any, refuse: Refuse) -> tuple[str, ...]:
    """The transform specs, each loaded once here (an import error, a name that is nothing, a
    target not callable: refuse("transforms", ...))."""
    from .._transforms import load_transform

    listed = [transforms] if isinstance(transforms, str) else list(transforms)
    for spec in listed:
        try:
            load_transform(spec)
        except ArgumentError as error:
            raise refuse("transforms", one_line(str(error)), None) from None
    return tuple(listed)


def _checked_specs(specs: Any, refuse: Refuse) -> list[str]:
    """`specs` as a list of non-empty strings; refuse("specs", ...) if it is not one."""
    try:
        listed = None if isinstance(specs, (str, bytes)) else list(specs)
    except TypeError:
        listed = None
    if listed is None or not all(isinstance(s, str) and s for s in listed):
        raise refuse("specs", "specs must be a list of backend specs (strings), got "
                     f"{quote(specs)}", None)
    if not listed:
        raise refuse("specs", "specs is empty; name at least one backend", None)
    return listed


def _compiled(select: Any, refuse: Refuse) -> tuple[re.Pattern, ...]:
    """The `select` regexes compiled (a str is one); refuse("select", ...) for one that is
    not a regex."""
    compiled = []
    for pattern in [select] if isinstance(select, str) else select:
        try:
            compiled.append(re.compile(pattern))
        except (re.error, TypeError) as error:
            raise refuse("select", f"{pattern!r} is not a valid regex: {error}", error) \
                from None
    return tuple(compiled)


def run(arguments: Arguments, refs: list[CaseRef], *, xfail: list[XfailEntry] | None = None,
        on_case: OnCase | None = None, pool: Pool | None = None,
        more: More | None = None) -> list[Result]:
    """Run the cases `refs` on the backends of checked `arguments`, as verify does once it has
    checked them and found the cases (the command line calls this with what it checked and
    found, so nothing is checked twice). WorkerStartError becomes BackendSpecError. `pool`
    (`kept_pool`'s, for these arguments) runs them in workers kept from an earlier run.
    `more(results)`, called with each case's results as they come (after `on_case`), gives
    the cases to run next in this same run (fuzz's packs: what a pack's verdict leaves to
    judge), in the same workers; their results are returned with the others."""
    subjects = arguments.subjects
    collector = _Collector(list(refs), subjects, xfail or [], on_case)
    if pool is None:
        pool = Pool(subjects, _jobs(arguments), arguments.timeout, collector.on_event)
    if more is not None:
        collector.more = lambda done: pool.pending.extend(
            Task(collector.added(ref), str(ref.path), subjects) for ref in more(done))
    pool.on_event = collector.on_event
    tasks = [Task(i, str(ref.path), subjects) for i, ref in enumerate(refs)]
    try:
        pool.run(tasks, _probe)
    except WorkerStartError as error:
        raise BackendSpecError(str(error)) from None
    return collector.results()


def kept_pool(arguments: Arguments) -> Pool:
    """Workers for `run(arguments, ..., pool=...)` that stay from one run to the next, their
    backends loaded and checked once; the caller ends them with `close()`."""
    return Pool(arguments.subjects, _jobs(arguments), arguments.timeout, None, keep=True)


def _jobs(arguments: Arguments) -> int:
    return max(1, arguments.jobs or os.cpu_count() or 1)


def _probe(problems: list) -> list[str]:
    """The problems of the first worker's check of each backend (None: none)."""
    return [p for p in problems if p]


class _Collector:
    """The results of a run, gathered from the pool's events (workers.Pool): each case's
    results handed to `on_case` as soon as every backend gave one."""

    def __init__(self, refs: list[CaseRef], specs: tuple[str, ...], xfail: list[XfailEntry],
                 on_case: OnCase | None) -> None:
        self.refs, self.specs, self.xfail, self.on_case = refs, specs, xfail, on_case
        self.more: Callable[[list[Result]], None] | None = None  # run(..., more=...)
        self.order = {spec: i for i, spec in enumerate(specs)}
        self.infos: dict[int, dict] = {}
        self.got: dict[int, list[Result]] = {}
        self.collected: list[Result] = []

    def added(self, ref: CaseRef) -> int:
        """The index of a case added to the run (`more`)."""
        self.refs.append(ref)
        return len(self.refs) - 1

    def on_event(self, kind: str, task: Task, spec: str | None, payload: Any) -> None:
        """One event of the pool (workers.Pool): a case read (its info), or a backend's
        result, crash or timeout."""
        if kind == "case":
            self.infos[task.key] = payload
        elif kind == "result" and spec is not None:
            self.add(task.key, spec, *payload)
        elif spec is not None:  # crash or timeout: outcomes of their own
            self.add(task.key, spec, kind, *payload)

    def add(self, index: int, spec: str, outcome: str, message: str, seconds: float,
            differences: tuple[Difference, ...] = (), error_type: str = "") -> None:
        ref, info = self.refs[index], self.infos.get(index, {})
        operators = ref.operators if ref.operators is not None else info.get("operators", [])
        result = Result(ref.case, ref.name, spec, outcome, message, tuple(operators),
                        info.get("element", "(unknown)"), seconds,
                        ref.opset if ref.opset is not None else info.get("opset"), ref.source,
                        form=ref.form, differences=differences, error_type=error_type)
        self.got.setdefault(index, []).append(result)
        if len(self.got[index]) == len(self.specs):
            done = [r if r.outcome == transformed.UNJUDGED else apply_xfail(r, self.xfail)
                    for r in _baseline_applied(self.got.pop(index))]
            done.sort(key=lambda r: self.order[r.backend])
            self.collected.extend(done)
            if self.on_case:
                self.on_case(done)
            if self.more:
                self.more(done)

    def results(self) -> list[Result]:
        """Every result, sorted by case (in the order of `refs`), then by backend."""
        position = {ref.case: i for i, ref in enumerate(self.refs)}
        return sorted(self.collected, key=lambda r: (position[r.case], self.order[r.backend]))


def _baseline_applied(results: list[Result]) -> list[Result]:
    """One case's results with the baseline rule applied: a transformed subject's result is
    `unjudged` when its backend did not pass the case untransformed (its message says what the
    backend gave, its own outcome kept in raw_outcome)."""
    untransformed = {r.backend: r.raw_outcome or r.outcome for r in results
                     if not transformed.is_transformed(r.backend)}
    ruled = []
    for result in results:
        if transformed.is_transformed(result.backend):
            backend = transformed.split(result.backend)[1]
            baseline = untransformed.get(backend, "")
            if baseline != "pass":
                result = replace(result, outcome=transformed.UNJUDGED,
                                 raw_outcome=result.raw_outcome or result.outcome,
                                 message=f"not judged: {backend} itself gives "
                                         f"{baseline or 'no result'} on the untransformed model")
        ruled.append(result)
    return ruled
