"""Compiling cases: one case to the files of its folder, a case file to its cases' files, many
case files in worker processes, and streaming: each compiled case handed back as soon as it is
made, so the build writes while the workers compile (a cold build then costs about what
writing its files costs).
"""

from __future__ import annotations

import dataclasses
import hashlib
import queue as queues
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import repeat
from typing import Any

import numpy as np

from .._casefile import reader as casefile
from .._casefile.discovery import CaseSource
from .._core import interrupts, ir_checks
from .._core.cases import Case
from .._core.elements import ElementType
from .._core.errors import CaseFileError, ModelError
from .._core.problems import Problem, Problems, Where
from .._core.suite_forms import SuiteForm
from .._core.value_kinds import canonical
from .._oracle import expectations
from . import constant_form, tensor_io
from .layout import SUITE, case_files
from .manifest import CaseEntry
from .model import build_model

#: The forms derived from each case, and how: its variants of the form, or why it has none.
DERIVATIONS = ((SuiteForm.TENSOR_BOUNDARY, tensor_io.derive),
               (SuiteForm.CONSTANT, constant_form.derive))

# -- one case ------------------------------------------------------------------------------------

def compile_case(case: Case, empty_optional: str, problems: Problems) -> dict[str, bytes] | None:
    """The files of one case folder, relative path -> bytes; None (and `problems` filled) when
    onnx refuses the model or the expectations disagree with the spec oracle."""
    try:
        model = build_model(case)
    except ModelError as error:
        problems.add(error.where or case.where, f"case '{case.name}': {error}")
        return None
    found = ir_checks.check_case(case)  # values vs declared types, named dims (IR.md)
    found = found or expectations.check_case(case)  # authored expectations vs the spec oracle
    if found:
        problems.found.extend(found)
        return None
    return case_files(case, model, empty_optional)


def compile_cases(cases: list[Case], empty_optional: str = "undefined") -> dict[str, bytes]:
    """All files of the suite, `test_<name>/...` -> bytes; CaseFileError if a case is refused."""
    problems = Problems()
    files: dict[str, bytes] = {}
    for case in cases:
        for relative, data in (compile_case(case, empty_optional, problems) or {}).items():
            files[f"{case.folder}/{relative}"] = data
    problems.raise_if_any()
    return files


def fingerprint(case: Case) -> str:
    """A hash of everything in a case that its files depend on (places in the file excluded)."""
    return hashlib.sha256(repr(_canonical(case)).encode()).hexdigest()


_PLAIN = (type(None), bool, int, float, str, bytes)  # their repr is exact
_FIELDS: dict[type, tuple[str, ...]] = {}
_PLACES = ("where", "expanded_from")  # where a case was written: its files do not depend on it


def _canonical(value):
    """A value made of plain values, tuples, lists and dicts whose repr tells apart any two
    different values: a tuple stays a tuple, a list a list; arrays, element types and
    dataclasses become one-key dicts, a value of a kind with a form of its own (a map) that
    form (`ValueType.canonical`)."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is tuple:
        return tuple(map(_canonical, value))
    if kind is list:
        return list(map(_canonical, value))
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        data = (tuple(map(_canonical, array.ravel().tolist())) if array.dtype.kind == "O"
                else np.ascontiguousarray(array).tobytes())
        return {"array": (array.dtype.str, array.dtype.name, array.shape, data)}
    if kind is ElementType:
        return {"element": value.name}
    if dataclasses.is_dataclass(value):
        names = _FIELDS.get(kind)
        if names is None:
            names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(value)
                                          if f.name not in _PLACES)
        return {kind.__name__: tuple((n, _canonical(getattr(value, n))) for n in names)}
    found = canonical(value, _canonical)  # a value kind's own (a map's pairs, in order)
    if found is not None:
        return found
    raise TypeError(f"fingerprint: no rule for a {kind.__name__} value; add one to "
                    "compiling._canonical or to its value kind's `canonical`")


# -- many case files, in worker processes --------------------------------------------------------

@dataclass
class CaseResult:
    """One compiled case: its manifest entry, `files` relative to its folder (None where the
    old ones still hold), and where it is written (None for a case kept from the last build,
    its file not parsed again; a variant of a derived form: its case's place)."""

    name: str
    fingerprint: str
    entry: CaseEntry
    files: dict[str, bytes] | None
    where: Where | None = None


@dataclass
class FileResult:
    """The cases of one case file, and the problems found in it."""

    problems: list[Problem]
    cases: list[CaseResult]


def compile_file(source: CaseSource, empty_optional: str, reusable: dict[str, str],
                 on_case: Callable[[CaseResult], None] | None = None) -> FileResult:
    """Load one case file (already read) and compile its cases, except those whose fingerprint
    `reusable` (name -> fingerprint) already holds. With `on_case`, each CaseResult is handed
    to it as soon as it is made, and not kept in the FileResult."""
    try:
        cases = casefile.load_source(source)
    except CaseFileError as error:
        return FileResult(list(error.problems), [])
    problems = Problems()
    results = []
    for case in cases:
        for item, item_entry in with_variants(case):
            mark = fingerprint(item)
            files = None
            if reusable.get(item.name) != mark:
                files = compile_case(item, empty_optional, problems)
                if files is None:
                    break  # a refused case: its variants would only repeat the problem
            result = CaseResult(item.name, mark, item_entry, files, case.where)
            if on_case is None:
                results.append(result)
            else:
                on_case(result)
    return FileResult(problems.found, results)


def with_variants(case: Case) -> list[tuple[Case, CaseEntry]]:
    """A case and its variants of each derived form (built by the same code path), each with
    its manifest entry: the case's lists its variants per form, or why it has none."""
    entry = CaseEntry.of(case, SUITE)
    variants = []
    for form, derive in DERIVATIONS:
        made = derive(case)
        entry = entry.with_variants(form, tuple(v.name for v in made.variants),
                                    made.reason or None)
        variants += [(v, dataclasses.replace(CaseEntry.of(v, form.folder),
                                             form=form.manifest_form, derived_from=case.name))
                     for v in made.variants]
    return [(case, entry), *variants]


def compile_files(sources: list[CaseSource], empty_optional: str, reusable: dict[str, str],
                  jobs: int) -> list[FileResult]:
    """`compile_file` of each source, in `jobs` processes; the results in the order given."""
    if jobs <= 1 or len(sources) <= 1:
        return [compile_file(source, empty_optional, reusable) for source in sources]
    largest_first = sorted(range(len(sources)), key=lambda i: _size(sources[i]), reverse=True)
    with _pool(max_workers=min(jobs, len(sources))) as pool:
        done = pool.map(compile_file, [sources[i] for i in largest_first],
                        repeat(empty_optional), repeat(reusable))
        results = dict(zip(largest_first, done, strict=True))
    return [results[i] for i in range(len(sources))]


def stream_files(sources: list[CaseSource], empty_optional: str, reusable: dict[str, str],
                 jobs: int, on_case: Callable[[CaseResult], None]) -> list[FileResult]:
    """`compile_files`, with every CaseResult handed to `on_case` in this process as soon as a
    worker has made it (the results' `cases` are then filled in here, in each file's order).
    Runs `jobs` (at least one) worker processes, so this process is free to use each case
    (write its files) while the workers compile the next ones: the smallest file first (the
    first case comes soonest), then the largest first (the workers end together)."""
    order = sorted(range(len(sources)), key=lambda i: _size(sources[i]), reverse=True)
    order.insert(0, order.pop())
    import multiprocessing

    context = multiprocessing.get_context()
    channel = context.Queue()
    cases: list[list[CaseResult]] = [[] for _ in sources]
    problems: dict[int, list[Problem]] = {}
    with _pool(max_workers=max(1, min(jobs, len(sources))), mp_context=context,
               initializer=_StreamWorker.start, initargs=(channel,)) as pool:
        futures = [pool.submit(_StreamWorker.stream, i, sources[i], empty_optional, reusable)
                   for i in order]
        while len(problems) < len(sources):
            try:
                index, item = channel.get(timeout=0.2)
            except queues.Empty:
                for future in futures:  # a worker that failed sends no end mark: raise it
                    error = future.exception() if future.done() else None
                    if error is not None:
                        raise error from None
                continue
            if isinstance(item, CaseResult):
                on_case(item)
                cases[index].append(item)
            else:
                problems[index] = item
    return [FileResult(problems[i], cases[i]) for i in range(len(sources))]


@contextmanager
def _pool(**options) -> Iterator[ProcessPoolExecutor]:
    """A ProcessPoolExecutor whose workers are killed when the block raises (Ctrl-C, SIGTERM,
    a refused case): the build stops at once, and a worker blocked sending on a queue nobody
    reads any more cannot hold the exit forever."""
    pool = ProcessPoolExecutor(**options)
    try:
        yield pool
    except BaseException:
        for process in list((pool._processes or {}).values()):
            process.kill()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


class _StreamWorker:
    """A worker process of `stream_files`, and the one piece of process-wide state of the
    build: the queue to the parent. A queue reaches a pool's worker only as it starts (the
    pool's initializer, `start`), not with each task, so the worker keeps it here for its
    tasks (`stream`); the parent process never sets it."""

    channel: Any = None

    @classmethod
    def start(cls, channel: Any) -> None:
        interrupts.in_worker()
        cls.channel = channel

    @classmethod
    def stream(cls, index: int, source: CaseSource, empty_optional: str,
               reusable: dict[str, str]) -> None:
        """Compile one case file, sending (index, CaseResult) per case, then (index, the
        file's problems) as its end mark."""
        result = compile_file(source, empty_optional, reusable,
                              on_case=lambda case: cls.channel.put((index, case)))
        cls.channel.put((index, result.problems))


def _size(source: CaseSource) -> int:
    return len(source.data or b"")
