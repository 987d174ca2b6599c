"""What one backend's run of one case came to, as a record: the outcome and its message, and
what the message says in structured form, so nothing downstream parses the message: the
comparator's records of a `fail` (`_core/differences.py`) and the type of the exception behind
an `error` or a `refused`. verify's workers (worker_main.judge) and the fuzzer's in-process
backends (`_fuzz/inprocess.py`) give one; a crash and a timeout are outcomes of their own,
given by the parent (workers.py), never told from a message."""

from __future__ import annotations

from typing import NamedTuple

from .._core.differences import Difference


class Judged(NamedTuple):
    """One backend on one case: its outcome and message, the comparator's records of a `fail`
    (at most as many as the message shows), and for an `error` or a `refused` that an
    exception raised, the exception's type name ("" otherwise)."""

    outcome: str
    message: str
    differences: tuple[Difference, ...] = ()
    error_type: str = ""
