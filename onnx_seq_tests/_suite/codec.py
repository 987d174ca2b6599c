"""Values to protos and back, the same rules for graph inputs and outputs alike: each kind's
own encoding (`_core/value_kinds/`), with the forms of an empty optional the manifest knows.
Which proto a .pb file holds is decided by the graph value's type, never guessed from bytes.
"""

from __future__ import annotations

from typing import Any

from .._core import value_kinds
from .._core.value_kinds import ValueType
from .manifest import EMPTY_OPTIONAL_FORMS


def encode(value: Any, value_type: ValueType, name: str = "",
           empty_optional: str = "undefined") -> Any:
    """The proto for `value` of `value_type`; only the top-level proto carries `name`."""
    if empty_optional not in EMPTY_OPTIONAL_FORMS:
        raise ValueError(f"empty_optional must be one of {EMPTY_OPTIONAL_FORMS}")
    return value_kinds.encode(value, value_type, name, empty_optional)


def proto_class(value_type: ValueType) -> type:
    """The proto class a .pb file of this graph type holds."""
    return value_type.PROTO


def parse(data: bytes, value_type: ValueType) -> Any:
    """Parse .pb bytes as the proto class the graph type calls for."""
    proto = proto_class(value_type)()
    proto.ParseFromString(data)
    return proto
