"""A program as data: `Recipe` (nodes, sources, outputs, types) and `to_case`, which turns one
into a case of the project's case model with the spec oracle's expectations; what the drawing
(programs.py) makes and shrinking (shrink.py) edits."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, cast

import numpy as np

from .._core.cases import UNTYPED, Case, DataSet, Graph, Initializer, Node, ValueDecl
from .._core.errors import NoResult, OracleError
from .._core.problems import Where
from .._core.value_kinds import OptionalType, SequenceType, TensorType, ValueType
from .._oracle import oracle

WHERE = Where("fuzz", 1, 1)


@dataclass(frozen=True)
class Source:
    """A graph input or initializer: its name, type (no shape) and value."""

    name: str
    type: ValueType
    value: Any
    initializer: bool = False


@dataclass(frozen=True)
class Recipe:
    """A program: opset, nodes, sources (graph inputs and initializers), output names, and per
    value name its type; `fixed` says which graph inputs declare fixed dims."""

    opset: int
    nodes: tuple[Node, ...]
    sources: tuple[Source, ...]
    outputs: tuple[str, ...]
    types: dict = field(hash=False, compare=False)
    fixed: bool = False


# -- declared types from values ----------------------------------------------------------------

def _shaped(value_type: ValueType, value, fixed: bool) -> ValueType:
    """`value_type` with the innermost tensor's shape taken from `value`: rank from the value,
    dims fixed or unknown (None); unknown rank where the value does not tell (an empty
    sequence or optional), or where a sequence's elements differ in rank."""
    if isinstance(value_type, OptionalType):
        inner = value_type.element if value is None else _shaped(value_type.element, value,
                                                                  fixed)
        return OptionalType(inner)
    if isinstance(value_type, SequenceType):
        shapes = {np.asarray(v).shape for v in value}
        ranks = {len(s) for s in shapes}
        if len(ranks) != 1:
            return SequenceType(TensorType(cast(TensorType, value_type.element).element))
        dims = tuple(next(iter(shapes))[i] if fixed and len({s[i] for s in shapes}) == 1
                     else None for i in range(ranks.pop()))
        return SequenceType(TensorType(cast(TensorType, value_type.element).element, dims))
    shape = np.asarray(value).shape
    element = cast(TensorType, value_type).element
    return TensorType(element, tuple(shape) if fixed else (None,) * len(shape))


def _expressible(value) -> bool:
    """Whether the case format can write `value` (nested lists cannot give a shape with a 0
    before another dim)."""
    if value is None:
        return True
    if isinstance(value, list):
        return all(_expressible(v) for v in value)
    shape = np.asarray(value).shape
    return not (0 in shape and any(shape[shape.index(0) + 1:]))


def to_case(recipe: Recipe, name: str, doc: str = "") -> Case:
    """The case of a recipe, its expected outputs from the spec oracle; NoResult where the
    spec gives none or the case format cannot write a value."""
    inputs = [s for s in recipe.sources if not s.initializer]
    graph = Graph(
        tuple(ValueDecl(s.name, _shaped(s.type, s.value, recipe.fixed), WHERE) for s in inputs),
        (), recipe.nodes,
        tuple(Initializer(s.name, _shaped(s.type, s.value, True), s.value, WHERE)
              for s in recipe.sources if s.initializer))
    values = [s.value for s in inputs]
    bare = replace(graph, outputs=tuple(ValueDecl(n, UNTYPED, WHERE) for n in recipe.outputs))
    try:
        answers = oracle.run_graph(bare, recipe.opset, values)
    except OracleError as error:
        raise NoResult(str(error)) from None
    except (ValueError, TypeError, IndexError) as error:
        raise NoResult(f"the oracle cannot evaluate it: {error}") from None
    if not all(_expressible(v) for v in [*values, *answers]):
        raise NoResult("a value has a shape with a 0 before another dim")
    outputs = tuple(ValueDecl(n, _shaped(recipe.types[n], v, False), WHERE)
                    for n, v in zip(recipe.outputs, answers, strict=True))
    graph = replace(graph, outputs=outputs)
    return Case(name, WHERE, recipe.opset, graph,
                (DataSet(tuple(values), tuple(answers), WHERE),), doc=doc)


def node_values(recipe: Recipe) -> dict:
    """Every value of the main graph by name, sources and node outputs, as the oracle gives
    them; NoResult where the spec gives none."""
    values = {s.name: s.value for s in recipe.sources}
    graph = Graph((), tuple(ValueDecl(n, UNTYPED, WHERE) for n in recipe.outputs), recipe.nodes)
    top = {n for node in recipe.nodes for n in node.outputs}

    def keep(node, args, results):
        for name, value in zip(node.outputs, results, strict=True):
            if name in top:
                values[name] = value
    try:
        oracle.run_graph(graph, recipe.opset, [], dict(values), trace=keep)
    except (OracleError, ValueError, TypeError, IndexError) as error:
        raise NoResult(str(error)) from None
    return values
