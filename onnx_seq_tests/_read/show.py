"""One case as text a person reads: its nodes, then each data set's inputs and expected outputs.

The layout is the one of onnx's operator pages (`Node:`, `Inputs:`, `Outputs:`, each value as
`name: shape=(2, 3), dtype=float32` and the array as numpy's `array2string` prints it), with
every node in order (attributes and subgraphs indented below it), every data set, and the
source of the case when it comes from a case file. Values:

    tensor      name: shape=(2, 3), dtype=float32        then the array, 4 spaces in
    sequence    name: sequence(len=N), element_shape=(2, 3), element_dtype=float32
                then `[`, one `[i] <array>` line per element, `]`; `element_shape=mixed` and
                `[i] shape=(..) <array>` when the elements' shapes differ
    optional    name: optional(empty), type=optional(tensor(float)), or
                name: optional of <the tensor or sequence header>, then the value
Strings print quoted; float8/float6/float4/bfloat16 print by value (widened to float32, which
holds each exactly) with their own dtype name; int4/uint4/int2/uint2 likewise (as int8/uint8).
Arrays over numpy's threshold are summarised as numpy does unless `full`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import cast

import ml_dtypes
import numpy as np
import onnx
from onnx import helper

from .._core.errors import ReadError, one_line
from .._core.value_types import (
    OptionalType,
    SequenceType,
    TensorType,
    ValueType,
    from_type_proto,
)
from .._suite.codec import decode

#: numpy's default: arrays with more elements than this are summarised (`...`).
THRESHOLD = 1000
_NARROW_INTS = {np.dtype(getattr(ml_dtypes, n)): np.dtype(w) for n, w in (
    ("int4", "int8"), ("uint4", "uint8"), ("int2", "int8"), ("uint2", "uint8"))
    if hasattr(ml_dtypes, n)}


@dataclass
class Shown:
    """What `render` needs of one case, whichever way it was read."""

    name: str
    model: onnx.ModelProto
    input_types: list[ValueType]
    output_types: list[ValueType]
    data_sets: list[tuple[list, list]]
    atol: float | None = None
    rtol: float | None = None
    source: str | None = None  # `file:line` of the case in its case file
    expanded_from: dict | None = None  # {"for_each": "file:line", "type": .., "opset": ..}
    folder: str | None = None  # the case folder it was read from
    notes: list[str] = field(default_factory=list)


# -- values ---------------------------------------------------------------------------------

def array_text(array: np.ndarray, full: bool = False) -> str:
    """`array` as numpy's array2string prints it (`, ` between items, numpy's line width)."""
    array = np.asarray(array)
    if array.dtype.kind in "OSU":
        array = np.vectorize(_text_of, otypes=[object])(array) if array.size else array
    elif array.dtype in _NARROW_INTS:
        array = array.astype(_NARROW_INTS[array.dtype])
    elif array.dtype.kind not in "biufc":  # bfloat16, float8/6/4 kinds: exact in float32
        array = array.astype(np.float32)
    return np.array2string(array, separator=", ", threshold=sys.maxsize if full else THRESHOLD,
                           max_line_width=75, precision=8, floatmode="maxprec",
                           suppress_small=False, sign="-", legacy=False)


def _text_of(item) -> str:
    return item.decode("utf-8", "backslashreplace") if isinstance(item, bytes) else str(item)


def dtype_name(array: np.ndarray) -> str:
    """numpy's name of the dtype; `string` for text."""
    array = np.asarray(array)
    if array.dtype.kind in "OSU":
        return "string"
    return array.dtype.name


def _indent(text: str, first: str, rest: str) -> list[str]:
    lines = text.split("\n")
    return [first + lines[0]] + [rest + line if line else "" for line in lines[1:]]


def _shape(array: np.ndarray) -> str:
    return repr(tuple(int(d) for d in np.shape(array)))


def value_lines(name: str, value, value_type: ValueType, full: bool = False) -> list[str]:
    """The lines of one named value at 2 spaces in, as under `Inputs:` / `Outputs:`."""
    head = f"  {name}: "
    if isinstance(value_type, OptionalType):
        if value is None:
            return [f"{head}optional(empty), type={value_type}"]
        lines = value_lines(name, value, value_type.element, full)
        return [f"{head}optional of {lines[0][len(head):]}"] + lines[1:]
    if isinstance(value_type, SequenceType):
        element = value_type.element
        shapes = {np.shape(v) for v in value}
        dtype = dtype_name(value[0]) if value else _declared_dtype(cast(TensorType, element))
        if len(shapes) == 1:
            shape_text = f"element_shape={_shape(value[0])}, "
        elif shapes:
            shape_text = "element_shape=mixed, "
        else:
            shape_text = ""
        lines = [f"{head}sequence(len={len(value)}), {shape_text}element_dtype={dtype}"]
        if not value:
            return lines + ["    []"]
        lines.append("    [")
        for i, item in enumerate(value):
            first = f"      [{i}] " + ("" if len(shapes) == 1 else f"shape={_shape(item)} ")
            lines += _indent(array_text(item, full), first, " " * len(first))
        return lines + ["    ]"]
    array = np.asarray(value)
    return ([f"{head}shape={_shape(array)}, dtype={dtype_name(array)}"]
            + _indent(array_text(array, full), "    ", "    "))


def _declared_dtype(tensor_type: TensorType) -> str:
    dtype = tensor_type.element.dtype
    return "string" if tensor_type.element.kind == "string" else np.dtype(dtype).name


# -- graphs ---------------------------------------------------------------------------------

def node_lines(node: onnx.NodeProto, indent: str = "  ", full: bool = False) -> list[str]:
    """`Op(in, ...) -> (out, ...)`, then each attribute indented below it."""
    domain = f"{node.domain}." if node.domain not in ("", "ai.onnx") else ""
    inputs = ", ".join(i if i else '""' for i in node.input)
    lines = [f"{indent}{domain}{node.op_type}({inputs}) -> ({', '.join(node.output)})"]
    inner = indent + "  "
    for attribute in node.attribute:
        lines += attribute_lines(attribute, inner, full)
    return lines


def attribute_lines(attribute: onnx.AttributeProto, indent: str, full: bool) -> list[str]:
    kind = attribute.type
    if kind == onnx.AttributeProto.GRAPH:
        return [f"{indent}{attribute.name}: " + graph_signature(attribute.g)] + [
            line for node in attribute.g.node for line in node_lines(node, indent + "  ", full)]
    if kind == onnx.AttributeProto.TYPE_PROTO:
        return [f"{indent}{attribute.name}: {_type_text(attribute.tp)}"]
    if kind == onnx.AttributeProto.TENSOR:
        array = decode(attribute.t)
        return ([f"{indent}{attribute.name}: tensor shape={_shape(array)}, "
                 f"dtype={dtype_name(array)}"]
                + _indent(array_text(array, full), indent + "  ", indent + "  "))
    if kind == onnx.AttributeProto.GRAPHS:
        lines = []
        for k, graph in enumerate(attribute.graphs):
            lines.append(f"{indent}{attribute.name}[{k}]: " + graph_signature(graph))
            lines += [line for node in graph.node for line in node_lines(node, indent + "  ",
                                                                          full)]
        return lines
    value = helper.get_attribute_value(attribute)
    return [f"{indent}{attribute.name}: {_attribute_text(value)}"]


def _attribute_text(value) -> str:
    if isinstance(value, bytes):
        return repr(value.decode("utf-8", "backslashreplace"))
    if isinstance(value, list):
        return "[" + ", ".join(_attribute_text(v) for v in value) + "]"
    return repr(value)


def graph_signature(graph: onnx.GraphProto) -> str:
    """`graph(in: type, ...) -> (out: type, ...)` of a subgraph."""
    def declared(values):
        return ", ".join(f"{v.name}: {_type_text(v.type)}" for v in values)
    return f"graph({declared(graph.input)}) -> ({declared(graph.output)})"


def _type_text(type_proto: onnx.TypeProto) -> str:
    try:
        value_type = from_type_proto(type_proto)
    except (TypeError, KeyError):
        return "?"
    text = str(value_type)
    shape = _innermost_shape(value_type)
    if shape is not None:
        text += "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"
    return text


def _innermost_shape(value_type: ValueType):
    while not isinstance(value_type, TensorType):
        value_type = value_type.element
    return value_type.shape


# -- a whole case ---------------------------------------------------------------------------

def header_lines(shown: Shown) -> list[str]:
    """The case's name, where it comes from, its opsets and tolerance."""
    lines = [f"test_{shown.name}" if not shown.name.startswith("test_") else shown.name, ""]
    if shown.source:
        lines.append(f"Source: {shown.source}")
    if shown.expanded_from:
        origin = shown.expanded_from
        lines.append(f"Expanded from: for_each at {origin['for_each']} with "
                     f"{{type}}={origin['type']}, {{opset}}={origin['opset']}")
    if shown.folder:
        lines.append(f"Folder: {shown.folder}")
    opsets = ", ".join(f"{o.domain or 'ai.onnx'} {o.version}" for o in shown.model.opset_import)
    lines.append(f"Opset: {opsets}")
    if shown.atol or shown.rtol:
        lines.append(f"Tolerance: atol={float(shown.atol or 0)}, rtol={float(shown.rtol or 0)}")
    doc = shown.model.graph.doc_string.strip()
    if doc:
        lines.append(f"Doc: {' '.join(doc.split())}")
    lines.extend(shown.notes)
    return lines + [""]


def render(shown: Shown, full: bool = False) -> str:
    """The text of one case: header, nodes, then each data set's inputs and outputs; ReadError
    when a part of the model cannot be shown (an initializer or attribute tensor whose data
    does not fit its dims, for one)."""
    try:
        return _render(shown, full)
    except (ValueError, TypeError, KeyError, IndexError, OverflowError) as error:
        where = shown.folder or shown.name
        text = one_line(" ".join(str(error).split()))[:300]
        raise ReadError(f"{one_line(where)}: cannot show it ({text})") from None


def _render(shown: Shown, full: bool) -> str:
    graph = shown.model.graph
    lines = header_lines(shown)
    lines.append("Node:" if len(graph.node) == 1 else "Nodes:")
    for node in graph.node:
        lines += node_lines(node, "  ", full)
    if graph.initializer:
        lines += ["", "Initializers:"]
    for initializer in graph.initializer:
        array = decode(initializer)
        lines += ([f"  {initializer.name}: shape={_shape(array)}, dtype={dtype_name(array)}"]
                  + _indent(array_text(array, full), "    ", "    "))
    many = len(shown.data_sets) > 1
    for k, (inputs, outputs) in enumerate(shown.data_sets):
        which = f" (data set {k})" if many else ""
        lines += ["", f"Inputs{which}:"]
        if not graph.input:
            lines.append("  (none)")
        for info, value_type, value in zip(graph.input, shown.input_types, inputs, strict=True):
            lines += value_lines(info.name, value, value_type, full)
        lines += ["", f"Outputs{which}:"]
        for info, value_type, value in zip(graph.output, shown.output_types, outputs,
                                           strict=True):
            lines += value_lines(info.name, value, value_type, full)
    return "\n".join(lines) + "\n"
