"""One program being drawn (`Draw`): its nodes, its sources and every value so far, each
node run on the spec oracle as it is added so later choices see real values. programs.py draws
the operators and carriers.py the Identity/If/Loop carriers on top of it."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from .._core.cases import UNTYPED, Graph, Node, ValueDecl
from .._core.elements import ELEMENTS, ElementType
from .._core.errors import NoResult, OracleError
from .._core.value_kinds import SequenceType, ValueType
from .._oracle import oracle
from .profile import FREE, Within
from .recipes import WHERE, Source
from .schemas import admits, seq, tensor
from .values import draw_shape, draw_tensor

INT64 = ELEMENTS["int64"]
INT32 = ELEMENTS["int32"]
BOOL = ELEMENTS["bool"]

#: Operators whose sequence output holds tensors of their sequence input's rank.
_KEEP_RANK = ("SequenceInsert", "SequenceErase", "Identity", "If", "Loop")


class Draw:
    """One program being drawn: its nodes, sources and every value so far."""

    def __init__(self, rng: random.Random, opset: int, wider: random.Random | None = None,
                 within: Within = FREE):
        self.rng, self.opset = rng, opset
        self.wider = wider  # the wider grammar's own stream (generate's `wider`), or None
        self.within = within  # what a refusal-aware draw leaves out (FREE: nothing)
        self.nodes: list[Node] = []
        self.sources: list[Source] = []
        self.values: dict[str, Any] = {}
        self.types: dict[str, ValueType] = {}
        self.ranks: dict[str, int] = {}  # a sequence's element rank, where known when empty
        self.count = 0

    def wide(self, chance: float) -> bool:
        """Whether the wider grammar takes one of its choices here (never, outside it). Its
        draws come from a stream of their own, so a program it leaves alone is drawn as the
        plain grammar draws it."""
        return self.wider is not None and self.wider.random() < chance

    def name(self, stem: str) -> str:
        self.count += 1
        return f"{stem}{self.count}"

    def source(self, value_type: ValueType, value, stem: str = "x",
               initializer: bool = False) -> str:
        name = self.name(stem)
        self.sources.append(Source(name, value_type, value, initializer))
        self.values[name], self.types[name] = value, value_type
        return name

    def tensor_input(self, element: ElementType, shape=None) -> str:
        shape = draw_shape(self.rng) if shape is None else shape
        return self.source(tensor(element), draw_tensor(self.rng, element, shape))

    def sequence_input(self, element: ElementType, length=None, rank=None) -> str:
        rng = self.rng
        length = rng.choice((0, 1, 1, 2, 2, 3, 4)) if length is None else length
        rank = rng.choice((0, 1, 1, 2)) if rank is None else rank
        rank = rank + 2 if rank and self.wide(0.15) else rank  # ranks 3 and 4
        same = rng.random() < 0.6
        first = draw_shape(rng, rank)
        value = [draw_tensor(rng, element, first if same else draw_shape(rng, rank))
                 for _ in range(length)]
        if not self.within.takes("input", "sequence"):
            return self._built_sequence(element, value, rank)
        name = self.source(seq(element), value, "s")
        self.ranks[name] = rank
        return name

    def _built_sequence(self, element: ElementType, value: list, rank: int) -> str:
        """The sequence `value` made inside the graph (a backend refuses sequence graph
        inputs): SequenceConstruct of tensor inputs, or SequenceEmpty when empty. NoResult when
        that operator does not take `element` at this opset (SequenceConstruct-11 has no float8,
        int4, ... where a later Identity or SequenceAt does): no program within the space."""
        maker = "SequenceConstruct" if value else "SequenceEmpty"
        if not admits(maker, self.opset, [tensor(element)] if value else [], [seq(element)]) \
                or not (value or self.empty_of(element)):
            raise NoResult(f"{maker} at opset {self.opset} cannot make a sequence of "
                           f"{element.name} (sequence graph inputs are refused)")
        name = self.name("s")
        if value:
            parts = [self.source(tensor(element), v) for v in value]
            self.node("SequenceConstruct", parts, [name], [seq(element)])
        else:
            self.node("SequenceEmpty", [], [name], [seq(element)], dtype=element.proto)
        self.ranks[name] = rank
        return name

    def empty_of(self, element: ElementType) -> bool:
        """Whether the draw may make an empty sequence of `element` (SequenceEmpty's dtype:
        profile.ELEMENT_ATTRIBUTES)."""
        return self.within.takes("attribute", f"SequenceEmpty.dtype={element.name}")

    def rank_of(self, name: str, default: int) -> int:
        """The element rank of sequence `name`: its first element's, else what the draw
        knows of it (onnx's inference carries it through), else `default`."""
        value = self.values[name]
        if value:
            return np.asarray(value[0]).ndim
        return self.ranks.get(name, default)

    def constant_int(self, value, element: ElementType, stem: str = "p", use: str = "") -> str:
        """An integer tensor as a graph input, an initializer or a Constant node: its tensor
        attribute `value` (any integer type, as exporters write it) or, for a non-empty int64
        scalar or 1-D tensor from Constant-12 on, `value_int` / `value_ints`. `use` (`OP.K`,
        the input it feeds) leaves out the origins `within` refuses there."""
        array = np.array(value, dtype=element.dtype)
        hows = [h for h in self.within.only("source", ("input", "input", "initializer",
                                                       "constant"), lambda how: f"{use}:{how}")
                if h != "constant" or self.within.takes("op", "Constant")]
        if not hows:
            raise NoResult(f"every origin of {use} is refused")
        how = self.rng.choice(hows)
        if how != "constant":
            return self.source(tensor(element), array, stem, initializer=how == "initializer")
        name = self.name(stem)
        if element == INT64 and array.ndim <= 1 and array.size and self.opset >= 12 \
                and self.rng.random() < 0.5 and self._short_constant():
            if array.ndim == 0:
                self.node("Constant", [], [name], [tensor(element)], value_int=int(array))
            else:
                self.node("Constant", [], [name], [tensor(element)],
                          value_ints=[int(v) for v in array])
        else:
            self.node("Constant", [], [name], [tensor(element)], value=array)
        return name

    def _short_constant(self) -> bool:
        """Whether a Constant node may give its value as `value_int` / `value_ints`."""
        return self.within.takes("attribute", "Constant.value_int") and \
            self.within.takes("attribute", "Constant.value_ints")

    def node(self, op_type: str, inputs, outputs, out_types, **attributes) -> None:
        """Add a node and run it on the oracle; NoResult when the spec gives no result."""
        node = Node(op_type, tuple(inputs), tuple(outputs), tuple(sorted(attributes.items())),
                    WHERE)
        graph = Graph((), tuple(ValueDecl(n, UNTYPED, WHERE) for n in outputs), (node,))
        try:
            results = oracle.run_graph(graph, self.opset, [], self.values)
        except OracleError as error:
            raise NoResult(str(error)) from None
        self.nodes.append(node)
        known = [self.ranks[i] for i in inputs if i in self.ranks]
        for name, value, value_type in zip(outputs, results, out_types, strict=True):
            self.values[name], self.types[name] = value, value_type
            if isinstance(value_type, SequenceType) and value:
                self.ranks[name] = np.asarray(value[0]).ndim
            elif isinstance(value_type, SequenceType) and known and op_type in _KEEP_RANK:
                self.ranks[name] = known[0]

    def omit_tail(self, inputs: list, op_type: str = "") -> list:
        """Trailing inputs left off: either dropped or given as ""."""
        given = self.rng.random() < 0.3 and self.within.takes("omitted", op_type)
        return inputs + [""] if given else inputs

    def position(self, count: int, allow_end: bool, allowed, use: str = "") -> str:
        """A position for a sequence of `count`: in range, sometimes -n, n or out of range."""
        rng = self.rng
        high = count if allow_end else count - 1
        choices = list(range(-count, high + 1)) or [0]
        value = rng.choice(choices + [-count, high]) if rng.random() > 0.03 else high + 1
        element = rng.choice(allowed)
        if self.wide(0.25) and self.opset >= 7:  # computed by a node: Sub(value + 1, 1)
            out = self.name("p")
            self.node("Sub", [self.constant_int(value + 1, element),
                              self.constant_int(1, element)], [out], [tensor(element)])
            return out
        return self.constant_int(value, element, use=use)
