"""Compiling cases: one case to the files of its folder, a case file to its cases' files, many
case files in worker processes, and streaming: each compiled case handed back as soon as it is
made, so the build writes while the workers compile (a cold build then costs about what
writing its files costs).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import queue as queues
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path

import numpy as np

from .._casefile import reader as casefile
from .._core import ir_checks
from .._core.cases import Case
from .._core.elements import ElementType
from .._core.problems import CaseFileError, Problem, Problems
from .._oracle import expectations
from .layout import SUITE, case_files
from .manifest import CaseEntry
from .model import ModelError, build_model
from .tensor_io import FORM, TENSOR_IO_SUITE, derive

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
    dataclasses become one-key dicts."""
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
    raise TypeError(f"fingerprint: no rule for a {kind.__name__} value; add one to "
                    "compiling._canonical")


# -- many case files, in worker processes --------------------------------------------------------

@dataclass
class CaseResult:
    """One compiled case: `files` relative to its folder, or None where the old ones still hold."""

    name: str
    fingerprint: str
    entry: dict
    files: dict[str, bytes] | None


@dataclass
class FileResult:
    """The cases of one case file, and the problems found in it."""

    problems: list[Problem]
    cases: list[CaseResult]


def compile_file(path: str, empty_optional: str, reusable: dict[str, str],
                 on_case=None) -> FileResult:
    """Load one case file and compile its cases, except those whose fingerprint `reusable`
    (name -> fingerprint) already holds. With `on_case`, each CaseResult is handed to it as
    soon as it is made, and not kept in the FileResult."""
    try:
        cases = casefile.load_cases([Path(path)])
    except CaseFileError as error:
        return FileResult(list(error.problems), [])
    problems = Problems()
    results = []
    for case in cases:
        form = derive(case)  # the tensor-boundary variants, built by the same code path
        entry = dataclasses.replace(
            CaseEntry.of(case, SUITE), tensor_io=tuple(v.name for v in form.variants),
            no_tensor_io_form=form.reason or None).to_json()
        items = [(case, entry)] + [
            (v, dataclasses.replace(CaseEntry.of(v, TENSOR_IO_SUITE), form=FORM,
                                    derived_from=case.name).to_json())
            for v in form.variants]
        for item, item_entry in items:
            mark = fingerprint(item)
            files = None
            if reusable.get(item.name) != mark:
                files = compile_case(item, empty_optional, problems)
                if files is None:
                    break  # a refused case: its variants would only repeat the problem
            result = CaseResult(item.name, mark, item_entry, files)
            if on_case is None:
                results.append(result)
            else:
                on_case(result)
    return FileResult(problems.found, results)


def compile_files(paths: list[Path], empty_optional: str, reusable: dict[str, str],
                  jobs: int) -> list[FileResult]:
    """`compile_file` of each path, in `jobs` processes; the results in the order of `paths`."""
    names = [str(p) for p in paths]
    if jobs <= 1 or len(names) <= 1:
        return [compile_file(name, empty_optional, reusable) for name in names]
    largest_first = sorted(names, key=_size, reverse=True)
    with _pool(max_workers=min(jobs, len(names))) as pool:
        done = pool.map(compile_file, largest_first, repeat(empty_optional), repeat(reusable))
        results = dict(zip(largest_first, done, strict=True))
    return [results[name] for name in names]


def stream_files(paths: list[Path], empty_optional: str, reusable: dict[str, str], jobs: int,
                 on_case) -> list[FileResult]:
    """`compile_files`, with every CaseResult handed to `on_case` in this process as soon as a
    worker has made it (the results' `cases` are then filled in here, in each file's order).
    Runs `jobs` (at least one) worker processes, so this process is free to use each case
    (write its files) while the workers compile the next ones: the smallest file first (the
    first case comes soonest), then the largest first (the workers end together)."""
    names = [str(p) for p in paths]
    order = sorted(names, key=_size, reverse=True)
    order.insert(0, order.pop())
    import multiprocessing

    context = multiprocessing.get_context()
    channel = context.Queue()
    cases: dict[str, list[CaseResult]] = {name: [] for name in names}
    problems: dict[str, list[Problem]] = {}
    with _pool(max_workers=max(1, min(jobs, len(names))), mp_context=context,
               initializer=_start_worker, initargs=(channel,)) as pool:
        futures = [pool.submit(_stream_file, name, empty_optional, reusable)
                   for name in order]
        while len(problems) < len(names):
            try:
                name, item = channel.get(timeout=0.2)
            except queues.Empty:
                for future in futures:  # a worker that failed sends no end mark: raise it
                    error = future.exception() if future.done() else None
                    if error is not None:
                        raise error from None
                continue
            if isinstance(item, CaseResult):
                on_case(item)
                cases[name].append(item)
            else:
                problems[name] = item
    return [FileResult(problems[name], cases[name]) for name in names]


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


#: In a worker of `stream_files`: the queue to the parent (set when the worker starts).
_channel = None


def _start_worker(channel) -> None:
    global _channel
    _channel = channel


def _stream_file(name: str, empty_optional: str, reusable: dict[str, str]) -> None:
    """In a worker: compile one case file, sending (name, CaseResult) per case, then (name,
    the file's problems) as its end mark."""
    channel = _channel
    assert channel is not None, "set by the pool's initializer"
    result = compile_file(name, empty_optional, reusable,
                          on_case=lambda case: channel.put((name, case)))
    channel.put((name, result.problems))


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
