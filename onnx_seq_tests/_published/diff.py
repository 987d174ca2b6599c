"""What changed between two suites: cases added, removed and changed, and for a changed case
what changed (model, which data set, tolerance, opset, operators).

Each side is a suite folder, a checkout (its generated/), a suite archive (read in memory, see
archive.py) or a manifest.json alone. The comparison reads manifests: every file's sha256 and
every case's folder, opset, operators and tolerance; a folder's or an archive's files are first
checked against their manifest, so the manifest speaks for them.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from .._core.errors import ArchiveError, DiffError, ManifestError, one_line
from .._core.problems import path_argument, quote
from .._core.regular_files import read_regular
from .._suite import manifest as manifests
from .archive import is_archive, read_archive
from .resources import GENERATED, is_checkout

_DATA_SET = re.compile(r"test_data_set_(\d+)/(.+)\.pb")


@dataclass(frozen=True)
class Side:
    """One suite's manifest and where it came from, its entries decoded (`cases`, `files`:
    an entry that is not one is left out of `cases`, None in `files`)."""

    label: str
    manifest: manifests.Manifest
    sha256: str  # of the manifest's bytes
    cases: dict[str, manifests.CaseEntry]
    files: dict[str, manifests.FileEntry | None]
    #: The files by the folder that holds them, each by its name in there: the files of a case
    #: folder found at once, not by scanning every file of the suite per case.
    by_folder: dict[str, dict[str, manifests.FileEntry | None]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, entry in self.files.items():
            folder, _, relative = name.rpartition("/")
            while folder:  # every enclosing folder: a case's data sets are in subfolders
                self.by_folder.setdefault(folder, {})[relative] = entry
                folder, _, last = folder.rpartition("/")
                relative = f"{last}/{relative}"


def _side(label: str, manifest: manifests.Manifest, sha256: str) -> Side:
    return Side(label, manifest, sha256, manifest.cases, manifest.files)


def load(path: Path) -> Side:
    """The manifest of the suite at `path` (folder, checkout, archive or manifest file);
    DiffError if it is none of them, ArgumentError (a ValueError) if `path` is not a path."""
    path = path_argument(path, "path")
    label = str(path)
    if path.is_dir():
        root = path / GENERATED if is_checkout(path) and (path / GENERATED).is_dir() else path
        if not (root / manifests.MANIFEST).is_file():
            raise DiffError(f"{path}: neither a suite (no manifest.json) nor a checkout of "
                            "onnx-seq-tests")
        try:
            manifest = manifests.read(root)
        except ManifestError as error:
            raise DiffError(str(error)) from None
        problems = manifests.verify(root)
        if problems:
            raise DiffError(f"{root} does not match its manifest ({problems[0]}"
                            f"{f'; and {len(problems) - 1} more' if len(problems) > 1 else ''})")
        return _side(label, manifest, _sha256((root / manifests.MANIFEST).read_bytes()))
    if not path.is_file():
        raise DiffError(f"{path}: no such file or folder")
    if is_archive(path):
        try:
            files = read_archive(path)
        except ArchiveError as error:
            raise DiffError(str(error)) from None
        if manifests.MANIFEST not in files:
            raise DiffError(f"{path}: not a suite archive (no manifest.json in its top folder)")
        data = files.pop(manifests.MANIFEST)
        manifest = parse(data, label)
        _check_files(label, manifest, files)
        return _side(label, manifest, _sha256(data))
    try:
        data = read_regular(path, manifests.MAX_MANIFEST_BYTES + 1)
    except OSError as error:
        raise DiffError(f"{path}: cannot read it: {error.strerror or error}") from None
    if len(data) > manifests.MAX_MANIFEST_BYTES:
        raise DiffError(f"{path}: larger than {manifests.MAX_MANIFEST_BYTES} bytes, more than a "
                        "manifest of gen-seq-tests may be")
    return _side(label, parse(data, label), _sha256(data))


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def parse(data: bytes, where: str) -> manifests.Manifest:
    """A manifest from its bytes; DiffError if it is not one."""
    try:
        manifest = manifests.decode(data, where)
    except ManifestError as error:
        raise DiffError(f"{one_line(str(error))}; not a suite: neither a folder, a suite archive "
                        "(.tar.gz) nor a manifest.json") from None
    if manifest.get("format") != manifests.FORMAT:
        raise DiffError(f"{where}: not a format-{manifests.FORMAT} manifest of gen-seq-tests")
    if manifest.damaged:
        raise DiffError(f"{where}: case {quote(str(manifest.damaged[0]))} has no folder")
    return manifest


def _check_files(label: str, manifest: manifests.Manifest, files: dict[str, bytes]) -> None:
    """DiffError unless `files` are exactly what the manifest lists."""
    listed = manifest.files
    for name in sorted(set(listed) | set(files)):
        if name not in files:
            raise DiffError(f"{label}: {one_line(name)} is in its manifest but not in it")
        if name not in listed:
            raise DiffError(f"{label}: {one_line(name)} is in it but not in its manifest")
        if manifests.FileEntry.of(files[name]) != listed[name]:
            raise DiffError(f"{label}: {one_line(name)}: sha256 or size differs from its "
                            "manifest; the archive is damaged")


def _case_files(side: Side, folder: str) -> dict[str, str | None]:
    """The sha256 of each file of a case, by its path inside the case folder."""
    return {relative: entry.sha256 if entry else None
            for relative, entry in side.by_folder.get(folder.rstrip("/"), {}).items()}


def case_changes(old: Side, new: Side, name: str) -> list[str]:
    """What changed in case `name` from `old` to `new`; [] when nothing did."""
    before, after = old.cases[name], new.cases[name]
    changes = []
    if before.folder != after.folder:
        changes.append(f"folder {before.folder} -> {after.folder}")
    for key in ("opset", "operators"):
        if getattr(before, key) != getattr(after, key):
            changes.append(f"{key} {_show(getattr(before, key))} -> "
                           f"{_show(getattr(after, key))}")
    tolerance = [f"{key} {_show(getattr(before, key))} -> {_show(getattr(after, key))}"
                 for key in ("atol", "rtol") if getattr(before, key) != getattr(after, key)]
    if tolerance:
        changes.append("tolerance " + ", ".join(tolerance))
    files_before = _case_files(old, before.folder)
    files_after = _case_files(new, after.folder)
    if files_before.get("model.onnx") != files_after.get("model.onnx"):
        changes.append("model")
    data_sets: dict[int, list[str]] = {}
    others = []
    for relative in sorted(set(files_before) | set(files_after)):
        if relative == "model.onnx" or files_before.get(relative) == files_after.get(relative):
            continue
        match = _DATA_SET.fullmatch(relative)
        if match is None:
            if relative != "data.json" or not tolerance:
                others.append(relative)
            continue
        state = ("added" if relative not in files_before else
                 "removed" if relative not in files_after else "changed")
        data_sets.setdefault(int(match.group(1)), []).append(f"{match.group(2)} {state}")
    for number, what in sorted(data_sets.items()):
        changes.append(f"data set {number} ({', '.join(what)})")
    changes.extend(others)
    return changes


def _show(value) -> str:
    return ",".join(map(str, value)) if isinstance(value, tuple) else str(value)


def diff(old: Side, new: Side) -> dict:
    """The difference of two suites, as a JSON-ready dict."""
    names_old, names_new = set(old.cases), set(new.cases)
    changed = {}
    for name in sorted(names_old & names_new):
        changes = case_changes(old, new, name)
        if changes:
            changed[name] = changes
    suite_keys = ("generator_version", "onnx_version", "empty_optional", "suite")
    return {
        "old": _describe(old), "new": _describe(new),
        "suite": {key: [old.manifest.get(key), new.manifest.get(key)] for key in suite_keys
                  if old.manifest.get(key) != new.manifest.get(key)},
        "added": [{"case": name, "operators": list(new.cases[name].operators or ()),
                   "opset": new.cases[name].opset}
                  for name in sorted(names_new - names_old)],
        "removed": sorted(names_old - names_new),
        "changed": [{"case": name, "changes": changes} for name, changes in changed.items()],
        "unchanged": len(names_old & names_new) - len(changed),
    }


def _describe(side: Side) -> dict:
    return {"path": side.label, "version": side.manifest.get("generator_version"),
            "cases": len(side.cases), "manifest_sha256": side.sha256}


def text(result: dict) -> str:
    """The difference for people: one line per case, then the counts."""
    lines = []
    for key in ("old", "new"):
        side = result[key]
        lines.append(f"{key}: {side['path']} (onnx-seq-tests {side['version']}, "
                     f"{side['cases']} cases)")
    for key, (before, after) in result["suite"].items():
        lines.append(f"suite {key}: {before} -> {after}")
    lines.extend(f"added    {entry['case']} ({','.join(entry['operators'])}, opset "
                 f"{entry['opset']})" for entry in result["added"])
    lines.extend(f"removed  {name}" for name in result["removed"])
    lines.extend(f"changed  {entry['case']}: {'; '.join(entry['changes'])}"
                 for entry in result["changed"])
    lines.append(f"{len(result['added'])} added, {len(result['removed'])} removed, "
                 f"{len(result['changed'])} changed, {result['unchanged']} unchanged")
    return "\n".join(one_line(line) for line in lines) + "\n"


def differs(result: dict) -> bool:
    return bool(result["added"] or result["removed"] or result["changed"] or result["suite"])
