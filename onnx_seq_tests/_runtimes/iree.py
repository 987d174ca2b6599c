"""IREE as an onnx backend: torch-mlir's ONNX importer (in `iree-base-compiler`), iree-compile
for the llvm-cpu target in a child process, and `iree.runtime` on its local-sync driver.

IREE's compiled functions take and give tensors only: a sequence or optional input or output
is refused (CannotTake) before anything is compiled (its compiler fails on them with
"unhandled torch type: '!torch.list<...>'"), as are string tensors at the boundary, and at run
time the element types `iree.runtime` cannot map (int4, uint4, the 4-bit float). Other tensors
travel by their bits.

Compiling: iree-compile's library runs in a child of the process running the case, kept for
its next models (iree_compiler.py), or `iree-compile` as a process for a model that crashed
that child or when ONNX_SEQ_TESTS_IREE_COMPILER=process; either ends when that process ends
(on Linux) or when it overruns COMPILE_TIMEOUT seconds (ONNX_SEQ_TESTS_IREE_COMPILE_TIMEOUT).
What it gives, a module or an error message, is cached by the sha256 of the model's bytes,
IREE's version and the flags, in `<cache>/iree-<version>/`, where `<cache>` is
ONNX_SEQ_TESTS_CACHE, else `$XDG_CACHE_HOME/onnx-seq-tests`, else `~/.cache/onnx-seq-tests`;
ONNX_SEQ_TESTS_CACHE=none turns the cache off.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import tempfile
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from onnx import ModelProto, TensorProto
from onnx.backend.base import BackendRep

from .._core.cases import graph_protos
from .._core.errors import CannotTake, CompileError
from . import adapter, iree_compiler
from .adapter import CPUBackend, as_array, boundary, call_main, dtype_name, first_line
from .records import record

#: This runtime's record (records.py says what each key means).
RUNTIME: dict[str, Any] = {
    "name": "iree",
    "label": "IREE (llvm-cpu)",
    "summary": "torch-mlir's ONNX importer, iree-compile for llvm-cpu, iree.runtime on "
               "local-sync",
    "requires": ["iree-base-compiler==3.13.0", "iree-base-runtime==3.13.0"],
    "imports": ["iree.compiler", "iree.runtime"],
    "version": "{iree-base-compiler} (compiler), {iree-base-runtime} (runtime), llvm-cpu, "
               "local-sync",
    # fuzz: programs per compiled model (a compile that passes takes about 0.3 s for one
    # small program, 0.4 s for 16 to 64; one refused, about 0.05 s; a refusal is located at
    # the nodes it is about, so a pack costs one refused compile more per refused program,
    # whatever its size: from one profile, packs of 64 in runs of 64 seeds judged 14% more
    # accepted programs a second than 32 in runs of 32, and 8% more than 128; docs/fuzzing.md)
    "pack": 64,
}
WHY = "IREE's compiled functions take and give tensors only"
DRIVER = "local-sync"
#: iree-compile's flags: llvm-cpu for any CPU of the machine's architecture, one thread (verify
#: runs one case per core), and after a pass that fails, the IR it was given printed with its
#: locations (what an error located nowhere is about: `_left_unconverted`); these two print
#: and compile nothing.
FLAGS = ("--iree-hal-target-backends=llvm-cpu", "--iree-llvmcpu-target-cpu=generic",
         "--mlir-disable-threading", "--mlir-print-ir-after-failure", "--mlir-print-debuginfo")
#: Bumped when what is cached (or how messages are written) changes.
CACHE_FORMAT = "4"
COMPILE_TIMEOUT = 300.0


def load() -> IREEBackend:
    """The backend; ImportError when IREE's compiler or runtime is not installed."""
    import iree.compiler  # noqa: F401
    import iree.runtime  # noqa: F401

    return IREEBackend()


def version() -> str:
    """IREE's versions and settings, as reports name them (the cache's key has it too)."""
    found = record("iree")
    assert found is not None, "iree.py has its RUNTIME record"
    return found.installed_version()


class IREERep(BackendRep):
    def __init__(self, model: ModelProto, backend: IREEBackend):
        import iree.runtime as rt

        adapter.refuse_containers("iree", model, WHY)
        self._inputs, self._outputs = boundary(model)
        for where, values in (("input", model.graph.input), ("output", model.graph.output)):
            for value in values:
                if value.type.tensor_type.elem_type == TensorProto.STRING:
                    raise CannotTake(f"iree has no string tensors ({where} {value.name!r})")
        module = compiled(model)
        config = backend.config()
        self._context = rt.SystemContext(config=config)
        self._context.add_vm_module(rt.VmModule.copy_buffer(self._context.instance, module))
        self._device = config.device
        self._main = self._context.modules.module[model.graph.name]

    def run(self, inputs: list[Any], **kwargs: Any) -> list[Any]:  # type: ignore[override]
        if len(inputs) != len(self._inputs):
            raise ValueError(f"the model has {len(self._inputs)} input(s), got {len(inputs)}")
        feeds = [self._to_device(as_array(value, f"input {name!r}"), f"input {name!r}")
                 for (name, _), value in zip(self._inputs, inputs, strict=True)]
        return [from_device(r) for r in call_main(self._main, feeds, len(self._outputs))]

    def _to_device(self, array: np.ndarray, what: str):
        import iree.runtime as rt

        if array.dtype.kind in "OUS":
            raise CannotTake(f"iree has no {dtype_name(array)} tensors ({what})")
        try:
            return rt.asdevicearray(self._device, np.require(array, requirements="C"))
        except ValueError as error:  # "Could not map dtype int4 to IREE element type"
            raise CannotTake(f"iree: {first_line(str(error))} ({what})") from None


class IREEBackend(CPUBackend):
    """IREE; see the module's docstring for what it can take. It holds the driver's
    configuration (made on first use) that every model it prepares runs on."""

    rep = IREERep

    def __init__(self) -> None:
        self._config: Any = None

    def config(self) -> Any:
        """iree.runtime's Config of DRIVER, one per backend."""
        if self._config is None:
            import iree.runtime as rt

            self._config = rt.Config(DRIVER)
        return self._config


def from_device(value):
    """An IREE result as a numpy array of its own (the device buffer is not kept)."""
    to_host = getattr(value, "to_host", None)
    return np.array(to_host(), copy=True) if to_host is not None else value


def compiled(model: ModelProto) -> bytes:
    """The IREE module (a vmfb) for `model`, from the cache or compiled; RuntimeError with the
    importer's or the compiler's first line when it cannot be compiled."""
    data = model.SerializeToString()
    folder = cache_folder()
    key = hashlib.sha256(b"\0".join([CACHE_FORMAT.encode(), version().encode(),
                                      *map(str.encode, FLAGS), data]))
    stem = key.hexdigest()
    kept = _cached(folder, stem)
    if isinstance(kept, bytes):
        return kept
    if kept is not None:
        raise RuntimeError(kept)
    numbered, places = _numbered(model)
    try:
        module = _compile(_imported(numbered, places), timeout(), places)
    except CompileError as error:  # the compiler's verdict on this model: kept
        _store(folder, f"{stem}.error", str(error).encode("utf-8"))
        raise RuntimeError(str(error)) from None
    _store(folder, f"{stem}.vmfb", module)
    return module


def _imported(model: ModelProto, places: Places) -> str:
    """The model in MLIR's torch dialect, as iree-import-onnx makes it (shapes inferred
    first), each operation located at its ONNX node (errors name it: `_compiler_line`); an
    error of the importer names the node it was importing when that node has a name of its
    own (`places`), as the compiler's do."""
    import onnx
    from iree.compiler.extras import onnx_importer
    from iree.compiler.ir import Context

    try:
        inferred = onnx.shape_inference.infer_shapes(model)
        info = onnx_importer.ModelInfo(inferred)
        module = info.create_module(context=Context()).operation
        onnx_importer.NodeImporter.define_function(info.main_graph, module).import_all()
        module.verify()
        return module.get_asm(assume_verified=True, enable_debug_info=True)
    except Exception as error:  # the importer raises many kinds
        raise CompileError(f"importer: {first_line(str(error))}"
                           + _importing(error, places)) from None


def _importing(error: BaseException, places: Places) -> str:
    """Where the importer was when it raised `error`, as a message's end: ` at node 'NAME'`
    for the node it was importing when that node has a name of its own (the innermost frame
    holding a node: a subgraph's before the node holding it), ` at input 'NAME'` (`output`)
    for a graph input or output whose type it was importing, "" for none of them."""
    from onnx import NodeProto, ValueInfoProto

    frames = [frame for frame, _ in traceback.walk_tb(error.__traceback__)]
    for frame in reversed(frames):
        node = frame.f_locals.get("node")
        if isinstance(node, NodeProto):
            name, _ = places.nodes.get(node.name, ("", ""))
            return f" at node {name!r}" if name else ""
        for value in frame.f_locals.values():
            if isinstance(value, ValueInfoProto):
                where = places.boundary(value.name)
                if where:
                    return f" at {where}"
    return ""


@dataclass(frozen=True)
class Places:
    """Where an error of a model `_numbered` numbered can be located."""

    #: By the name the importer locates an operation at: (the ONNX node's own name, "" for
    #: none or an initializer; its operator type).
    nodes: dict[str, tuple[str, str]]
    #: The main graph's name (iree-compile's function), inputs and outputs (its arguments
    #: and results, in order).
    graph: str = ""
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()

    def boundary(self, name: str) -> str:
        """`input 'NAME'` or `output 'NAME'` for a graph input or output `name`, else ""."""
        return (f"input {name!r}" if name in self.inputs else
                f"output {name!r}" if name in self.outputs else "")


def _numbered(model: ModelProto) -> tuple[ModelProto, Places]:
    """A copy of `model` whose nodes, in subgraphs too, are named `#0`, `#1`, ... (the
    importer locates each operation at its node's name, so every error is located at one
    node), and the places of its locations: node `#k` by its own name and operator type,
    each initializer by its name (the importer makes it an `onnx.Constant`), and the main
    graph's inputs and outputs."""
    numbered = ModelProto()
    numbered.CopyFrom(model)
    nodes: dict[str, tuple[str, str]] = {}
    for graph in graph_protos(numbered.graph):
        nodes.update((i.name, ("", "Constant")) for i in graph.initializer)
        for node in graph.node:
            key = f"#{len(nodes)}"
            nodes[key] = (node.name, node.op_type)
            node.name = key
    main = numbered.graph
    return numbered, Places(nodes, main.name, tuple(v.name for v in main.input),
                            tuple(v.name for v in main.output))


def _compile(source: str, seconds: float, places: Places) -> bytes:
    """The module iree-compile makes of `source`, from the compiler kept in a child process
    (iree_compiler.py), or from iree-compile as a process when that child crashed on it, is
    turned off (ONNX_SEQ_TESTS_IREE_COMPILER=process) or cannot start; CompileError with
    its first error; RuntimeError after `seconds`."""
    data = source.encode("utf-8")
    answer = None
    if os.environ.get("ONNX_SEQ_TESTS_IREE_COMPILER", "").strip().lower() != "process":
        try:
            answer = iree_compiler.kept_compile(data, FLAGS, seconds)
        except TimeoutError:
            raise RuntimeError(_overran(seconds)) from None
    if answer is None:
        answer = _compile_process(data, seconds)
    if not answer.compiled:
        raise CompileError(
            f"iree-compile: {_compiler_line(answer.diagnostics, answer.code, places)}")
    return answer.module


def _compile_process(data: bytes, seconds: float) -> iree_compiler.Answer:
    """iree-compile's answer for `data`, run as a process."""
    from iree.compiler.tools.binaries import find_tool

    with tempfile.TemporaryDirectory(prefix="iree-") as folder:
        output = Path(folder) / "module.vmfb"
        process = subprocess.Popen([find_tool("iree-compile"), "-", *FLAGS, "-o", str(output)],
                                   stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE,
                                   preexec_fn=iree_compiler.die_with_parent)
        try:
            _, errors = process.communicate(data, timeout=seconds)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise RuntimeError(_overran(seconds)) from None
        finally:
            if process.poll() is None:  # interrupted: never leave the compiler behind
                process.kill()
                process.wait()
        text = errors.decode("utf-8", "replace")
        if process.returncode != 0:
            return iree_compiler.Answer(False, b"", text, process.returncode)
        return iree_compiler.Answer(True, output.read_bytes(), text, 0)


def _overran(seconds: float) -> str:
    return (f"iree-compile gave no result within {seconds:g} s "
            "(ONNX_SEQ_TESTS_IREE_COMPILE_TIMEOUT); it was ended")


def _compiler_line(text: str, code: int, places: Places) -> str:
    """The first `error:` line of iree-compile's output, without its location (a name of
    `places`, `_numbered`), the MLIR it quotes (value numbers differ from model to model)
    and the function's name (the graph's); the ONNX operator it is about is named (quoted in
    the error or the line after it, else the located place's), and the node when it has a
    name of its own (a model's node names say where); an error about the graph's function
    returning operand N names output N (`_returned`); an error located nowhere names the
    nodes the IR printed after the failed pass still holds operations of (`_left_unconverted`)."""
    lines = text.splitlines()
    for at, line in enumerate(lines):
        _, found, rest = line.partition("error: ")
        if found:
            (name, op_type), rest = _located(rest, places)
            quoted = re.search(r'"onnx\.(\w+)"', " ".join([rest, *lines[at + 1:at + 2]]))
            operator = quoted.group(1) if quoted else op_type
            rest = re.sub(r": %.*$", "", rest)
            where = f" at node {name!r}" if name else _returned(rest, places)
            if not (where or op_type):
                where = _left_unconverted(lines[at + 1:], places)
            rest = re.sub(r" in function @\S+$", "", rest).strip()
            return rest + (f" (onnx.{operator})" if operator else "") + where
    return first_line(text) if text.strip() else f"exit code {code}"


#: iree-compile's error about a value the graph's function returns: `type of return operand
#: N (...) doesn't match function result type (...) in function @NAME`.
_RETURNED = re.compile(r"^type of return operand (\d+) .* in function @(\S+)$")


def _returned(error: str, places: Places) -> str:
    """` at output 'NAME'` for an error about return operand N of the main graph's function
    (its results are the graph's outputs, in order), else ""."""
    found = _RETURNED.match(error)
    if found is None or found.group(2).strip('"') != places.graph:
        return ""
    index = int(found.group(1))
    return f" at output {places.outputs[index]!r}" if index < len(places.outputs) else ""


#: An operation of the torch dialect in IR printed with locations, and its location, a name or
#: an alias (`#loc3`, defined at the end: `_ALIAS`): `%6 = torch.prim.ListConstruct ...
#: loc("#12")`; not torch_c's casts, nor torch's constants (folded ones are shared by nodes).
_TORCH_OPERATION = re.compile(
    r'^\s*(?:%[^=]+= )?"?torch\.(?!constant\.)\w[\w.]*\b.*\bloc\((?:"((?:[^"\\]|\\.)*)"|#(\w+))\)$')
#: A location's alias in printed IR: `#loc3 = loc("#15")`.
_ALIAS = re.compile(r'^#(\w+) = loc\("((?:[^"\\]|\\.)*)"\)$')


def _left_unconverted(lines: list[str], places: Places) -> str:
    """` (left unconverted: node 'A', node 'B')`, the nodes with names of their own whose
    torch operations the IR printed after a failed pass (`--mlir-print-ir-after-failure`, in
    `lines`) still holds, in order, for an error located nowhere (iree-compile reports a
    constant that its folding shared among nodes, `torch.constant.int`, when the operations
    using it were not lowered); "" for none."""
    aliases = {m.group(1): m.group(2) for m in map(_ALIAS.match, lines) if m}
    named: list[str] = []
    for found in filter(None, map(_TORCH_OPERATION.match, lines)):
        place = found.group(1) if found.group(1) is not None else aliases.get(found.group(2))
        name, _ = places.nodes.get(place or "", ("", ""))
        if name and name not in named:
            named.append(name)
    return f" (left unconverted: {', '.join(f'node {n!r}' for n in named)})" if named else ""


#: The location iree-compile puts before an error about an operation: `loc("NAME"): `, NAME
#: a name of `_numbered`'s places, or `loc(unknown): `.
_LOCATION = re.compile(r'^loc\((?:"((?:[^"\\]|\\.)*)"|unknown)\): ')


def _located(rest: str, places: Places) -> tuple[tuple[str, str], str]:
    """((the node's own name and the operator type of the place an error is located at, ""
    for each when at none of `places`), the error without its location)."""
    found = _LOCATION.match(rest)
    if found is None:
        return ("", ""), rest
    return places.nodes.get(found.group(1) or "", ("", "")), rest[found.end():]


def timeout() -> float:
    raw = os.environ.get("ONNX_SEQ_TESTS_IREE_COMPILE_TIMEOUT", "")
    try:
        return float(raw) if raw.strip() else COMPILE_TIMEOUT
    except ValueError:
        return COMPILE_TIMEOUT


def cache_folder() -> Path | None:
    """Where compiled modules are kept (see the module's docstring); None when turned off."""
    chosen = os.environ.get("ONNX_SEQ_TESTS_CACHE", "").strip()
    if chosen.lower() == "none":
        return None
    if chosen:
        root = Path(chosen)
    else:
        base = os.environ.get("XDG_CACHE_HOME", "").strip()
        root = (Path(base) if base else Path.home() / ".cache") / "onnx-seq-tests"
    from importlib.metadata import version as installed

    return root / f"iree-{installed('iree-base-compiler')}"


def _cached(folder: Path | None, stem: str) -> bytes | str | None:
    """The cached module (bytes) or compiler message (str) of `stem`, or None."""
    if folder is None:
        return None
    try:
        return (folder / f"{stem}.vmfb").read_bytes()
    except OSError:
        pass
    try:
        return (folder / f"{stem}.error").read_text(encoding="utf-8")
    except OSError:
        return None


def _store(folder: Path | None, name: str, data: bytes) -> None:
    """Write `data` into the cache, atomically; a cache that cannot be written is skipped."""
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, delete=False, suffix=".part") as handle:
            handle.write(data)
        os.replace(handle.name, folder / name)
    except OSError:
        pass
