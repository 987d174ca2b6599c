"""Reading a suite as untrusted data: regular files only, each read with a size bound, JSON with
a nesting bound, models and values refused when they point at data outside themselves.

Every refusal is a ReadError whose message is one line, `path: what is wrong and why`. The
bounds are the fields of `Limits`; `LIMITS` holds the values every command uses.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from onnx import AttributeProto, GraphProto, ModelProto, TensorProto

from .._core.errors import ArgumentError, MissingFile, ReadError, Unreadable, one_line
from .._core.problems import quote
from .._core.value_kinds import proto_parts


@dataclass(frozen=True)
class Limits:
    """What reading one case folder (or a manifest) may cost at most."""

    file_bytes: int = 256 * 2**20  # one model.onnx or .pb file
    folder_bytes: int = 1024 * 2**20  # every file of one case folder together
    folder_files: int = 20_000  # .pb files of one case folder
    data_sets: int = 1_000  # test_data_set_<k> folders of one case folder
    elements: int = 2**28  # elements of one tensor, as its dims or its data fields say
    strings: int = 2**20  # strings of one string tensor (each becomes a Python object)
    json_bytes: int = 64 * 2**20  # manifest.json
    small_json_bytes: int = 2**16  # data.json
    json_depth: int = 32  # nesting of lists and objects in a JSON file
    graph_depth: int = 16  # subgraphs inside subgraphs of a model
    value_depth: int = 8  # sequences and optionals inside each other in a .pb file


LIMITS = Limits()


def as_path(value, what: str = "path") -> Path:
    """`value` as a Path; ValueError (a bad argument) unless it is a str or os.PathLike."""
    if isinstance(value, bytes) or not isinstance(value, (str, os.PathLike)):
        raise ArgumentError(f"{what} must be a str or os.PathLike, not {type(value).__name__}")
    return Path(value)


def as_paths(values, what: str = "paths") -> list[Path]:
    """One path or an iterable of them as a list of Paths; ValueError for anything else."""
    if isinstance(values, (str, os.PathLike)):
        return [Path(values)]
    try:
        items = list(values)
    except TypeError:
        raise ArgumentError(f"{what} must be a path or an iterable of paths, not "
                         f"{type(values).__name__}") from None
    return [as_path(v, what) for v in items]


def shown(path) -> str:
    """A path as messages show it: one line, undecodable bytes escaped."""
    return one_line(os.fsdecode(path) if isinstance(path, bytes) else str(path))


def read_bytes(path: str | Path, limit: int, what: str = "file") -> bytes:
    """The bytes of a regular file of at most `limit` bytes; ReadError for anything else (a
    FIFO, device, socket or folder is refused before it is opened for reading data)."""
    try:
        before = os.stat(path)
    except FileNotFoundError:
        raise MissingFile(f"{shown(path)}: missing") from None
    except OSError as error:
        raise Unreadable(f"{shown(path)}: cannot read it ({error.strerror})") from None
    if not stat.S_ISREG(before.st_mode):
        raise Unreadable(f"{shown(path)}: not a regular file ({_kind(before.st_mode)}); a case "
                        f"folder's {what} must be a regular file")
    if before.st_size > limit:
        raise Unreadable(f"{shown(path)}: {before.st_size} bytes, more than the {limit} bytes "
                        f"a {what} may have")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as error:
        raise Unreadable(f"{shown(path)}: cannot read it ({error.strerror})") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # swapped between stat and open
            raise Unreadable(f"{shown(path)}: not a regular file; a case folder's {what} must "
                            "be a regular file")
        chunks, size = [], 0
        want = min(limit + 1, before.st_size + 1, 2**24)  # a short read of a file is its end
        while size <= limit:
            chunk = os.read(fd, want)
            chunks.append(chunk)
            size += len(chunk)
            if len(chunk) < want:
                break
            want = min(limit + 1 - size, 2**24)
    except OSError as error:
        raise Unreadable(f"{shown(path)}: cannot read it ({error.strerror})") from None
    finally:
        os.close(fd)
    if size > limit:
        raise Unreadable(f"{shown(path)}: more than the {limit} bytes a {what} may have")
    return b"".join(chunks)


def is_folder(entry: os.DirEntry) -> bool:
    """Whether a directory entry is a folder, a link to one included; False when it cannot be
    told (a dangling link, a vanished entry)."""
    try:
        return entry.is_dir()  # follows links
    except OSError:
        return False


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a file"


def load_json(path: Path, limit: int, depth: int = LIMITS.json_depth, what: str = "JSON file"):
    """A JSON file read with a size and a nesting bound; ReadError when it is not one."""
    data = read_bytes(path, limit, what)
    return parse_json(data, path, depth)


def parse_json(data: bytes, path, depth: int = LIMITS.json_depth):
    """JSON bytes decoded, refused when lists and objects nest deeper than `depth` (json's own
    recursion bound first, then the value's depth, walked without recursion)."""
    try:
        value = json.loads(data)
    except RecursionError:
        value = None
        deepest = depth + 1
    except ValueError as error:
        raise ReadError(f"{shown(path)}: not valid JSON ({_first_line(error)})") from None
    else:
        deepest = _depth(value, depth)
    if deepest > depth:
        raise ReadError(f"{shown(path)}: nested more than {depth} levels deep; not a file "
                        "this tool writes")
    return value


def _depth(value, limit: int) -> int:
    """How deep lists and objects nest in `value` (counting stops past `limit`)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, level)
            if deepest > limit:
                return deepest
            stack.extend((v, level + 1) for v in (item.values() if isinstance(item, dict)
                                                   else item) if isinstance(v, (list, dict)))
    return deepest


def _first_line(error: BaseException) -> str:
    return one_line(" ".join(str(error).split()))[:300]


# -- protos that point outside themselves ---------------------------------------------------

_EXTERNAL = ("keeps its data in an external file; this tool reads only what a case folder's "
             "own files hold (external data is refused, never looked up)")


def check_tensor(tensor: TensorProto, path, what: str, limits: Limits = LIMITS) -> None:
    """ReadError when a tensor's data is external or its dims ask for too many elements."""
    if tensor.data_location == TensorProto.EXTERNAL or len(tensor.external_data):
        raise Unreadable(f"{shown(path)}: {what} {_EXTERNAL}")
    if len(tensor.string_data) > limits.strings:
        raise ReadError(f"{shown(path)}: {what} holds {len(tensor.string_data)} strings, more "
                        f"than the {limits.strings} a tensor may hold")
    stored = max(len(tensor.float_data), len(tensor.int32_data), len(tensor.int64_data),
                 len(tensor.double_data), len(tensor.uint64_data))
    if stored > limits.elements:
        raise ReadError(f"{shown(path)}: {what} holds {stored} values, more than the "
                        f"{limits.elements} elements a tensor may have")
    count = 1
    for dim in tensor.dims:
        if dim < 0:
            raise ReadError(f"{shown(path)}: {what} has a negative dim {dim}")
        count *= dim
        if count > limits.elements:
            raise ReadError(f"{shown(path)}: {what} has dims {list(tensor.dims)}, more than "
                            f"the {limits.elements} elements a tensor may have")


def check_value(proto, path, limits: Limits = LIMITS, depth: int = 0) -> None:
    """check_tensor for every tensor of a .pb value, with a bound on nesting."""
    if depth > limits.value_depth:
        raise ReadError(f"{shown(path)}: values nested more than {limits.value_depth} deep")
    if isinstance(proto, TensorProto):
        check_tensor(proto, path, "the tensor", limits)
    for part in proto_parts(proto):
        check_value(part, path, limits, depth + 1)


def check_model(model: ModelProto, path, limits: Limits = LIMITS) -> None:
    """ReadError when a tensor of the model (initializer, attribute, in any subgraph or
    function) keeps its data outside the model, or subgraphs nest deeper than the limit."""
    for graph in [model.graph]:
        _check_graph(graph, path, limits, 0)
    for function in model.functions:
        for node in function.node:
            _check_node(node, path, limits, 1)


def _check_graph(graph: GraphProto, path, limits: Limits, depth: int) -> None:
    if depth > limits.graph_depth:
        raise ReadError(f"{shown(path)}: subgraphs nested more than {limits.graph_depth} deep")
    for tensor in graph.initializer:
        check_tensor(tensor, path, f"initializer {quote(tensor.name)}", limits)
    for sparse in graph.sparse_initializer:
        check_tensor(sparse.values, path, "a sparse initializer", limits)
        check_tensor(sparse.indices, path, "a sparse initializer", limits)
    for node in graph.node:
        _check_node(node, path, limits, depth)


def _check_node(node, path, limits: Limits, depth: int) -> None:
    what = f"{one_line(node.op_type)} attribute"
    for attribute in node.attribute:
        name = f"{what} {quote(attribute.name)}"
        if attribute.type == AttributeProto.TENSOR or attribute.HasField("t"):
            check_tensor(attribute.t, path, name, limits)
        for tensor in attribute.tensors:
            check_tensor(tensor, path, name, limits)
        for sparse in [attribute.sparse_tensor, *attribute.sparse_tensors]:
            check_tensor(sparse.values, path, name, limits)
            check_tensor(sparse.indices, path, name, limits)
        if attribute.HasField("g"):
            _check_graph(attribute.g, path, limits, depth + 1)
        for graph in attribute.graphs:
            _check_graph(graph, path, limits, depth + 1)
