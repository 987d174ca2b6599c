"""Backends with planted faults: onnxruntime's CPU backend, its outputs then spoiled one way.

Each class is an onnx backend (`prepare(model, device)` -> rep with `run(inputs)`), usable as
`--backend faulty_backends:DropLast` with this folder on PYTHONPATH, and by `backend_test`.
On the tensor-boundary form the same fault spoils the sequences and optionals the model takes
apart, so it shows in their lengths, elements and presence.
"""

from __future__ import annotations

import os
import re
import time

import numpy as np
import onnxruntime.backend
from onnx.backend.base import Backend, BackendRep

import onnx_seq_tests


class _SpoiledRep(BackendRep):
    def __init__(self, rep, spoil, model):
        self._rep, self._spoil = rep, spoil
        self._parts = _taken_apart(model)

    def run(self, inputs, **kwargs):
        outputs = list(self._rep.run(inputs, **kwargs))
        if not self._parts:
            return self._spoil(outputs)
        # The tensor-boundary form: the fault spoils the sequences and optionals inside the
        # model, as a runtime with that fault would, and shows in the tensors taken from them.
        values = [_value(part, outputs) for part in self._parts]
        return _tensors(self._parts, self._spoil(values), len(outputs))


class _Faulty(Backend):
    """onnxruntime, with `spoil(outputs) -> outputs` applied to every run."""

    @staticmethod
    def spoil(outputs: list) -> list:
        raise NotImplementedError

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        return _SpoiledRep(onnxruntime.backend.prepare(model, device, **kwargs), cls.spoil,
                           model)

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return onnxruntime.backend.supports_device(device)


# -- the tensor-boundary form: its outputs' doc strings say which value each is part of -------

_PART = re.compile(r"(length|presence|value|element (\d+)) of (the value of )?output '(.+)'")


def _taken_apart(model) -> list[dict] | None:
    """Per output of the original form, where its parts are among the model's outputs; None
    when the model takes nothing apart."""
    parts, by_name = [], {}
    for i, output in enumerate(model.graph.output):
        match = _PART.fullmatch(output.doc_string)
        if match is None:
            parts.append({"tensor": i})
            continue
        what, k, inner, name = match.groups()
        if name not in by_name:
            by_name[name] = {"elements": []}
            parts.append(by_name[name])
        part = by_name[name]
        if what == "presence":
            part["presence"] = i
        elif what == "value":
            part["value"] = i
        elif what == "length":
            part["length"] = i
        else:
            part["elements"].append(i)
    return parts if by_name else None


def _value(part: dict, outputs: list):
    """The original-form value of one output, from its parts."""
    if "tensor" in part:
        return outputs[part["tensor"]]
    if "presence" in part and not outputs[part["presence"]]:
        return None
    if "value" in part:
        return outputs[part["value"]]
    return [outputs[i] for i in part["elements"]]


def _tensors(parts: list[dict], values: list, count: int) -> list:
    """The model's outputs from the original-form values; a part the model reads from a value
    that no longer has it (SequenceAt past the end) raises, as the runtime would."""
    outputs = [None] * count
    for part, value in zip(parts, values, strict=True):
        if "tensor" in part:
            outputs[part["tensor"]] = value
            continue
        if "presence" in part:
            outputs[part["presence"]] = np.array(value is not None)
            if value is None and ("value" in part or "length" in part):
                raise RuntimeError("OptionalGetElement on an empty optional")
        if "value" in part:
            outputs[part["value"]] = value
        if "length" in part:
            outputs[part["length"]] = np.array(len(value), dtype=np.int64)
        for k, i in enumerate(part["elements"]):
            if k >= len(value):
                raise RuntimeError(f"SequenceAt position {k} is out of range")
            outputs[i] = value[k]
    return outputs


def _each_sequence(value, change):
    """`value` with `change` applied to every sequence in it (outputs are values too)."""
    if isinstance(value, list):
        return change([_each_sequence(v, change) for v in value])
    return value


def _first_tensor(outputs: list, change) -> list:
    """`outputs` with `change` applied to the first tensor holding a value, depth first."""
    done = False

    def walk(value):
        nonlocal done
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, np.ndarray) and value.size and not done:
            done = True
            return change(value)
        return value

    return [walk(v) for v in outputs]


class DropLast(_Faulty):
    """Every sequence loses its last element."""

    @staticmethod
    def spoil(outputs):
        return [_each_sequence(o, lambda s: s[:-1]) for o in outputs]


class LeakAcrossRuns(_Faulty):
    """State kept from one run to the next: modelled on a runtime that folds a constant sequence
    once when it loads the model and lets SequenceInsert append to it in place
    (onnxruntime#14442 made its sequence operators share their tensors instead of copying
    them, the kind of change that makes such aliasing possible). The first run of a prepared
    model is right; every later run gives each sequence one element more (its last, again)."""

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        runs = 0

        def spoil(outputs):
            nonlocal runs
            runs += 1
            return outputs if runs == 1 else [_each_sequence(o, lambda s: s + s[-1:])
                                              for o in outputs]

        return _SpoiledRep(onnxruntime.backend.prepare(model, device, **kwargs), spoil, model)


class EmptySequences(_Faulty):
    """Every sequence comes back empty."""

    @staticmethod
    def spoil(outputs):
        return [_each_sequence(o, lambda s: []) for o in outputs]


class Reverse(_Faulty):
    """Every sequence comes back reversed."""

    @staticmethod
    def spoil(outputs):
        return [_each_sequence(o, lambda s: s[::-1]) for o in outputs]


def _changed(array: np.ndarray) -> np.ndarray:
    array = array.copy()
    index = (0,) * array.ndim
    if array.dtype == object:
        array[index] = array[index] + "x"
    elif array.dtype == np.bool_:
        array[index] = not array[index]
    else:
        array[index] = array[index] + 1 if array[index] < 1 else array[index] - 1
    return array


class ChangeValue(_Faulty):
    """One value of the first tensor changes."""

    @staticmethod
    def spoil(outputs):
        return _first_tensor(outputs, _changed)


def _other_dtype(array: np.ndarray) -> np.ndarray:
    if array.dtype == object:
        return array.astype(str)
    if array.dtype == np.float64:
        return array.astype(np.float32)
    if array.dtype == np.int64:
        return array.astype(np.int32)
    return array.astype(np.int64) if array.dtype == np.bool_ else array.astype(np.float64)


class ChangeDtype(_Faulty):
    """The first tensor comes back in another dtype, same values."""

    @staticmethod
    def spoil(outputs):
        return _first_tensor(outputs, _other_dtype)


class LeadingDim(_Faulty):
    """The first tensor gains a leading dimension of 1."""

    @staticmethod
    def spoil(outputs):
        return _first_tensor(outputs, lambda a: a[np.newaxis])


class FillEmptyOptional(_Faulty):
    """An empty optional output comes back holding an empty float tensor."""

    @staticmethod
    def spoil(outputs):
        return [np.zeros((0,), np.float32) if o is None else o for o in outputs]


FAULTS = (DropLast, EmptySequences, Reverse, ChangeValue, ChangeDtype, LeadingDim,
          FillEmptyOptional)


class CrashOnSequenceEmpty(_Faulty):
    """Kills its own process on a model with a SequenceEmpty node, as a crashing runtime does."""

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        if any(node.op_type == "SequenceEmpty" for node in model.graph.node):
            os._exit(70)
        return onnxruntime.backend.prepare(model, device, **kwargs)


class HangOnSequenceEmpty(_Faulty):
    """Never returns on a model with a SequenceEmpty node, as a runtime stuck in a loop does."""

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        if any(node.op_type == "SequenceEmpty" for node in model.graph.node):
            while True:
                time.sleep(1)
        return onnxruntime.backend.prepare(model, device, **kwargs)


def _has_sequence_empty(model) -> bool:
    return any(node.op_type == "SequenceEmpty" for node in model.graph.node)


class AbortOnSequenceEmpty(_Faulty):
    """Writes a line on stderr, then aborts (SIGABRT) on a model with a SequenceEmpty node."""

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        if _has_sequence_empty(model):
            time.sleep(0.2)
            os.write(2, b"fatal: planted abort in SequenceEmpty\n")
            os.abort()
        return onnxruntime.backend.prepare(model, device, **kwargs)


class SegfaultOnSequenceEmpty(_Faulty):
    """Dereferences a null pointer (SIGSEGV) on a model with a SequenceEmpty node."""

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        if _has_sequence_empty(model):
            import ctypes

            ctypes.string_at(0)
        return onnxruntime.backend.prepare(model, device, **kwargs)


class SlowOnSequenceEmpty(_Faulty):
    """Takes 1.5 s to prepare a model with a SequenceEmpty node, then answers right."""

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        if _has_sequence_empty(model):
            time.sleep(1.5)
        return onnxruntime.backend.prepare(model, device, **kwargs)


class AnsiErrorOnSequenceEmpty(_Faulty):
    """Raises with terminal colour codes and other control characters in its message."""

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        if _has_sequence_empty(model):
            raise RuntimeError("\x1b[31mkernel missing\x1b[0m\x07 for <SequenceEmpty> & \x00")
        return onnxruntime.backend.prepare(model, device, **kwargs)


class HostileErrorOnSequenceEmpty(_Faulty):
    """Raises a 30 MB message holding lone surrogates, control characters and HTML."""

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        if _has_sequence_empty(model):
            raise RuntimeError("bad \udc80\ud800 <script>x</script>\x00\x1b[2J 2**63\n"
                               + "y" * 30_000_000)
        return onnxruntime.backend.prepare(model, device, **kwargs)


class CrashAlways(_Faulty):
    """Kills its own process on every model but the one-node check model (Identity)."""

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        if [node.op_type for node in model.graph.node] != ["Identity"] or \
                model.graph.name != "probe":
            os._exit(70)
        return onnxruntime.backend.prepare(model, device, **kwargs)


class NoPrepare(Backend):
    """An onnx Backend that never implemented prepare (onnx's base class returns None)."""


class PrepareRaises(Backend):
    """A backend whose prepare is not written yet."""

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        raise NotImplementedError("prepare is not written yet")


class Pid(_Faulty):
    """Raises with the id of the process it runs in (the one-node check model aside)."""

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        if model.graph.name == "probe":
            return onnxruntime.backend.prepare(model, device, **kwargs)
        raise RuntimeError(str(os.getpid()))


class BlasThreads(_Faulty):
    """Raises with the OPENBLAS_NUM_THREADS its process was started with (the one-node check
    model aside)."""

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        if model.graph.name == "probe":
            return onnxruntime.backend.prepare(model, device, **kwargs)
        raise RuntimeError(f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}")


class PidAfterAbort(_Faulty):
    """Aborts on a model with a SequenceEmpty node, raises with its process id on the others:
    once it has crashed, verify isolates it, and where its later cases run shows in the ids."""

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        if model.graph.name == "probe":
            return onnxruntime.backend.prepare(model, device, **kwargs)
        if _has_sequence_empty(model):
            os.abort()
        raise RuntimeError(str(os.getpid()))


class PidAfterAbortNotForkSafe(PidAfterAbort):
    """The same, declared not fork-safe (as the OpenVINO adapter is): never run in a fork."""

    fork_safe = False


class ExtraOutput(_Faulty):
    """Every run gives one output more than the model has."""

    @staticmethod
    def spoil(outputs):
        return [*outputs, np.zeros((1,), np.float32)]


class MissingOutput(_Faulty):
    """Every run gives one output fewer than the model has."""

    @staticmethod
    def spoil(outputs):
        return outputs[:-1]


class ListForTensor(_Faulty):
    """Every tensor output comes back wrapped in a list, where a tensor belongs."""

    @staticmethod
    def spoil(outputs):
        return [[o] if isinstance(o, np.ndarray) else o for o in outputs]


class WrongKind(_Faulty):
    """Every output comes back as a string, a kind no ONNX value has."""

    @staticmethod
    def spoil(outputs):
        return ["not a value" for _ in outputs]


class NotAList(_Faulty):
    """run gives a dict instead of a list of outputs."""

    @staticmethod
    def spoil(outputs):
        return {str(k): o for k, o in enumerate(outputs)}


class RaiseOnRun(_Faulty):
    """run raises, as a runtime that refuses a model at run time does."""

    @staticmethod
    def spoil(outputs):
        raise RuntimeError("planted failure\n  at frame 1\n  at frame 2")


#: Faults in the shape of the outputs rather than their values: every case is judged (fail or
#: error), none ends the run.
BAD_SHAPES = (ExtraOutput, MissingOutput, ListForTensor, WrongKind, NotAList, RaiseOnRun)


# -- the output contract, refusals, huge messages, processes left behind ----------------------

class ArrayImpl:
    """A tensor type of another library (as jax's jaxlib...ArrayImpl): convertible by
    numpy.asarray, but not a numpy.ndarray."""

    def __init__(self, array):
        self._array = array

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self._array, dtype=dtype)


def _foreign(value):
    if isinstance(value, np.ndarray):
        return ArrayImpl(value)
    if isinstance(value, list):
        return [_foreign(v) for v in value]
    return value


class ForeignArrays(_Faulty):
    """Every tensor (also inside sequences) comes back as an ArrayImpl: an adapter that
    forgot numpy.asarray."""

    @staticmethod
    def spoil(outputs):
        return [_foreign(o) for o in outputs]


class CannotTakeOnRun(_Faulty):
    """Prepares every model, then refuses every run as an adapter refuses a value kind: with
    the package's public CannotTake."""

    @staticmethod
    def spoil(outputs):
        raise onnx_seq_tests.CannotTake("this runtime cannot take a sequence input ('s')")


class CannotTake(RuntimeError):
    """An error of the backend's own named CannotTake: not the package's type."""


class SaysCannotTake(_Faulty):
    """Raises errors that look like refusals (a class named CannotTake, a message saying
    "cannot take") but are not of the package's CannotTake type: errors, not refusals."""

    @staticmethod
    def spoil(outputs):
        raise CannotTake("this runtime cannot take a sequence input ('s')")


class HugeMessage(Backend):
    """prepare raises with a 10 MB message (the one-node check model aside)."""

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        if model.graph.name == "probe":
            return onnxruntime.backend.prepare(model, device, **kwargs)
        raise RuntimeError("x" * 10_000_000)


def sleep_mark() -> str:
    """`3600.<pid of the process that called verify>`: the argument of the `sleep` processes
    SpawnSleepers starts, by which a test finds those of its own run."""
    import multiprocessing

    parent = multiprocessing.parent_process()
    return f"3600.{parent.pid if parent else os.getpid()}"


class SpawnSleepers(_Faulty):
    """On every case, starts a `sleep` child and an orphan `sleep` (its shell exits at once,
    so it is reparented), as a runtime's compiler subprocess could be left behind; then answers
    like onnxruntime."""

    hang = False

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        if model.graph.name != "probe":
            import subprocess

            mark = sleep_mark()
            subprocess.Popen(["sleep", mark])
            subprocess.run(["sh", "-c", f"sleep {mark} &"], check=True)
            while cls.hang and _has_sequence_empty(model):
                time.sleep(1)
        return onnxruntime.backend.prepare(model, device, **kwargs)


class SpawnSleepersThenHang(SpawnSleepers):
    """The same, and it never returns on a model with a SequenceEmpty node."""

    hang = True


def daemon_file(caller: int | None = None) -> str:
    """The file where SetsidDaemon and DoubleForkDaemon note the pid of each daemon they
    start, one line each, for the verify run of `caller` (default: the process that started
    this worker)."""
    import multiprocessing
    import tempfile

    if caller is None:
        parent = multiprocessing.parent_process()
        caller = parent.pid if parent else os.getpid()
    return os.path.join(tempfile.gettempdir(), f"seq-daemons.{caller}")


def _note_daemon(pid: int) -> None:
    with open(daemon_file(), "a") as file:
        file.write(f"{pid}\n")


class SetsidDaemon(_Faulty):
    """On every case, prepare starts a child that calls setsid() (a compiler server in a
    session of its own: out of the worker's process group) and leaves it running; then
    answers like onnxruntime."""

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        if model.graph.name != "probe":
            import subprocess

            child = subprocess.Popen(["sleep", sleep_mark()], start_new_session=True)
            _note_daemon(child.pid)
        return onnxruntime.backend.prepare(model, device, **kwargs)


class DoubleForkDaemon(_Faulty):
    """On every case, prepare starts a daemon as daemons do: fork, setsid() in the child, fork
    again and exit, so the daemon is an orphan in a session of its own; then answers like
    onnxruntime."""

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        if model.graph.name != "probe":
            mark = sleep_mark()
            read, write = os.pipe()
            child = os.fork()
            if child == 0:
                try:
                    os.setsid()
                    daemon = os.fork()
                    if daemon == 0:
                        os.execvp("sleep", ["sleep", mark])
                    os.write(write, f"{daemon}".encode())
                finally:
                    os._exit(0)
            os.close(write)
            os.waitpid(child, 0)
            with os.fdopen(read) as pipe:
                _note_daemon(int(pipe.read()))
        return onnxruntime.backend.prepare(model, device, **kwargs)


class SetsidDaemonThenCrash(SetsidDaemon):
    """SetsidDaemon, and on a model with a SequenceEmpty node the worker then aborts: the daemon
    it started outlives its worker's crash unless something else ends it."""

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        rep = super().prepare(model, device, **kwargs)
        if _has_sequence_empty(model):
            os.abort()
        return rep


class SetsidDaemonThenHang(SetsidDaemon):
    """SetsidDaemon, and it never returns on a model with a SequenceEmpty node."""

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        rep = super().prepare(model, device, **kwargs)
        while _has_sequence_empty(model):
            time.sleep(1)
        return rep


# -- a backend that exits 0 mid-run (fuzz's campaigns) -----------------------------------------

class ExitZeroOnSequenceEmpty(_Faulty):
    """Ends its process with exit status 0 (`os._exit(0)`, no verdict given) while preparing a
    model with a SequenceEmpty node, as a runtime that calls exit() on an unsupported model
    does; answers like onnxruntime on the others."""

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        if _has_sequence_empty(model):
            os._exit(0)
        return onnxruntime.backend.prepare(model, device, **kwargs)


class SysExitZeroOnSequenceEmpty(_Faulty):
    """The same with `sys.exit(0)` (a SystemExit, which `except Exception` does not catch)."""

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        if _has_sequence_empty(model):
            import sys

            sys.exit(0)
        return onnxruntime.backend.prepare(model, device, **kwargs)


def _boundary_elements(model) -> set[int]:
    """The element types of a model's graph inputs and outputs (inside sequences/optionals)."""
    found = set()
    for value in (*model.graph.input, *model.graph.output):
        t = value.type
        while t.HasField("sequence_type") or t.HasField("optional_type"):
            t = t.sequence_type.elem_type if t.HasField("sequence_type") \
                else t.optional_type.elem_type
        found.add(t.tensor_type.elem_type)
    return found


class RefuseFloat(_Faulty):
    """Refuses (prepare raises) every model with a float graph input or output, as a runtime
    refuses an element type it lacks; answers like onnxruntime on the others (and on the
    one-node check model)."""

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        if model.graph.name != "probe" and 1 in _boundary_elements(model):  # TensorProto.FLOAT
            raise RuntimeError("this runtime does not support float tensors")
        return onnxruntime.backend.prepare(model, device, **kwargs)


class RefuseSequenceBoundary(_Faulty):
    """Refuses (prepare raises) every model with a sequence or optional graph input or
    output, as IREE's adapter does (its compiled functions take and give tensors only);
    answers like onnxruntime on the others."""

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        for value in (*model.graph.input, *model.graph.output):
            if not value.type.HasField("tensor_type"):
                raise RuntimeError(f"cannot take a sequence or optional at {value.name!r}")
        return onnxruntime.backend.prepare(model, device, **kwargs)


class RefuseSequenceEmptyAtItsNode(_Faulty):
    """Refuses a model with a SequenceEmpty node in its prepare, naming the first such node as
    a compiler names the node it cannot lower (IREE's adapter does): `at node 'NAME'`."""

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        for node in model.graph.node:
            if node.op_type == "SequenceEmpty":
                raise RuntimeError(f"cannot lower SequenceEmpty at node {node.name!r}")
        return onnxruntime.backend.prepare(model, device, **kwargs)
