"""Which files are case files: given files as they are, folders searched for *.yaml and *.yml.

Nothing here imports onnx or yaml: a no-op build finds its case files with this alone.
"""

from __future__ import annotations

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
