"""Publishing a built tree: stage it beside the output root, swap it in, recover leftovers.

Nothing here imports onnx: a no-op build (freshness.py) finds the work folder and reads the
cache with it alone.
"""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: builds of one root must not overlap
    fcntl = None  # type: ignore[assignment]

# -- writing: stage beside the output root, then swap it in ------------------------------------
#
# A build writes the whole output root (manifest.json and the suite folder) into a staging tree
# beside it, then swaps the two trees in one rename, so the root always holds a whole suite, old
# or new. Beside the root, the build keeps its own folder `.<root name>.build/`:
#   staging/     the tree being written
#   retired/     the old tree, only between the two renames of the fallback swap
#   trash/       a replaced tree being deleted
#   cache.json   what an incremental build knows (see build.py)
# Whatever an interrupted build leaves there, the next build's `recover` cleans up.

#: The incremental build's memory in the work folder; everything else there is a leftover.
CACHE = "cache.json"
#: Linux renameat2's flag that swaps two paths in one step.
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def work_dir(root: Path) -> Path:
    """The build's own folder beside the output root `root`."""
    root = Path(root).absolute()
    return root.parent / f".{root.name}.build"


@contextmanager
def locked(work: Path):
    """Hold an exclusive lock on the folder holding the work folder (and the output root), so
    two builds there take turns."""
    work.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(work.parent, os.O_RDONLY)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def recover(root: Path, work: Path) -> None:
    """Undo what an interrupted build left: put back an old tree a swap had moved aside, and
    delete partial trees."""
    retired = work / "retired"
    if retired.exists() and not os.path.lexists(root):
        os.rename(retired, root)
    if not work.is_dir():
        return
    for leftover in os.scandir(work):
        if leftover.name == CACHE:
            continue
        if leftover.is_dir(follow_symlinks=False):
            shutil.rmtree(leftover.path)
        else:
            os.unlink(leftover.path)


def swap_in(staging: Path, root: Path, work: Path, unchanged=None) -> None:
    """Make the staged tree the output root; the old tree, if any, is deleted afterwards.
    `unchanged(old_tree)`, called once the old tree is out of the root's place (so nothing can
    be added to it by its path any more), raises when the old tree is not as the build saw it;
    the old tree is then put back and the staged one is left where it was."""
    trash = work / "trash"
    if not os.path.lexists(root):
        os.rename(staging, root)
        return
    if _exchange(staging, root):
        try:
            if unchanged is not None:
                unchanged(staging)
        except BaseException:
            _exchange(staging, root)
            raise
        os.rename(staging, trash)
    else:  # no atomic swap here: between these renames `recover` can put the old tree back
        retired = work / "retired"
        os.rename(root, retired)
        try:
            if unchanged is not None:
                unchanged(retired)
            os.rename(staging, root)
        except BaseException:
            os.rename(retired, root)
            raise
        os.rename(retired, trash)
    shutil.rmtree(trash)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux renameat2); False where the system cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                          ctypes.c_uint]
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))


#: Threads writing a streamed build's files. Creating a file is mostly system time; where the
#: file system makes it slow (a millisecond a file), two threads share it out on two cores
#: while the workers compile.
WRITERS = 2


class Staging:
    """The new tree being written beside the root (`.<root>.build/staging`: `path`), made on
    the first write (within `guard()`, which turns an OSError into the caller's error);
    `discard` deletes it. `write_all` hands a case's files to a writing thread and
    returns; `finish` waits for every write and raises the first error, which the next
    `write_all` raises too once it has happened."""

    def __init__(self, path: Path, guard):
        self.path, self._guard = path, guard
        self.stager: Stager | None = None
        self._writers: ThreadPoolExecutor | None = None
        self._writes: list[Future] = []
        self._failure: BaseException | None = None

    def write_all(self, files: dict[str, bytes]) -> None:
        stager = self.open()
        if self._failure is not None:
            raise self._failure
        if self._writers is None:
            self._writers = ThreadPoolExecutor(WRITERS, thread_name_prefix="seq-build-writer")
        write = self._writers.submit(_write_files, stager, files)
        write.add_done_callback(self._note_failure)
        self._writes.append(write)

    def _note_failure(self, write: Future) -> None:
        if self._failure is None and not write.cancelled() and write.exception() is not None:
            self._failure = write.exception()

    def finish(self) -> None:
        """Wait for every write handed to the threads; raise the first error."""
        try:
            for write in self._writes:
                write.exception()  # waits
        finally:
            self._stop_writers(cancel=False)
        if self._failure is not None:
            raise self._failure

    def _stop_writers(self, cancel: bool) -> None:
        if self._writers is not None:
            self._writers.shutdown(wait=True, cancel_futures=cancel)
            self._writers, self._writes = None, []

    def open(self) -> Stager:
        if self.stager is None:
            with self._guard():
                os.makedirs(self.path)
            self.stager = Stager(self.path)
        return self.stager

    def discard(self) -> None:
        self._stop_writers(cancel=True)  # no thread writes into what is deleted
        if self.stager is not None:
            shutil.rmtree(self.path, ignore_errors=True)
            self.stager = None


def _write_files(stager: Stager, files: dict[str, bytes]) -> None:
    for relative, data in files.items():
        stager.write(relative, data)


class Stager:
    """Writes or hard-links files into a tree, noting each file's (size, mtime_ns)."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.stats: dict[str, tuple[int, int]] = {}
        self._folders: set[str] = set()  # made or found: '' is the root
        self._prefix = os.fspath(self.root) + os.sep

    def write(self, relative: str, data: bytes) -> None:
        path = self._path(relative)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            self._note(relative, os.fstat(fd))
        finally:
            os.close(fd)

    def link(self, source: Path, relative: str) -> None:
        """Hard-link `source` in (a copy where the file system has no hard links)."""
        path = self._path(relative)
        try:
            os.link(source, path)
        except OSError:
            shutil.copyfile(source, path)
        self._note(relative, os.stat(path))

    def _path(self, relative: str) -> str:
        folder = relative.rpartition("/")[0]
        if folder not in self._folders:
            self._make(folder)
        return self._prefix + relative

    def _make(self, folder: str) -> None:
        """Make `folder` and the folders above it not made yet, one mkdir each (no stat)."""
        if not folder:
            os.makedirs(self.root, exist_ok=True)
        else:
            parent = folder.rpartition("/")[0]
            if parent not in self._folders:
                self._make(parent)
            try:
                os.mkdir(self._prefix + folder)
            except FileExistsError:
                if not os.path.isdir(self._prefix + folder):
                    raise
        self._folders.add(folder)

    def _note(self, relative: str, stat: os.stat_result) -> None:
        self.stats[relative] = (stat.st_size, stat.st_mtime_ns)


def scan_tree(root: Path) -> tuple[dict[str, tuple[int, int]], dict[str, int]]:
    """Every file under `root` with its (size, mtime_ns), and every folder with its mtime_ns
    ('' for `root` itself); paths '/'-separated."""
    files: dict[str, tuple[int, int]] = {}
    folders: dict[str, int] = {"": os.stat(root).st_mtime_ns}
    stack = [("", os.fspath(root))]
    while stack:
        prefix, folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except FileNotFoundError:  # removed since its folder was listed: not in the tree
            continue
        for entry in entries:
            relative = prefix + entry.name
            try:
                stat = entry.stat(follow_symlinks=False)
            except FileNotFoundError:  # removed since it was listed
                continue
            if entry.is_dir(follow_symlinks=False):
                folders[relative] = stat.st_mtime_ns
                stack.append((relative + "/", entry.path))
            else:
                files[relative] = (stat.st_size, stat.st_mtime_ns)
    return files, folders


def folders_of(files) -> set[str]:
    """Every folder holding the '/'-separated paths `files`, at any depth, '' included."""
    found = {""}
    for relative in files:
        parts = relative.split("/")
        found.update("/".join(parts[:i]) for i in range(1, len(parts)))
    return found
