"""Whether a built suite is current, decided without importing onnx: the onnx version against
the pin, the build key, and a no-op build or `build --check` that needs to compile nothing.

A build leaves `.<root>.build/cache.json` beside its output root (build.py): the build key (the
build's own modules, see build_modules; the versions of onnx and the libraries the bytes depend
on; the empty-optional form), the sha256 of the manifest it wrote, the sha256 of every case
file and the cases each gave, and the mtime of every file and folder of the tree. When all of
that still holds, the root is what the cases give and nothing is compiled, so onnx is never
imported.

When it does not hold, what was learnt on the way (`Known`: the build key, each case file
listed, read and hashed once, the manifest and the cache as read under the lock) goes on to the
build, which reads none of it again.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from .._casefile.discovery import CaseSource, read_sources
from .._core import versions
from .._core.errors import RestampError
from .build_cache import BuildCache
from .manifest import MANIFEST, CaseEntry, FileEntry, Manifest, decode
from .publish import CACHE, folders_of, locked, scan_tree, work_dir

T = TypeVar("T")
#: What a build takes as its case files: a path, or paths, of case files or folders.
Paths = str | os.PathLike[str] | Iterable[str | os.PathLike[str]]

#: The package folder.
_PACKAGE = Path(__file__).resolve().parent.parent
#: The layers of the package a build's code lives in.
BUILD_LAYERS = ("_core", "_oracle", "_casefile", "_suite")
#: Folders of those layers that a build never imports: the mutant catalogue beside the oracle.
NOT_BUILT = ("_oracle/mutants",)

def onnx_drift() -> str | None:
    """What to do when the installed onnx is not the pinned one; None when it is."""
    installed, pinned = versions.installed_onnx(), versions.pinned_onnx()
    if pinned is None or installed == pinned:
        return None
    return (f"the installed onnx is {installed}, but onnx-seq-tests pins onnx=={pinned}, and "
            "the suite's files, the type matrix and the JSON Schema follow the installed onnx; "
            f"either reinstall the pin (`pip install onnx=={pinned}`, or `make install`), or "
            f"adopt onnx {installed}: set onnx=={installed} in pyproject.toml, reinstall, run "
            "`gen-seq-tests build` and commit generated/ (README: adopting a new onnx release)")


def onnx_policy(out_root: Path, check: bool, adopt_onnx: bool) -> str | None:
    """The build's onnx policy: the drift warning to print (None when the installed onnx is
    the pinned one); RestampError when a build (not a check) would restamp `out_root`, built
    with another onnx, with an onnx that is not the pinned one, and `adopt_onnx` is not set."""
    drift = onnx_drift()
    if drift and not check and not adopt_onnx:
        stamped = stamped_onnx(out_root)
        if stamped is not None and stamped != versions.installed_onnx():
            raise RestampError(f"{out_root} was built with onnx {stamped}; rebuilding it would "
                               f"restamp it with onnx {versions.installed_onnx()}, so nothing "
                               f"was written: {drift} (or pass --adopt-onnx to rebuild it "
                               "anyway)")
    return drift


def stamped_onnx(root: Path) -> str | None:
    """The onnx version the manifest at `root` was built with, None if there is none."""
    try:
        version = decode((Path(root) / MANIFEST).read_bytes(), MANIFEST).get("onnx_version")
    except (OSError, ValueError):
        return None
    return version if isinstance(version, str) else None


def build_key(empty_optional: str) -> str:
    """What the bytes of every case depend on besides the case itself: the code of the build
    (`build_modules`), the versions of Python, this package (the manifest names it), onnx,
    numpy, protobuf and ml_dtypes, and the empty-optional form."""
    digest = hashlib.sha256()
    for relative in build_modules():
        try:
            code = (_PACKAGE / relative).read_bytes()
        except FileNotFoundError:  # removed since it was listed: not code the build runs
            continue
        digest.update(relative.encode() + b"\0" + code + b"\0")
    environment = (sys.version_info[:2], versions.package_version(), versions.installed_onnx(),
                   *map(versions.version_of, ("numpy", "protobuf", "ml_dtypes")), empty_optional)
    digest.update(repr(environment).encode())
    return digest.hexdigest()


def build_modules() -> list[str]:
    """The package's modules a build may run: every module of the layers `_core`, `_oracle`,
    `_casefile` and `_suite` (BUILD_LAYERS; a build imports nothing above them, which
    tests/test_layers.py keeps true) but the mutants (NOT_BUILT), as sorted '/'-separated paths
    relative to the package folder (importable names only: not an editor's `.#name.py` lock
    link). Listed, not parsed: a no-op build lists four folders rather
    than parsing each module's imports.
    Editing a module of any other layer (a report, diff, pack, the verifier) leaves the build
    key, and so a no-op build, as it is."""
    listed = (path.relative_to(_PACKAGE).as_posix() for layer in BUILD_LAYERS
              for path in (_PACKAGE / layer).rglob("*.py") if path.stem.isidentifier())
    return sorted(p for p in listed if not p.startswith(tuple(f"{n}/" for n in NOT_BUILT)))


@dataclass(frozen=True)
class Stamped(Generic[T]):
    """A file's bytes and what they decode to, with the stat the file had when read: a later
    holder of the build's lock trusts them while the file still has that stat (`current`)."""

    stamp: tuple[int, int, int]  # inode, size, mtime_ns
    data: bytes
    value: T

    @classmethod
    def read(cls, path: Path, decoder: Callable[[bytes, str], T]) -> Stamped[T]:
        """`path` read and decoded with `decoder(data, name)`; OSError, or the decoder's
        error."""
        with open(path, "rb") as file:
            stat = os.fstat(file.fileno())
            data = file.read()
        return cls((stat.st_ino, stat.st_size, stat.st_mtime_ns), data,
                   decoder(data, path.name))

    def current(self, path: Path) -> bool:
        """Whether `path` still has the stat it had when read."""
        try:
            stat = os.stat(path)
        except OSError:
            return False
        return (stat.st_ino, stat.st_size, stat.st_mtime_ns) == self.stamp


@dataclass
class Known:
    """What `look` learnt of one build, handed to the build so that it reads nothing twice:
    the build key, each case file listed, read and hashed once, the manifest and the cache as
    read under the lock (None when not read), and `count`, the number of cases as written
    when the output root is already exactly what the cases give (None: build or compare)."""

    key: str
    sources: list[CaseSource]
    manifest: Stamped[Manifest] | None = None
    cache: Stamped[BuildCache] | None = None
    count: int | None = None

    @classmethod
    def of(cls, paths: Paths, empty_optional: str) -> Known:
        """The build key and the case files of `paths`, nothing of an output root."""
        return cls(build_key(empty_optional), read_sources(paths))

    def manifest_at(self, path: Path) -> Stamped[Manifest]:
        """The manifest at `path` (a root's), as read here when it has not changed since;
        OSError or ManifestError (a ValueError) when it cannot be read."""
        if self.manifest is None or not self.manifest.current(path):
            self.manifest = Stamped.read(path, decode)
        return self.manifest

    def cache_at(self, path: Path) -> Stamped[BuildCache]:
        """`manifest_at` for the build's cache.json (CacheError, a ValueError)."""
        if self.cache is None or not self.cache.current(path):
            self.cache = Stamped.read(path, BuildCache.from_json)
        return self.cache


def look(paths: Paths, out_root: Path, empty_optional: str, compare_bytes: bool = False) -> Known:
    """What a build of `paths` into `out_root` needs to know, and whether it has anything to do
    (`Known.count`: the number of cases as written when the output root is exactly what
    `paths` give, known from the cache alone: no case file changed since the build that wrote
    the root, nor the code, nor the versions).

    A build trusts the tree's sizes and mtimes against the cache, as build.py does;
    `compare_bytes` (for `build --check`) hashes every file against the manifest and lists the
    whole tree instead."""
    known = Known.of(paths, empty_optional)
    root = Path(out_root).resolve()
    work = work_dir(root)
    try:
        if os.listdir(work) != [CACHE]:
            return known  # an interrupted build's leftovers: the full path recovers them
        with locked(work):
            manifest = known.manifest_at(root / MANIFEST)
            cache = known.cache_at(work / CACHE).value
            if cache.belongs_to(known.key, manifest.data) and manifest.value.complete:
                known.count = _current(known.sources, manifest.value, cache, root,
                                       compare_bytes)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    return known


def unchanged(paths: Paths, out_root: Path, empty_optional: str, compare_bytes: bool = False
              ) -> int | None:
    """`look(...).count`: the number of cases as written when nothing is to be done."""
    return look(paths, out_root, empty_optional, compare_bytes).count


def _current(sources: list[CaseSource], manifest: Manifest, cache: BuildCache, root: Path,
             compare_bytes: bool) -> int | None:
    """The number of cases as written when the tree at `root` (with `manifest`, and `cache`
    of this build key) is what `sources` give; None otherwise."""
    hashes = {source.sha256 for source in sources}
    if not hashes or None in hashes or len(hashes) != len(sources) \
            or hashes != set(cache.sources):
        return None  # two files of the same bytes: the loader reports their cases
    listed, cases = manifest.files, manifest.cases
    if sorted(n for h in hashes if h is not None for n in cache.sources[h]) != sorted(cases):
        return None
    if compare_bytes:
        files, folders = scan_tree(root)
        if files.keys() != listed.keys() | {MANIFEST} or folders.keys() != folders_of(listed):
            return None
        for relative, entry in listed.items():
            with open(f"{root}/{relative}", "rb") as file:
                if FileEntry.of(file.read()) != entry:
                    return None
        return _as_written(cases)
    if not folders_hold(root, cache.folders) or len(cache.mtimes) != len(listed):
        return None
    for relative, mtime in zip(sorted(listed), cache.mtimes, strict=True):
        entry, stat = listed[relative], os.stat(f"{root}/{relative}")
        if entry is None or (stat.st_size, stat.st_mtime_ns) != (entry.size, mtime):
            return None
    return _as_written(cases)


def folders_hold(root: Path, folders) -> bool:
    """Whether every folder of the tree still has the mtime the cache noted (so no entry was
    added, removed or renamed anywhere in it since)."""
    if not isinstance(folders, dict) or "" not in folders:
        return False
    for relative, mtime in folders.items():
        try:
            if os.stat(f"{root}/{relative}").st_mtime_ns != mtime:
                return False
        except OSError:
            return False
    return True


def _as_written(cases: dict[str, CaseEntry]) -> int:
    """The number of cases as written: a variant of a derived form is not counted apart."""
    return sum(1 for entry in cases.values() if entry.derived_from is None)
