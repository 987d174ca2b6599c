"""The operators that make a tensor from attributes, as the oracle runs them: Constant (every
`value*` attribute but sparse_value) and ConstantOfShape, each following its schema's doc."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._core.errors import OracleError
from .._core.work import check_elements


def constant(attributes: dict[str, Any]) -> np.ndarray:
    """Constant: 'This operator produces a constant tensor. Exactly one of the provided
    attributes, either value, sparse_value, or value_* must be specified.' `value`: 'The value
    for the elements of the output tensor.' (its element type and shape are the tensor's own:
    an int32 scalar stays an int32 scalar); `value_int`: 'The value for the sole element for
    the scalar, int64, output tensor.', and so on for value_ints, value_float(s),
    value_string(s)."""
    if "value" in attributes:
        return np.array(attributes["value"])
    for name, dtype in (("value_int", np.int64), ("value_ints", np.int64),
                        ("value_float", np.float32), ("value_floats", np.float32),
                        ("value_string", object), ("value_strings", object)):
        if name in attributes:
            return np.array(attributes[name], dtype=dtype)
    raise OracleError("the oracle reads Constant's value, value_int(s), value_float(s) and "
                      "value_string(s), not sparse_value")


def constant_of_shape(args: list[Any], attributes: dict[str, Any]) -> np.ndarray:
    """ConstantOfShape: 'Generate a tensor with given value and shape.' Its input: '1D tensor.
    The shape of the expected output tensor. If empty tensor is given, the output would be a
    scalar. All values must be >= 0.' `value`: '(Optional) The value of the output
    elements.Should be a one-element tensor. If not specified, it defaults to a tensor of value
    0 and datatype float32'."""
    shape = [int(d) for d in np.asarray(args[0]).reshape(-1)]
    if any(d < 0 for d in shape):
        raise OracleError(f"ConstantOfShape's shape {shape} has a negative dim; 'All values "
                          "must be >= 0'")
    value = np.asarray(attributes.get("value", np.zeros(1, dtype=np.float32)))
    if value.size != 1:
        raise OracleError(f"ConstantOfShape's value has {value.size} elements; it 'Should be "
                          "a one-element tensor'")
    check_elements(math.prod(shape), "ConstantOfShape's result")
    return np.full(shape, value.reshape(-1)[0], dtype=value.dtype)
