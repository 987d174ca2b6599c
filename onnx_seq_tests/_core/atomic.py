"""Writing a file whole or not at all: the one way every command writes an output file.

The bytes go to a temporary file in the same folder (`.<name>.<random>.tmp`), which is flushed to
the disk and then renamed over the target. A write that fails (a full disk, a file-size limit,
an interrupt) removes the temporary file and leaves the old target as it was: no half file and
no debris. A new file gets the permissions a plain `open(path, "w")` would give it (0o666 less
the umask); a file written over keeps its own.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path


def _umask() -> int:
    """The process's umask, read without changing it (os.umask would, for a moment, in every
    thread)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


def write_atomic(path: str | os.PathLike[str], data: bytes | str) -> None:
    """Write `data` (str: as UTF-8) to `path` atomically; OSError when the folder or the disk
    refuses, with the old file whole and no temporary file left behind."""
    path = Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        mode = 0o666 & ~_umask()
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp",
                                     dir=path.parent if str(path.parent) else ".")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
