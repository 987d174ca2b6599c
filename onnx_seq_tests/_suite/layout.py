"""The standard backend-test layout, written and read back like any consumer reads it.

    <root>/<suite>/test_<name>/model.onnx
    <root>/<suite>/test_<name>/data.json                      {"atol": .., "rtol": ..}
    <root>/<suite>/test_<name>/test_data_set_<k>/input_<j>.pb  by graph-input order
    <root>/<suite>/test_<name>/test_data_set_<k>/output_<j>.pb by graph-output order
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import shutil
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import onnx
from onnx import ModelProto

from .._core.cases import Case
from .._core.value_types import ValueType
from .codec import decode, encode, parse
from .model import value_types

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: builds of one root must not overlap
    fcntl = None

#: The folder under the output root that holds the cases:
#: `load_model_tests(data_dir=<root>, kind=SUITE)` loads them.
SUITE = "sequence_optional"


def case_files(case: Case, model: ModelProto, empty_optional: str = "undefined") -> dict:
    """Every file of one case folder, relative path -> bytes, in a fixed order."""
    files = {"model.onnx": model.SerializeToString(deterministic=True),
             "data.json": tolerance_json(case.atol, case.rtol)}
    inputs, outputs = case.graph.inputs, case.graph.outputs
    for k, data_set in enumerate(case.data_sets):
        folder = f"test_data_set_{k}"
        for side, decls, values in (("input", inputs, data_set.inputs),
                                    ("output", outputs, data_set.outputs)):
            for j, (decl, value) in enumerate(zip(decls, values, strict=False)):
                proto = encode(value, decl.type, decl.name, empty_optional)
                files[f"{folder}/{side}_{j}.pb"] = proto.SerializeToString(deterministic=True)
    return files


def tolerance_json(atol: float, rtol: float) -> bytes:
    return (json.dumps({"atol": atol, "rtol": rtol}, sort_keys=True) + "\n").encode()


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


def swap_in(staging: Path, root: Path, work: Path) -> None:
    """Make the staged tree the output root; the old tree, if any, is deleted afterwards."""
    trash = work / "trash"
    if not os.path.lexists(root):
        os.rename(staging, root)
        return
    if _exchange(staging, root):
        os.rename(staging, trash)
    else:  # no atomic swap here: between these renames `recover` can put the old tree back
        retired = work / "retired"
        os.rename(root, retired)
        try:
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


class Stager:
    """Writes or hard-links files into a tree, noting each file's (size, mtime_ns)."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.stats: dict[str, tuple[int, int]] = {}
        self._folders: set[str] = set()

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
            os.makedirs(self.root / folder, exist_ok=True)
            self._folders.add(folder)
        return os.path.join(self.root, relative)

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
        with os.scandir(folder) as entries:
            for entry in entries:
                relative = prefix + entry.name
                stat = entry.stat(follow_symlinks=False)
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


@dataclass
class CaseFolder:
    """A case folder as a consumer sees it: the model, its data sets decoded, its tolerance."""

    path: Path
    model: ModelProto
    input_types: list[ValueType]
    output_types: list[ValueType]
    data_sets: list[tuple[list, list]]
    atol: float | None
    rtol: float | None

    @property
    def name(self) -> str:
        return self.path.name


def read_case_folder(path: Path) -> CaseFolder:
    """Read a `test_<name>` folder: .pb files decoded by the model's graph types."""
    path = Path(path)
    model = onnx.load(str(path / "model.onnx"))
    input_types, output_types = value_types(model)
    data_sets = []
    for folder in sorted(path.glob("test_data_set_*"), key=lambda p: int(p.name.rsplit("_", 1)[1])):
        inputs = [_read(folder / f"input_{j}.pb", t) for j, t in enumerate(input_types)]
        outputs = [_read(folder / f"output_{j}.pb", t) for j, t in enumerate(output_types)]
        data_sets.append((inputs, outputs))
    atol, rtol = read_tolerance(path)
    return CaseFolder(path, model, input_types, output_types, data_sets, atol, rtol)


def read_tolerance(path: Path) -> tuple[float | None, float | None]:
    """(atol, rtol) from a case folder's data.json; None for what it does not give."""
    tolerance_file = Path(path) / "data.json"
    if not tolerance_file.exists():
        return None, None
    tolerance = json.loads(tolerance_file.read_text())
    return tolerance.get("atol"), tolerance.get("rtol")


def _read(path: Path, value_type: ValueType):
    return decode(parse(path.read_bytes(), value_type))


def case_folders(root: Path) -> list[Path]:
    """Every `test_*` folder holding a model.onnx under `root`, at any depth, sorted; folders
    below a hidden one (a build's staging area, for one) are not cases."""
    root = Path(root)
    return sorted(p.parent for p in root.rglob("model.onnx")
                  if p.parent.name.startswith("test_") and not any(
                      part.startswith(".") for part in p.parent.relative_to(root).parts))
