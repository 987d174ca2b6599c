"""The output contract of a backend, checked before the comparator judges the values.

`rep.run(inputs)` must return a list or tuple with one value per graph output, and each value
must be made of
  numpy.ndarray (or a numpy scalar, read as a 0-d tensor)   for a tensor
  list or tuple of such values                               for a sequence
  None (empty) or the value itself (present)                 for an optional
  dict of key (int or str) -> such values                    for a map
which is onnx's backend convention and what the comparator reads. A value of another Python
type (a jax or torch array, a Python int, a dict) breaks the contract: that is a fault of the
adapter, not of the runtime, and `contract_problem` names it. A value of the right Python types
but the wrong kind (a list where a tensor is due, None where a sequence is due) is within the
contract: the comparator judges it as a wrong answer of the runtime.
"""

from __future__ import annotations

import numpy as np

from .._core.value_kinds import MapType, OptionalType, SequenceType, ValueType

#: The message of a contract violation starts with this.
PREFIX = "adapter error: "


def contract_problem(outputs, types: list[ValueType] | None = None) -> str | None:
    """Why `outputs` breaks the output contract (`adapter error: output 0 is a
    jaxlib...ArrayImpl, expected numpy.ndarray`), or None when it keeps it. `types` (the graph
    outputs' value types) only make the expected type in the message precise."""
    if not isinstance(outputs, (list, tuple)):
        return (f"{PREFIX}run(inputs) returned {_a(type_name(outputs))}, expected a list of "
                "outputs")
    for index, value in enumerate(outputs):
        value_type = types[index] if types and index < len(types) else None
        problem = _value_problem(value, value_type, f"output {index}")
        if problem:
            return PREFIX + problem
    return None


def _value_problem(value, value_type: ValueType | None, where: str) -> str | None:
    if value is None or isinstance(value, (np.ndarray, np.generic)):
        return None
    if isinstance(value, (list, tuple)):
        element = _element_type(value_type)
        for k, item in enumerate(value):
            problem = _value_problem(item, element, f"{where}, element {k}")
            if problem:
                return problem
        return None
    if isinstance(value, dict):
        inner = value_type.value if isinstance(value_type, MapType) else None
        for key, item in value.items():
            problem = _value_problem(item, inner, f"{where}, key {key!r}")
            if problem:
                return problem
        return None
    return f"{where} is {_a(type_name(value))}, expected {_expected(value_type)}"


def _element_type(value_type: ValueType | None) -> ValueType | None:
    while isinstance(value_type, OptionalType):
        value_type = value_type.element
    return value_type.element if isinstance(value_type, SequenceType) else None


def _expected(value_type: ValueType | None) -> str:
    if isinstance(value_type, OptionalType):
        return f"None or {_expected(value_type.element)}"
    if isinstance(value_type, SequenceType):
        return "a list"
    if isinstance(value_type, MapType):
        return "a dict"
    return "numpy.ndarray"


def type_name(value) -> str:
    """The full name of a value's type: `jaxlib.xla_extension.ArrayImpl`, `int`."""
    kind = type(value)
    module = kind.__module__
    return kind.__qualname__ if module == "builtins" else f"{module}.{kind.__qualname__}"


def _a(name: str) -> str:
    return f"an {name}" if name[:1].lower() in "aeiou" else f"a {name}"
