"""Cases to files: build every model, encode every value, then write the suite in one swap."""

from __future__ import annotations

from pathlib import Path

from .cases import Case
from .layout import SUITE, case_files, replace_folder
from .model import ModelError, build_model
from .problems import CaseFileError, Problems


def compile_cases(cases: list[Case], empty_optional: str = "undefined") -> dict[str, bytes]:
    """All files of the suite, `test_<name>/...` -> bytes; CaseFileError if a model is refused."""
    problems = Problems()
    files: dict[str, bytes] = {}
    for case in cases:
        try:
            model = build_model(case)
        except ModelError as error:
            problems.add(error.where or case.where, f"case '{case.name}': {error}")
            continue
        for relative, data in case_files(case, model, empty_optional).items():
            files[f"{case.folder}/{relative}"] = data
    problems.raise_if_any()
    return files


def build_suite(cases: list[Case], out_root: Path, empty_optional: str = "undefined") -> Path:
    """Compile, then replace `<out_root>/<SUITE>` by the result; nothing is written on error."""
    files = compile_cases(cases, empty_optional)
    target = Path(out_root) / SUITE
    replace_folder(target, files)
    return target


__all__ = ["CaseFileError", "build_suite", "compile_cases"]
