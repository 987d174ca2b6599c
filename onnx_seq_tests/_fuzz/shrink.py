"""Shrinking a disagreement: a greedy delta reduction over the program's recipe.

From the program that disagrees, each round proposes smaller programs, big cuts first: keep one
graph output; replace an If by one of its branches; cut a node (its outputs become graph inputs
holding the values the oracle gives there, so what follows is unchanged); make every input
plain at once, then each input: empty (a sequence or optional), one element, a tensor cut to
one item along every axis, plain values (zeros, empty strings); then the fine steps: drop one
sequence element, cut one axis, keep one value. Unused nodes and inputs are pruned after every
step. A proposal is kept when it is valid (both forms build), the spec gives a result, and it
disagrees the same way (same backend, outcome and kind of wrong answer) in the form the
disagreement was found in (only that form is run); with `rivals`, also when the rivals it has
(other mutants failing it) are among the current best's, so a case only grows more specific.
The first proposal kept, in this order, wins the round; rounds go on until none is kept or the
time is up. A backend judged in this process (oracle, mutants) judges each proposal at once;
others judge them in batches of growing size (one verify run each). Judged proposals are cached
by content, so none is judged twice. For a fixed program and backend the result does not
depend on batch sizes or speed, as long as shrinking ends within its budget.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any, cast

import numpy as np

from .._core.cases import Graph, Node, walk
from .._core.errors import NoResult
from .._core.value_kinds import OptionalType, SequenceType, TensorType, innermost
from . import inprocess, judge
from .recipes import Recipe, Source, node_values, to_case


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


def _inner_nodes(node: Node) -> int:
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


def _outer_names(node: Node) -> set[str]:
    """Names a node's subgraphs read from the outer scope (any input of any inner node)."""
    return {i for _, value in node.attributes if isinstance(value, Graph)
            for inner in walk(value) for i in inner.inputs if i}


def proposals(recipe: Recipe):
    """Smaller recipes, big cuts first (each pruned)."""
    if len(recipe.outputs) > 1:
        for name in recipe.outputs:
            yield prune(replace(recipe, outputs=(name,)))
    for index, node in enumerate(recipe.nodes):
        if node.op_type == "If":
            for branch in ("then_branch", "else_branch"):
                inlined = _inlined(recipe, index, branch)
                if inlined is not None:
                    yield prune(inlined)
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
    for coarse in (True, False):
        if coarse:  # every input at its plainest at once
            yield replace(recipe, sources=tuple(replace(s, value=_plainest(s.value))
                                                for s in recipe.sources))
        for position, source in enumerate(recipe.sources):
            for value in _smaller_values(source, coarse):
                sources = list(recipe.sources)
                sources[position] = replace(source, value=value)
                yield replace(recipe, sources=tuple(sources))


def _inlined(recipe: Recipe, index: int, branch: str) -> Recipe | None:
    """The recipe with If node `index` replaced by the nodes of its `branch`, whose outputs
    take the If's output names; None where a branch output is not made by a branch node."""
    node = recipe.nodes[index]
    graph = cast(Graph, dict(node.attributes)[branch])
    rename = {d.name: o for d, o in zip(graph.outputs, node.outputs, strict=True)}
    made = {o for inner in graph.nodes for o in inner.outputs}
    if not set(rename) <= made:
        return None
    nodes = tuple(replace(inner, outputs=tuple(rename.get(o, o) for o in inner.outputs))
                  for inner in graph.nodes)
    return replace(recipe, nodes=recipe.nodes[:index] + nodes + recipe.nodes[index + 1:])


def _plainest(value):
    if value is None:
        return None
    if isinstance(value, list):
        return [simplest_like(np.asarray(v)) for v in value]
    return simplest_like(np.asarray(value))


def _smaller_values(source: Source, coarse: bool):
    """Smaller values for a source: the big cuts (`coarse`) or the fine steps."""
    value: Any = source.value
    value_type = source.type
    if isinstance(value_type, OptionalType):
        if value is None:
            return
        if coarse:
            yield None
        yield from _smaller_values(Source(source.name, value_type.element, value), coarse)
        return
    if isinstance(value_type, SequenceType):
        if coarse:
            if value:
                yield []
            if len(value) > 2:
                yield value[:1]
            for k, tensor in enumerate(value):
                for smaller in _smaller_tensors(np.asarray(tensor), True):
                    yield value[:k] + [smaller] + value[k + 1:]
            return
        for k in range(len(value)):
            yield value[:k] + value[k + 1:]
        for k, tensor in enumerate(value):
            for smaller in _smaller_tensors(np.asarray(tensor), False):
                yield value[:k] + [smaller] + value[k + 1:]
        return
    if isinstance(value_type, TensorType):
        yield from _smaller_tensors(np.asarray(value), coarse)


def _smaller_tensors(array: np.ndarray, coarse: bool):
    plain = simplest_like(array)
    if coarse:
        if any(length > 1 for length in array.shape):
            yield array[tuple(slice(0, 1) for _ in array.shape)]
        if array.size and not _same(array, plain):
            yield plain
        return
    for axis, length in enumerate(array.shape):
        if length > 1:
            yield np.take(array, [0], axis=axis)
            yield np.take(array, range(length - 1), axis=axis)
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


def signature(spec: str, verdict: judge.Verdict, case) -> str:
    """A finding's signature, `backend:outcome:kind:operators:elements` (the element types of
    the case's graph inputs and outputs)."""
    elements = sorted({innermost(d.type).element.name
                       for d in (*case.graph.inputs, *case.graph.outputs)})
    return (f"{spec}:{verdict.outcome}:{verdict.kind()}:{'+'.join(case.operators)}:"
            f"{'+'.join(elements)}")


def same_way(verdict: judge.Verdict, other: judge.Verdict) -> bool:
    return (verdict.backend == other.backend and verdict.outcome == other.outcome
            and verdict.kind() == other.kind())


def shrink(recipe: Recipe, verdict: judge.Verdict, work, *, jobs: int = 1,
           timeout: float | None = None, budget: float = 10.0, errors: bool = False,
           rivals=None) -> tuple[Recipe, judge.Verdict, int]:
    """The smallest recipe found that disagrees as `verdict` does, its verdict, and the number
    of proposals judged; stops after `budget` seconds. `rivals(built, form)`, where given, names
    what else fails a program (a frozenset); a proposal must not add to the best's."""
    deadline = time.monotonic() + budget
    judging = _Judging(verdict, work, jobs, timeout, errors, rivals)
    best, best_verdict = recipe, verdict
    best_rivals = judging.rivals_of(recipe)
    while time.monotonic() < deadline:
        found = judging.first_kept(best, best_rivals, deadline)
        if found is None:
            break
        best, best_verdict, best_rivals = found
    return best, best_verdict, judging.tried


class _Judging:
    """Proposals judged once each (cached by content), in the disagreement's form only."""

    def __init__(self, verdict, work, jobs, timeout, errors, rivals):
        self.verdict, self.work, self.jobs, self.timeout = verdict, work, jobs, timeout
        self.errors, self.rivals = errors, rivals
        self.at_once = inprocess.handles(verdict.backend)
        self.cache: dict = {}  # content key -> (verdict or None, rivals) or None (invalid)
        self.tried = self.named = 0

    def rivals_of(self, recipe: Recipe) -> frozenset:
        if self.rivals is None:
            return frozenset()
        try:
            built = judge.build(to_case(recipe, "shrink_0"))
        except NoResult:
            return frozenset()
        return self.rivals(built, self.verdict.form)

    def first_kept(self, best: Recipe, best_rivals: frozenset, deadline: float):
        """(recipe, verdict, rivals) of the first proposal kept, or None."""
        pending: list = []  # (key, candidate), in proposal order
        seen: set = set()
        limit = 1 if self.at_once else 4
        best_size = size(best)
        for candidate in proposals(best):
            if time.monotonic() >= deadline:
                return None
            key = repr(content_key(candidate))
            if key in seen or size(candidate) >= best_size:
                continue
            seen.add(key)
            pending.append((key, candidate))
            if len(pending) < limit:
                continue
            found = self._decide(pending, best_rivals)
            if found:
                return found
            pending, limit = [], min(2 * limit, 32)
        return self._decide(pending, best_rivals) if pending else None

    def _decide(self, pending, best_rivals):
        """Judge the pending proposals not judged yet (one run), then the first kept."""
        fresh = []
        for key, candidate in pending:
            if key in self.cache:
                continue
            try:
                self.named += 1
                built = judge.build(to_case(candidate, f"shrink_{self.named}"))
            except NoResult:
                built = None
            if built is None or built.problem:
                self.cache[key] = None
                continue
            fresh.append((key, _one_form(built, self.verdict.form)))
        if fresh:
            self.tried += len(fresh)
            results = judge.run([b for _, b in fresh], [self.verdict.backend], self.work,
                                self.jobs, self.timeout)
            for key, built in fresh:
                same = next((other for other in judge.findings_of(
                    results.get(built.case.name, []), self.errors)
                    if same_way(self.verdict, other)), None)
                found_rivals = self.rivals(built, self.verdict.form) \
                    if same and self.rivals else frozenset()
                self.cache[key] = (same, found_rivals)
        for key, candidate in pending:
            judged = self.cache[key]
            if judged and judged[0] is not None and judged[1] <= best_rivals:
                return candidate, judged[0], judged[1]
        return None


def _one_form(built: judge.Built, form: str) -> judge.Built:
    """`built` with only the folders of one form (to be run)."""
    return replace(built, folders={k: v for k, v in built.folders.items() if v[0] == form},
                   cases={k: v for k, v in built.cases.items() if v[0] == form})


def content_key(recipe: Recipe):
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
