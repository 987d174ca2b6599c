"""One case as text a person reads: its nodes, then each data set's inputs and expected outputs.

The layout is the one of onnx's operator pages (`Node:`, `Inputs:`, `Outputs:`, each value as
`name: shape=(2, 3), dtype=float32` and the array as numpy's `array2string` prints it), with
every node in order (attributes and subgraphs indented below it), every data set, and the
source of the case when it comes from a case file. Each value is shown as its kind renders
it (`render` of `_core/value_kinds/`: a tensor as `name: shape=(2, 3), dtype=float32` and
its array, a sequence as `name: sequence(len=N), ...` and its elements, ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import onnx
from onnx import helper

from .._core.errors import ReadError, one_line
from .._core.value_kinds import ValueType, decode, from_type_proto, innermost
from .._core.value_kinds.text import array_text, dtype_name, indented, shape_text


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

def value_lines(name: str, value, value_type: ValueType, full: bool = False) -> list[str]:
    """The lines of one named value at 2 spaces in, as under `Inputs:` / `Outputs:`."""
    return value_type.render(f"  {name}: ", value, full)


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
        return ([f"{indent}{attribute.name}: tensor shape={shape_text(array)}, "
                 f"dtype={dtype_name(array)}"]
                + indented(array_text(array, full), indent + "  ", indent + "  "))
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
    shape = innermost(value_type).shape
    if shape is not None:
        text += "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"
    return text


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
        lines += ([f"  {initializer.name}: shape={shape_text(array)}, dtype={dtype_name(array)}"]
                  + indented(array_text(array, full), "    ", "    "))
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
