"""What a verify worker process does: load the backends once, then read each case folder it is
sent, run it on each backend and judge every data set with the comparator.

The messages to and from the parent are the records of messages.py, in the order it states.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from dataclasses import dataclass, replace
from multiprocessing import connection
from pathlib import Path
from typing import Any

import onnx

from .._core.cases import graph_protos
from .._core.compare import differences
from .._core.differences import Difference
from .._core.elements import BY_PROTO
from .._core.errors import CannotTake, ReadError, Unsupported
from .._core.operators import model_opset
from .._published.case_folder import CaseFolder, read_case_folder
from .._runtimes.backends import check_backend, load_backend, prepare, run_prepared
from .._runtimes.outputs import contract_problem
from . import transformed
from .judged import Judged
from .messages import (
    BackendVerdict,
    Broken,
    CaseRead,
    ForkDied,
    Group,
    ProbeReport,
    Ready,
)
from .reaping import LIBC, become_subreaper, end_tree

#: At most this many comparator messages are kept per case and backend.
MAX_MESSAGES = 10
#: A message (a backend's error, the comparator's findings) is cut to this many characters.
MAX_TEXT = 64 * 1024


def serve(conn: connection.Connection, specs: tuple[str, ...], log: str, probe: bool) -> None:
    """The worker's loop; ends when the parent closes its pipe or sends None.

    A task is a CaseTask. An isolated backend runs the case in a process forked from this one
    (a few milliseconds), so when it crashes it takes that process down, not the worker, which
    reports ForkDied and moves on (unless the backend is not fork-safe, see _fork_safe)."""
    backends = _start(conn, specs, log, probe)
    if backends is None:
        return
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        folder, info = read(Path(task.path))  # the first backend's clock runs meanwhile
        conn.send(CaseRead(info, os.fstat(2).st_size))
        for spec in task.specs:
            if spec not in task.isolated or folder is None or not _fork_safe(backends[spec]):
                _run_one(conn, folder, info, spec, backends[spec])
            elif not _run_forked(conn, folder, info, spec, backends[spec]):
                break  # the parent gives the backends left to another run


def _start(conn: connection.Connection, specs: tuple[str, ...], log: str,
           probe: bool) -> dict | None:
    """Set the worker up (a process group of its own, a subreaper, ended with its parent, its
    output to `log`), load its backends and say so (Group, ProbeReport if `probe`, Ready): the
    backends by spec, or None when one cannot be loaded (Broken sent)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    os.setpgid(0, 0)  # a group of its own: what a backend starts here is ended with the worker
    become_subreaper()  # and what leaves the group (setsid, a double fork) stays below it
    conn.send(Group())
    _end_with_parent()
    fd = os.open(log, os.O_WRONLY | os.O_APPEND)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    try:
        backends = _loaded(specs)
    except Exception as error:  # reported by the parent as one line
        conn.send(Broken(error_text(error)))
        return None
    if probe:
        conn.send(ProbeReport([check_backend(backends[spec], spec) for spec in specs
                               if not transformed.is_transformed(spec)]))
    conn.send(Ready())
    return backends


def _loaded(specs: tuple[str, ...]) -> dict[str, Any]:
    """Each subject's backend, loaded once per backend spec; a transformed subject's
    (`T>B`, transformed.py) is a Transformed holding B's backend and the chain."""
    from .._transforms import load_transform

    plain: dict[str, Any] = {}
    for spec in specs:
        backend = transformed.split(spec)[1]
        if backend not in plain:
            plain[backend] = load_backend(backend)
            _quiet(backend)
    found: dict[str, Any] = {}
    for spec in specs:
        chain, backend = transformed.split(spec)
        found[spec] = Transformed(plain[backend], [load_transform(t) for t in chain]) \
            if chain else plain[backend]
    return found


@dataclass(frozen=True)
class Transformed:
    """A transformed subject's backend: the chain runs on each case's model before it."""

    backend: Any
    chain: list


def _judge_subject(folder: CaseFolder, backend: Any) -> Judged:
    """`judge`, after the chain of a Transformed subject ran on the case's model."""
    if not isinstance(backend, Transformed):
        return judge(folder, backend)
    model, outcome, message = transformed.transformed_model(folder.model, backend.chain)
    if model is None:
        return Judged(outcome, cap(message))
    return judge(replace(folder, model=model), backend.backend)


def _run_forked(conn: connection.Connection, folder: CaseFolder, info: dict, spec: str,
                backend: Any) -> bool:
    """Run one backend on the case in a process forked for it; whether it gave its verdict
    (False: ForkDied sent, the task ends here)."""
    done, told = os.pipe()  # a byte on it: the fork sent its verdict (an exit 0 alone
    pid = os.fork()         # may be a backend's os._exit(0) before any verdict)
    if pid == 0:  # the case's own process: it never returns into the worker's loop
        code = 1
        try:
            _die_with_parent()
            _run_one(conn, folder, info, spec, backend)
            os.write(told, b"1")
            code = 0
        except SystemExit as stop:  # the backend's sys.exit(n): exit n, as a worker does
            code = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
        finally:
            os._exit(code)
    os.close(told)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    os.set_blocking(done, False)  # a process the backend forked may hold `told` open
    try:
        answered = os.read(done, 1) == b"1"
    except BlockingIOError:
        answered = False
    os.close(done)
    if code != 0 or not answered:
        conn.send(ForkDied(code))
        return False
    return True


def _fork_safe(backend) -> bool:
    """Whether a process forked from this worker can run `backend` (its `fork_safe`, default
    true). A forked child inherits the locks of the threads a runtime started but not the
    threads, so a runtime whose pool then deadlocks (OpenVINO's) says `fork_safe = False`: it
    runs its cases in the worker itself, and a crash costs the worker, which the parent
    replaces."""
    inner = backend.backend if isinstance(backend, Transformed) else backend
    return getattr(inner, "fork_safe", True)


def _run_one(conn: connection.Connection, folder: CaseFolder | None, info: dict, spec: str,
             backend: Any) -> None:
    start = time.perf_counter()
    judged = info["unread"] if folder is None else _judge_subject(folder, backend)
    conn.send(BackendVerdict(spec, judged.outcome, judged.message,
                             round(time.perf_counter() - start, 6), judged.differences,
                             judged.error_type))


def _end_with_parent() -> None:
    """End this worker, its process group and every process below it (what its backends
    started, also what left the group) as soon as the process that started it ends, however
    it ends, even while a backend is stuck: a thread waits on the parent's sentinel."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        connection.wait([parent.sentinel])
        try:
            end_tree(os.getpid())  # what left its group: below it, as it is a subreaper
            os.killpg(0, signal.SIGKILL)  # its own group, itself included
        finally:
            os._exit(3)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _die_with_parent() -> None:
    """On Linux, have the kernel end this process when the worker that forked it ends."""
    try:
        LIBC.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except AttributeError:  # no libc handle, or no prctl (not Linux)
        pass


def read(path: Path, strict: bool = False) -> tuple[CaseFolder | None, dict]:
    """The case folder (read_case_folder, not `strict` unless asked) and what the report needs
    from its model: element types, operators, opset; (None, info) when it cannot be read, info
    holding under "unread" what every subject gets for it (`unread`). A folder with a graph
    value of a kind this tool cannot read still has its model read, so its operators count."""
    try:
        folder = read_case_folder(path, strict=strict)
        return folder, _about(folder.model)
    except Exception as error:  # a broken folder is this case's outcome, not the run's end
        model = error.model if isinstance(error, Unsupported) else None
        info = _about(model) if model is not None else {
            "element": "(unreadable)", "operators": [], "opset": None}
        return None, {**info, "unread": unread(error)}


def _about(model: onnx.ModelProto) -> dict:
    return {"element": case_elements(model), "operators": model_operators(model),
            "opset": model_opset(model)}


def unread(error: BaseException) -> Judged:
    """The outcome of a case folder that cannot be read, on every subject: `refused` when a
    graph input or output has a value kind this tool cannot read (Unsupported, a sparse tensor,
    ...: its message, `this tool cannot read a sparse tensor: graph input 'x' is ...`),
    else `error`, `cannot read the case folder: why`."""
    if isinstance(error, Unsupported):
        return Judged("refused", cap(error.what), (), type(error).__name__)
    text = str(error) if isinstance(error, ReadError) else error_text(error)
    return Judged("error", cap(f"cannot read the case folder: {text}"))


def _quiet(spec: str) -> None:
    """Keep onnxruntime's warnings out of the worker's output: what a backend reports for a
    case is kept in its outcome's message."""
    if spec == "onnxruntime":
        import onnxruntime

        onnxruntime.set_default_logger_severity(4)  # 3 still prints errors to stderr


def run_on(folder: CaseFolder, backend: Any) -> tuple[str, str]:
    """(outcome, message) of one case folder on one backend (object or spec), as `judge`
    gives them."""
    judged = judge(folder, backend)
    return judged.outcome, judged.message


def judge(folder: CaseFolder, backend: Any) -> Judged:
    """How one case folder fares on one backend (object or spec): `refused` when prepare
    raises or the adapter cannot take a value kind (see refusal), `error` when a run raises
    after a successful prepare or the outputs break the contract (outputs.py), `fail` when the
    comparator finds a difference (its records kept, at most MAX_MESSAGES), else `pass`. The
    message is capped (cap)."""
    if not folder.data_sets:
        return Judged("error", "the case folder has no test_data_set_* folder")
    names = [o.name for o in folder.model.graph.output]
    found: list[Difference] = []
    try:
        rep = prepare(backend, folder.model)
    except Exception as error:  # the runtime would not prepare the model
        return Judged("refused", cap(error_text(error)), (), type(error).__name__)
    try:
        for k, (inputs, expected) in enumerate(folder.data_sets):
            actual = run_prepared(rep, inputs)
            broken = contract_problem(actual, folder.output_types)
            if broken:
                return Judged("error", cap(f"data set {k}: {broken}" if k else broken))
            found.extend(replace(d, data_set=k) for d in differences(
                expected, actual, atol=folder.atol, rtol=folder.rtol, names=names,
                types=folder.output_types))
    except Exception as error:  # the backend raised: an outcome, with its message kept
        return Judged("refused" if refusal(error) else "error", cap(error_text(error)), (),
                      type(error).__name__)
    if found:
        return Judged("fail", fail_message(found), tuple(found[:MAX_MESSAGES]))
    return Judged("pass", "")


def fail_message(found: list[Difference]) -> str:
    """The message of a `fail`: the first MAX_MESSAGES differences, one line each with its
    data set, then how many more there are; capped (cap)."""
    hidden = len(found) - MAX_MESSAGES
    kept = [d.message() for d in found[:MAX_MESSAGES]]
    return cap("\n".join(kept + ([f"... and {hidden} more"] if hidden > 0 else [])))


def refusal(error: BaseException) -> bool:
    """Whether an error raised while running is a refusal: the runtime's API cannot take (or
    give) a value kind, raised as CannotTake (`onnx_seq_tests.CannotTake` for a backend of
    one's own); told by its type, never by its class's name or its message."""
    return isinstance(error, CannotTake)


def cap(text: str, limit: int = MAX_TEXT) -> str:
    """`text` cut to `limit` characters, with a note of how much was cut: no backend can make
    a report grow without bound."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n... [{len(text) - limit} more characters cut]"


def error_text(error: BaseException) -> str:
    text = str(error).strip() or "(no message)"
    return f"{type(error).__name__}: {text}"


def model_operators(model: onnx.ModelProto) -> list[str]:
    """Every op type of the model and its subgraphs, sorted, once each."""
    return sorted({node.op_type for graph in graph_protos(model.graph) for node in graph.node})


def case_elements(model: onnx.ModelProto) -> str:
    """The element types a case moves: those of its sequence and optional values (graph
    boundary and, after shape inference, inside), else those of its graph inputs, else of its
    outputs; joined with '+'. A graph whose nodes make no value beside its outputs, and whose
    boundary types are complete, is not inferred: inference would add nothing."""
    inferred = model
    if not _nothing_to_infer(model.graph):
        try:
            inferred = onnx.shape_inference.infer_shapes(model)
        except Exception:  # a model onnx cannot infer still gets a summary from its boundary
            inferred = model
    graph = inferred.graph
    boundary = [*graph.input, *graph.output]
    groups = ([v for v in [*boundary, *graph.value_info] if _is_container(v)],
              list(graph.input), list(graph.output))
    for group in groups:
        names = sorted({n for n in map(_element_name, group) if n is not None})
        if names:
            return "+".join(names)
    return "(none)"


def _nothing_to_infer(graph: onnx.GraphProto) -> bool:
    """Whether shape inference would leave the summary's values as they are: every value a
    node of the graph makes is a graph output, and every boundary type is complete."""
    outputs = {value.name for value in graph.output}
    if any(name and name not in outputs for node in graph.node for name in node.output):
        return False
    return all(_element_name(value) is not None for value in [*graph.input, *graph.output])


def _is_container(value: onnx.ValueInfoProto) -> bool:
    return value.type.WhichOneof("value") in ("sequence_type", "optional_type")


def _element_name(value: onnx.ValueInfoProto) -> str | None:
    """The name of the element type at the bottom of a value's type (the tensors inside its
    sequences and optionals); None for a map, and for a type this tool cannot read (a sparse
    tensor, no type, an element type it does not know)."""
    proto = value.type
    while True:
        which = proto.WhichOneof("value")
        if which == "tensor_type":
            element = BY_PROTO.get(proto.tensor_type.elem_type)
            return None if element is None else element.name
        if which == "sequence_type":
            proto = proto.sequence_type.elem_type
        elif which == "optional_type":
            proto = proto.optional_type.elem_type
        else:
            return None
