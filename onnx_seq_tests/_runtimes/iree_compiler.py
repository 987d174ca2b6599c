"""iree-compile's work in one child process kept for many models: the compiler's own
in-process API (`iree.compiler.api`, the library iree-compile is made of), fed a model's MLIR
and giving its module (a vmfb) or the diagnostics iree-compile would print.

Why: iree-compile as a process sets up its compiler (dialects, pipelines, the torch shape
library) for every model: a small model it refuses costs about 47 ms that way and 19 ms here,
one it compiles about 20 ms less (docs/fuzzing.md). The diagnostics are the tool's, word for
word (the same flags; console diagnostics, printed by the compiler's own code), and the module
is the same but for a few bytes of its embedded library's archive, which differ from run to run
of iree-compile too.

The compiler crashes on some models (a string sequence read by SequenceAt): that ends the
child, not its caller. `kept_compile` then gives None, the caller runs iree-compile as a
process for that model (its verdict is the tool's own), and the next model gets a new child.
A child that cannot start (no compiler library, say) is not tried again in this process, and
a process forked from the child's owner (verify runs a case in a fork once a backend crashed)
does not touch its pipes: it runs iree-compile as a process.
"""

from __future__ import annotations

import os
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import NamedTuple

#: The byte a child writes once its compiler is set up.
READY = b"R"
#: A length on the pipe: 8 bytes, big-endian.
_LENGTH = struct.Struct(">Q")


class Answer(NamedTuple):
    """What iree-compile gives for a model: whether it compiled, the module, what it printed
    (its diagnostics) and its exit status (1 for a model it refuses, as the tool exits)."""

    compiled: bool
    module: bytes
    diagnostics: str
    code: int


class _Child:
    """The compiler's child process and its pipes, and the process that started it (a
    process forked from that one does not share them)."""

    def __init__(self, flags: tuple[str, ...]):
        self.owner = os.getpid()
        self.process = subprocess.Popen(
            [sys.executable, "-m", __name__, *flags], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, preexec_fn=die_with_parent,
            env=_importable())
        self.flags = flags

    def read(self, count: int, deadline: float) -> bytes | None:
        """`count` bytes of the child's answer; None when it ended first; TimeoutError at
        `deadline` (time.monotonic)."""
        stream = self.process.stdout
        assert stream is not None
        chunks, left = [], count
        while left:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([stream], [], [], wait)[0]:
                raise TimeoutError
            chunk = os.read(stream.fileno(), left)
            if not chunk:
                return None
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def end(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()


def _importable() -> dict[str, str]:
    """The environment, with the folder holding this package first on PYTHONPATH: the child
    imports this module from where its caller did, installed or not."""
    root = str(Path(__file__).resolve().parents[2])
    path = os.environ.get("PYTHONPATH", "")
    return {**os.environ, "PYTHONPATH": os.pathsep.join([root, path] if path else [root])}


class _Kept:
    """This process's child (None before its first model and after one ended), whether a
    child cannot start here (`broken`: not tried again), and the lock of both."""

    def __init__(self) -> None:
        self.child: _Child | None = None
        self.broken = False
        self.lock = threading.Lock()


#: The one place the child is kept.
KEPT = _Kept()


def kept_compile(source: bytes, flags: tuple[str, ...], seconds: float) -> Answer | None:
    """iree-compile's answer for the MLIR `source` with `flags`, from this process's child;
    None when the child ended without an answer (it crashed on this model, or cannot start)
    or cannot be used (a process forked from its owner); TimeoutError after `seconds` (the
    child is ended)."""
    with KEPT.lock:
        if KEPT.broken or KEPT.child is not None and KEPT.child.owner != os.getpid():
            return None
        deadline = time.monotonic() + seconds
        child = KEPT.child
        fresh = child is None or child.flags != flags or child.process.poll() is not None
        if child is None or fresh:
            if child is not None:
                child.end()
            child = KEPT.child = _Child(flags)
        try:
            if fresh and child.read(1, deadline) != READY:
                KEPT.broken = True
                raise BrokenPipeError
            assert child.process.stdin is not None
            child.process.stdin.write(_LENGTH.pack(len(source)) + source)
            child.process.stdin.flush()
            answer = _answer(child, deadline)
        except (BrokenPipeError, TimeoutError) as error:
            child.end()
            KEPT.child = None
            if isinstance(error, TimeoutError):
                raise
            return None
        if answer is None:  # the compiler crashed on this model
            child.end()
            KEPT.child = None
        return answer


def _answer(child: _Child, deadline: float) -> Answer | None:
    """The child's answer: a status byte, then the module and the diagnostics, each with its
    length; None when the child ended first."""
    status = child.read(1, deadline)
    parts = []
    for _ in range(2):
        head = None if status is None else child.read(_LENGTH.size, deadline)
        size = None if head is None else _LENGTH.unpack(head)[0]
        body = None if size is None else child.read(size, deadline) if size else b""
        if body is None:
            return None
        parts.append(body)
    compiled = status == b"1"
    return Answer(compiled, parts[0], parts[1].decode("utf-8", "replace"), 0 if compiled else 1)


def die_with_parent() -> None:
    """In a child before it starts: on Linux, the kernel ends it when the process that
    started it ends (a verify worker ended on --timeout, say)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # no libc handle, or no prctl (not Linux)
        pass


# -- the child --------------------------------------------------------------------------------

def serve(flags: list[str]) -> None:
    """The child's loop: one MLIR source in, its answer out, until its input ends. MLIR's
    own flags (`--mlir-...`, the context's) are set once for the process, the others per
    session. The
    compiler's diagnostics go to a file read after each model (they are written by the
    compiler's own code, to file descriptor 2); the answers go to a copy of descriptor 1, so
    nothing the compiler prints can mix with them."""
    import tempfile

    from iree.compiler import api

    api._initializeGlobalCL("iree-compile", *[f for f in flags if f.startswith("--mlir-")])
    diagnostics = tempfile.TemporaryFile()
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(diagnostics.fileno(), 2)
    os.dup2(diagnostics.fileno(), 1)
    requests = os.fdopen(os.dup(0), "rb")
    answers.write(READY)
    answers.flush()
    while head := requests.read(_LENGTH.size):
        source = requests.read(_LENGTH.unpack(head)[0])
        diagnostics.seek(0)
        diagnostics.truncate()
        compiled, module = _compiled(api, source,
                                     [f for f in flags if not f.startswith("--mlir-")])
        diagnostics.seek(0)
        text = diagnostics.read()
        answers.write(b"1" if compiled else b"0")
        for part in (module, text):
            answers.write(_LENGTH.pack(len(part)) + part)
        answers.flush()


def _compiled(api, source: bytes, flags: list[str]) -> tuple[bool, bytes]:
    """(compiled, the module) of one MLIR source, in a session of its own (nothing of one
    model is left for the next)."""
    session = api.Session()
    try:
        session.set_flags(*flags)
        invocation = session.invocation()
        invocation.enable_console_diagnostics()
        if not (invocation.parse_source(api.Source.wrap_buffer(session, source + b"\0"))
                and invocation.execute()):
            return False, b""
        output = api.Output.open_membuffer()
        try:
            invocation.output_vm_bytecode(output)
            return True, bytes(output.map_memory())
        finally:
            output.close()
    finally:
        session.close()


if __name__ == "__main__":
    serve(sys.argv[1:])
