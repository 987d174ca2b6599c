"""Whether a built suite is current, decided without importing onnx: the onnx version against
the pin, the build key, and a no-op build or `build --check` that needs to compile nothing.

A build leaves `.<root>.build/cache.json` beside its output root (build.py): the build key (this
package's code, the versions of onnx and the libraries the bytes depend on, the empty-optional
form), the sha256 of the manifest it wrote, the sha256 of every case file and the cases each
gave, and the mtime of every file and folder of the tree. When all of that still holds, the
root is what the cases give and nothing is compiled, so onnx is never imported.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from importlib import metadata
from pathlib import Path

from .._casefile.discovery import case_files
from .publish import CACHE, folders_of, locked, scan_tree, work_dir

#: The distribution whose requirements hold the onnx pin.
DISTRIBUTION = "onnx-seq-tests"
#: The layers whose code decides the bytes of a built suite.
_LAYERS = ("_core", "_casefile", "_suite")


def installed_onnx() -> str | None:
    """The version of the installed onnx (as `onnx.__version__` gives it), without importing it;
    None when onnx is not installed."""
    for name in ("onnx", "onnx-weekly"):
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return None


def pinned_onnx() -> str | None:
    """The onnx version this package pins (`onnx==X` in pyproject.toml, read from the installed
    metadata), or None when it is not installed as a distribution or pins no exact version."""
    try:
        requirements = metadata.requires(DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        return None
    for requirement in requirements:
        found = re.fullmatch(r"\s*onnx\s*==\s*([^\s;,]+)\s*", requirement)
        if found:
            return found.group(1)
    return None


def onnx_drift() -> str | None:
    """What to do when the installed onnx is not the pinned one; None when it is."""
    installed, pinned = installed_onnx(), pinned_onnx()
    if pinned is None or installed == pinned:
        return None
    return (f"the installed onnx is {installed}, but onnx-seq-tests pins onnx=={pinned}, and "
            "the suite's files, the type matrix and the JSON Schema follow the installed onnx; "
            f"either reinstall the pin (`pip install onnx=={pinned}`, or `make install`), or "
            f"adopt onnx {installed}: set onnx=={installed} in pyproject.toml, reinstall, run "
            "`gen-seq-tests build` and commit generated/ (README: adopting a new onnx release)")


def stamped_onnx(root: Path) -> str | None:
    """The onnx version the manifest at `root` was built with, None if there is none."""
    from .manifest import MANIFEST

    try:
        version = json.loads((Path(root) / MANIFEST).read_bytes()).get("onnx_version")
    except (OSError, ValueError, AttributeError):
        return None
    return version if isinstance(version, str) else None


def build_key(empty_optional: str) -> str:
    """What the bytes of every case depend on besides the case itself: the code of the layers
    below the verifier, the versions of Python, this package (the manifest names it), onnx,
    numpy, protobuf and ml_dtypes, and the empty-optional form."""
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parent.parent
    for layer in _LAYERS:
        for path in sorted((package / layer).glob("*.py")):
            digest.update(f"{layer}/{path.name}".encode() + b"\0" + path.read_bytes() + b"\0")
    versions = (sys.version_info[:2], _version(DISTRIBUTION), installed_onnx(), *map(
        _version, ("numpy", "protobuf", "ml_dtypes")), empty_optional)
    digest.update(repr(versions).encode())
    return digest.hexdigest()


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def unchanged(paths, out_root: Path, empty_optional: str, compare_bytes: bool = False
              ) -> int | None:
    """The number of cases when the output root is exactly what `paths` give, known from the
    cache alone (no case file changed since the build that wrote the root, nor the code, nor
    the versions); None when that cannot be told this way (then compile and compare).

    A build trusts the tree's sizes and mtimes against the cache, as build.py does;
    `compare_bytes` (for `build --check`) hashes every file against the manifest and lists the
    whole tree instead."""
    from .manifest import MANIFEST, file_entry

    root = Path(out_root).resolve()
    work = work_dir(root)
    try:
        if os.listdir(work) != [CACHE]:
            return None  # an interrupted build's leftovers: the full path recovers them
        with locked(work):
            manifest_bytes = (root / MANIFEST).read_bytes()
            cache = json.loads((work / CACHE).read_bytes())
            if (cache["key"] != build_key(empty_optional) or cache["manifest_sha256"]
                    != hashlib.sha256(manifest_bytes).hexdigest()):
                return None
            sources = cache["sources"]
            found = case_files(paths)
            hashes = {hashlib.sha256(path.read_bytes()).hexdigest() for path in found}
            if not hashes or len(hashes) != len(found) or hashes != set(sources):
                return None  # two files of the same bytes: the loader reports their cases
            manifest = json.loads(manifest_bytes)
            listed, cases = manifest["files"], manifest["cases"]
            if sorted(n for h in hashes for n in sources[h]) != sorted(cases):
                return None
            if compare_bytes:
                files, folders = scan_tree(root)
                if (files.keys() != listed.keys() | {MANIFEST}
                        or folders.keys() != folders_of(listed)):
                    return None
                for relative, entry in listed.items():
                    with open(f"{root}/{relative}", "rb") as file:
                        if file_entry(file.read()) != entry:
                            return None
                return _as_written(cases)
            if not folders_hold(root, cache["folders"]) or len(cache["mtimes"]) != len(listed):
                return None
            for relative, mtime in zip(sorted(listed), cache["mtimes"], strict=True):
                stat = os.stat(f"{root}/{relative}")
                if (stat.st_size, stat.st_mtime_ns) != (listed[relative]["size"], mtime):
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


def _as_written(cases: dict) -> int:
    """The number of cases as written: a tensor-boundary variant is not counted apart."""
    return sum(1 for entry in cases.values() if "derived_from" not in entry)
