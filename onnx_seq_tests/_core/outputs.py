"""The outputs of a command: which paths a command may write, and writing one.

Every command that writes files checks the paths it was given with `check_outputs` before it
does any work, then writes each file with `write_output` (whole or not at all, `atomic.py`).

`check_outputs` refuses (OutputError: exit 2, one line, nothing touched) an output that
- is an existing folder;
- is one of the command's inputs, or inside a folder it reads (a suite, a checkout): compared
  as real paths (links followed), and as files (the same device and inode: a hard link);
- is the same file as another output of the same run.

`write_output` turns the OSError of a failed write (a full disk, a file-size limit, a read-only
folder) into WriteFailed, `cannot write PATH: why` (exit 1, as a failed build's write is); the
old file is left whole and no temporary file behind.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from .atomic import write_atomic
from .errors import OutputError, WriteFailed, one_line


def _real(path: Path) -> str:
    return os.path.realpath(path)


def _identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the file at `path` (links followed), or None where there is none."""
    try:
        status = os.stat(path)
    except (OSError, ValueError):
        return None
    return status.st_dev, status.st_ino


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _clash(output: Path, other: Path) -> bool:
    """Whether writing `output` would write `other` or something inside it."""
    if _inside(_real(output), _real(other)):
        return True
    mine, theirs = _identity(output), _identity(other)
    return mine is not None and mine == theirs


def check_outputs(outputs: Mapping[str, Path | str | None]
                  | Iterable[tuple[str, Path | str | None]],
                  inputs: Iterable[Path | str | None] = ()) -> None:
    """Refuse (OutputError) any of `outputs` (option name -> path, or such pairs; a path None:
    not asked for) that is an existing folder, one of `inputs` (files and folders the command
    reads) or inside one of them, or the same file as another output."""
    pairs = outputs.items() if isinstance(outputs, Mapping) else outputs
    given = [(option, Path(path)) for option, path in pairs if path is not None]
    read = [Path(p) for p in inputs if p is not None]
    for index, (option, path) in enumerate(given):
        shown = f"{option} {one_line(str(path))}"
        if path.is_dir():
            raise OutputError(f"{shown}: is a folder; name a file to write")
        for source in read:
            if _clash(path, source):
                where = ("is" if _real(path) == _real(source) or not source.is_dir()
                         else "is inside")
                raise OutputError(f"{shown}: {where} {one_line(str(source))}, which this "
                                  "command reads; write the output elsewhere")
        for other_option, other in given[:index]:
            if _real(path) == _real(other) or (_identity(path) is not None
                                               and _identity(path) == _identity(other)):
                raise OutputError(f"{shown}: is the same file as {other_option} "
                                  f"{one_line(str(other))}; give each output its own path")


def write_output(path: Path | str, data: bytes | str, *, make_folder: bool = False) -> None:
    """Write one output file whole (atomic.write_atomic), creating its folder first with
    `make_folder`; WriteFailed (`cannot write PATH: why`) when the disk or the folder refuses."""
    path = Path(path)
    try:
        if make_folder:
            path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, data)
    except OSError as error:
        raise WriteFailed(f"cannot write {one_line(str(path))}: "
                          f"{error.strerror or error}") from None
