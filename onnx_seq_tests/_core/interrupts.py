"""SIGINT and SIGTERM as one thing: while a command runs, either raises KeyboardInterrupt in
the main thread, so the same cleanup runs on both (every `finally` and `except BaseException`
on the way out: a build's staging tree, verify's workers, temporary files), and the command
group exits with 128 + the signal's number (130, 143).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


@contextmanager
def signals_interrupt() -> Iterator[list[int]]:
    """While the block runs (in the main thread), the first SIGINT or SIGTERM raises
    KeyboardInterrupt; a later one is noted, not raised, so the cleanup it set off is not cut
    short. Yields the list of the signal numbers received (which one it was). A signal that is
    ignored (a background job's SIGINT) or handled by the caller (the Python API's) is left
    as it is; the handlers are restored afterwards."""
    received: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield received
        return

    def interrupt(signum: int, frame: FrameType | None) -> None:
        received.append(signum)
        if len(received) == 1:
            raise KeyboardInterrupt

    previous = {}
    for signum, default in ((signal.SIGINT, signal.default_int_handler),
                            (signal.SIGTERM, signal.SIG_DFL)):
        if signal.getsignal(signum) is default:
            previous[signum] = signal.signal(signum, interrupt)
    try:
        yield received
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def exit_status(received: list[int]) -> int:
    """128 + the number of the first signal received (SIGINT when none was: a
    KeyboardInterrupt raised another way)."""
    return 128 + (received[0] if received else signal.SIGINT)


def signal_name(received: list[int]) -> str:
    return signal.Signals(exit_status(received) - 128).name


def in_worker() -> None:
    """In a worker process a command forked while `signals_interrupt` was on (a build's
    compiling processes): SIGINT and SIGTERM take their default action again, ending the worker
    at once and silently. Forked, it would inherit the handler that raises KeyboardInterrupt,
    and print its own "Process ForkProcess-1:" traceback where only the command's one line
    belongs; the command's process says what happened and cleans up."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_DFL)
