"""The fork server verify's workers are forked from, and the one place that holds the
process-wide state starting them needs.

multiprocessing keeps one fork server per process. `start_fork_server` starts it, if it is not
running, without waiting for it: it imports onnx, this package (warm.py) and the modules of the
run's backends once, so a worker (or its replacement after a crash) costs a fork, not a fresh
interpreter. verify calls it from one place only, `verifier.check_arguments`, as soon as the
backend specs are known, so the server imports while the rest of the arguments is checked.

Process-wide state, all of it here:
- the fork server's preload (`set_forkserver_preload`): multiprocessing's, for the whole
  process; set on each start, read by a server when it starts (a server already running keeps
  what it imported);
- two environment variables, set only while the server starts and then put back as they were:
  OPENBLAS_NUM_THREADS=1 (_one_blas_thread) and PYTHONSAFEPATH (_safe_path, taken out again
  in the server by warm.py);
- `sys.modules["__main__"]`, swapped for a blank module only while a worker's start-up data is
  written (_main_hidden), so a worker never imports the caller's `__main__`;
- LIVE, the pids of the workers running in every Pool of this process (under LIVE_LOCK): a
  sweep for strays at the fork server (reaping.end_tree) spares them.
"""

from __future__ import annotations

import os
import sys
import threading
import types
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from multiprocessing import forkserver, get_context, popen_forkserver
from multiprocessing.context import ForkServerProcess

from .._runtimes.specs import spec_modules

#: The environment variable that sizes numpy's BLAS thread pool (OpenBLAS).
BLAS_THREADS = "OPENBLAS_NUM_THREADS"
#: The environment variable that keeps the working folder off a new interpreter's sys.path
#: (Python 3.11+), and the value that says this module set it (warm.py removes it again).
SAFE_PATH, SAFE_PATH_OURS = "PYTHONSAFEPATH", "onnx-seq-tests"

#: The pids of the workers running, of every Pool of this process: a sweep for strays at the
#: fork server (reaping.end_tree) spares them. LIVE_LOCK covers a start and a sweep.
LIVE: set[int] = set()
LIVE_LOCK = threading.Lock()


def start_fork_server(specs: Iterable[str]) -> None:
    """Start the fork server the workers are forked from, if it is not running, without
    waiting for it: it imports onnx, this package and the modules of `specs`' backends
    (once per process: a server already running keeps what it imported) while the caller goes
    on. The caller's `__main__` is never preloaded: a script that calls verify without an
    `if __name__ == "__main__"` guard must not run again."""
    context = get_context("forkserver")
    context.set_forkserver_preload(["onnx_seq_tests._run.warm", *spec_modules(specs)])
    with _one_blas_thread(), _safe_path():
        forkserver.ensure_running()


def server_pid() -> int | None:
    """The pid of the fork server the workers are forked from (multiprocessing keeps it)."""
    return getattr(getattr(forkserver, "_forkserver", None), "_forkserver_pid", None)


@contextmanager
def _one_blas_thread() -> Iterator[None]:
    """While the fork server starts, OPENBLAS_NUM_THREADS is 1 unless the caller set it: the
    server and every worker forked from it then load numpy without a pool of BLAS threads
    (which spin at start-up, and would only compete with the other workers, one per core);
    the caller's environment is as it was afterwards."""
    had = os.environ.get(BLAS_THREADS)
    if had is None:
        os.environ[BLAS_THREADS] = "1"
    try:
        yield
    finally:
        if had is None:
            os.environ.pop(BLAS_THREADS, None)


@contextmanager
def _safe_path() -> Iterator[None]:
    """While the fork server starts, PYTHONSAFEPATH is set unless the caller set it: the server
    runs `python -c`, which would put the working folder first on its sys.path, so a folder
    there named `numpy` or `torch` would be imported instead of the installed package by the
    server and by every worker forked from it. The server's first import (warm.py) takes the
    variable out of its environment again, so what a backend starts does not inherit it."""
    had = os.environ.get(SAFE_PATH)
    if had is None:
        os.environ[SAFE_PATH] = SAFE_PATH_OURS
    try:
        yield
    finally:
        if had is None:
            os.environ.pop(SAFE_PATH, None)


class _WorkerPopen(popen_forkserver.Popen):
    """multiprocessing's fork-server start, without telling the child to import the caller's
    `__main__` (which a child started this way does first: a script without a main guard would
    run again in every worker)."""

    def _launch(self, process_obj: ForkServerProcess) -> None:
        with _main_hidden():
            super()._launch(process_obj)  # type: ignore[misc]  # private, untyped


class WorkerProcess(ForkServerProcess):
    """A worker process, forked by the fork server; it never imports the caller's
    `__main__`."""

    @staticmethod
    def _Popen(process_obj: ForkServerProcess) -> _WorkerPopen:  # type: ignore[override]
        return _WorkerPopen(process_obj)


@contextmanager
def _main_hidden() -> Iterator[None]:
    """While the child's start-up data is written, `__main__` is a blank module: the data then
    names no main module to import (the rest, sys.path and the working folder, is kept)."""
    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if main is None:
            sys.modules.pop("__main__", None)
        else:
            sys.modules["__main__"] = main
