"""Which files are case files: given files as they are, folders searched for *.yaml and *.yml.

Nothing here imports onnx or yaml: a no-op build finds its case files with this alone.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .._core.budgets import MAX_FILE_BYTES
from .._core.regular_files import read_regular


def read_case_file(path: Path) -> bytes:
    """The bytes of a case file, at most MAX_FILE_BYTES + 1 of them (so a caller can tell it
    is too large); only a regular file is read: OSError otherwise."""
    return read_regular(path, MAX_FILE_BYTES + 1)


def case_files(paths) -> list[Path]:
    """The case files named by `paths`: files as given, folders searched for *.yaml, *.yml."""
    found: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            found.extend(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml")
                         and p.is_file() and not any(part.startswith(".") for part in
                                                     p.relative_to(path).parts))
        else:
            found.append(path)
    return sorted(set(found))


@dataclass(frozen=True)
class CaseSource:
    """A case file read once: its path, its bytes (None when it cannot be read: `error` is
    the system's reason) and their sha256. A build lists, reads and hashes each case file once
    (`read_sources`) and hands these on, from the no-op check to the compile."""

    path: Path
    data: bytes | None
    sha256: str | None
    error: str | None = None


def read_sources(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]
                 ) -> list[CaseSource]:
    """Each case file of `paths` (`case_files`), read (`read_case_file`) and hashed."""
    sources = []
    for path in case_files(paths):
        try:
            data = read_case_file(path)
        except OSError as error:
            sources.append(CaseSource(path, None, None, error.strerror or str(error)))
            continue
        sources.append(CaseSource(path, data, hashlib.sha256(data).hexdigest()))
    return sources
