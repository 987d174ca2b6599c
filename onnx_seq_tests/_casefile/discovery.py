"""Which files are case files: given files as they are, folders searched for *.yaml and *.yml.

Nothing here imports onnx or yaml: a no-op build finds its case files with this alone.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .._core.budgets import MAX_FILE_BYTES


def read_case_file(path: Path) -> bytes:
    """The bytes of a case file, at most MAX_FILE_BYTES + 1 of them (so a caller can tell it
    is too large). Only a regular file is read (a FIFO, a device or /dev/zero behind a link
    would block or never end): OSError otherwise, with `strerror` saying why."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(0, "not a regular file (a FIFO, a device or a socket)", str(path))
        chunks, left = [], MAX_FILE_BYTES + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def case_files(paths) -> list[Path]:
    """The case files named by `paths`: files as given, folders searched for *.yaml, *.yml."""
    found = []
    for path in map(Path, paths):
        if path.is_dir():
            found.extend(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml")
                         and p.is_file() and not any(part.startswith(".") for part in
                                                     p.relative_to(path).parts))
        else:
            found.append(path)
    return sorted(set(found))
