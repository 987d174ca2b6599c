"""The tree at the output root before a build, as far as it can be trusted: its manifest, the
build's cache when it belongs to this tree and build key, which cases are intact, and the paths
no build wrote. Read through freshness.Known, so what the no-op check read is not read again.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .build_cache import BuildCache
from .freshness import Known, folders_hold
from .manifest import MANIFEST, FileEntry, Manifest, unlisted
from .output_root import OutputError
from .publish import CACHE, folders_of, scan_tree


@dataclass
class Previous:
    """The tree at the output root before a build, as far as it can be trusted."""

    manifest: Manifest = field(default_factory=lambda: Manifest({}, {}, {}))
    manifest_bytes: bytes | None = None
    trusted: bool = False  # the cache belongs to this tree and to this build key
    sources: dict[str, list[str]] = field(default_factory=dict)
    fingerprints: dict[str, str] = field(default_factory=dict)
    stats: dict[str, tuple[int, int] | None] = field(default_factory=dict)  # (size, mtime)
    folders: dict[str, int] = field(default_factory=dict)  # folder -> mtime
    by_case: dict[str, list[str]] = field(default_factory=dict)  # name -> its listed files
    intact: set[str] = field(default_factory=set)  # cases whose files are as listed
    exact: bool = False  # the tree is exactly what the manifest lists
    foreign: list[str] = field(default_factory=list)  # paths no build wrote (manifest.unlisted)

    def listed(self, relative: str) -> FileEntry:
        """The old manifest's entry of a file it lists (every entry decoded: `previous`)."""
        entry = self.manifest.files[relative]
        assert entry is not None
        return entry


def previous(root: Path, work: Path, known: Known) -> Previous:
    """Read the old manifest and cache (as `known` holds them, unless they changed since) and
    look at the tree: which cases are intact.

    With a trusted cache whose folder mtimes all still hold, no entry was added, removed or
    renamed anywhere in the tree since, so a stat of each listed file is enough; otherwise the
    whole tree is listed (and, without a trusted cache, every file read)."""
    old = Previous()
    if not root.is_dir():
        return old
    try:
        stamped = known.manifest_at(root / MANIFEST)
        manifest = stamped.value
        if not manifest.complete:
            raise ValueError("an entry of cases or files is not one")
        old.by_case = _by_case(manifest)
    except (OSError, ValueError, KeyError):  # a ManifestError is a ValueError
        files, folders = scan_tree(root)  # no manifest to say what a build wrote: nothing
        return Previous(foreign=unlisted({}, files, folders))
    old.manifest, old.manifest_bytes = manifest, stamped.data
    listed = manifest.files
    cache = _read_cache(work, known, stamped.data)
    if cache is not None and len(cache.mtimes) != len(listed):
        cache = None
    if cache is not None and folders_hold(root, cache.folders):
        old.folders = cache.folders
        old.stats = {r: _stat(f"{root}/{r}") for r in listed}
        on_disk_by_folder: dict[str | None, set[str]] | None = None  # no folder changed: each
        # holds exactly its listed files
        old.exact = True
    else:
        scanned, old.folders = scan_tree(root)
        old.stats = dict(scanned)
        by_folder: dict[str | None, set[str]] = {}
        for relative in old.stats:
            by_folder.setdefault(case_folder(relative), set()).add(relative)
        on_disk_by_folder = by_folder
        old.exact = (old.stats.keys() == listed.keys() | {MANIFEST}
                     and old.folders.keys() == folders_of(listed))
        old.foreign = unlisted(listed, old.stats, old.folders)
    old.intact, good = _intact(root, old, cache, on_disk_by_folder)
    old.exact = old.exact and len(good) == len(listed)
    return old


def _by_case(manifest: Manifest) -> dict[str, list[str]]:
    """Each case's listed files, by case name."""
    by_folder: dict[str | None, list[str]] = {e.folder: [] for e in manifest.cases.values()}
    for relative in manifest.files:
        by_folder[case_folder(relative)].append(relative)  # KeyError: not a case's
    return {name: by_folder[entry.folder] for name, entry in manifest.cases.items()}


def _intact(root: Path, old: Previous, cache: BuildCache | None,
            on_disk_by_folder: dict[str | None, set[str]] | None) -> tuple[set[str], set[str]]:
    """The cases whose files are as listed, and the listed files that are (sets `old.trusted`,
    `old.sources` and `old.fingerprints` from a trusted cache)."""
    listed = old.manifest.files
    if cache is not None:
        old.trusted, old.sources, old.fingerprints = True, cache.sources, cache.fingerprints
        good = {r for r, mtime in zip(listed, cache.mtimes, strict=True)
                if old.stats.get(r) == (old.listed(r).size, mtime)}
    else:  # no cache to trust: read every file
        good = {r for r in listed if r in old.stats
                and FileEntry.of((root / r).read_bytes()) == listed[r]}
    intact = set()
    for name, entry in old.manifest.cases.items():
        mine = old.by_case[name]
        if mine and good.issuperset(mine) and (
                on_disk_by_folder is None or on_disk_by_folder.get(entry.folder) == set(mine)):
            intact.add(name)
    return intact, good


def _stat(path: str) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_size, stat.st_mtime_ns


def case_folder(relative: str) -> str | None:
    """`<suite>/test_x` for a file inside a case folder, else None."""
    parts = relative.split("/", 2)
    return f"{parts[0]}/{parts[1]}" if len(parts) == 3 else None


def _read_cache(work: Path, known: Known, manifest_bytes: bytes) -> BuildCache | None:
    """The cache, when it belongs to this build key and to the tree with this manifest."""
    try:
        cache = known.cache_at(work / CACHE).value
    except (OSError, ValueError):  # CacheError is a ValueError
        return None
    return cache if cache.belongs_to(known.key, manifest_bytes) else None


def as_seen(root: Path, old: Previous) -> Callable[[Path], None]:
    """What raises OutputError (exit 2) when the old tree, moved out of the root's place, is
    not as `previous` saw it: an entry was added or removed in it while the build ran (another
    process writing in the root). The swap then puts it back whole: a build never deletes a
    path it did not see, nor fails halfway because one came and went."""

    def check(tree: Path) -> None:
        if not old.folders or folders_hold(tree, old.folders):
            return
        files, folders = scan_tree(tree)
        moved = unlisted(old.manifest.files, files, folders) or sorted(
            f"{f}/" if f else "./" for f, mtime in old.folders.items()
            if folders.get(f) != mtime)
        raise OutputError(
            f"{root}: {', '.join(map(repr, moved[:5]))}{' and more' if moved[5:] else ''}: "
            f"entries came or went there while the build ran (another process writes in "
            f"{root}), so nothing was written; build again when nothing else writes there")

    return check
