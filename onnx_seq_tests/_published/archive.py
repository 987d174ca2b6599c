"""Reading a suite archive (a .tar.gz from `gen-seq-tests pack`) safely, in memory.

An archive handed to the tool is untrusted input: nothing is extracted to disk; members are read
into memory; a member whose path is absolute or holds `..`, a link, a device or any entry other
than a folder or a regular file is refused; so is a path that two members name (a second
manifest.json would otherwise win). Before tarfile reads anything, the raw headers are walked in
a stream (`_prescan`), so every bound holds before any allocation: the archive's size on disk,
the size of each header record (a GNU long name or a pax header), the bytes and number of its
members, the length and depth of a name. Every member must sit under one top folder.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import stat
import tarfile
import zlib
from pathlib import Path, PurePosixPath

from .._core.errors import ArchiveError, one_line
from .._core.problems import quote

#: Bounds on an archive: bytes on disk, total bytes of its members, number of members. The
#: suite packs to well under 1 MiB, unpacks to a few MiB, in a few thousand files.
MAX_ARCHIVE_BYTES = 64 * 1024 * 1024
MAX_TOTAL_BYTES = 512 * 1024 * 1024
MAX_MEMBERS = 100_000
#: Bounds on one header record (a GNU long name or link, a pax header: a pack writes pax headers
#: of a few hundred bytes) and on a member's name, in bytes and in folder levels.
MAX_HEADER_BYTES = 64 * 1024
MAX_NAME_BYTES = 4096
MAX_NAME_DEPTH = 32
#: Header records that tarfile reads whole into memory before the member they describe.
_HEADER_RECORDS = (tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK, tarfile.XHDTYPE,
                   tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE)
_BLOCK = tarfile.BLOCKSIZE


def is_archive(path: Path) -> bool:
    """Whether `path` is a file named like a tar archive."""
    name = Path(path).name.lower()
    return name.endswith((".tar.gz", ".tgz", ".tar", ".tar.xz", ".tar.bz2"))


def read_archive(path: Path, *, max_total: int = MAX_TOTAL_BYTES,
                 max_members: int = MAX_MEMBERS) -> dict[str, bytes]:
    """Every regular file of the archive, by its '/'-separated path under the top folder."""
    path = Path(path)
    try:
        status = path.stat()
    except OSError as error:
        raise ArchiveError(f"{path}: cannot read it: {error.strerror or error}") from None
    if not stat.S_ISREG(status.st_mode):
        raise ArchiveError(f"{path}: not a regular file (a FIFO, a device or a socket)")
    size = status.st_size
    if size > MAX_ARCHIVE_BYTES:
        raise ArchiveError(f"{path}: {size} bytes, more than a suite archive may have "
                           f"({MAX_ARCHIVE_BYTES})")
    files: dict[str, bytes] = {}
    tops: set[str] = set()
    seen: set[tuple[str, ...]] = set()
    total = count = 0
    try:
        _prescan(path, max_total, max_members)
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
                if parts in seen:
                    raise ArchiveError(f"{path}: {quote(member.name)} appears twice; a "
                                       "suite archive names each file once")
                seen.add(parts)
                handle = tar.extractfile(member)
                files["/".join(parts[1:])] = handle.read(member.size) if handle else b""
    except ArchiveError:
        raise
    except (tarfile.TarError, EOFError, zlib.error, lzma.LZMAError, OSError, UnicodeError,
            ValueError) as error:
        raise ArchiveError(f"{path}: not a readable tar archive: {one_line(str(error))}") \
            from None
    if len(tops) != 1:
        raise ArchiveError(f"{path}: expected every entry under one top folder, found "
                           f"{len(tops)}")
    return files


def _prescan(path: Path, max_total: int, max_members: int) -> None:
    """Walk the tar headers in a stream, decompressing as needed, in bounded memory: refuse
    (ArchiveError) a header record over MAX_HEADER_BYTES, more than `max_members` records, or
    more than `max_total` bytes of content, before tarfile allocates for any of them."""
    count = total = 0
    with _open_stream(path) as stream:
        while True:
            header = stream.read(_BLOCK)
            if len(header) < _BLOCK or header == tarfile.NUL * _BLOCK:
                return  # the end, or a truncated archive: tarfile says which
            try:
                size = tarfile.nti(header[124:136])  # type: ignore[attr-defined]  # no stub
            except (tarfile.TarError, ValueError):
                return  # not a header tarfile can read: it reports the archive as damaged
            count += 1
            if count > max_members:
                raise ArchiveError(f"{path}: more than {max_members} entries")
            if header[156:157] in _HEADER_RECORDS and size > MAX_HEADER_BYTES:
                raise ArchiveError(f"{path}: a header record of {size} bytes (a long name or "
                                   f"pax header); a suite archive's are under {MAX_HEADER_BYTES}")
            total += max(size, 0)
            if total > max_total:
                raise ArchiveError(f"{path}: its files add up to more than {max_total} bytes")
            _skip(stream, -(-max(size, 0) // _BLOCK) * _BLOCK)


def _open_stream(path: Path):
    """The archive's tar bytes as a stream, decompressed by its magic number."""
    with open(path, "rb") as file:
        magic = file.read(6)
    if magic.startswith(b"\x1f\x8b"):
        return gzip.open(path, "rb")
    if magic.startswith(b"BZh"):
        return bz2.open(path, "rb")
    if magic.startswith(b"\xfd7zXZ\x00"):
        return lzma.open(path, "rb")
    return open(path, "rb")


def _skip(stream, count: int) -> None:
    """Read and drop `count` bytes, a MiB at a time."""
    while count > 0:
        chunk = stream.read(min(count, 1 << 20))
        if not chunk:
            return
        count -= len(chunk)


def _checked_parts(path: Path, name: str) -> tuple[str, ...]:
    """The parts of a member name; ArchiveError for an absolute path, one holding `..`, or one
    longer or deeper than a suite's names are."""
    if len(name.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES:
        raise ArchiveError(f"{path}: an entry name longer than {MAX_NAME_BYTES} bytes")
    if name.count("/") > MAX_NAME_DEPTH:
        raise ArchiveError(f"{path}: an entry name deeper than {MAX_NAME_DEPTH} folders")
    pure = PurePosixPath(name)
    if pure.is_absolute() or "\\" in name or (pure.parts and ":" in pure.parts[0]):
        raise ArchiveError(f"{path}: unsafe entry {quote(name)} (absolute path)")
    parts = tuple(p for p in pure.parts if p != ".")
    if ".." in parts:
        raise ArchiveError(f"{path}: unsafe entry {quote(name)} (holds '..')")
    if not parts:
        raise ArchiveError(f"{path}: an entry with an empty name")
    return parts
