"""Worker processes that run cases on backends: started once and reused, replaced cheaply when a
backend crashes or hangs, each backend's time per case limited on its own.

Workers are forked from multiprocessing's fork server (fork_server.py: started once per run,
with all the process-wide state that takes), which imports onnx, this package and the
backends' modules once, so a replacement costs a fork (milliseconds), not a fresh interpreter.
A worker sends two messages per case and backend at most (the records of messages.py: the case
read, each backend's verdict); the parent keeps each backend's clock itself and waits on the
pipes and on the processes' sentinels together, so a crash is seen at once and a deadline is
exact. After
the first crash or hang a spare worker is kept ready, so the next case need not wait for one,
and a backend that crashed once runs each later case in a process its worker forks (a few
milliseconds), so a backend that crashes on many cases costs a fork each, not a worker each;
the other backends keep running in the workers themselves.
Each worker leads a process group of its own (in the caller's session), which every process it
or a backend in it starts (a forked case, a compiler subprocess) belongs to unless it leaves it,
and is a child subreaper, so what leaves the group (setsid, a double fork) stays below it
(reaping.py); a worker is ended by stopping it, killing every process below it, then its whole
group, on a crash, on a timeout and when the run ends, so nothing a backend started outlives the
run. Only these processes are ever signalled. A worker's
stdout and stderr go to a file of its own: what a backend printed before it crashed is quoted in
the case's message.
"""

from __future__ import annotations

import os
import select
import signal
import tempfile
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from multiprocessing import connection, get_context
from pathlib import Path
from typing import Any

from .._core.errors import WorkerStartError
from .fork_server import LIVE, LIVE_LOCK, WorkerProcess, server_pid
from .messages import (
    BackendVerdict,
    Broken,
    CaseRead,
    CaseTask,
    ForkDied,
    Group,
    ProbeReport,
    Ready,
)
from .reaping import end_tree, wait_until_gone
from .transformed import is_transformed

#: Lines of a crashed worker's output quoted in the case's message.
STDERR_LINES = 8
#: Tasks a worker may hold (sent ahead, the first one running), so it never waits for the
#: parent between cases, also when a busy machine is slow to wake the parent: up to
#: QUEUE_DEPTH, and at least 2, while a quarter of the tasks left per worker allows it (the
#: workers stay balanced near the end of a run).
QUEUE_DEPTH = 64
#: How long a starting worker may take to import its backends before the run stops.
START_TIMEOUT = 300.0


def _pid(process: WorkerProcess) -> int:
    """The pid of a started worker process."""
    pid = process.pid
    if pid is None:
        raise WorkerStartError("a worker process has no pid: it was not started")
    return pid


@dataclass
class Task:
    """One case to run on some backends, in order."""

    key: int  # the caller's handle for the case (its index)
    path: str
    specs: tuple[str, ...]


@dataclass
class _Worker:
    process: WorkerProcess
    conn: connection.Connection
    log: Path
    ready: bool = False
    queue: deque = field(default_factory=deque)  # tasks sent, the first one running
    grouped: bool = False  # it said it leads a process group of its own (pgid = its pid)
    reading: bool = False  # it is reading the case folder of its running task
    finished: int = 0  # backends of the running task that gave a verdict
    started: float = 0.0  # when the running backend's clock started
    deadline: float | None = None
    log_offset: int = 0
    born: float = field(default_factory=time.monotonic)
    readable: Any = None  # a poll object on its pipe: is a message waiting?

    def __post_init__(self) -> None:
        self.readable = select.poll()
        self.readable.register(self.conn.fileno(), select.POLLIN)

    def has_message(self) -> bool:
        """Whether its pipe holds a message (or was closed), without waiting: one poll(2), not
        a selector made for each look as `Connection.poll` makes."""
        return bool(self.readable.poll(0))

    @property
    def task(self) -> Task | None:
        return self.queue[0] if self.queue else None

    @property
    def running(self) -> Task:
        """The task it runs: the first one sent (asked only of a worker running one)."""
        task: Task = self.queue[0]
        return task

    @property
    def spec(self) -> str | None:
        """The backend running now; None while the case folder is read, or when idle."""
        task = self.task
        if task is None or self.reading or self.finished >= len(task.specs):
            return None
        return task.specs[self.finished]

    def begin(self, timeout: float | None) -> None:
        """Its running task starts now (reading the case folder): the first backend's clock,
        which counts the reading, starts."""
        self.reading, self.finished = True, 0
        self.restart(timeout)

    def restart(self, timeout: float | None) -> None:
        self.started = time.monotonic()
        self.deadline = None if timeout is None else self.started + timeout

    def end_task(self, timeout: float | None) -> None:
        """Its running task is over: the next one it was sent, if any, starts now."""
        self.queue.popleft()
        self.reading, self.finished, self.deadline = False, 0, None
        if self.queue:
            self.begin(timeout)


class Pool:
    """Run tasks in at most `jobs` workers; `on_event(kind, task, spec, payload)` receives

      ("case", task, None, info)                 the worker read the case (info: a dict)
      ("result", task, spec, (outcome, message, seconds, differences, error_type))
      ("crash", task, spec, (message, seconds))  the worker died running `spec`
      ("timeout", task, spec, (message, seconds)) `spec` gave no result within `timeout` s

    A crash or a timeout ends that worker; the task's backends not yet run go to another.
    The workers are forked from the fork server verify started (fork_server.py). A pool made
    with `keep` keeps its workers, their backends loaded and checked, from one `run` to the
    next (the caller sets `on_event` for each run) until `close()`: a runtime that is slow to
    load (IREE) loads once for many runs.
    """

    def __init__(self, specs: tuple[str, ...], jobs: int, timeout: float | None, on_event,
                 keep: bool = False):
        self.specs, self.jobs, self.timeout, self.on_event = specs, jobs, timeout, on_event
        self.keep = keep
        self.context = get_context("forkserver")
        self.workers: list[_Worker] = []
        self.pending: deque[Task] = deque()
        self.spare = False  # after a crash or a hang: keep a spare worker ready
        self.isolated: set[str] = set()  # backends that crashed: each case in a fork
        self._logs = tempfile.TemporaryDirectory(prefix="seq-verify-")
        self._count = 0

    def run(self, tasks: list[Task], probe=None) -> None:
        """Run every task. `probe(report)` judges the first worker's check of each backend
        (a list of problems); a non-empty list raises WorkerStartError before any case runs.
        Every worker is ended before this returns or raises (a `keep` pool's: before it
        raises; the first worker of a run is probed only when no worker is kept)."""
        self.pending.extend(tasks)
        restore = _exit_on_sigterm()
        done = False
        try:
            if not self.workers:
                first = self._start(probe is not None)
                if probe is not None:
                    self._first_ready(first, probe)
            while self.pending or any(w.task for w in self.workers):
                self._step()
            done = True
        finally:
            if not (done and self.keep):
                self.pending.clear()
                self._end_all()
            if not self.keep:
                self._logs.cleanup()
            restore()

    def close(self) -> None:
        """End every worker a `keep` pool kept (a pool that does not keep has none left)."""
        self._end_all()
        self._logs.cleanup()

    def _end_all(self) -> None:
        for worker in list(self.workers):
            self._end(worker)

    def _start(self, with_probe: bool = False) -> _Worker:
        from .worker_main import serve

        self._count += 1
        log = Path(self._logs.name) / f"worker-{self._count}.log"
        log.touch()
        parent, child = self.context.Pipe()
        process = WorkerProcess(target=serve, args=(child, self.specs, str(log), with_probe),
                                daemon=True, name="seq-verify-worker")
        with LIVE_LOCK:  # a sweep (_end) never takes it for a stray
            process.start()
            LIVE.add(_pid(process))
        child.close()
        worker = _Worker(process, parent, log)
        self.workers.append(worker)
        return worker

    def _end(self, worker: _Worker) -> None:
        """End the worker and every process of its group: a case it forked, whatever a backend
        started (a compiler, a `sleep`), also when the worker itself has exited."""
        self.workers.remove(worker)
        pid = _pid(worker.process)
        alive = worker.process.is_alive()
        if alive:  # stopped, it starts nothing more while what is below it is ended
            try:
                os.kill(pid, signal.SIGSTOP)
            except OSError:  # it ended meanwhile: what it left is at the server
                alive = False
        with LIVE_LOCK:  # what left its group, and what dead workers left at the server
            end_tree(pid if alive else None, server_pid(), LIVE - {pid})
        if worker.grouped:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:  # the group has no process left
                pass
        if worker.process.is_alive():  # it died, or was ended, before starting its group
            worker.process.kill()
        worker.process.join()
        with LIVE_LOCK:
            LIVE.discard(pid)
        worker.conn.close()
        if worker.grouped:
            wait_until_gone(pid)

    def _step(self) -> None:
        busy = sum(1 for w in self.workers if w.queue)
        wanted = min(self.jobs, busy + len(self.pending))
        wanted += 1 if self.spare and self.pending else 0
        while len(self.workers) < wanted:
            self._start()
        depth = min(QUEUE_DEPTH, max(2, len(self.pending) // (4 * self.jobs)))
        for worker in self.workers:  # keep each busy worker tasks ahead: no round trip
            while worker.ready and self.pending and len(worker.queue) < depth and (
                    worker.queue or busy < self.jobs):
                task = self.pending[0]
                isolated = tuple(s for s in task.specs if s in self.isolated)
                try:
                    worker.conn.send(CaseTask(task.path, task.specs, isolated))
                except OSError:  # it died: seen below, its tasks go to the others
                    break
                idle = not worker.queue
                busy += 1 if idle else 0
                worker.queue.append(self.pending.popleft())
                if idle:  # it starts reading the case now
                    worker.begin(self.timeout)
        times = [w.deadline for w in self.workers if w.deadline is not None]
        times += [w.born + START_TIMEOUT for w in self.workers if not w.ready]
        wait_for = max(0.0, min(times) - time.monotonic()) if times else None
        connection.wait([w.conn for w in self.workers]
                        + [w.process.sentinel for w in self.workers], wait_for)
        for worker in list(self.workers):
            if self._drain(worker):
                now = time.monotonic()
                if worker.deadline is not None and now >= worker.deadline:
                    self._end(worker)
                    self.spare = True
                    what = f"{_who(worker)} gave no result" if worker.spec else (
                        "the case folder was not read")
                    self._lost(worker, "timeout", f"{what} within {self.timeout:g} s; its "
                                                  "process was ended")
                elif not worker.ready and now >= worker.born + START_TIMEOUT:
                    self._end(worker)
                    raise WorkerStartError(f"a worker did not load its backends within "
                                           f"{START_TIMEOUT:g} s")
                continue
            worker.process.join(5)  # the pipe closed: the process is ending
            self._end(worker)
            if not worker.ready:
                raise WorkerStartError(_died(worker, "while starting"))
            if worker.task is not None:
                self.spare = True
                self._lost(worker, "crash", _crash_text(worker, worker.process.exitcode))

    def _drain(self, worker: _Worker) -> bool:
        """Handle every message waiting from `worker`; False once its pipe is closed."""
        while True:
            try:
                if not worker.has_message():
                    return True
                message = worker.conn.recv()
            except (EOFError, OSError):
                return False
            self._handle(worker, message)

    def _handle(self, worker: _Worker, message) -> None:
        """One message of a running worker (messages.py), decoded by its type."""
        if isinstance(message, BackendVerdict):
            worker.finished += 1
            task = worker.task
            assert task is not None, "a verdict comes for the task the worker runs"
            self.on_event("result", task, message.spec,
                          (message.outcome, message.message, message.seconds,
                           message.differences, message.error_type))
            if worker.finished >= len(task.specs):
                worker.end_task(self.timeout)
            else:  # the next backend's clock starts
                worker.restart(self.timeout)
        elif isinstance(message, CaseRead):
            worker.reading, worker.log_offset = False, message.log_offset
            self.on_event("case", worker.task, None, message.info)
        elif isinstance(message, ForkDied):  # the process it forked for the case crashed
            self._lost(worker, "crash", _crash_text(worker, message.code), ended=False)
            worker.end_task(self.timeout)
        elif isinstance(message, Ready):
            worker.ready = True
        elif isinstance(message, Group):
            worker.grouped = True
        elif isinstance(message, Broken):  # a replacement worker could not load a backend
            raise WorkerStartError(message.message)
        else:
            raise TypeError(f"unexpected message from a worker: {message!r}")

    def _lost(self, worker: _Worker, kind: str, message: str, ended: bool = True) -> None:
        """The running backend of an ended worker gets `message`; the task's backends not yet
        run go back to the front of the queue."""
        task = worker.running
        seconds = time.monotonic() - worker.started if worker.started else 0.0
        if worker.spec is None:  # it died reading the case: blame the next backend
            spec = task.specs[min(worker.finished, len(task.specs) - 1)]
        else:
            spec = worker.spec
        if kind == "crash":
            self.isolated.add(spec)
        self.on_event(kind, task, spec, (message, round(seconds, 6)))
        waiting = list(worker.queue)[1:] if ended else []  # else the worker runs them
        rest = task.specs[task.specs.index(spec) + 1:]
        if rest:
            waiting.insert(0, Task(task.key, task.path, rest))
        self.pending.extendleft(reversed(waiting))
        if ended:
            worker.queue.clear()

    def _first_ready(self, worker: _Worker, probe) -> None:
        """Wait for the first worker's check of the backends; raise WorkerStartError on a
        problem."""
        while not worker.ready:
            left = worker.born + START_TIMEOUT - time.monotonic()
            if left <= 0:
                raise WorkerStartError(f"a worker did not load its backends within "
                                       f"{START_TIMEOUT:g} s")
            connection.wait([worker.conn, worker.process.sentinel], left)
            try:
                message = worker.conn.recv() if worker.conn.poll() else None
            except (EOFError, OSError):
                worker.process.join(5)
                raise WorkerStartError(_died(worker, "while loading the backends and preparing "
                                                     "a one-node model on each")) from None
            if isinstance(message, Broken):
                raise WorkerStartError(message.message)
            if isinstance(message, ProbeReport):
                problems = probe(message.problems)
                if problems:
                    raise WorkerStartError("\n".join(problems))
            elif isinstance(message, Group):
                worker.grouped = True
            elif isinstance(message, Ready):
                worker.ready = True


def _exit_on_sigterm():
    """While the run lasts, SIGTERM (if not handled already) raises SystemExit in the main
    thread, so the workers are ended on the way out; returns what restores the handler."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return lambda: None

    def leave(signum, frame):
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, leave)
    return lambda: signal.signal(signal.SIGTERM, previous)


def _crash_text(worker: _Worker, code: int | None) -> str:
    return (f"{_who(worker)} crashed the process running this case: it " + _exit_text(code)
            + _tail(worker))


def _who(worker: _Worker) -> str:
    """What was running: the backend, or for a transformed subject the chain then the backend."""
    spec = worker.spec
    return "the transform or the backend" if spec and is_transformed(spec) else "the backend"


def _died(worker: _Worker, when: str) -> str:
    return f"a worker process {_exit_text(worker.process.exitcode)} {when}" + _tail(worker)


def _exit_text(code: int | None) -> str:
    if code is None:
        return "ended without an exit code"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = "an unknown signal"
        return f"was killed by signal {-code} ({name})"
    return f"exited with code {code}"


def _tail(worker: _Worker) -> str:
    """The last lines the worker wrote since its current case started."""
    try:
        with open(worker.log, "rb") as f:
            f.seek(worker.log_offset)
            data = f.read()[-16384:]
    except OSError:
        return ""
    lines = [line.rstrip() for line in data.decode("utf-8", "replace").splitlines()
             if line.strip()]
    if not lines:
        return "; it wrote nothing on stderr"
    return "; last lines of its stderr:\n" + "\n".join(lines[-STDERR_LINES:])
