"""Case files to a published suite: incremental, crash-safe, reproducible.

A build makes the output root (default `generated/`) hold

    <root>/manifest.json           every file with its sha256 and size (manifest.py)
    <root>/sequence_optional/...   one folder per case (layout.py)

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
imported.
"""

from __future__ import annotations

import errno
import hashlib
import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._casefile import reader as casefile
from .._casefile.discovery import read_case_file
from .._core.problems import (
    ArgumentError,
    CaseFileError,
    Problem,
    SeqTestsError,
    path_argument,
)
from .build_cache import BuildCache
from .compiling import (
    CaseResult,
    FileResult,
    compile_case,
    compile_cases,
    compile_files,
    fingerprint,
    stream_files,
)
from .freshness import build_key, folders_hold
from .layout import SUITE
from .manifest import (
    EMPTY_OPTIONAL_FORMS,
    MANIFEST,
    dumps,
    file_entry,
    load_json,
    make_manifest,
    source_path,
    unlisted,
)
from .publish import (
    CACHE,
    Staging,
    folders_of,
    locked,
    recover,
    scan_tree,
    swap_in,
    work_dir,
)
from .tensor_io import TENSOR_IO_SUITE

#: Case files of at least this many bytes in all are compiled in worker processes while this
#: process writes each compiled case (below it, compiling here is quicker than starting one).
STREAM_BYTES = 32 * 1024
#: The suite folders a build writes: the cases as written, and their tensor-boundary form.
SUITES = (SUITE, TENSOR_IO_SUITE)


class OutputError(SeqTestsError):
    """The output root cannot be used; the message says why and what to do."""


def _same_source(entry: dict, path: Path) -> bool:
    """Whether a kept manifest entry names `path` as its source (same bytes, same file)."""
    return entry.get("source", "").rpartition(":")[0] == source_path(str(path))


def _sources(paths) -> list[tuple[Path, str | None]]:
    """The case files of `paths` with the sha256 of their bytes (None if unreadable)."""
    found = casefile.case_files(paths)
    if not found:
        casefile.load_cases(paths)  # raises the loader's own "no case files" problem
    sources: list[tuple[Path, str | None]] = []
    for path in found:
        try:
            sources.append((path, hashlib.sha256(read_case_file(path)).hexdigest()))
        except OSError:
            sources.append((path, None))
    return sources


def _raise_problems(paths, results: list[FileResult], names: list[str]) -> None:
    """Raise every problem of the run, duplicate case names across files included."""
    problems = {p for result in results for p in result.problems}
    if len(set(names)) != len(names):
        try:  # the loader names both places of a duplicate; it reads every file to do so
            casefile.load_cases(paths)
        except CaseFileError as error:
            problems.update(error.problems)
    if problems:
        raise CaseFileError(sorted(problems))
    if len(set(names)) != len(names):  # a case named like another's tensor-boundary variant
        repeated = sorted({n for n in names if names.count(n) > 1})
        raise CaseFileError([Problem(".", 1, 1, "duplicate case names: " + ", ".join(repeated)
                                     + " (a tensor-boundary variant is named "
                                     "<case>__<signature>; rename the case)")])


# -- what the output root holds now --------------------------------------------------------------

@dataclass
class Previous:
    """The tree at the output root before a build, as far as it can be trusted."""

    manifest: dict = field(default_factory=lambda: {"cases": {}, "files": {}})
    manifest_bytes: bytes | None = None
    trusted: bool = False  # the cache belongs to this tree and to this build key
    sources: dict[str, list[str]] = field(default_factory=dict)
    fingerprints: dict[str, str] = field(default_factory=dict)
    stats: dict[str, tuple[int, int]] = field(default_factory=dict)  # file -> (size, mtime)
    folders: dict[str, int] = field(default_factory=dict)  # folder -> mtime
    by_case: dict[str, list[str]] = field(default_factory=dict)  # name -> its listed files
    intact: set[str] = field(default_factory=set)  # cases whose files are as listed
    exact: bool = False  # the tree is exactly what the manifest lists
    foreign: list[str] = field(default_factory=list)  # paths no build wrote (manifest.unlisted)


def previous(root: Path, work: Path, key: str) -> Previous:
    """Read the old manifest and cache and look at the tree: which cases are intact.

    With a trusted cache whose folder mtimes all still hold, no entry was added, removed or
    renamed anywhere in the tree since, so a stat of each listed file is enough; otherwise the
    whole tree is listed (and, without a trusted cache, every file read)."""
    old = Previous()
    if not root.is_dir():
        return old
    try:
        old.manifest_bytes = (root / MANIFEST).read_bytes()
        manifest = load_json(old.manifest_bytes, str(root / MANIFEST))
        listed, cases = manifest["files"], manifest["cases"]
        for entry in cases.values():
            old.by_case[entry["folder"]] = []
        for relative in listed:
            old.by_case[_case_folder(relative)].append(relative)  # type: ignore[index]  # None: KeyError, caught below
        old.by_case = {name: old.by_case[entry["folder"]] for name, entry in cases.items()}
        old.manifest = manifest
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        files, folders = scan_tree(root)  # no manifest to say what a build wrote: nothing
        return Previous(foreign=unlisted({}, files, folders))
    cache = _read_cache(work, key, old.manifest_bytes)
    if cache is not None and len(cache.mtimes) != len(listed):
        cache = None
    if cache is not None and folders_hold(root, cache.folders):
        old.folders = cache.folders
        # None for a listed file that is gone: it matches no (size, mtime)
        old.stats = {r: _stat(f"{root}/{r}") for r in listed}  # type: ignore[misc]
        on_disk_by_folder: dict[str | None, set[str]] | None = None  # no folder changed: each
        # holds exactly its listed files
        old.exact = True
    else:
        old.stats, old.folders = scan_tree(root)
        by_folder: dict[str | None, set[str]] = {}
        on_disk_by_folder = by_folder
        for relative in old.stats:
            by_folder.setdefault(_case_folder(relative), set()).add(relative)
        old.exact = (old.stats.keys() == listed.keys() | {MANIFEST}
                     and old.folders.keys() == folders_of(listed))
        old.foreign = unlisted(listed, old.stats, old.folders)
    if cache is not None:
        old.trusted, old.sources, old.fingerprints = True, cache.sources, cache.fingerprints
        good = {r for r, mtime in zip(listed, cache.mtimes, strict=True)
                if old.stats.get(r) == (listed[r]["size"], mtime)}
    else:  # no cache to trust: read every file
        good = {r for r in listed if r in old.stats
                and file_entry((root / r).read_bytes()) == listed[r]}
    old.exact = old.exact and len(good) == len(listed)
    for name, entry in cases.items():
        mine = old.by_case[name]
        if mine and good.issuperset(mine) and (
                on_disk_by_folder is None or on_disk_by_folder.get(entry["folder"]) == set(mine)):
            old.intact.add(name)
    return old


def _size(path) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _stat(path: str) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_size, stat.st_mtime_ns


def _case_folder(relative: str) -> str | None:
    """`<suite>/test_x` for a file inside a case folder, else None."""
    parts = relative.split("/", 2)
    return f"{parts[0]}/{parts[1]}" if len(parts) == 3 else None


def _read_cache(work: Path, key: str, manifest_bytes: bytes) -> BuildCache | None:
    """The cache, when it belongs to this build key and to the tree with this manifest."""
    try:
        cache = BuildCache.from_json((work / CACHE).read_bytes(), str(work / CACHE))
    except (OSError, ValueError):  # CacheError is a ValueError
        return None
    return cache if cache.belongs_to(key, manifest_bytes) else None


#: What the file system says when the output root's folder can never be written (as opposed
#: to a full or failing disk): exit 2, the root untouched.
_UNUSABLE = (errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOTDIR, errno.EEXIST)


@contextmanager
def _unusable_as_output(root: Path):
    """Turn an OSError saying the root's folder cannot be written at all into OutputError."""
    try:
        yield
    except OSError as error:
        if error.errno not in _UNUSABLE:
            raise
        raise OutputError(f"{root} cannot be used as the output root: {error.strerror or error} "
                          f"({error.filename}); give a writable output root with -o") from None


def _check_root(root: Path) -> None:
    if os.path.lexists(root) and not root.is_dir():
        raise OutputError(f"{root} is not a folder; give the output root with -o")


def _refuse_foreign(root: Path, foreign: list[str]) -> None:
    """OutputError naming the paths in the output root that no build wrote: a build replaces
    the root as a whole, so it never runs over them (nothing of them is lost)."""
    if foreign:
        shown = ", ".join(repr(f) for f in foreign[:5])
        more = f" and {len(foreign) - 5} more" if len(foreign) > 5 else ""
        raise OutputError(
            f"{root} holds {len(foreign)} path(s) that no build wrote (its manifest.json does "
            f"not list them): {shown}{more}; a build replaces {root} as a whole, so nothing "
            f"was written: move them out of {root}, or give another output root with -o")


# -- build ---------------------------------------------------------------------------------------

@dataclass
class BuildReport:
    """What a build did."""

    root: Path
    cases: int  # cases as written (each with its tensor-boundary variants)
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


def build(paths, out_root: Path, empty_optional: str = "undefined", jobs: int = 1) -> BuildReport:
    """Build the case files in `paths` into `out_root`, rebuilding only what changed.

    Raises ArgumentError (a ValueError) for a bad argument (see `arguments`), CaseFileError
    (nothing written) for refused cases, OutputError for an unusable root (one holding paths no
    build wrote included: nothing is ever deleted that a build did not write), OSError when the
    disk refuses (the root then still holds the old suite)."""
    paths, out_root, jobs = arguments(paths, out_root, empty_optional, jobs)
    root = Path(out_root).resolve()  # a symlinked root: swap the folder it names
    sources = _sources(paths)
    key = build_key(empty_optional)
    work = work_dir(root)
    with _kept_only_if_built(root, work):
        return _build_locked(sources, root, work, key, paths, empty_optional, jobs)


def _build_locked(sources, root: Path, work: Path, key: str, paths, empty_optional: str,
                  jobs: int) -> BuildReport:
    with locked(work):
        recover(root, work)
        _check_root(root)
        old = previous(root, work, key)
        _refuse_foreign(root, old.foreign)
        kept, to_parse = [], []
        for path, sha in sources:
            names = old.sources.get(sha) if sha else None
            if names is not None and all(n in old.intact and n in old.fingerprints
                                         and _same_source(old.manifest["cases"][n], path)
                                         for n in names):
                kept.append((sha, [CaseResult(n, old.fingerprints[n], old.manifest["cases"][n],
                                              None) for n in names]))
            else:
                to_parse.append((path, sha))
        reusable = {n: old.fingerprints[n] for n in old.intact if n in old.fingerprints}
        staging = Staging(work / "staging", lambda: _unusable_as_output(root))
        try:
            return _finish(root, work, key, old, paths, empty_optional, jobs, kept, to_parse,
                           reusable, staging)
        except BaseException:
            staging.discard()
            raise


@contextmanager
def _kept_only_if_built(root: Path, work: Path):
    """Make the work folder `work` of the output root `root` for the block; when the block
    raises (a refused build, an interrupt) and the folder was made here, remove it if it holds
    nothing: a build that wrote nothing leaves nothing beside the output root."""
    made = not os.path.lexists(work)
    with _unusable_as_output(root):
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


def _finish(root, work, key, old, paths, empty_optional, jobs, kept, to_parse, reusable,
            staging) -> BuildReport:
    """Compile what changed (writing each changed case into `staging` as soon as it is
    compiled, when streaming), then publish the new tree and the cache."""
    to_compile = [p for p, _ in to_parse]
    planned: dict[str, tuple] = {}  # name -> _plan(case, old), for the cases streamed

    def write_now(case: CaseResult) -> None:
        plan = planned[case.name] = _plan(case, old)
        staging.write_all(plan[1])

    if sum(map(_size, to_compile)) >= STREAM_BYTES:
        results = stream_files(to_compile, empty_optional, reusable, jobs, write_now)
        staging.finish()
    else:
        results = compile_files(to_compile, empty_optional, reusable, jobs)
    every = [c for _, done in kept for c in done] + [c for r in results for c in r.cases]
    _raise_problems(paths, results, [c.name for c in every])
    sources_map = {sha: [c.name for c in done] for sha, done in kept}
    for (_, sha), result in zip(to_parse, results, strict=True):
        sources_map[sha] = [c.name for c in result.cases]
    cases = {c.name: c.entry for c in every}
    fingerprints = {c.name: c.fingerprint for c in every}
    files, links, writes, rebuilt = _new_tree(every, old, planned)
    manifest = make_manifest(cases, files, SUITE, empty_optional)
    same = old.trusted and manifest == old.manifest  # then its bytes are the old ones
    manifest_bytes = old.manifest_bytes if same else dumps(manifest)
    removed = sorted(set(old.manifest["cases"]) - set(cases))
    manifest_sha256 = hashlib.sha256(manifest_bytes).hexdigest()
    written = sum(1 for entry in cases.values() if "derived_from" not in entry)
    if old.exact and manifest_bytes == old.manifest_bytes:
        staging.discard()
        if not (old.trusted and sources_map == old.sources
                and fingerprints == old.fingerprints):
            _write_cache(work, BuildCache(key, manifest_sha256, sources_map, fingerprints,
                                          _mtimes(files, old.stats), old.folders))
        return BuildReport(root, written, [], [], False)
    stats = _publish(root, work, old, links, writes, manifest_bytes, staging)
    folders = {f: os.stat(os.path.join(root, f)).st_mtime_ns for f in folders_of(files)}
    _write_cache(work, BuildCache(key, manifest_sha256, sources_map, fingerprints,
                                  _mtimes(files, stats), folders))
    return BuildReport(root, written, _as_written(rebuilt, cases),
                       _as_written(removed, old.manifest["cases"]), True)


def _as_written(names, entries: dict) -> list[str]:
    """The cases as written behind `names`: a tensor-boundary variant counts as its case."""
    return sorted({entries[n].get("derived_from", n) if isinstance(entries.get(n), dict) else n
                   for n in names})


def _plan(case: CaseResult, old: Previous) -> tuple[dict[str, dict], dict[str, bytes], list]:
    """One case in the new tree: its file entries, the files to write (none when the old ones
    still hold) and the old files it keeps (to link)."""
    kept = old.by_case[case.name] if case.name in old.intact else []
    kept_entries = {r: old.manifest["files"][r] for r in kept}
    if case.files is not None:
        data = {f"{case.entry['folder']}/{r}": d for r, d in case.files.items()}
        entries = {r: file_entry(d) for r, d in data.items()}
        if entries != kept_entries:
            return entries, data, []
    return kept_entries, {}, kept


def _new_tree(cases: list[CaseResult], old: Previous, planned: dict[str, tuple]):
    """The new tree's file entries, the old files it keeps (to link), the files to write, and
    the cases written; `planned` holds the plans already made (each file hashed once)."""
    files, links, writes, rebuilt = {}, [], {}, []
    for case in cases:
        plan = planned.get(case.name)
        entries, data, kept = plan if plan is not None else _plan(case, old)
        files.update(entries)
        writes.update(data)
        links.extend(kept)
        if data:
            rebuilt.append(case.name)
    return files, links, writes, rebuilt


def _publish(root: Path, work: Path, old: Previous, links: list[str], writes: dict[str, bytes],
             manifest_bytes: bytes, staging: Staging) -> dict[str, tuple[int, int]]:
    """Stage the rest of the new tree (kept files hard-linked from the old one, the files not
    written yet, the manifest) and swap it in."""
    stager = staging.open()
    for relative in sorted(links):
        stager.link(root / relative, relative)
    for relative in sorted(writes):
        if relative not in stager.stats:
            stager.write(relative, writes[relative])
    stager.write(MANIFEST, manifest_bytes)
    swap_in(staging.path, root, work, unchanged=_as_seen(root, old))
    staging.stager = None  # swapped in: nothing left to discard
    return stager.stats


def _as_seen(root: Path, old: Previous):
    """What raises OutputError (exit 2) when the old tree, moved out of the root's place, is
    not as `previous` saw it: an entry was added or removed in it while the build ran (another
    process writing in the root). The swap then puts it back whole: a build never deletes a
    path it did not see, nor fails halfway because one came and went."""

    def check(tree: Path) -> None:
        if not old.folders or folders_hold(tree, old.folders):
            return
        files, folders = scan_tree(tree)
        moved = unlisted(old.manifest["files"], files, folders) or sorted(
            f"{f}/" if f else "./" for f, mtime in old.folders.items()
            if folders.get(f) != mtime)
        raise OutputError(
            f"{root}: {', '.join(map(repr, moved[:5]))}{' and more' if moved[5:] else ''}: "
            f"entries came or went there while the build ran (another process writes in "
            f"{root}), so nothing was written; build again when nothing else writes there")

    return check


def _mtimes(files: dict[str, dict], stats: dict[str, tuple[int, int]]) -> list[int]:
    """The mtime of each file of `files` (a manifest's), in sorted path order."""
    return [stats[r][1] for r in sorted(files)]


def _write_cache(work: Path, cache: BuildCache) -> None:
    """Write cache.json in one replace (a crash leaves the old cache or the new one)."""
    path, temporary = work / CACHE, work / f"{CACHE}.partial"
    work.mkdir(exist_ok=True)
    temporary.write_bytes(cache.to_json())
    os.replace(temporary, path)


# -- check ---------------------------------------------------------------------------------------

def check(paths, out_root: Path, empty_optional: str = "undefined", jobs: int = 1) -> list[str]:
    """Compile every case and compare with `out_root` byte for byte, writing nothing.

    Raises ArgumentError and CaseFileError as `build` does.
    Returns one line per difference, [] when the root is exactly what the cases give:
    `foreign: path (...)` for what no build wrote (its manifest does not list it; a build
    refuses to run over it), then `changed: test_x (model.onnx, ...)`, `missing: test_x`,
    `stale: test_x (...)` for a build's products no case gives any more, `changed:
    manifest.json (...)`."""
    paths, root, jobs = arguments(paths, out_root, empty_optional, jobs)
    sources = [path for path, _ in _sources(paths)]
    results = compile_files(sources, empty_optional, {}, jobs)
    _raise_problems(paths, results, [c.name for r in results for c in r.cases])
    cases = sorted((c for r in results for c in r.cases), key=lambda c: c.name)
    on_disk, folders = scan_tree(root) if root.is_dir() else ({}, {})
    listed = _listed(root) if on_disk or folders else {}
    foreign = unlisted(listed, on_disk, folders)
    drift = [f"foreign: {f} (no build wrote it; `gen-seq-tests build` refuses to run until it "
             "is moved out)" for f in foreign]
    tops = set(foreign)
    on_disk = {r: v for r, v in on_disk.items() if not _within(r, tops)}
    folders = {r: v for r, v in folders.items() if not _within(f"{r}/", tops)}
    by_folder: dict[str | None, set[str]] = {}
    for relative in on_disk:
        by_folder.setdefault(_case_folder(relative), set()).add(relative)
    entries: dict[str, Any] = {}
    files: dict[str, Any] = {}
    for case in cases:
        folder = case.entry["folder"]
        entries[case.name] = case.entry
        expected = {f"{folder}/{r}": d for r, d in (case.files or {}).items()}
        files.update((r, file_entry(d)) for r, d in expected.items())
        present = by_folder.get(folder, set())
        if not present:
            drift.append(f"missing: {folder.rpartition('/')[2]}")
            continue
        differ = sorted(r for r, d in expected.items()
                        if r not in present or (root / r).read_bytes() != d)
        differ += sorted(present - set(expected))
        if differ:
            shown = ", ".join(r[len(folder) + 1:] for r in differ[:4])
            more = f" and {len(differ) - 4} more" if len(differ) > 4 else ""
            drift.append(f"changed: {folder.rpartition('/')[2]} ({shown}{more})")
    known = {e["folder"] for e in entries.values()}
    for relative in sorted(folders):
        parts = relative.split("/")
        if len(parts) == 2 and parts[0] in SUITES and relative not in known:
            drift.append(f"stale: {parts[1]} (no case builds it)")
    for relative in sorted(on_disk):
        folder = _case_folder(relative)
        if relative != MANIFEST and (folder is None or folder.split("/")[0] not in SUITES):
            drift.append(f"stale: {relative} (no case builds it)")
    manifest = make_manifest(entries, files, SUITE, empty_optional)
    try:
        written = (root / MANIFEST).read_bytes()
    except OSError:
        written = None
    if written is None:
        drift.append(f"missing: {MANIFEST}")
    elif written != dumps(manifest):
        drift.append(f"changed: {MANIFEST} ({_manifest_difference(written, manifest)})")
    return drift


def _within(relative: str, tops: set[str]) -> bool:
    """Whether `relative` (a folder ends in '/') is one of `tops` or inside one that is a
    folder."""
    parts = relative.rstrip("/").split("/")
    return relative in tops or any("/".join(parts[:i]) + "/" in tops
                                   for i in range(1, len(parts)))


def _listed(root: Path) -> dict:
    """The files the manifest at `root` lists; {} when there is no readable manifest."""
    try:
        listed = load_json((root / MANIFEST).read_bytes(), MANIFEST)["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return listed if isinstance(listed, dict) else {}


def _manifest_difference(written: bytes, manifest: dict) -> str:
    try:
        old = load_json(written, MANIFEST)
    except ValueError:
        return "not valid JSON"
    if not isinstance(old, dict):
        return "not a manifest"
    for key in ("format", "generator_version", "onnx_version", "empty_optional"):
        if old.get(key) != manifest[key]:
            return f"{key} is {old.get(key)!r}, this build gives {manifest[key]!r}"
    return "its entries differ"


__all__ = ["BuildReport", "CaseFileError", "OutputError", "build", "check", "compile_case",
           "compile_cases", "fingerprint"]
