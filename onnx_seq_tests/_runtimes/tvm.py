"""Apache TVM as an onnx backend: the Relax ONNX frontend, compiled for the llvm target (the
LLVM inside the `apache-tvm` wheel) and run by the Relax virtual machine on the CPU.

What TVM's API can take decides what is refused (CannotTake), nothing is faked:
- every graph input is read as a tensor, so a sequence input (or an optional sequence) is
  refused; an optional input is
  erased to its value, so a present one is fed as the tensor and an empty one (None) refused;
- outputs: a sequence comes back as a Relax tuple (given as a list of tensors), a Shape the
  frontend knows when converting as a shape (given as an int64 array); an optional
  output is erased to its value (given as the present value; the frontend itself refuses a
  graph whose optional output it knows to be empty);
- no string or complex tensors; the runtime reads no numpy arrays of sub-byte integers
  (int4, uint4, int2, uint2).
Tensors travel by their bits (bfloat16 and the float8 kinds included). TVM_NUM_THREADS is 1
unless set: verify runs one case per core.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from typing import Any

import numpy as np
from onnx import ModelProto
from onnx.backend.base import BackendRep

from .._core.errors import CannotTake
from . import adapter
from .adapter import CPUBackend, as_array, boundary, call_main, dtype_name, first_line

#: This runtime's record (records.py says what each key means).
RUNTIME: dict[str, Any] = {
    "name": "tvm",
    "label": "TVM (Relax, llvm)",
    "summary": "the Relax ONNX frontend, tvm.compile(target=\"llvm\"), the Relax VM on the CPU",
    "requires": ["apache-tvm==0.27.0.post1"],
    "imports": ["tvm"],
    "version": "{apache-tvm}, Relax VM, target llvm",
    # verify runs one case per core
    "environment": {"TVM_NUM_THREADS": "1"},
    # fuzz: programs per compiled model: one. Since `runnable` a program alone takes about
    # 5 ms, and packing 64 judged fewer programs/s than one per model (48 against 65 valid
    # programs/s, docs/fuzzing.md, 2026-12-05; it was 64 when a model cost 0.25 s)
    "pack": 1,
    # an unknown, unnamed input dim of a model is one symbol (docs/findings/tvm.md): a pack
    # holds at most one program with one
    "shared_unknown_dims": True,
}
WHY = "TVM's Relax frontend reads every graph input as a tensor"
TARGET = "llvm"
#: ml_dtypes kinds narrower than a byte: numpy stores one per byte, TVM's runtime packs them.
_PACKED = ("int4", "uint4", "int2", "uint2")


def load() -> TVMBackend:
    """The backend; ImportError when apache-tvm is not installed."""
    os.environ["TVM_NUM_THREADS"] = (os.environ.get("TVM_NUM_THREADS")
                                     or RUNTIME["environment"]["TVM_NUM_THREADS"])
    import tvm  # noqa: F401
    from tvm.relax.frontend import onnx  # noqa: F401

    return TVMBackend()


class TVMRep(BackendRep):
    def __init__(self, model: ModelProto, backend: TVMBackend | None = None):
        import tvm
        from tvm import relax
        from tvm.relax.frontend.onnx import from_onnx

        self._inputs, self._outputs = boundary(model)
        for name in adapter.sequence_inputs(model):
            raise CannotTake(f"tvm cannot take a sequence input ({name!r}): {WHY}")
        try:
            module = from_onnx(model, keep_params_in_input=False)
            executable = tvm.compile(module, target=TARGET)
        except Exception as error:  # the frontend and the compiler raise many kinds
            raise RuntimeError(first_line(str(error))) from None
        self._main = relax.VirtualMachine(runnable(executable), tvm.cpu())["main"]

    def run(self, inputs: list[Any], **kwargs: Any) -> list[Any]:  # type: ignore[override]
        if len(inputs) != len(self._inputs):
            raise ValueError(f"the model has {len(self._inputs)} input(s), got {len(inputs)}")
        feeds = []
        for (name, _), value in zip(self._inputs, inputs, strict=True):
            if value is None:
                raise CannotTake(f"tvm cannot take an empty optional input ({name!r}): the "
                                 "Relax frontend erases optionals to their value")
            feeds.append(to_tensor(as_array(value, f"input {name!r}"), f"input {name!r}"))
        return [from_value(r) for r in call_main(self._main, feeds, len(self._outputs))]


def runnable(executable):
    """What the Relax VM runs: `executable` (the VM's `Executable.jit` links it) unless every
    module jit would link is a C source module with no code. tvm.compile gives a model with
    no TIR function (most sequence programs: tuples of tensors only) such a module, whose
    source is `;`, and jit links it by the system's C compiler, in a child process, into a
    shared library holding the serialized executable, then loads that: 30 to 100 ms a model
    for an empty library. Then the executable is serialized and loaded back the same way
    through a file (its own `write_to_file`, `relax.ExecutableLoadFromFile`), without the
    compiler: what the VM runs, and what fails to load (a constant with a zero dim), is what
    jit gives."""
    import tvm

    linked = [m for m in _imported(executable.mod) if m.kind in ("c", "static_library")]
    if not linked or any(m.kind != "c" or m.inspect_source().strip("; \n") for m in linked):
        return executable
    with tempfile.TemporaryDirectory(prefix="gen-seq-tests-tvm-") as folder:
        path = os.path.join(folder, "executable")
        executable.mod.write_to_file(path)
        return tvm.get_global_func("relax.ExecutableLoadFromFile")(path)


def _imported(module):
    """Every module `module` imports, at any depth."""
    for imported in module.imports:
        yield imported
        yield from _imported(imported)


class TVMBackend(CPUBackend):
    """TVM; see the module's docstring for what it can take."""

    rep = TVMRep


def to_tensor(array: np.ndarray, what: str):
    """A TVM runtime tensor holding `array`'s bits; CannotTake for kinds TVM cannot hold."""
    import tvm

    if array.dtype.kind in "OUSc":
        raise CannotTake(f"tvm has no {dtype_name(array)} tensors ({what})")
    if array.dtype.name in _PACKED:
        raise CannotTake(f"tvm's runtime takes no numpy {array.dtype.name} arrays (it packs "
                         f"them two or four to a byte) ({what})")
    try:
        return tvm.runtime.tensor(np.require(array, requirements="C"))
    except ValueError as error:  # "unknown dtype ..."
        raise CannotTake(f"tvm: {first_line(str(error))} ({what})") from None


def from_value(value):
    """A TVM result as onnx's convention has it: a tensor as a numpy array, a shape (what
    the frontend makes of a Shape it knows when converting) as an int64 array, a tuple (a
    sequence) as a list."""
    import tvm

    if isinstance(value, tvm.runtime.Tensor):
        return value.numpy()
    if isinstance(value, tvm.runtime.ShapeTuple):  # a tuple too: before the Sequence test
        return np.array(value, dtype=np.int64)
    if isinstance(value, Sequence):  # a Relax tuple is a tvm_ffi Array, a Sequence
        return [from_value(v) for v in value]
    return value  # anything else is given back as it is, for the comparator to judge
