"""Findings as case files: a shrunk program written in the project's YAML case format (through
the case-file writer), and `merge`, which dedupes the findings of several campaigns.

Each file holds one case and starts with comment lines naming its signature and the command
that reproduces it; the case's `doc` says what the backend answered. `gen-seq-tests build DIR`
compiles a folder of them into the standard layout.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

from .._casefile.reader import load_text
from .._casefile.writer import NotExpressible, case_data, cases_text
from .._core.cases import Case
from .._core.problems import Problems, SeqTestsError
from .._suite.build import compile_case

SIGNATURE_LINE = "# signature: "


class FindingError(SeqTestsError):
    """A finding that cannot be written as a case file, or a merge input that is not a
    folder of findings; the message says which and why."""


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
    """Write the finding's case file into `folder`, checked to build; its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{file_stem(signature)}.yaml"
    text = case_text(case, signature, reproduce)
    path.write_text(text, encoding="utf-8")
    problems = Problems()
    for loaded in load_text(text, str(path), problems):
        compile_case(loaded, "undefined", problems)
    if problems.found:
        raise FindingError(f"{path}: the written finding does not build: "
                           f"{problems.found[0]}")
    return path


def signature_of(path: Path) -> str | None:
    """The signature a finding's file names in its header, or None."""
    try:
        with open(path, encoding="utf-8") as f:
            for _ in range(5):
                line = f.readline()
                if line.startswith(SIGNATURE_LINE):
                    return line[len(SIGNATURE_LINE):].strip()
    except (OSError, UnicodeDecodeError):
        return None
    return None


def merge(folders, output: Path) -> tuple[int, int]:
    """Copy into `output` one finding per signature from `folders` (the first in sorted file
    order, folders in the order given); (files read, findings kept)."""
    seen: dict[str, Path] = {}
    read = 0
    for folder in map(Path, folders):
        if not folder.is_dir():
            raise FindingError(f"{folder}: not a folder of findings (fuzz -o writes one)")
        for path in sorted(folder.glob("*.yaml")):
            signature = signature_of(path)
            if signature is None:
                continue
            read += 1
            seen.setdefault(signature, path)
    output.mkdir(parents=True, exist_ok=True)
    for signature, path in sorted(seen.items()):
        target = output / f"{file_stem(signature)}.yaml"
        if path.resolve() != target.resolve():
            shutil.copyfile(path, target)
    return read, len(seen)
