"""IR-level checks of a case's values against its declared types, at build time.

ONNX IR.md: a dim variable (a named dim) stands for one size; it "must be the same" in every
place it appears, across all tensors of a sequence and across the graph's inputs and outputs
in one run (a data set). A value's kind, element type and rank must be those declared,
inside sequences and optionals too. Each problem is reported at the place of the data set (or
initializer) that holds the value.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .cases import Case
from .problems import Problem, quote
from .value_types import OptionalType, SequenceType, TensorType, ValueType


def check_case(case: Case) -> list[Problem]:
    """Every data set (and initializer) whose values break the IR rules above."""
    problems: list[Problem] = []
    for initializer in case.graph.initializers:
        messages: list[str] = []
        _walk(initializer.value, initializer.type, f"initializer {quote(initializer.name)}", {},
              messages)
        where = initializer.where
        problems.extend(Problem(where.path, where.line, where.column,
                                f"case {quote(case.name)}: {m}") for m in messages)
    for k, data_set in enumerate(case.data_sets):
        bindings: dict[str, tuple[int, str]] = {}
        messages = []
        for side, decls, values in (("input", case.graph.inputs, data_set.inputs),
                                    ("output", case.graph.outputs, data_set.outputs)):
            for decl, value in zip(decls, values, strict=True):
                _walk(value, decl.type, f"{side} {quote(decl.name)}", bindings, messages)
        where = data_set.where
        problems.extend(Problem(where.path, where.line, where.column,
                                f"case {quote(case.name)}: data set {k}: {m}") for m in messages)
    return problems


def _walk(value: Any, value_type: ValueType, label: str,
          bindings: dict[str, tuple[int, str]], messages: list[str]) -> None:
    if isinstance(value_type, OptionalType):
        if value is not None:
            _walk(value, value_type.element, label, bindings, messages)
        return
    if isinstance(value_type, SequenceType):
        if not isinstance(value, list):
            messages.append(f"{label} is declared {value_type}, but its value is not a "
                            "sequence")
            return
        for i, element in enumerate(value):
            _walk(element, value_type.element, f"{label}, element {i}", bindings, messages)
        return
    _tensor(value, value_type, label, bindings, messages)


def _tensor(value: Any, tensor_type: TensorType, label: str,
            bindings: dict[str, tuple[int, str]], messages: list[str]) -> None:
    if value is None or isinstance(value, list):
        messages.append(f"{label} is declared {tensor_type}, but its value is "
                        f"{'an empty optional' if value is None else 'a sequence'}")
        return
    array = np.asarray(value)
    if array.dtype != tensor_type.element.dtype:
        messages.append(f"{label} is declared {tensor_type}, but its value holds "
                        f"{array.dtype}")
        return
    shape = tensor_type.shape
    if shape is None:
        return
    if array.ndim != len(shape):
        messages.append(f"{label} has rank {array.ndim}, its type declares rank {len(shape)}")
        return
    for axis, (size, dim) in enumerate(zip(array.shape, shape, strict=True)):
        if isinstance(dim, int) and dim != size:
            messages.append(f"{label} has size {size} on axis {axis}, its type declares {dim}")
        elif isinstance(dim, str):
            bound = bindings.setdefault(dim, (size, label))
            if bound[0] != size:
                messages.append(
                    f"dim {quote(dim)} is {bound[0]} in {bound[1]} but {size} in {label} (axis "
                    f"{axis}); a named dim stands for one size in every tensor of a sequence "
                    "and across a data set's inputs and outputs (ONNX IR.md); declare the dim "
                    "as ~ (unknown) where sizes differ")
