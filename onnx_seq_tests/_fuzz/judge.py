"""Judging programs: build each (both forms, through the builder's own `compile_case`), write
the folders, run them on the backends with `verify` (its worker processes: crash isolation,
timeouts) and classify every disagreement by a signature. `start` judges a batch in a thread
of its own while the caller draws and builds the next one (campaign.py's pipeline).

A program is valid when it passes what a built case passes (onnx's full check, strict shape
inference, the IR checks, the spec oracle's check of its expectations); an invalid program is
a generator bug, counted and kept apart, never run.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .._core.cases import Case
from .._core.differences import Difference
from .._core.problems import Problems
from .._core.suite_forms import SuiteForm
from .._published.discovery import CaseRef
from .._run import verifier
from .._run.judged import Judged
from .._run.verifier import verify
from .._run.workers import Pool
from .._suite.compiling import compile_case
from .._suite.layout import SUITE
from .._suite.tensor_io import derive
from . import inprocess
from .oracle_backend import SPEC as ORACLE_SPEC

#: Backend names fuzz knows besides verify's: `oracle` is the spec oracle itself (judged in this
#: process, like `mutant:NAME`; the alias lets verify's workers run it too).
ALIASES = {"oracle": ORACLE_SPEC}
#: Outcomes that are findings: wrong values, a dead process, no answer in time. A backend that
#: refuses a model or raises on it is counted, not a finding (unless --errors).
FINDING_OUTCOMES = ("fail", "crash", "timeout")


@dataclass(frozen=True)
class Verdict:
    """One form of one program on one backend."""

    backend: str  # as the user named it
    form: str  # the folder of a SuiteForm
    folder: str  # the case folder's name
    outcome: str  # verify's outcome (crash and timeout are outcomes of their own)
    message: str
    differences: tuple[Difference, ...] = ()  # a fail's: the comparator's records
    error_type: str = ""  # an error or refused that an exception raised: its type's name
    # a fail told by the differences of a pack (packing.own_fail), or a verdict given by a
    # folder that holds the same program (packing.twins): the same verdict as the folder's
    # alone where the backend's answer to a program does not depend on the others
    packed: bool = field(default=False, compare=False)

    @classmethod
    def of(cls, backend: str, form: str, folder: str, judged: Judged) -> Verdict:
        """The verdict of an in-process backend's Judged."""
        return cls(backend, form, folder, judged.outcome, judged.message, judged.differences,
                   judged.error_type)

    def kind(self) -> str:
        """What kind of wrong answer it is, without its values or names: for a fail, the
        first difference's (Difference.signature_kind: count, optional, kind, length, dtype,
        shape, value); for an error or a refusal that an exception raised, the exception's
        type; else the outcome."""
        if self.outcome == "fail":
            return self.differences[0].signature_kind() if self.differences else "value"
        if self.outcome in ("error", "refused") and self.error_type:
            return self.error_type
        return self.outcome


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
        folders[variant.folder] = (SuiteForm.TENSOR_BOUNDARY.folder, variant_files)
        cases[variant.folder] = (SuiteForm.TENSOR_BOUNDARY.folder, variant)
    return Built(case, folders, cases=cases)


def run(built: list[Built], specs: list[str], work: Path, jobs: int = 1,
        timeout: float | None = None) -> dict[str, list[Verdict]]:
    """Per case name, the verdicts of its folders on each backend (valid programs only).
    `oracle` and `mutant:NAME` are judged in this process (inprocess.py), the others in
    verify's worker processes on the folders written under `work`."""
    return start(built, specs, work, jobs, timeout, background=False).result()


class Judging:
    """A batch being judged (start): `result()` waits for its verdicts, per case name, and
    raises what verify raised (BackendSpecError for a backend that cannot be used).

    In the background, it is made once the job has written and queued its first folders
    (the job calls the `queued` it is given), or has ended: the caller draws the next batch
    only then. Writing a batch's folders (thousands of small files, each write giving up
    the GIL and waiting to take it back) while the caller's thread draws took 2 to 4 s a
    batch of IREE's packs, every worker idle; alone it takes a tenth of that."""

    def __init__(self, verdicts: dict[str, list[Verdict]], job=None, background: bool = True):
        self._verdicts, self._job = verdicts, job
        self._done, self._queued = threading.Event(), threading.Event()
        self._found: dict[str, list[Verdict]] = {}
        self._error: BaseException | None = None
        if job is None:
            self._done.set()
        elif not background:
            self._work()
        else:
            # a daemon thread: a campaign ended by Ctrl-C does not wait for the batch; the
            # workers end with this process (workers.py)
            threading.Thread(target=self._work, name="fuzz-judge", daemon=True).start()
            self._queued.wait()

    def _work(self) -> None:
        try:
            self._found = self._job(self._queued.set)
        except BaseException as error:  # noqa: BLE001 - handed to the caller by result()
            self._error = error
        finally:
            self._queued.set()
            self._done.set()

    def result(self) -> dict[str, list[Verdict]]:
        self._done.wait()
        if self._error is not None:
            raise self._error
        for name, found in self._found.items():
            self._verdicts[name].extend(found)
        self._found = {}
        return self._verdicts


def start(built: list[Built], specs: list[str], work: Path, jobs: int = 1,
          timeout: float | None = None, background: bool = True,
          workers=None) -> Judging:
    """Start judging `built` as run does: the in-process backends at once, in this thread; the
    worker backends (writing the folders under `work`, then verify) in a thread of their own
    when `background`, so the caller can draw and build the next batch meanwhile. Each batch
    in flight needs a `work` folder of its own. `workers` judges the worker backends in place
    of `on_workers` (same arguments and result: packing.start's packs)."""
    verdicts: dict[str, list[Verdict]] = {item.case.name: [] for item in built if item.folders}
    for spec in filter(inprocess.handles, specs):
        mutant = inprocess.mutant_of(spec)
        for item in built:
            for folder, (form, case) in item.cases.items():
                verdicts[item.case.name].append(
                    Verdict.of(spec, form, folder, inprocess.judge_case(case, mutant)))
    specs = [s for s in specs if not inprocess.handles(s)]
    if not specs or not verdicts:
        return Judging(verdicts)

    def job(queued) -> dict[str, list[Verdict]]:
        return (workers or on_workers)(built, specs, Path(work), jobs, timeout, queued)

    return Judging(verdicts, job, background)


def on_workers(built: list[Built], specs: list[str], work: Path, jobs: int,
               timeout: float | None, queued=None) -> dict[str, list[Verdict]]:
    """The verdicts of verify's workers on the folders of `built`, written under `work` (a
    batch folder written once, removed after); `queued()` is called once they are written."""
    found: dict[str, list[Verdict]] = {}
    if work.exists():
        shutil.rmtree(work)
    owner: dict[str, tuple[str, str]] = {}
    refs = []  # the folders as verify's discovery finds them (no manifest), unsearched
    for item in built:
        for folder, (form, files) in item.folders.items():
            refs.append(written(files, work, form, folder))
            owner[folder] = (item.case.name, form)
    if queued is not None:
        queued()
    try:
        for spec, result in verified(refs, specs, work, jobs, timeout):
            case_name, form = owner[result.name]
            found.setdefault(case_name, []).append(
                Verdict(spec, form, result.name, result.outcome, result.message,
                        result.differences, result.error_type))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return found


def written(files: dict, work: Path, form: str, folder: str) -> CaseRef:
    """Write a case folder's files to `work/<form>/<folder>`; its CaseRef for verify."""
    base = work / form / folder
    for relative, data in files.items():
        path = base / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return CaseRef(base, f"{form}/{folder}", folder, None, None, "")


def verified(refs: list[CaseRef], specs: list[str], work: Path, jobs: int,
             timeout: float | None):
    """(backend as the user named it, verify's Result) of every folder of `refs` on `specs`,
    in discovery's order (sorted by path, then backend)."""
    refs = sorted(refs, key=lambda ref: ref.path)  # discovery's order
    named = {ALIASES.get(s, s): s for s in specs}
    for result in verify(work, list(named), jobs=jobs, timeout=timeout, cases=refs):
        yield named[result.backend], result


def streamed(refs: list[CaseRef], kept: Kept, more) -> None:
    """Run the folders `refs` in the workers `kept` keeps (one backend), handing each result
    to `more(result)` as it comes, which gives the folders to run next (CaseRefs), in the
    same run: nothing waits for the slowest folder of a round."""
    def next_refs(results: list) -> list[CaseRef]:
        (result,) = results  # one backend
        return more(result)

    if refs:
        verifier.run(kept.arguments, refs, pool=kept.pool, more=next_refs)


@dataclass(frozen=True)
class Kept:
    """Verify's workers kept for a batch (`streamed`): the runtime loads and is checked once
    a batch, not once a verify run (IREE: about a second)."""

    arguments: verifier.Arguments
    pool: Pool


@contextmanager
def kept_workers(specs: list[str], jobs: int, timeout: float | None) -> Iterator[Kept]:
    """Workers for `specs` kept while the block runs, ended after it."""
    arguments = verifier.check_arguments([ALIASES.get(s, s) for s in specs], jobs, timeout)
    pool = verifier.kept_pool(arguments)
    try:
        yield Kept(arguments, pool)
    finally:
        pool.close()


def finding_outcomes(errors: bool = False) -> tuple[str, ...]:
    """The outcomes of a finding (with `errors`, errors and refusals too)."""
    return FINDING_OUTCOMES + (("error", "refused") if errors else ())


def findings_of(verdicts: list[Verdict], errors: bool = False) -> list[Verdict]:
    """The verdicts that are findings (`finding_outcomes`)."""
    wanted = finding_outcomes(errors)
    return [v for v in verdicts if v.outcome in wanted]
