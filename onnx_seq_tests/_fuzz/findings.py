"""Findings as case files: a shrunk program written in the project's YAML case format (through
the case-file writer), and `merge`, which dedupes the findings of several campaigns.

Each file holds one case and starts with comment lines naming its signature and the command
that reproduces it; the case's `doc` says what the backend answered. `gen-seq-tests build DIR`
compiles a folder of them into the standard layout.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from .._casefile.discovery import read_case_file
from .._casefile.reader import load_text
from .._casefile.writer import case_data, cases_text
from .._core.atomic import write_atomic
from .._core.budgets import MAX_FILE_BYTES
from .._core.cases import Case
from .._core.errors import FindingError, NotExpressible
from .._core.problems import Problems
from .._suite.compiling import compile_case
from .outputs import check_folder

SIGNATURE_LINE = "# signature: "


def file_stem(signature: str) -> str:
    """The file name (without .yaml) of a finding: readable, and unique per signature."""
    readable = re.sub(r"[^a-z0-9]+", "_", signature.lower()).strip("_")[:60]
    return f"{readable}_{hashlib.sha256(signature.encode()).hexdigest()[:8]}"


def case_text(case: Case, signature: str, reproduce: str) -> str:
    """The case file of a finding; FindingError when the format cannot hold it."""
    try:
        mapping = case_data(case)
    except NotExpressible as error:
        raise FindingError(f"case '{case.name}' cannot be written as a case file: {error}") \
            from None
    header = (f"# gen-seq-tests fuzz finding\n{SIGNATURE_LINE}{signature}\n"
              f"# reproduce: {reproduce}\n")
    return cases_text([([], mapping)], header)


def write(folder: Path, case: Case, signature: str, reproduce: str) -> Path:
    """Write the finding's case file into `folder` (atomically: whole or not at all), checked
    to build; its path. OSError when the folder or the disk refuses."""
    text = case_text(case, signature, reproduce)  # a FindingError before any write
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{file_stem(signature)}.yaml"
    write_atomic(path, text)
    problems = Problems()
    for loaded in load_text(text, str(path), problems):
        compile_case(loaded, "undefined", problems)
    if problems.found:
        raise FindingError(f"{path}: the written finding does not build: "
                           f"{problems.found[0]}")
    return path


def _signature(data: bytes) -> str | None:
    """The signature a finding's header names (in its first 5 lines), or None."""
    for line in data.split(b"\n", 5)[:5]:
        text = line.decode("utf-8", "replace")
        if text.startswith(SIGNATURE_LINE):
            return text[len(SIGNATURE_LINE):].strip()
    return None


def signature_of(path: Path) -> str | None:
    """The signature a finding's file names in its header, or None (also for a file that cannot
    be read: only a regular file is, at most a case file's bound)."""
    try:
        return _signature(read_case_file(path))
    except OSError:
        return None


def merge(folders, output: Path, skipped: list[str] | None = None) -> tuple[int, int]:
    """Write into `output` one finding per signature from `folders` (the first in sorted file
    order, folders in the order given); (finding files read, signatures kept). Only regular
    files are read, each at most MAX_FILE_BYTES (a case file's bound): a FIFO, a device, a
    socket, a folder named *.yaml, a file over the bound or one that cannot be opened is left
    out, with a line `path: why` appended to `skipped`, and the others are merged. Each file
    is written atomically; a file in `output` holding anything but that signature's finding
    is never written over (a line of `skipped` too). FindingError (exit 2, before anything is
    read) for an input that is not a folder; OutputError for an `output` that cannot be
    written."""
    skipped = [] if skipped is None else skipped
    for folder in map(Path, folders):
        if not folder.is_dir():
            raise FindingError(f"{folder}: not a folder of findings (fuzz -o writes one)")
    check_folder(output, "-o")
    read = 0
    seen: dict[str, tuple[Path, bytes]] = {}
    for folder in map(Path, folders):
        for path in sorted(folder.glob("*.yaml")):
            try:
                data = read_case_file(path)
            except OSError as error:
                skipped.append(f"{path}: {error.strerror or error}")
                continue
            if len(data) > MAX_FILE_BYTES:
                skipped.append(f"{path}: more than the {MAX_FILE_BYTES} bytes a case file "
                               "may have (MAX_FILE_BYTES)")
                continue
            signature = _signature(data)
            if signature is None:  # not a finding (a case file of another kind)
                continue
            read += 1
            seen.setdefault(signature, (path, data))
    output.mkdir(parents=True, exist_ok=True)
    for signature, (path, data) in sorted(seen.items()):
        target = output / f"{file_stem(signature)}.yaml"
        if path.resolve() == target.resolve():
            continue
        if os.path.lexists(target) and signature_of(target) != signature:
            skipped.append(f"{target}: holds something other than the finding {signature} "
                           f"(from {path}); not overwritten")
            continue
        write_atomic(target, data)
    return read, len(seen)
