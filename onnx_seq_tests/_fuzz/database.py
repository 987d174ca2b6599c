"""`fuzz --database DIR`: the example database of program seeds, in hypothesis's directory
format (a folder per key, a file per value), so hypothesis's own DirectoryBasedExampleDatabase
reads it too.

It takes a local folder path and nothing else: a spec that names a remote database
(`github:OWNER/REPO`, `https://...`, anything that starts with `NAME:`) is refused, as is a
path that is a file or a folder that cannot be written, before the campaign starts (exit 2,
one line). Nothing is written anywhere else: no `.hypothesis/` folder in the working folder.
Only regular files of at most MAX_SEED_BYTES are read back (a FIFO in the folder would
otherwise block the campaign); saving is checked after the campaign (hypothesis's save
ignores a failed write), and a seed the folder did not keep is named.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .._core.errors import OutputError
from .._core.regular_files import read_regular
from .outputs import check_folder

#: The longest program seed read back from the database, in bytes (a seed is `SEED:INDEX`).
MAX_SEED_BYTES = 256
_REMOTE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def open_database(text: str):
    """The database at the local folder `text`; OutputError (exit 2, one line) for anything
    else, or when hypothesis is not installed."""
    if _REMOTE.match(text):
        raise OutputError(f"--database {text}: not a local folder; --database takes a folder "
                          f"path (write ./{text} for a folder whose name holds a colon)")
    path = Path(text)
    check_folder(path, "--database")
    try:
        from hypothesis.database import DirectoryBasedExampleDatabase
    except ImportError:
        raise OutputError("--database needs hypothesis; install onnx-seq-tests[fuzz]") \
            from None

    class SeedDatabase(DirectoryBasedExampleDatabase):
        """hypothesis's directory database, reading only regular files, bounded."""

        def fetch(self, key: bytes):
            folder = self._key_path(key)
            try:
                names = sorted(os.listdir(folder))
            except OSError:  # no seed saved yet
                return
            for name in names:
                try:
                    data = read_regular(folder / name, MAX_SEED_BYTES + 1)
                except OSError:  # not a regular file, or gone: not a seed
                    continue
                if len(data) <= MAX_SEED_BYTES:
                    yield data

    return SeedDatabase(path)


def unsaved(database, key: bytes, values: list[bytes]) -> list[bytes]:
    """Those of `values` that `database` does not hold under `key` (a save that failed)."""
    held = set(database.fetch(key))
    return [v for v in values if v not in held]
