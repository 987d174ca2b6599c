"""Whether a built suite is current, decided without importing onnx: the onnx version against
the pin, the build key, and a no-op build or `build --check` that needs to compile nothing.

A build leaves `.<root>.build/cache.json` beside its output root (build.py): the build key (the
build's own modules, see build_modules; the versions of onnx and the libraries the bytes depend
on; the empty-optional form), the sha256 of the manifest it wrote, the sha256 of every case
file and the cases each gave, and the mtime of every file and folder of the tree. When all of
that still holds, the root is what the cases give and nothing is compiled, so onnx is never
imported.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from .._casefile.discovery import case_files, read_case_file
from .._core import versions
from .._core.problems import SeqTestsError
from .build_cache import BuildCache
from .manifest import MANIFEST, CaseEntry, FileEntry, case_entries, load_json
from .publish import CACHE, folders_of, locked, scan_tree, work_dir

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


class RestampError(SeqTestsError):
    """A build would restamp a suite built with another onnx with the installed one, which is
    not the pinned one: bad input (exit 2) unless the onnx is adopted on purpose."""


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
        version = load_json((Path(root) / MANIFEST).read_bytes(), MANIFEST).get("onnx_version")
    except (OSError, ValueError, AttributeError):
        return None
    return version if isinstance(version, str) else None


def build_key(empty_optional: str) -> str:
    """What the bytes of every case depend on besides the case itself: the code of the build
    (`build_modules`), the versions of Python, this package (the manifest names it), onnx,
    numpy, protobuf and ml_dtypes, and the empty-optional form."""
    digest = hashlib.sha256()
    for relative in build_modules():
        digest.update(relative.encode() + b"\0" + (_PACKAGE / relative).read_bytes() + b"\0")
    environment = (sys.version_info[:2], versions.package_version(), versions.installed_onnx(),
                   *map(versions.version_of, ("numpy", "protobuf", "ml_dtypes")), empty_optional)
    digest.update(repr(environment).encode())
    return digest.hexdigest()


def build_modules() -> list[str]:
    """The package's modules a build may run: every module of the layers `_core`, `_oracle`,
    `_casefile` and `_suite` (BUILD_LAYERS; a build imports nothing above them, which
    tests/test_layers.py keeps true) but the mutants (NOT_BUILT), as sorted '/'-separated paths
    relative to the package folder. Listed, not parsed: a no-op build lists four folders rather
    than parsing each module's imports.
    Editing a module of any other layer (a report, diff, pack, the verifier) leaves the build
    key, and so a no-op build, as it is."""
    listed = (path.relative_to(_PACKAGE).as_posix() for layer in BUILD_LAYERS
              for path in (_PACKAGE / layer).rglob("*.py"))
    return sorted(p for p in listed if not p.startswith(tuple(f"{n}/" for n in NOT_BUILT)))


def unchanged(paths, out_root: Path, empty_optional: str, compare_bytes: bool = False
              ) -> int | None:
    """The number of cases as written (a tensor-boundary variant not counted apart) when the
    output root is exactly what `paths` give, known from the cache alone (no case file changed since
    the build that wrote the root, nor the code, nor the versions); None when that cannot be
    told this way (then compile and compare).

    A build trusts the tree's sizes and mtimes against the cache, as build.py does;
    `compare_bytes` (for `build --check`) hashes every file against the manifest and lists the
    whole tree instead."""
    root = Path(out_root).resolve()
    work = work_dir(root)
    try:
        if os.listdir(work) != [CACHE]:
            return None  # an interrupted build's leftovers: the full path recovers them
        with locked(work):
            manifest_bytes = (root / MANIFEST).read_bytes()
            cache = BuildCache.from_json((work / CACHE).read_bytes(), CACHE)
            if not cache.belongs_to(build_key(empty_optional), manifest_bytes):
                return None
            sources = cache.sources
            found = case_files(paths)
            hashes = {hashlib.sha256(read_case_file(path)).hexdigest() for path in found}
            if not hashes or len(hashes) != len(found) or hashes != set(sources):
                return None  # two files of the same bytes: the loader reports their cases
            manifest = load_json(manifest_bytes, MANIFEST)
            listed = {path: FileEntry.from_json(e) for path, e in manifest["files"].items()}
            cases = case_entries(manifest["cases"])
            if None in listed.values() or len(cases) != len(manifest["cases"]):
                return None
            if sorted(n for h in hashes for n in sources[h]) != sorted(cases):
                return None
            if compare_bytes:
                files, folders = scan_tree(root)
                if (files.keys() != listed.keys() | {MANIFEST}
                        or folders.keys() != folders_of(listed)):
                    return None
                for relative, entry in listed.items():
                    with open(f"{root}/{relative}", "rb") as file:
                        if FileEntry.of(file.read()) != entry:
                            return None
                return _as_written(cases)
            if not folders_hold(root, cache.folders) or len(cache.mtimes) != len(listed):
                return None
            for relative, mtime in zip(sorted(listed), cache.mtimes, strict=True):
                stat = os.stat(f"{root}/{relative}")
                entry = listed[relative]
                if entry is None or (stat.st_size, stat.st_mtime_ns) != (entry.size, mtime):
                    return None
            return _as_written(cases)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


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
    """The number of cases as written: a tensor-boundary variant is not counted apart."""
    return sum(1 for entry in cases.values() if entry.derived_from is None)
