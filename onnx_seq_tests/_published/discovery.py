"""Finding the cases of a built suite: the one folder walker every command uses, the suite
root and manifest of a case folder, and what the manifest says of each case.

A suite is any folder holding case folders (`test_*/model.onnx`) at any depth. The walker
follows symbolic links, walks each real folder once (a link back up the tree or a second link
to one folder is not walked again; the first path in sorted order is kept), leaves out
folders below a hidden one (a build's staging area) and gives the case folders sorted.

The suite root of a case folder is the folder of the nearest suite manifest (a manifest.json
holding a "cases" object) above it, else the folder named; its case key is its path relative
to that root, '/'-separated, e.g. `sequence_optional_tensor_io/test_x__len3`, whichever folder
was named (`generated`, `generated/sequence_optional_tensor_io` or the case folder itself).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Generic, TypeVar

from .._core.errors import NoCasesError, ReadError, one_line
from .._core.suite_forms import SuiteForm
from .._suite import manifest as manifests
from .._suite.manifest import MANIFEST, CaseEntry
from .bounded import LIMITS, as_path, as_paths, is_folder, read_bytes, shown

#: Folders below the named one deeper than this are refused (ReadError), not walked.
MAX_FOLDER_DEPTH = 64


def case_folders(root: Path, max_depth: int = MAX_FOLDER_DEPTH) -> list[Path]:
    """Every case folder (a `test_*` folder holding model.onnx) under `root`, itself included,
    sorted; links followed, each real folder walked once; [] when `root` is not a folder.
    ReadError when folders nest deeper than `max_depth`."""
    root = as_path(root, "root")
    seen: set[tuple[int, int]] = set()
    found: list[Path] = []
    stack = [(root, 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            identity = os.stat(folder)  # links followed: the real folder, in one system call
        except OSError:
            continue
        real = (identity.st_dev, identity.st_ino)
        if real in seen:
            continue
        seen.add(real)
        try:
            with os.scandir(folder) as entries:
                listed = sorted((e.name, is_folder(e)) for e in entries)
        except OSError:
            continue
        is_case = folder.name.startswith("test_") and ("model.onnx", False) in listed
        if is_case:
            found.append(folder)
        below = [name for name, is_dir in listed if is_dir and not name.startswith(".")
                 and not (is_case and name.startswith("test_data_set"))]
        if below and depth >= max_depth:
            raise ReadError(f"{shown(folder)}: folders nested more than {max_depth} deep below "
                            f"{shown(root)}; a suite is not that deep")
        stack.extend((folder / name, depth + 1) for name in reversed(below))
    return sorted(found)


# -- reading each folder on its own ---------------------------------------------------------

T = TypeVar("T")


@dataclass(frozen=True)
class Skipped:
    """A folder a command left out, and why: `kind` is `unreadable`, `corrupt` or
    `unsupported` (ReadError.kind) or, for `import`, `not expressible`."""

    folder: str  # as messages show it
    kind: str
    reason: str  # one line
    error: ReadError | None = field(default=None, compare=False, repr=False)

    def line(self) -> str:
        """The one line a command prints on stderr for it."""
        return f"skipped {self.folder}: {self.kind}: {self.reason}"


@dataclass
class Outcomes(Generic[T]):
    """What reading each folder of a folder of folders gave: the folders read, with their
    values, in order, and the folders left out."""

    done: list[tuple[Path, T]] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    @property
    def values(self) -> list[T]:
        return [value for _, value in self.done]

    def skip(self, folder: Path | str, error: ReadError) -> None:
        self.skipped.append(Skipped(shown(folder), error.kind, one_line(str(error)), error))

    def raise_first(self) -> None:
        """Raise the error of the first folder left out, if any (a caller that needs all)."""
        if self.skipped:
            raise self.skipped[0].error or ReadError(self.skipped[0].reason)


def read_each(folders: Iterable[Path], read: Callable[[Path], T]) -> Outcomes[T]:
    """`read` each folder on its own: a ReadError leaves that folder out, with its kind and
    message, and the others are read. The one loop of every command that walks a folder of
    folders (show, coverage, docs, import)."""
    outcomes: Outcomes[T] = Outcomes()
    for folder in folders:
        try:
            outcomes.done.append((folder, read(folder)))
        except ReadError as error:
            outcomes.skip(folder, error)
    return outcomes


# -- manifests ------------------------------------------------------------------------------

@dataclass(frozen=True)
class SuiteManifest:
    """A suite root and its manifest: the case entries by folder, version and sha256."""

    root: Path  # absolute
    by_folder: Mapping[str, CaseEntry]  # folder relative to root -> its case's entry
    by_name: Mapping[str, CaseEntry]  # case name -> entry
    version: str | None
    sha256: str


def read_manifest(folder: Path) -> SuiteManifest | None:
    """The suite manifest in `folder`, or None when there is none or it is not one (too big,
    too deep, not JSON, not an object with a "cases" object). The last one read is kept while
    its file is unchanged (same inode, size and mtime): a command asks for it several times.
    Its mappings are read-only views and its entries frozen, so no caller can change what the
    next one reads."""
    path = Path(folder) / MANIFEST
    try:
        info = os.stat(path)
    except OSError:
        return None
    key = (os.path.abspath(path), info.st_ino, info.st_size, info.st_mtime_ns)
    if key not in _READ:
        _READ.clear()  # one manifest (or a few) per command: keep the last one only
        _READ[key] = _read_manifest(path)
    return _READ[key]


_READ: dict = {}


def _read_manifest(path: Path) -> SuiteManifest | None:
    try:
        data = read_bytes(path, LIMITS.json_bytes, "manifest")
        manifest = manifests.decode(data, str(path))
    except (ReadError, manifests.ManifestError):
        return None
    by_name = MappingProxyType(manifest.cases)
    by_folder = MappingProxyType({entry.folder: entry for entry in by_name.values()})
    version = manifest.get("suite_version") or manifest.get("generator_version")
    return SuiteManifest(Path(os.path.abspath(path)).parent, by_folder, by_name,
                         version if isinstance(version, str) else None,
                         hashlib.sha256(data).hexdigest())


def nearest_manifest(folder: str | Path, cache: dict | None = None) -> SuiteManifest | None:
    """The suite manifest of `folder` itself or the nearest folder above it that has one;
    `cache` (absolute folder text -> manifest or None) is shared by the calls of one search."""
    cache = {} if cache is None else cache
    place = os.path.abspath(folder)
    climbed = []
    while place not in cache:
        manifest = read_manifest(Path(place))
        if manifest is not None:
            cache[place] = manifest
            break
        climbed.append(place)
        parent = os.path.dirname(place)
        if parent == place:
            cache[place] = None
            break
        place = parent
    for below in climbed:
        cache[below] = cache[place]
    return cache[place]


def manifest_entry(case_folder: Path, cache: dict | None = None) -> CaseEntry | None:
    """The manifest entry of a case folder from its suite's manifest, or None."""
    absolute = os.path.abspath(case_folder)
    manifest = nearest_manifest(os.path.dirname(absolute), cache)
    if manifest is None:
        return None
    return manifest.by_folder.get(_relative(absolute, manifest.root))


def _relative(absolute: str, root) -> str:
    """`absolute` relative to the folder `root` above it, '/'-separated."""
    root = str(root)
    prefix = root if root.endswith(os.sep) else root + os.sep
    if absolute.startswith(prefix):
        return absolute[len(prefix):].replace(os.sep, "/")
    return Path(os.path.relpath(absolute, root)).as_posix()


def suite_info(root: Path) -> dict:
    """How reports name a suite: its folder name, and from its manifest (the nearest one at or
    above `root`) the version and the manifest's sha256 (None without one)."""
    root = as_path(root, "root")
    manifest = nearest_manifest(root)
    if manifest is None:
        return {"name": Path(os.path.abspath(root)).name, "version": None,
                "manifest_sha256": None}
    return {"name": manifest.root.name, "version": manifest.version,
            "manifest_sha256": manifest.sha256}


# -- cases ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class CaseRef:
    """A case folder found under a suite root, with what the suite's manifest says of it, read
    once when the cases are found: its operators, opset, source, suite form, the case it is
    derived from (a tensor-boundary or constant variant's original) and that case's operators
    (`about`).
    The reports take these from here and never read the manifest again."""

    path: Path
    case: str  # the case key: relative to its suite root, '/'-separated, one_line-escaped
    name: str  # the folder's name, escaped alike (a name that is not UTF-8: `test_caf\udce9`)
    operators: tuple[str, ...] | None  # None: not in a manifest, read from the model
    opset: int | None
    source: str
    form: SuiteForm = SuiteForm.AS_WRITTEN  # the manifest's form, else by the case's folder
    derived_from: str | None = None  # the name of the case it is derived from (manifest)
    about: tuple[str, ...] | None = None  # the operators of that case (manifest)


def select_cases(refs: list[CaseRef], select: Sequence[str | re.Pattern]) -> list[CaseRef]:
    """The cases of `refs` whose name or case key one of the `select` regexes finds (all of
    them when there is none); ValueError for a `select` that is not a regex."""
    return _selected(refs, _patterns(select))


def _patterns(select) -> list[re.Pattern]:
    if isinstance(select, str):
        select = [select]
    try:
        return [re.compile(p) for p in select]
    except (re.error, TypeError) as error:
        raise ValueError(f"not a valid regex in select: {error}") from None


def _selected(refs: list[CaseRef], patterns: list[re.Pattern]) -> list[CaseRef]:
    if not patterns:
        return list(refs)
    return [r for r in refs if any(p.search(r.name) or p.search(r.case) for p in patterns)]


def find_cases(roots, select: Sequence[str | re.Pattern] = ()) -> list[CaseRef]:
    """The case folders under each root (each real folder once), those whose name or case key
    matches one of the `select` regexes (searched, as pytest -k) if any; NoCasesError naming
    the root that holds no case, ReadError for a folder tree too deep, ValueError for a
    `select` that is not a regex."""
    roots = as_paths(roots, "roots")
    patterns = _patterns(select)  # a bad regex is refused before any folder is walked
    refs = []
    cache: dict = {}
    seen: set[str] = set()
    for root in roots:
        folders = case_folders(root) if root.is_dir() else []
        if not folders:
            raise NoCasesError(f"no case folders (test_*/model.onnx) under {shown(root)}; build "
                               "the suite with `gen-seq-tests build` or name a suite folder")
        for path in folders:
            if len(roots) > 1:  # the walker gives each real folder once per root
                real = os.path.realpath(path)
                if real in seen:
                    continue
                seen.add(real)
            refs.append(_ref(path, root, cache))
    return _selected(refs, patterns)


def _ref(path: Path, root: Path, cache: dict) -> CaseRef:
    absolute = os.path.abspath(path)
    manifest = nearest_manifest(os.path.dirname(absolute), cache)
    if manifest is not None:
        case = _relative(absolute, manifest.root)
        entry = manifest.by_folder.get(case)
    else:
        base = os.path.abspath(root)
        case = path.name if absolute == base else _relative(absolute, base)
        entry = None
    if entry is None:
        return CaseRef(path, shown(case), shown(path.name), None, None, "",
                       SuiteForm.of_case(case))
    origin = (manifest.by_name.get(entry.derived_from)
              if entry.derived_from and manifest is not None else None)
    return CaseRef(path, shown(case), shown(path.name), entry.operators, entry.opset,
                   entry.source or "", SuiteForm.of_manifest(entry.form), entry.derived_from,
                   origin.operators if origin is not None else None)


__all__ = ["MANIFEST", "CaseRef", "Outcomes", "Skipped",
           "SuiteManifest", "case_folders", "find_cases", "manifest_entry", "nearest_manifest",
           "read_each", "read_manifest", "select_cases", "suite_info"]
