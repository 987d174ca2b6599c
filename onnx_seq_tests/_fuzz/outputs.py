"""Where fuzz and fuzz merge write: each output path checked before any work starts (a campaign
can run for hours; its end is no time to learn that `-o` is inside a file), and the findings of
a campaign kept whatever happens to the writes at its end.

A folder (`-o`, `--database`) is usable when it is a folder, or can be made one: its nearest
existing ancestor is a folder. A file (`--json`) is usable when it is not a folder and its
folder exists. Either way the folder is written to once, a temporary file made and removed at
once, so a read-only folder (read-only to root too: a read-only file system) is refused before
the campaign, not after it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path

from .._core.atomic import write_atomic
from .._core.errors import OutputError


def check_folder(path: Path, option: str) -> None:
    """OutputError unless `path` is a folder, or a folder can be made there, and files can be
    written in it."""
    if os.path.lexists(path) and not path.is_dir():
        raise OutputError(f"{option} {path}: not a folder; give a folder (it is made if it "
                          "does not exist)")
    existing = path
    while not os.path.lexists(existing) and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise OutputError(f"{option} {path}: {existing} is a file, so no folder can be made "
                          "there; give another folder")
    _probe(existing, option, path)


def check_file(path: Path, option: str) -> None:
    """OutputError unless `path` can be written as a file: not a folder, in an existing folder
    that files can be written in."""
    if path.is_dir():
        raise OutputError(f"{option} {path}: a folder; give a file name")
    folder = path.absolute().parent
    if not folder.is_dir():
        raise OutputError(f"{option} {path}: {folder} is not an existing folder")
    _probe(folder, option, path)


def _probe(folder: Path, option: str, path: Path) -> None:
    """Make and remove a temporary file in `folder`; OutputError saying why when it cannot."""
    try:
        fd, name = tempfile.mkstemp(prefix=".gen-seq-tests-probe-", dir=folder)
    except OSError as error:
        raise OutputError(f"{option} {path}: cannot write in {folder}: "
                          f"{error.strerror or error}; give a writable path") from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(name)


def keep_elsewhere(files: dict[str, str], say) -> str:
    """Write `files` (name -> text), which could not be written where asked, into a new folder
    of the system's temporary folder; its path, or "stdout (printed above)" when even that
    fails (then `say(text)` prints each there), so nothing a campaign found is lost."""
    folder = None
    try:
        folder = Path(tempfile.mkdtemp(prefix="gen-seq-tests-fuzz-"))
        for name, text in files.items():
            write_atomic(folder / name, text)
        return str(folder)
    except OSError:
        if folder is not None:  # no debris: the folder goes with what it could not hold
            shutil.rmtree(folder, ignore_errors=True)
        for name, text in files.items():
            say(f"--- {name}\n{text.rstrip()}")
        return "stdout (printed above)"
