"""Case files to a published suite: incremental, crash-safe, reproducible.

A build makes the output root (default `generated/`) hold

    <root>/manifest.json           every file with its sha256 and size (manifest.py)
    <root>/sequence_optional/...   one folder per case (layout.py)
    <root>/sequence_optional_tensor_io/..., <root>/sequence_optional_constant/...
                                   the derived forms' variants (tensor_io.py, constant_form.py)

and nothing else. It stages the new tree beside the root and swaps it in (publish.py), so an
interrupted build leaves the old suite or the new one, each matching its manifest.

Incremental builds: `.<root>.build/cache.json` beside the root remembers, for the tree whose
manifest has a given sha256, the build key (freshness.py: the code of the layers below the
verifier, the versions of onnx, numpy, protobuf and ml_dtypes, the empty-optional form), each
case file's sha256 and the cases it gave, each case's fingerprint (a hash of its content), and
the mtime of each file and folder.
A case file whose bytes are unchanged is not parsed again; a case whose fingerprint is unchanged
is not built again. Files kept from the old tree are hard-linked into the new one. Files on disk
are trusted by size and mtime against the cache (as git's index does); `check` compares every
byte. When nothing changed at all, freshness.py tells so before this module (and onnx) is
imported; otherwise it hands on what it read (freshness.Known), so a build lists, reads and
hashes each case file once and parses the manifest and the cache once.

The build's rooms: output_root.py (can the root be used), old_tree.py (what the root holds
now), compiling.py, new_tree.py (what it will hold, the manifest and the cache),
build_check.py (`check`: compare without writing), this module (the flow).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from .._casefile import reader as casefile
from .._casefile.discovery import CaseSource
from .._core.errors import ArgumentError, CaseFileError
from .._core.problems import Problem, Problems, Where, path_argument
from .._core.suite_forms import SuiteForm
from .build_cache import BuildCache
from .compiling import (
    CaseResult,
    FileResult,
    compile_files,
    stream_files,
)
from .freshness import Known, Paths
from .layout import SUITE
from .manifest import EMPTY_OPTIONAL_FORMS, CaseEntry, Manifest, source_path
from .new_tree import Plan, as_written, mtimes, new_tree, plan, publish, write_cache
from .old_tree import Previous, previous
from .output_root import (
    check_root,
    kept_only_if_built,
    refuse_foreign,
    unusable_as_output,
)
from .publish import Staging, folders_of, locked, recover, work_dir

#: Case files of at least this many bytes in all are compiled in worker processes while this
#: process writes each compiled case (below it, compiling here is quicker than starting one).
STREAM_BYTES = 32 * 1024
#: The suite folders a build writes: the cases as written, and each derived form's.
SUITES = tuple(form.folder for form in SuiteForm)


@dataclass
class BuildReport:
    """What a build did."""

    root: Path
    cases: int  # cases as written (each with its variants of the derived forms)
    rebuilt: list[str]  # cases compiled and written (either form)
    removed: list[str]  # cases whose folders are gone
    changed: bool  # False when the root already held exactly this suite


def arguments(paths, out_root, empty_optional: str, jobs: int) -> tuple[list[Path], Path, int]:
    """The arguments of build and check, checked: `paths` a path or paths (str or os.PathLike)
    of case files or folders, `out_root` a path, `empty_optional` one of EMPTY_OPTIONAL_FORMS,
    `jobs` an int >= 0 (0: one process per CPU). ArgumentError (a ValueError) otherwise."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    try:
        paths = list(paths)
    except TypeError:
        raise ArgumentError(f"paths must be a path or a list of paths of case files or "
                            f"folders, not {type(paths).__name__}") from None
    paths = [path_argument(path, "each of paths") for path in paths]
    out_root = path_argument(out_root, "out_root")
    if empty_optional not in EMPTY_OPTIONAL_FORMS:
        raise ArgumentError(f"empty_optional must be one of {', '.join(EMPTY_OPTIONAL_FORMS)}, "
                            f"not {empty_optional!r}")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 0:
        raise ArgumentError(f"jobs must be an int >= 0 (0: one process per CPU), not {jobs!r}")
    return paths, out_root, jobs or os.cpu_count() or 1


def build(paths: Paths, out_root: Path, empty_optional: str = "undefined",
          jobs: int = 1) -> BuildReport:
    """Build the case files in `paths` into `out_root`, rebuilding only what changed.

    Raises ArgumentError (a ValueError) for a bad argument (see `arguments`), CaseFileError
    (nothing written) for refused cases, OutputError for an unusable root (one holding paths no
    build wrote included: nothing is ever deleted that a build did not write), OSError when the
    disk refuses (the root then still holds the old suite)."""
    return build_known(None, paths, out_root, empty_optional, jobs)


def build_known(known: Known | None, paths: Paths, out_root: Path, empty_optional: str,
                jobs: int) -> BuildReport:
    """`build`, with `known`: what freshness.look learnt of the same arguments (the `build`
    command's flow), so nothing it read is read again; None: read it all here."""
    paths, out_root, jobs = arguments(paths, out_root, empty_optional, jobs)
    root = Path(out_root).resolve()  # a symlinked root: swap the folder it names
    known = known or Known.of(paths, empty_optional)
    sources(known, paths)
    work = work_dir(root)
    with kept_only_if_built(root, work), locked(work):
        recover(root, work)
        check_root(root)
        old = previous(root, work, known)
        refuse_foreign(root, old.foreign)
        staging = Staging(work / "staging", partial(unusable_as_output, root))
        try:
            return _finish(root, work, known, old, empty_optional, jobs, staging)
        except BaseException:
            staging.discard()
            raise


def sources(known: Known, paths: list[Path]) -> list[CaseSource]:
    """The case files `known` holds; the loader's own "no case files" problem when none."""
    if not known.sources:
        casefile.load_cases(paths)  # raises CaseFileError
    return known.sources


def _same_source(entry: CaseEntry, path: Path) -> bool:
    """Whether a kept manifest entry names `path` as its source (same bytes, same file)."""
    return (entry.source or "").rpartition(":")[0] == source_path(str(path))


def _kept(source: CaseSource, old: Previous) -> list[CaseResult] | None:
    """The cases of a case file whose bytes gave them in the old tree, intact there; None when
    the file is to be compiled."""
    names = old.sources.get(source.sha256) if source.sha256 else None
    cases = old.manifest.cases
    if names is None or not all(n in old.intact and n in old.fingerprints
                                and _same_source(cases[n], source.path) for n in names):
        return None
    return [CaseResult(n, old.fingerprints[n], cases[n], None) for n in names]


def _compile(known: Known, old: Previous, empty_optional: str, jobs: int,
             staging: Staging) -> tuple[list[list[CaseResult]], dict[str, Plan], list[FileResult]]:
    """The cases of each case file in order (kept or compiled), the plans of the cases written
    already (streaming: each changed case into `staging` as soon as it is compiled), and the
    results of the files compiled."""
    kept = [_kept(source, old) for source in known.sources]
    to_compile = [s for s, k in zip(known.sources, kept, strict=True) if k is None]
    reusable = {n: old.fingerprints[n] for n in old.intact if n in old.fingerprints}
    planned: dict[str, Plan] = {}

    def write_now(case: CaseResult) -> None:
        made = planned[case.name] = plan(case, old)
        staging.write_all(made[1])

    if sum(len(s.data or b"") for s in to_compile) >= STREAM_BYTES:
        results = stream_files(to_compile, empty_optional, reusable, jobs, write_now)
        staging.finish()
    else:
        results = compile_files(to_compile, empty_optional, reusable, jobs)
    compiled = iter(results)
    by_file = [k if k is not None else next(compiled).cases for k in kept]
    return by_file, planned, results


def _finish(root: Path, work: Path, known: Known, old: Previous, empty_optional: str,
            jobs: int, staging: Staging) -> BuildReport:
    """Compile what changed, then publish the new tree and the cache (or only the cache, when
    the root already holds exactly this suite)."""
    by_file, planned, results = _compile(known, old, empty_optional, jobs, staging)
    raise_problems(known.sources, by_file, results)
    every = [c for cases in by_file for c in cases]
    sources_map = {s.sha256: [c.name for c in cases]
                   for s, cases in zip(known.sources, by_file, strict=True) if s.sha256}
    cases = {c.name: c.entry for c in every}
    fingerprints = {c.name: c.fingerprint for c in every}
    tree = new_tree(every, old, planned)
    manifest = Manifest.make(cases, tree.files, SUITE, empty_optional)
    same = old.trusted and manifest == old.manifest  # then its bytes are the old ones
    manifest_bytes = old.manifest_bytes if same and old.manifest_bytes else manifest.to_bytes()
    manifest_sha256 = hashlib.sha256(manifest_bytes).hexdigest()
    written = sum(1 for entry in cases.values() if entry.derived_from is None)
    if old.exact and manifest_bytes == old.manifest_bytes:
        staging.discard()
        if not (old.trusted and sources_map == old.sources
                and fingerprints == old.fingerprints):
            write_cache(work, BuildCache(known.key, manifest_sha256, sources_map, fingerprints,
                                         mtimes(tree.files, old.stats), old.folders))
        return BuildReport(root, written, [], [], False)
    stats = publish(root, work, old, tree, manifest_bytes, staging)
    folders = {f: os.stat(os.path.join(root, f)).st_mtime_ns for f in folders_of(tree.files)}
    write_cache(work, BuildCache(known.key, manifest_sha256, sources_map, fingerprints,
                                 mtimes(tree.files, stats), folders))
    removed = set(old.manifest.cases) - set(cases)
    return BuildReport(root, written, as_written(tree.rebuilt, cases),
                       as_written(removed, old.manifest.cases), True)


def raise_problems(sources: list[CaseSource], by_file: list[list[CaseResult]],
                   results: list[FileResult]) -> None:
    """Raise every problem of the run, duplicate case names across files included: named in
    one pass over the cases in file order, each place known (a case kept from the last build
    is parsed from the bytes at hand only when it is one of a duplicate)."""
    problems = Problems()
    problems.found.extend(p for result in results for p in result.problems)
    names = [c.name for cases in by_file for c in cases]
    if len(set(names)) != len(names):
        repeated = {n for n in names if names.count(n) > 1}
        originals = [(c.name, c.where or _where(source, c.name))
                     for source, cases in zip(sources, by_file, strict=True) for c in cases
                     if c.entry.derived_from is None and c.name in repeated]
        casefile.name_duplicates([(n, w) for n, w in originals if w is not None], problems)
    if problems.found:
        raise CaseFileError(sorted(set(problems.found)))
    if len(set(names)) != len(names):  # a case named like another's variant
        repeated_names = sorted({n for n in names if names.count(n) > 1})
        raise CaseFileError([Problem(".", 1, 1, "duplicate case names: "
                                     + ", ".join(repeated_names)
                                     + " (a tensor-boundary variant is named "
                                     "<case>__<signature>, a constant one <case>__constant<k>; "
                                     "rename the case)")])


def _where(source: CaseSource, name: str) -> Where | None:
    """Where the case `name` is written in `source` (a file not compiled this run)."""
    try:
        cases = casefile.load_source(source)
    except CaseFileError:
        return None
    return next((case.where for case in cases if case.name == name), None)


__all__ = ["BuildReport", "build"]
