"""The output root as a build finds it: whether it can be used at all (OutputError, exit 2,
the root untouched), and the work folder beside it that a refused build does not leave behind.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .._core.errors import OutputError

#: What the file system says when the output root's folder can never be written (as opposed
#: to a full or failing disk): exit 2, the root untouched.
_UNUSABLE = (errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOTDIR, errno.EEXIST)


@contextmanager
def unusable_as_output(root: Path) -> Iterator[None]:
    """Turn an OSError saying the root's folder cannot be written at all into OutputError."""
    try:
        yield
    except OSError as error:
        if error.errno not in _UNUSABLE:
            raise
        raise OutputError(f"{root} cannot be used as the output root: {error.strerror or error} "
                          f"({error.filename}); give a writable output root with -o") from None


def check_root(root: Path) -> None:
    """OutputError when something other than a folder stands at the output root."""
    if os.path.lexists(root) and not root.is_dir():
        raise OutputError(f"{root} is not a folder; give the output root with -o")


def refuse_foreign(root: Path, foreign: list[str]) -> None:
    """OutputError naming the paths in the output root that no build wrote: a build replaces
    the root as a whole, so it never runs over them (nothing of them is lost)."""
    if foreign:
        shown = ", ".join(repr(f) for f in foreign[:5])
        more = f" and {len(foreign) - 5} more" if len(foreign) > 5 else ""
        raise OutputError(
            f"{root} holds {len(foreign)} path(s) that no build wrote (its manifest.json does "
            f"not list them): {shown}{more}; a build replaces {root} as a whole, so nothing "
            f"was written: move them out of {root}, or give another output root with -o")


@contextmanager
def kept_only_if_built(root: Path, work: Path) -> Iterator[None]:
    """Make the work folder `work` of the output root `root` for the block; when the block
    raises (a refused build, an interrupt) and the folder was made here, remove it if it holds
    nothing: a build that wrote nothing leaves nothing beside the output root."""
    made = not os.path.lexists(work)
    with unusable_as_output(root):
        work.mkdir(parents=True, exist_ok=True)
    try:
        yield
    except BaseException:
        if made:
            try:
                os.rmdir(work)
            except OSError:  # it holds something (a cache, a leftover) or is gone
                pass
        raise
