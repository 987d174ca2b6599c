"""The case objects a case file describes: a graph, its typed boundary values, and data sets.

These are plain frozen values; `casefile` makes them from YAML, `model` turns them into protos.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .operators import Opsets
from .problems import Where
from .value_kinds import ValueType

#: The type of a declaration whose type is not known: the oracle's graphs read from protos
#: where onnx gives none, the fuzzer's drafts before their types are inferred; the interpreter
#: goes by names. Typed as a ValueType so that the readers of a case file's declarations (whose
#: types are always known) need no check.
UNTYPED: Any = None


@dataclass(frozen=True)
class ValueDecl:
    """A graph input or output: its name and full type (shape on the innermost tensor), and
    an optional doc string for the model's value info."""

    name: str
    type: ValueType
    where: Where = field(compare=False)
    doc: str = ""


@dataclass(frozen=True, eq=False)
class Initializer:
    """A constant tensor of the graph (an ONNX initializer): not a graph input, no data set
    gives it; nodes read it by name. `value` is an ndarray of the type's element dtype."""

    name: str
    type: ValueType
    value: Any
    where: Where = field(compare=False)


@dataclass(frozen=True)
class Graph:
    """A graph or subgraph: boundary values, nodes in order, and constant tensors."""

    inputs: tuple[ValueDecl, ...]
    outputs: tuple[ValueDecl, ...]
    nodes: tuple[Node, ...]
    initializers: tuple[Initializer, ...] = ()


@dataclass(frozen=True)
class Node:
    """One node; inputs and outputs are positional, with "" for an omitted optional input.

    Attribute values are int, float, str, lists of those, a `Graph`, a `ValueType` (for
    TYPE_PROTO attributes such as Optional's `type`), or a numpy array (a tensor attribute).
    `domain` is the operator's opset domain: "" for ai.onnx, or "ai.onnx.ml".
    """

    op_type: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    attributes: tuple[tuple[str, object], ...]
    where: Where = field(compare=False)
    domain: str = ""


@dataclass(frozen=True, eq=False)
class DataSet:
    """Input values in graph-input order and expected values in graph-output order."""

    inputs: tuple[Any, ...]
    outputs: tuple[Any, ...]
    where: Where


@dataclass(frozen=True)
class Expansion:
    """Where an expanded case comes from: its `for_each` and the values it took there."""

    for_each: Where
    type: str
    opset: int


@dataclass(frozen=True, eq=False)
class Case:
    """One test case: becomes the folder `test_<name>`."""

    name: str
    where: Where
    opset: int
    graph: Graph
    data_sets: tuple[DataSet, ...]
    atol: float = 0.0
    rtol: float = 0.0
    doc: str = ""
    expanded_from: Expansion | None = None  # set on each case a `for_each` expands to
    ml_opset: int | None = None  # the ai.onnx.ml opset, for a case with nodes of that domain

    @property
    def folder(self) -> str:
        return f"test_{self.name}"

    @property
    def operators(self) -> tuple[str, ...]:
        """Every op_type in the graph and its subgraphs, sorted, once each."""
        return tuple(sorted({node.op_type for node in walk(self.graph)}))

    @property
    def opsets(self) -> Opsets:
        """The opsets this case imports, per domain."""
        return Opsets(self.opset, self.ml_opset)


def subgraphs(graph: Graph) -> Iterator[tuple[Node, str, Graph]]:
    """Every (node, attribute name, subgraph) below `graph`, depth first: the one walk of a
    graph, which `graphs` and `walk` and every other reader of subgraphs go through."""
    for node in graph.nodes:
        for name, value in node.attributes:
            if isinstance(value, Graph):
                yield node, name, value
                yield from subgraphs(value)


def graphs(graph: Graph) -> Iterator[Graph]:
    """`graph` and every subgraph below it, depth first, each before its own."""
    yield graph
    for _, _, subgraph in subgraphs(graph):
        yield subgraph


def walk(graph: Graph) -> Iterator[Node]:
    """Every node of `graph` and of its subgraphs: the graph's own first."""
    for each in graphs(graph):
        yield from each.nodes


def outer_names(graph: Graph) -> set[str]:
    """The names `graph`'s own nodes read that neither its inputs, its initializers nor its
    nodes give: values of an enclosing graph (a subgraph's outer scope)."""
    local = {d.name for d in graph.inputs} | {i.name for i in graph.initializers}
    local.update(o for node in graph.nodes for o in node.outputs)
    return {name for node in graph.nodes for name in node.inputs if name and name not in local}


def proto_subgraphs(node_proto: Any) -> Iterator[Any]:
    """The subgraphs of an onnx NodeProto: its GRAPH attributes' `g` and GRAPHS attributes'
    `graphs`, in attribute order (no onnx import needed: it reads the proto's fields)."""
    for attribute in node_proto.attribute:
        if attribute.HasField("g"):
            yield attribute.g
        yield from attribute.graphs


def graph_protos(graph_proto: Any) -> Iterator[Any]:
    """An onnx GraphProto and every subgraph below it, depth first, each before its own."""
    yield graph_proto
    for node in graph_proto.node:
        for subgraph in proto_subgraphs(node):
            yield from graph_protos(subgraph)
