"""Judging programs: build each (both forms, through the builder's own `compile_case`), write
the folders, run them on the backends with `verify` (its worker processes: crash isolation,
timeouts) and classify every disagreement by a signature.

A program is valid when it passes what a built case passes (onnx's full check, strict shape
inference, the IR checks, the spec oracle's check of its expectations); an invalid program is
a generator bug, counted and kept apart, never run.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from .._core.cases import Case
from .._core.problems import Problems
from .._suite.build import compile_case
from .._suite.layout import SUITE
from .._suite.tensor_io import TENSOR_IO_SUITE, derive
from .._verify.verifier import verify
from . import inprocess
from .oracle_backend import SPEC as ORACLE_SPEC

#: Backend names fuzz knows besides verify's: `oracle` is the spec oracle itself (judged in this
#: process, like `mutant:NAME`; the alias lets verify's workers run it too).
ALIASES = {"oracle": ORACLE_SPEC}
#: Outcomes that are findings: wrong values, a dead process, no answer in time. A backend that
#: refuses a model or raises on it is counted, not a finding (unless --errors).
FINDING_OUTCOMES = ("fail", "crash", "timeout")
_CRASHED = "the backend crashed"
_HUNG = "the backend gave no result within"


@dataclass(frozen=True)
class Verdict:
    """One form of one program on one backend."""

    backend: str  # as the user named it
    form: str  # SUITE or TENSOR_IO_SUITE
    folder: str  # the case folder's name
    outcome: str  # verify's outcome, crash and timeout told apart
    message: str

    def kind(self) -> str:
        return disagreement_kind(self.outcome, self.message)


@dataclass
class Built:
    """A program's case folders: name -> (form, files), and the cases they were compiled from
    (name -> (form, Case), for the in-process backends); `problem` when it is invalid."""

    case: Case
    folders: dict
    problem: str = ""
    cases: dict = field(default_factory=dict)


def scratch_root() -> str | None:
    """Where programs are written to be judged: a memory-backed folder when the system has
    one (each program is a dozen small files, written once and read once), else the default
    temporary folder."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def build(case: Case) -> Built:
    """Compile a case and its tensor-boundary variants as the builder does."""
    problems = Problems()
    files = compile_case(case, "undefined", problems)
    if files is None:
        return Built(case, {}, problems.found[0].message if problems.found else "refused")
    folders = {case.folder: (SUITE, files)}
    cases = {case.folder: (SUITE, case)}
    for variant in derive(case).variants:
        variant_files = compile_case(variant, "undefined", problems)
        if variant_files is None:
            return Built(case, {}, "tensor-boundary form: " + problems.found[0].message)
        folders[variant.folder] = (TENSOR_IO_SUITE, variant_files)
        cases[variant.folder] = (TENSOR_IO_SUITE, variant)
    return Built(case, folders, cases=cases)


def outcome_of(outcome: str, message: str) -> str:
    """verify's outcome, with a crash or a timeout told apart from an error (verify may
    already name them so)."""
    if outcome == "error" and message.startswith(_CRASHED):
        return "crash"
    if outcome == "error" and message.startswith(_HUNG):
        return "timeout"
    return outcome


def disagreement_kind(outcome: str, message: str) -> str:
    """What kind of wrong answer a message describes, without its values or names: length,
    dtype, shape, optional, value, count, kind; for an error, its exception's type."""
    first = re.sub(r"^data set \d+: ", "", message.split("\n", 1)[0])
    if outcome != "fail":
        head = re.match(r"(\w+):", first)
        return head.group(1) if head and outcome in ("error", "refused") else outcome
    for kind, pattern in (("count", r"output\(s\)"), ("length", r"got length \d+$"),
                          ("dtype", r"expected dtype"), ("shape", r"expected shape"),
                          ("optional", r"empty optional|present optional"),
                          ("kind", r"expected an? .*, got an? ")):
        if re.search(pattern, first):
            return kind
    return "value"


def run(built: list[Built], specs: list[str], work: Path, jobs: int = 1,
        timeout: float | None = None) -> dict[str, list[Verdict]]:
    """Per case name, the verdicts of its folders on each backend (valid programs only).
    `oracle` and `mutant:NAME` are judged in this process (inprocess.py), the others in
    verify's worker processes on the folders written under `work`."""
    verdicts: dict[str, list[Verdict]] = {item.case.name: [] for item in built if item.folders}
    for spec in filter(inprocess.handles, specs):
        mutant = inprocess.mutant_of(spec)
        for item in built:
            for folder, (form, case) in item.cases.items():
                outcome, message = inprocess.judge_case(case, mutant)
                verdicts[item.case.name].append(Verdict(spec, form, folder, outcome, message))
    specs = [s for s in specs if not inprocess.handles(s)]
    if not specs:
        return verdicts
    work = Path(work)
    if work.exists():
        shutil.rmtree(work)
    owner: dict[str, tuple[str, str]] = {}
    for item in built:
        for folder, (form, files) in item.folders.items():
            base = work / form / folder
            for relative, data in files.items():
                path = base / relative
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
            owner[folder] = (item.case.name, form)
    if not owner:
        return verdicts
    named = {ALIASES.get(s, s): s for s in specs}
    for result in verify(work, list(named), jobs=jobs, timeout=timeout):
        case_name, form = owner[result.name]
        outcome = outcome_of(result.outcome, result.message)
        verdicts[case_name].append(Verdict(named[result.backend], form, result.name, outcome,
                                           result.message))
    shutil.rmtree(work)
    return verdicts


def findings_of(verdicts: list[Verdict], errors: bool = False) -> list[Verdict]:
    """The verdicts that are findings (with `errors`, errors and refusals too)."""
    wanted = FINDING_OUTCOMES + (("error", "refused") if errors else ())
    return [v for v in verdicts if v.outcome in wanted]
