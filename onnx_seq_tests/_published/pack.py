"""A reproducible .tar.gz of a built suite: the same suite gives the same bytes anywhere.

The archive holds `<top>/manifest.json` and every file the manifest lists, under one top folder
`onnx-seq-tests-suite-<version>/`. Entries (folders included) are sorted by path; every entry
has mtime 0, uid/gid 0, no user or group name, mode 0755 for folders and 0644 for files; the
tar format is POSIX (pax headers only where a name needs one, and they carry no time); the gzip
header has no file name and no time. The compressed bytes come from zlib at level 9, so another
zlib may compress them differently: the sha256 of the uncompressed tar is the suite's identity.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import tarfile
from dataclasses import dataclass
from pathlib import Path

from .._core.atomic import write_atomic
from .._core.errors import ManifestError, PackError
from .._core.problems import path_argument
from .._core.regular_files import read_regular
from .._core.versions import package_version
from .._suite.manifest import MANIFEST, MAX_MANIFEST_BYTES, read, verify

#: The one mtime of every entry.
MTIME = 0


@dataclass(frozen=True)
class Packed:
    """A written archive: its sha256, its number of files, and the suite's identity (the
    sha256 of the uncompressed tar, the same wherever the suite is packed)."""

    archive: Path
    sha256: str
    files: int
    identity: str


def default_archive() -> Path:
    return Path("dist") / f"{top_folder()}.tar.gz"


def top_folder() -> str:
    return f"onnx-seq-tests-suite-{package_version()}"


def pack(root: Path, archive: Path) -> tuple[str, int]:
    """Write the archive of the suite at `root`; returns its sha256 and its number of files.

    Refuses (PackError) a suite that does not match its manifest; ArgumentError (a
    ValueError) when `root` or `archive` is not a path."""
    packed = _pack(root, archive)
    return packed.sha256, packed.files


def pack_suite(root: Path, archive: Path) -> Packed:
    """`gen-seq-tests pack`: ManifestError (bad input, exit 2) when `root` holds no suite,
    PackError (exit 1) when it does not match its manifest or cannot be written; else the
    written archive with the suite's identity."""
    read(path_argument(root, "root"))
    return _pack(root, archive)


def _pack(root: Path, archive: Path) -> Packed:
    root, archive = path_argument(root, "root"), path_argument(archive, "archive")
    try:
        manifest = read(root)
    except ManifestError as error:
        raise PackError(str(error)) from None
    problems = verify(root)
    if problems:
        shown = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more"
                                           if len(problems) > 5 else "")
        raise PackError(f"{root} does not match its manifest ({shown}); rebuild it with "
                        "`gen-seq-tests build`")
    files = sorted([MANIFEST, *manifest.files])
    tar = tar_bytes(root, files, top_folder())
    data = gzipped(tar)
    try:
        archive.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(archive, data)
    except OSError as error:
        raise PackError(f"cannot write {archive}: {error.strerror or error}") from None
    return Packed(archive, hashlib.sha256(data).hexdigest(), len(files),
                  hashlib.sha256(tar).hexdigest())


def tar_bytes(root: Path, files: list[str], top: str) -> bytes:
    """The uncompressed tar of `files` (paths relative to `root`) under the folder `top`."""
    folders = {top}
    for file in files:
        parts = file.split("/")[:-1]
        folders.update(f"{top}/{'/'.join(parts[:i])}" for i in range(1, len(parts) + 1))
    entries: list[tuple[str, str | None]] = sorted(
        [(f, None) for f in folders] + [(f"{top}/{r}", r) for r in files])
    tar_data = io.BytesIO()
    with tarfile.open(fileobj=tar_data, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, relative in entries:
            info = tarfile.TarInfo(name)
            info.mtime, info.uid, info.gid, info.uname, info.gname = MTIME, 0, 0, "", ""
            if relative is None:
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            else:
                content = read_regular(root / relative, MAX_MANIFEST_BYTES)
                info.mode, info.size = 0o644, len(content)
                tar.addfile(info, io.BytesIO(content))
    return tar_data.getvalue()


def gzipped(tar: bytes) -> bytes:
    """`tar` compressed at level 9 with a gzip header holding no file name and no time."""
    compressed = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=compressed, compresslevel=9,
                       mtime=0) as gz:
        gz.write(tar)
    return compressed.getvalue()
