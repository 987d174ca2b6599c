"""The messages between verify's parent process and its workers: one small record per kind,
pickled over the worker's pipe and decoded by type (never by position).

Parent to worker: a CaseTask per case, None to end. Worker to parent, in order: Group once the
worker leads a process group of its own, ProbeReport if asked, then Ready (or Broken when a
backend cannot be loaded); per case CaseRead once the case folder is read, then one
BackendVerdict per backend in the task's order. A task ends with its last BackendVerdict, or
with ForkDied when the process forked to run an isolated backend ended badly (the backends
left are not run by this worker).
The parent keeps each backend's clock itself: a case's first backend starts when the worker
starts reading the case (the task is sent to an idle worker, or the task before it ends), each
next backend when the BackendVerdict before it arrives. Nothing here imports onnx or numpy
(a Difference is a record of plain values).
"""

from __future__ import annotations

from typing import NamedTuple

from .._core.differences import Difference


class CaseTask(NamedTuple):
    """One case folder to read and run on `specs`, in order; `isolated` of them each in a
    process forked for the case."""

    path: str
    specs: tuple[str, ...]
    isolated: tuple[str, ...]


class Group(NamedTuple):
    """The worker leads a process group of its own (its pgid is its pid)."""


class ProbeReport(NamedTuple):
    """The first worker's check of each backend (check_backend): a problem or None each."""

    problems: list


class Ready(NamedTuple):
    """The worker loaded its backends and waits for tasks."""


class Broken(NamedTuple):
    """A backend could not be loaded; the message says why (one line)."""

    message: str


class CaseRead(NamedTuple):
    """The worker read the task's case folder: what the report needs of it (element,
    operators, opset; and "unread", a Judged, when it cannot be read) and the size of its log
    so far (a crash quotes what follows)."""

    info: dict
    log_offset: int


class BackendVerdict(NamedTuple):
    """One backend's outcome on the case, its message and its seconds, with the comparator's
    records and the exception's type of its Judged (judged.py)."""

    spec: str
    outcome: str
    message: str
    seconds: float
    differences: tuple[Difference, ...] = ()
    error_type: str = ""


class ForkDied(NamedTuple):
    """The process forked to run an isolated backend ended with `code` (a negative signal
    number or an exit code) before giving its BackendVerdict; the task ends here."""

    code: int


__all__ = ["BackendVerdict", "Broken", "CaseRead", "CaseTask", "ForkDied", "Group", "ProbeReport",
           "Ready"]
