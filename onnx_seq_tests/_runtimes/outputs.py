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

from .._core.value_kinds import ValueType, entries

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
    inside = entries(value, value_type)  # None: no kind's Python value
    if inside is None:
        expected = "numpy.ndarray" if value_type is None else value_type.python_form()
        return f"{where} is {_a(type_name(value))}, expected {expected}"
    for place, item, item_type in inside:
        problem = _value_problem(item, item_type, f"{where}, " + (
            f"element {place}" if isinstance(place, int) else place))
        if problem:
            return problem
    return None


def type_name(value) -> str:
    """The full name of a value's type: `jaxlib.xla_extension.ArrayImpl`, `int`."""
    kind = type(value)
    module = kind.__module__
    return kind.__qualname__ if module == "builtins" else f"{module}.{kind.__qualname__}"


def _a(name: str) -> str:
    return f"an {name}" if name[:1].lower() in "aeiou" else f"a {name}"
