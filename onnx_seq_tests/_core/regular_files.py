"""Reading a file handed to the tool as untrusted input: only a regular file, at most a given
number of bytes. A FIFO would block, a device (or /dev/zero behind a link) would never end.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


def read_regular(path: Path, limit: int) -> bytes:
    """At most `limit` bytes of the file at `path` (read `limit` = bound + 1 to tell a file over
    the bound); only a regular file is read, never blocking: OSError otherwise, its `strerror`
    saying why."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(0, "not a regular file (a FIFO, a device or a socket)", str(path))
        chunks = []
        while limit > 0:
            chunk = os.read(fd, min(limit, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            limit -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
