"""Shrinking a disagreement: a greedy delta reduction over the program's recipe.

From the program that disagrees, each round proposes smaller programs, in this order: keep one
graph output; cut a node (its outputs become graph inputs holding the values the oracle gives
there, so what follows is unchanged); drop one element of a sequence input; cut a tensor input
down along one axis; make a tensor input its plainest value (zeros, empty strings) or keep one
element; make a present optional input empty. Unused nodes and inputs are pruned after every
step. A proposal is kept when it is valid, the spec gives a result, and it disagrees the same
way (same backend, same outcome, same kind of wrong answer, in either form); rounds go on until
none is kept or the time is up. Proposals are judged a batch at a time (one `verify` run each).
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from .._core.value_types import OptionalType, SequenceType, TensorType
from . import judge
from .recipes import NoResult, Recipe, Source, node_values, to_case

#: Proposals judged per verify run.
BATCH = 8


def size(recipe: Recipe) -> tuple:
    """What shrinking makes smaller, most important first: nodes (subgraphs counted), graph
    outputs, boundary values' elements, then how many values are not the plainest."""
    nodes = sum(1 + _inner_nodes(n) for n in recipe.nodes)
    elements = 0
    fancy = 0
    for source in recipe.sources:
        for tensor in _tensors(source.value):
            array = np.asarray(tensor)
            elements += 1 + array.size
            fancy += _not_plain(array)
    return nodes, len(recipe.outputs), elements, fancy


def _not_plain(array: np.ndarray) -> int:
    """How many values of `array` are not its plainest value (0, False, "")."""
    if array.dtype == object:
        return int(sum(1 for v in array.reshape(-1) if v != ""))
    raw = array.reshape(-1).view(np.uint8).reshape(array.size, -1) if array.size else None
    return 0 if raw is None else int(np.count_nonzero(raw.any(axis=1)))


def simplest_like(array: np.ndarray) -> np.ndarray:
    if array.dtype == object:
        return np.full(array.shape, "", dtype=object)
    return np.zeros(array.shape, dtype=array.dtype)


def _inner_nodes(node) -> int:
    from .._core.cases import Graph

    return sum(len(v.nodes) for _, v in node.attributes if isinstance(v, Graph))


def _tensors(value):
    if value is None:
        return []
    if isinstance(value, list):
        return value
    return [value]


def prune(recipe: Recipe) -> Recipe:
    """The recipe without nodes and sources no graph output depends on."""
    needed = set(recipe.outputs)
    kept = []
    for node in reversed(recipe.nodes):
        if needed.intersection(node.outputs):
            kept.append(node)
            needed.update(i for i in node.inputs if i)
            needed.update(_outer_names(node))
    sources = tuple(s for s in recipe.sources if s.name in needed)
    return replace(recipe, nodes=tuple(reversed(kept)), sources=sources)


def _outer_names(node) -> set:
    """Names a node's subgraphs read from the outer scope (any input of any inner node)."""
    from .._core.cases import Graph

    found = set()
    for _, value in node.attributes:
        if isinstance(value, Graph):
            for inner in value.nodes:
                found.update(i for i in inner.inputs if i)
                found.update(_outer_names(inner))
    return found


def proposals(recipe: Recipe):
    """Smaller recipes, most promising first (each pruned)."""
    if len(recipe.outputs) > 1:
        for name in recipe.outputs:
            yield prune(replace(recipe, outputs=(name,)))
    try:
        values = node_values(recipe)
    except NoResult:
        values = None
    if values is not None:
        for index, node in enumerate(recipe.nodes):
            if set(node.outputs) & set(recipe.outputs):
                continue  # a graph output stays a node's output
            cut = [Source(o, recipe.types[o], values[o]) for o in node.outputs]
            nodes = recipe.nodes[:index] + recipe.nodes[index + 1:]
            yield prune(replace(recipe, nodes=nodes, sources=recipe.sources + tuple(cut)))
    for position, source in enumerate(recipe.sources):
        for value in _smaller_values(source):
            sources = list(recipe.sources)
            sources[position] = replace(source, value=value)
            yield replace(recipe, sources=tuple(sources))


def _smaller_values(source: Source):
    value, value_type = source.value, source.type
    if isinstance(value_type, OptionalType):
        if value is None:
            return
        yield None
        inner = Source(source.name, value_type.element, value)
        yield from _smaller_values(inner)
        return
    if isinstance(value_type, SequenceType):
        for k in range(len(value)):
            yield value[:k] + value[k + 1:]
        for k, tensor in enumerate(value):
            for smaller in _smaller_tensors(np.asarray(tensor)):
                yield value[:k] + [smaller] + value[k + 1:]
        return
    if isinstance(value_type, TensorType):
        yield from _smaller_tensors(np.asarray(value))


def _smaller_tensors(array: np.ndarray):
    for axis, length in enumerate(array.shape):
        if length > 1:
            yield np.take(array, [0], axis=axis)
            yield np.take(array, range(length - 1), axis=axis)
    plain = simplest_like(array)
    if array.size and not _same(array, plain):
        yield plain
    if array.size > 1:
        for i in range(array.size):
            flat = plain.reshape(-1).copy()
            flat[i] = array.reshape(-1)[i]
            candidate = flat.reshape(array.shape)
            if not _same(candidate, array):
                yield candidate


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype == object:
        return bool(np.all(a == b))
    return a.tobytes() == b.tobytes()


def same_way(verdict: judge.Verdict, other: judge.Verdict) -> bool:
    return (verdict.backend == other.backend and verdict.outcome == other.outcome
            and verdict.kind() == other.kind())


def shrink(recipe: Recipe, verdict: judge.Verdict, work, *, jobs: int = 1,
           timeout: float | None = None, budget: float = 10.0,
           errors: bool = False) -> tuple[Recipe, judge.Verdict, int]:
    """The smallest recipe found that disagrees as `verdict` does, its verdict, and the number
    of proposals judged; stops after `budget` seconds."""
    deadline = time.monotonic() + budget
    best, best_verdict, tried = recipe, verdict, 0
    seen: set = set()
    improved = True
    while improved and time.monotonic() < deadline:
        improved = False
        batch: list = []
        for candidate in proposals(best):
            if time.monotonic() >= deadline:
                break
            key = repr(_key(candidate))
            if key in seen or size(candidate) >= size(best):
                continue
            seen.add(key)
            try:
                case = to_case(candidate, f"shrink_{len(seen)}")
            except NoResult:
                continue
            built = judge.build(case)
            if built.problem:
                continue
            batch.append((candidate, built))
            if len(batch) < BATCH:
                continue
            found = _first_same(batch, verdict, work, jobs, timeout, errors)
            tried += len(batch)
            batch = []
            if found:
                best, best_verdict = found
                improved = True
                break
            if time.monotonic() >= deadline:
                break
        if not improved and batch and time.monotonic() < deadline:
            found = _first_same(batch, verdict, work, jobs, timeout, errors)
            tried += len(batch)
            if found:
                best, best_verdict = found
                improved = True
    return best, best_verdict, tried


def _first_same(batch, verdict, work, jobs, timeout, errors):
    results = judge.run([b for _, b in batch], [verdict.backend], work, jobs, timeout)
    for candidate, built in batch:
        for other in judge.findings_of(results.get(built.case.name, []), errors):
            if same_way(verdict, other):
                return candidate, other
    return None


def _key(recipe: Recipe):
    return (recipe.nodes, recipe.outputs,
            tuple((s.name, s.initializer, _value_key(s.value)) for s in recipe.sources))


def _value_key(value):
    if value is None:
        return None
    if isinstance(value, list):
        return tuple(_value_key(v) for v in value)
    array = np.asarray(value)
    data = tuple(array.reshape(-1).tolist()) if array.dtype == object else array.tobytes()
    return (array.dtype.str, array.shape, data)
