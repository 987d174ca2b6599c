"""The tree a build publishes: each case's files (written anew, or hard-linked from the old
tree where they still hold), the manifest, and the cache that remembers it all for the next
build. Manifest and file entries stay typed records (manifest.py) until the manifest's bytes
are written.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .build_cache import BuildCache
from .compiling import CaseResult
from .manifest import MANIFEST, CaseEntry, FileEntry
from .old_tree import Previous, as_seen
from .publish import CACHE, Staging, swap_in

#: One case's part of the new tree: its file entries, the files to write, the old files kept.
Plan = tuple[dict[str, FileEntry], dict[str, bytes], list[str]]


def plan(case: CaseResult, old: Previous) -> Plan:
    """One case in the new tree: its file entries, the files to write (none when the old ones
    still hold) and the old files it keeps (to link)."""
    kept = old.by_case[case.name] if case.name in old.intact else []
    kept_entries = {r: old.listed(r) for r in kept}
    if case.files is not None:
        data = {f"{case.entry.folder}/{r}": d for r, d in case.files.items()}
        entries = {r: FileEntry.of(d) for r, d in data.items()}
        if entries != kept_entries:
            return entries, data, []
    return kept_entries, {}, kept


@dataclass
class NewTree:
    """The new tree's file entries, the old files it keeps (to link), the files to write, and
    the cases written."""

    files: dict[str, FileEntry] = field(default_factory=dict)
    links: list[str] = field(default_factory=list)
    writes: dict[str, bytes] = field(default_factory=dict)
    rebuilt: list[str] = field(default_factory=list)


def new_tree(cases: list[CaseResult], old: Previous, planned: dict[str, Plan]) -> NewTree:
    """The new tree of `cases`; `planned` holds the plans already made (each file hashed
    once)."""
    tree = NewTree()
    for case in cases:
        made = planned.get(case.name)
        entries, data, kept = made if made is not None else plan(case, old)
        tree.files.update(entries)
        tree.writes.update(data)
        tree.links.extend(kept)
        if data:
            tree.rebuilt.append(case.name)
    return tree


def publish(root: Path, work: Path, old: Previous, tree: NewTree, manifest_bytes: bytes,
            staging: Staging) -> dict[str, tuple[int, int]]:
    """Stage the rest of the new tree (kept files hard-linked from the old one, the files not
    written yet, the manifest) and swap it in; the stats of the files staged."""
    stager = staging.open()
    for relative in sorted(tree.links):
        stager.link(root / relative, relative)
    for relative in sorted(tree.writes):
        if relative not in stager.stats:
            stager.write(relative, tree.writes[relative])
    stager.write(MANIFEST, manifest_bytes)
    swap_in(staging.path, root, work, unchanged=as_seen(root, old))
    staging.stager = None  # swapped in: nothing left to discard
    return stager.stats


def mtimes(files: Mapping[str, FileEntry],
           stats: Mapping[str, tuple[int, int] | None]) -> list[int]:
    """The mtime of each file of `files` (a manifest's), in sorted path order."""
    found = []
    for relative in sorted(files):
        stat = stats[relative]
        assert stat is not None  # a file of the new tree: staged, or kept as stat'ed
        found.append(stat[1])
    return found


def write_cache(work: Path, cache: BuildCache) -> None:
    """Write cache.json in one replace (a crash leaves the old cache or the new one)."""
    path, temporary = work / CACHE, work / f"{CACHE}.partial"
    work.mkdir(exist_ok=True)
    temporary.write_bytes(cache.to_json())
    os.replace(temporary, path)


def as_written(names: list[str] | set[str], entries: dict[str, CaseEntry]) -> list[str]:
    """The cases as written behind `names`: a variant of a derived form counts as its case."""
    return sorted({(entries[n].derived_from or n) if n in entries else n for n in names})
