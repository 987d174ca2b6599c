"""The case objects a case file describes: a graph, its typed boundary values, and data sets.

These are plain frozen values; `casefile` makes them from YAML, `model` turns them into protos.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .problems import Where
from .value_types import ValueType


@dataclass(frozen=True)
class ValueDecl:
    """A graph input or output: its name and full type (shape on the innermost tensor), and
    an optional doc string for the model's value info."""

    name: str
    type: ValueType
    where: Where = field(compare=False)
    doc: str = ""


@dataclass(frozen=True)
class Graph:
    """A graph or subgraph: boundary values and nodes in order."""

    inputs: tuple[ValueDecl, ...]
    outputs: tuple[ValueDecl, ...]
    nodes: tuple[Node, ...]


@dataclass(frozen=True)
class Node:
    """One node; inputs and outputs are positional, with "" for an omitted optional input.

    Attribute values are int, float, str, lists of those, a `Graph`, a `ValueType` (for
    TYPE_PROTO attributes such as Optional's `type`), or a numpy array (a tensor attribute).
    """

    op_type: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    attributes: tuple[tuple[str, object], ...]
    where: Where = field(compare=False)


@dataclass(frozen=True, eq=False)
class DataSet:
    """Input values in graph-input order and expected values in graph-output order."""

    inputs: tuple
    outputs: tuple
    where: Where


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

    @property
    def folder(self) -> str:
        return f"test_{self.name}"

    @property
    def operators(self) -> tuple[str, ...]:
        """Every op_type in the graph and its subgraphs, sorted, once each."""
        return tuple(sorted(set(_op_types(self.graph))))


def _op_types(graph: Graph):
    for node in graph.nodes:
        yield node.op_type
        for _, value in node.attributes:
            if isinstance(value, Graph):
                yield from _op_types(value)


def subgraphs(graph: Graph):
    """Every (node, attribute name, subgraph) below `graph`, depth first."""
    for node in graph.nodes:
        for name, value in node.attributes:
            if isinstance(value, Graph):
                yield node, name, value
                yield from subgraphs(value)
