"""What onnx.defs says about an operator at an opset: formal inputs, attributes, allowed types.

Nothing here is a hand-kept list: versions, formal names, optional inputs, attribute types and
allowed type strings all come from the installed onnx's schemas.
"""

from __future__ import annotations

import functools
import re

import onnx.defs
from onnx import defs

OPTIONAL = defs.OpSchema.FormalParameterOption.Optional
VARIADIC = defs.OpSchema.FormalParameterOption.Variadic


def newest_opset(domain: str = "") -> int:
    """The newest opset version of `domain` the installed onnx defines."""
    if domain == "":
        return onnx.defs.onnx_opset_version()
    return max(s.since_version for s in defs.get_all_schemas_with_history() if s.domain == domain)


@functools.cache
def all_operator_names(domain: str = "") -> tuple[str, ...]:
    return tuple(sorted({s.name for s in defs.get_all_schemas_with_history()
                         if s.domain == domain}))


@functools.cache
def versions(op_type: str, domain: str = "") -> tuple[int, ...]:
    """Every opset version at which `op_type` changed, oldest first."""
    return tuple(sorted({s.since_version for s in defs.get_all_schemas_with_history()
                         if s.name == op_type and s.domain == domain}))


@functools.cache
def schema(op_type: str, opset: int, domain: str = "") -> defs.OpSchema | None:
    """The schema in force for `op_type` at `opset`, or None when it is not defined there."""
    try:
        return defs.get_schema(op_type, opset, domain)
    except defs.SchemaError:
        return None


def allowed_types(op_schema: defs.OpSchema, type_str: str) -> tuple[str, ...]:
    """The type strings a formal parameter accepts: its constraint's list, or the literal type."""
    for constraint in op_schema.type_constraints:
        if constraint.type_param_str == type_str:
            return tuple(constraint.allowed_type_strs)
    return (type_str,)


def constraint_types(op_schema: defs.OpSchema, param: str) -> tuple[str, ...] | None:
    """The allowed type strings of type parameter `param`, or None if the schema has none such."""
    for constraint in op_schema.type_constraints:
        if constraint.type_param_str == param:
            return tuple(constraint.allowed_type_strs)
    return None


_ELEMENT_IN = re.compile(r"tensor\((\w+)\)")


def element_names(type_strs) -> tuple[str, ...]:
    """The element type names that occur in a list of type strings, sorted, once each."""
    return tuple(sorted({_ELEMENT_IN.search(t).group(1) for t in type_strs}))
