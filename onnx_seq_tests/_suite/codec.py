"""Values to protos and back, the same rules for graph inputs and outputs alike.

The value model is onnx's backend convention:
  numpy.ndarray  <-> tensor        (TensorProto)
  list of values <-> sequence      (SequenceProto)
  None           <-> empty optional, anything else <-> present optional (OptionalProto)
Which proto a .pb file holds is decided by the graph value's type, never guessed from bytes.
"""

from __future__ import annotations

import numpy as np
from onnx import OptionalProto, SequenceProto, TensorProto, numpy_helper

from .._core.value_types import OptionalType, SequenceType, TensorType, ValueType
from .manifest import EMPTY_OPTIONAL_FORMS

Proto = TensorProto | SequenceProto | OptionalProto


def encode(value, value_type: ValueType, name: str = "",
           empty_optional: str = "undefined") -> Proto:
    """The proto for `value` of `value_type`; only the top-level proto carries `name`."""
    proto = _encode(value, value_type, empty_optional)
    proto.name = name
    return proto


def _encode(value, value_type: ValueType, empty_optional: str) -> Proto:
    if isinstance(value_type, TensorType):
        array = np.asarray(value, dtype=value_type.element.dtype)
        return numpy_helper.from_array(array)
    if isinstance(value_type, SequenceType):
        proto = SequenceProto(elem_type=SequenceProto.TENSOR)
        proto.tensor_values.extend(_encode(v, value_type.element, empty_optional) for v in value)
        return proto
    if isinstance(value_type, OptionalType):
        contained = _optional_elem_type(value_type)
        if value is None:
            if empty_optional == "undefined":
                return OptionalProto(elem_type=OptionalProto.UNDEFINED)
            if empty_optional == "typed":
                return OptionalProto(elem_type=contained)
            raise ValueError(f"empty_optional must be one of {EMPTY_OPTIONAL_FORMS}")
        proto = OptionalProto(elem_type=contained)
        inner = _encode(value, value_type.element, empty_optional)
        if contained == OptionalProto.TENSOR:
            proto.tensor_value.CopyFrom(inner)
        else:
            proto.sequence_value.CopyFrom(inner)
        return proto
    raise TypeError(f"Unsupported type: {value_type!r}")


def _optional_elem_type(value_type: OptionalType) -> int:
    if isinstance(value_type.element, TensorType):
        return OptionalProto.TENSOR
    return OptionalProto.SEQUENCE


def decode(proto: Proto):
    """The value a proto holds; both encodings of an empty optional give None. A string
    tensor's elements are its UTF-8 strings exactly: onnx's `numpy_helper.to_array` goes
    through a fixed-width numpy string, which drops trailing NUL characters ("a\\0" -> "a")."""
    if isinstance(proto, TensorProto):
        if proto.data_type == TensorProto.STRING:
            strings = [item.decode("utf-8") for item in proto.string_data]
            return np.array(strings, dtype=object).reshape(tuple(proto.dims))
        return numpy_helper.to_array(proto)
    if isinstance(proto, SequenceProto):
        if proto.elem_type not in (SequenceProto.TENSOR, SequenceProto.UNDEFINED):
            raise TypeError(f"Unsupported sequence element kind: {proto.elem_type}")
        return [decode(t) for t in proto.tensor_values]
    if isinstance(proto, OptionalProto):
        if proto.HasField("tensor_value"):
            return decode(proto.tensor_value)
        if proto.HasField("sequence_value"):
            return decode(proto.sequence_value)
        if proto.HasField("optional_value") or proto.HasField("map_value") or proto.HasField(
                "sparse_tensor_value"):
            raise TypeError("Unsupported optional content")
        return None
    raise TypeError(f"Unsupported proto: {type(proto).__name__}")


def proto_class(value_type: ValueType) -> type:
    """The proto class a .pb file of this graph type holds."""
    if isinstance(value_type, TensorType):
        return TensorProto
    if isinstance(value_type, SequenceType):
        return SequenceProto
    if isinstance(value_type, OptionalType):
        return OptionalProto
    raise TypeError(f"Unsupported type: {value_type!r}")


def parse(data: bytes, value_type: ValueType) -> Proto:
    """Parse .pb bytes as the proto class the graph type calls for."""
    proto = proto_class(value_type)()
    proto.ParseFromString(data)
    return proto
