"""Reading a suite archive (a .tar.gz from `gen-seq-tests pack`) safely, in memory.

An archive handed to the tool is untrusted input: nothing is extracted to disk; members are read
into memory; a member whose path is absolute or holds `..`, a link, a device or any entry other
than a folder or a regular file is refused; the archive's size on disk, its members' total size
and their number are bounded. Every member must sit under one top folder.
"""

from __future__ import annotations

import tarfile
import zlib
from pathlib import Path, PurePosixPath

from .._core.problems import SeqTestsError, one_line

#: Bounds on an archive: bytes on disk, total bytes of its members, number of members. The
#: suite packs to well under 1 MiB, unpacks to a few MiB, in a few thousand files.
MAX_ARCHIVE_BYTES = 64 * 1024 * 1024
MAX_TOTAL_BYTES = 512 * 1024 * 1024
MAX_MEMBERS = 100_000


class ArchiveError(SeqTestsError, ValueError):
    """An archive that cannot be read safely as a suite; the message is one line saying why."""


def is_archive(path: Path) -> bool:
    """Whether `path` is a file named like a tar archive."""
    name = Path(path).name.lower()
    return name.endswith((".tar.gz", ".tgz", ".tar", ".tar.xz", ".tar.bz2"))


def read_archive(path: Path, *, max_total: int = MAX_TOTAL_BYTES,
                 max_members: int = MAX_MEMBERS) -> dict[str, bytes]:
    """Every regular file of the archive, by its '/'-separated path under the top folder."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as error:
        raise ArchiveError(f"{path}: cannot read it: {error.strerror or error}") from None
    if size > MAX_ARCHIVE_BYTES:
        raise ArchiveError(f"{path}: {size} bytes, more than a suite archive may have "
                           f"({MAX_ARCHIVE_BYTES})")
    files: dict[str, bytes] = {}
    tops: set[str] = set()
    total = count = 0
    try:
        with tarfile.open(path, "r:*") as tar:
            for member in tar:
                count += 1
                if count > max_members:
                    raise ArchiveError(f"{path}: more than {max_members} entries")
                parts = _checked_parts(path, member.name)
                if member.isdir():
                    tops.add(parts[0])
                    continue
                if not member.isfile():
                    raise ArchiveError(f"{path}: {one_line(member.name)!s} is a link or a "
                                       "special file; a suite archive holds only files and "
                                       "folders")
                if len(parts) < 2:
                    raise ArchiveError(f"{path}: {one_line(member.name)} is not under a top "
                                       "folder")
                total += member.size
                if total > max_total:
                    raise ArchiveError(f"{path}: its files add up to more than {max_total} "
                                       "bytes")
                tops.add(parts[0])
                handle = tar.extractfile(member)
                files["/".join(parts[1:])] = handle.read(member.size) if handle else b""
    except ArchiveError:
        raise
    except (tarfile.TarError, EOFError, zlib.error, OSError, UnicodeError, ValueError) as error:
        raise ArchiveError(f"{path}: not a readable tar archive: {one_line(str(error))}") \
            from None
    if len(tops) != 1:
        raise ArchiveError(f"{path}: expected every entry under one top folder, found "
                           f"{len(tops)}")
    return files


def _checked_parts(path: Path, name: str) -> tuple[str, ...]:
    """The parts of a member name; ArchiveError for an absolute path or one holding `..`."""
    pure = PurePosixPath(name)
    if pure.is_absolute() or "\\" in name or (pure.parts and ":" in pure.parts[0]):
        raise ArchiveError(f"{path}: unsafe entry {one_line(name)!r} (absolute path)")
    parts = tuple(p for p in pure.parts if p != ".")
    if ".." in parts:
        raise ArchiveError(f"{path}: unsafe entry {one_line(name)!r} (holds '..')")
    if not parts:
        raise ArchiveError(f"{path}: an entry with an empty name")
    return parts
