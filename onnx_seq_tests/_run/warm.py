"""Imported by the verify workers' fork server, once: runs onnx's shape inference and the
case-reading code on a one-node model, so every worker forked from it starts with onnx's schemas
loaded (the first inference in a process costs tens of milliseconds) rather than each paying it.
Nothing here starts a thread, so forking after it is safe.

It first takes out of the server's environment the PYTHONSAFEPATH that fork_server.py set to keep
the working folder off the server's sys.path (the server is a `python -c`): what a backend
starts (a compiler, a Python script) gets the environment the caller had. Then it makes the
server a child subreaper (reaping.py): what a worker that died leaves behind is reparented to
the server (which reaps it when it ends, without multiprocessing's warning about a pid it did
not fork), and when the server ends, what is left of that is killed.
"""

from __future__ import annotations

import os

if os.environ.get("PYTHONSAFEPATH") == "onnx-seq-tests":  # fork_server.SAFE_PATH_OURS
    del os.environ["PYTHONSAFEPATH"]

import atexit  # noqa: E402 - after the environment is as the caller's
import multiprocessing  # noqa: E402
import warnings  # noqa: E402

from .._runtimes.backends import probe_model  # noqa: E402
from .reaping import become_subreaper, end_tree  # noqa: E402
from .worker_main import case_elements  # noqa: E402


def _end_strays() -> None:
    """When the server ends: kill what is left below it that left its process group (what
    dead workers left behind), never a process that stayed in the group (one another caller
    started through the server)."""
    end_tree(None, os.getpid())


if multiprocessing.parent_process() is None and become_subreaper():
    warnings.filterwarnings("ignore", message="forkserver: waitpid returned unexpected pid")
    atexit.register(_end_strays)

case_elements(probe_model())
