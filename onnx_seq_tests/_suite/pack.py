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
import os
import tarfile
from pathlib import Path

from .._core.problems import SeqTestsError, path_argument
from .._core.regular_files import read_regular
from .._core.versions import PACKAGE_VERSION
from .manifest import MANIFEST, MAX_MANIFEST_BYTES, ManifestError, read, verify

#: The one mtime of every entry.
MTIME = 0


class PackError(SeqTestsError):
    """The suite cannot be packed; the message says why."""


def default_archive() -> Path:
    return Path("dist") / f"{top_folder()}.tar.gz"


def top_folder() -> str:
    return f"onnx-seq-tests-suite-{PACKAGE_VERSION}"


def pack(root: Path, archive: Path) -> tuple[str, int]:
    """Write the archive of the suite at `root`; returns its sha256 and its number of files.

    Refuses (PackError) a suite that does not match its manifest; ArgumentError (a
    ValueError) when `root` or `archive` is not a path."""
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
    files = sorted([MANIFEST, *manifest["files"]])
    data = archive_bytes(root, files, top_folder())
    temporary = archive.with_name(f".{archive.name}.tmp")
    try:
        archive.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(data)
        os.replace(temporary, archive)
    except OSError as error:
        raise PackError(f"cannot write {archive}: {error.strerror or error}") from None
    return hashlib.sha256(data).hexdigest(), len(files)


def archive_bytes(root: Path, files: list[str], top: str) -> bytes:
    """The .tar.gz bytes of `files` (paths relative to `root`) under the folder `top`."""
    folders = {top}
    for relative in files:
        parts = relative.split("/")[:-1]
        folders.update(f"{top}/{'/'.join(parts[:i])}" for i in range(1, len(parts) + 1))
    entries = sorted([(f, None) for f in folders] + [(f"{top}/{r}", r) for r in files])
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
    compressed = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=compressed, compresslevel=9,
                       mtime=0) as gz:
        gz.write(tar_data.getvalue())
    return compressed.getvalue()
