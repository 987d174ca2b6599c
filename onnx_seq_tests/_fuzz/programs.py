"""Random valid programs in the project's own case model.

`generate(seed)` draws one program: an operator, a version of it and an opset at which that
version is in force (schemas.py), element types the schema admits, then one node, or a chain
of 2-4 nodes where a sequence or optional output feeds the next operator, or a sequence or
optional passed through an If, a Loop or a SequenceMap body. Positions and splits come as graph
inputs, initializers or Constant nodes; trailing optional inputs are left off or given "".
Values come from values.py. Each node is run on the spec oracle as it is added (draw.py),
so later choices see real values; the Identity/If/Loop carriers are in carriers.py. The
result is a `Recipe`, whose case has one data set with the oracle's expected outputs.
Where the spec gives no result for the drawn inputs, `generate`
raises NoResult (the campaign drops and counts it).

A program is described by a `Recipe` (recipes.py): nodes, graph inputs with their values,
initializers and outputs; `recipes.to_case` turns one into a Case (declared types from the
values: each dim unknown or fixed, as drawn), and shrink.py edits recipes.
"""

from __future__ import annotations

import random
from typing import Any, cast

import numpy as np

from .._core.cases import Graph, Node, ValueDecl
from .._core.elements import ELEMENTS, ElementType
from .._core.errors import NoResult
from .._core.value_kinds import OptionalType, SequenceType, TensorType, ValueType, innermost
from . import schemas
from .carriers import CARRIERS
from .draw import BOOL, INT32, INT64, Draw
from .profile import drawn_from, value_kind
from .recipes import WHERE, Recipe
from .schemas import opt, seq, tensor
from .values import draw_shape


def _position_types(op_type: str, opset: int, role) -> list[ElementType]:
    return [e for e in (INT32, INT64) if schemas.admits(op_type, opset, *role(e))]


def _pick(d: Draw, op_type: str, role, keep=None) -> ElementType:
    """One of the element types `op_type` admits in `role` that the draw may choose (and
    `keep` keeps, when given)."""
    found = [e for e in _elements(d, op_type, role) if keep is None or keep(e)]
    if not found:
        raise NoResult(f"{op_type} at opset {d.opset} admits no element type for this role")
    return d.rng.choice(found)


def _elements(d: Draw, op_type: str, role) -> list[ElementType]:
    """The element types `op_type` admits in `role` that the draw may choose."""
    return d.within.only("element", schemas.elements_for(op_type, d.opset, role),
                         lambda e: e.name)


# -- one operator on values the draw already holds (or new sources) ----------------------------

def _sequence_of(d: Draw, element: ElementType) -> str:
    """A sequence of `element`: one already drawn (the newest first), else a new one."""
    for name in reversed(list(d.types)):
        if d.types[name] == seq(element) and d.rng.random() < 0.85:
            return name
    made = d.rng.random()
    if made < 0.6:
        return d.sequence_input(element)
    if made < 0.8 and schemas.admits("SequenceConstruct", d.opset, [tensor(element)],
                                      [seq(element)]) and d.within.takes("op", "SequenceConstruct"):
        rank = d.rng.choice((0, 1, 2))
        parts = [d.tensor_input(element, draw_shape(d.rng, rank))
                 for _ in range(d.rng.randint(1, 3))]
        out = d.name("s")
        d.node("SequenceConstruct", parts, [out], [seq(element)])
        return out
    return d.sequence_input(element)


def _last_sequence(d: Draw):
    """The newest sequence value, if any, with its element type."""
    for name in reversed(list(d.types)):
        value_type = d.types[name]
        if isinstance(value_type, SequenceType):
            return name, innermost(value_type).element
    return None, None


def op_sequence_construct(d: Draw, element=None):
    role = lambda e: ([tensor(e)], [seq(e)])  # noqa: E731
    element = element or _pick(d, "SequenceConstruct", role)
    rank = d.rng.choice((0, 1, 1, 2, 3))
    rank = 4 if rank == 3 and d.wide(0.5) else rank
    parts = [d.tensor_input(element, draw_shape(d.rng, rank))
             for _ in range(d.rng.randint(1, 4))]
    out = d.name("s")
    d.node("SequenceConstruct", parts, [out], [seq(element)])


def op_sequence_empty(d: Draw, element=None):
    def role(e: ElementType) -> tuple[list[ValueType], list[ValueType]]:
        return [], [seq(e)]

    out = d.name("s")
    if element is None and d.rng.random() < 0.2 and d.within.takes("element", "float") \
            and d.within.takes("attribute", "SequenceEmpty.dtype"):  # dtype left off: float
        d.node("SequenceEmpty", [], [out], [seq(ELEMENTS["float"])])
        return
    if element is not None and not d.empty_of(element):
        raise NoResult(f"SequenceEmpty of {element.name} is refused")
    element = element or _pick(d, "SequenceEmpty", role, d.empty_of)
    d.node("SequenceEmpty", [], [out], [seq(element)], dtype=element.proto)


def op_sequence_at(d: Draw, element=None):
    name, element = _use_or_new(d, "SequenceAt", element,
                                lambda e: ([seq(e), tensor(INT64)], [tensor(e)]))
    count = len(d.values[name])
    if count == 0:
        raise NoResult("SequenceAt on an empty sequence")
    positions = _position_types("SequenceAt", d.opset,
                                lambda p: ([seq(element), tensor(p)], [tensor(element)]))
    out = d.name("t")
    d.node("SequenceAt", [name, d.position(count, False, positions, "SequenceAt.1")], [out],
           [tensor(element)])


def op_sequence_insert(d: Draw, element=None):
    role = lambda e: ([seq(e), tensor(e)], [seq(e)])  # noqa: E731
    name, element = _use_or_new(d, "SequenceInsert", element, role)
    existing = d.values[name]
    item = d.tensor_input(element, draw_shape(d.rng, d.rank_of(name, d.rng.choice((0, 1, 2)))))
    _with_position(d, "SequenceInsert", [name, item], element, len(existing), True)


def op_sequence_erase(d: Draw, element=None):
    role = lambda e: ([seq(e)], [seq(e)])  # noqa: E731
    name, element = _use_or_new(d, "SequenceErase", element, role)
    count = len(d.values[name])
    _with_position(d, "SequenceErase", [name], element, count, False, drawn=count > 0)


def _with_position(d: Draw, op_type: str, inputs: list[str], element: Any, count: int,
                   end: bool, drawn: bool = True) -> None:
    """A SequenceInsert or SequenceErase node on `inputs` (the sequence, and the tensor to
    insert), its optional position drawn (7 times in 10, when `drawn`) among the positions of
    a sequence of `count` (`end`: the one past the last too), else left off."""
    if drawn and d.rng.random() < 0.7:
        types = [seq(element), *([tensor(element)] if len(inputs) > 1 else [])]
        positions = _position_types(op_type, d.opset,
                                    lambda p: ([*types, tensor(p)], [seq(element)]))
        inputs = [*inputs, d.position(count, end, positions, f"{op_type}.{len(inputs)}")]
    else:
        inputs = d.omit_tail(inputs, op_type)
    d.node(op_type, inputs, [d.name("s")], [seq(element)])


def op_sequence_length(d: Draw, element=None):
    role = lambda e: ([seq(e)], [tensor(INT64)])  # noqa: E731
    name, _ = _use_or_new(d, "SequenceLength", element, role)
    out = d.name("n")
    d.node("SequenceLength", [name], [out], [tensor(INT64)])


def op_split_to_sequence(d: Draw, element=None):
    role = lambda e: ([tensor(e)], [seq(e)])  # noqa: E731
    element = element or _pick(d, "SplitToSequence", role)
    rng = d.rng
    rank = rng.choice((1, 1, 2, 3))
    shape = draw_shape(rng, 4 if rank == 3 and d.wide(0.5) else rank)
    source = d.tensor_input(element, shape)
    axis = rng.randrange(-len(shape), len(shape))
    size = shape[axis]
    attributes = {}
    if rng.random() < 0.5 and d.within.takes("attribute", "SplitToSequence.axis"):
        attributes["axis"] = axis
    else:
        axis = 0
        size = shape[0]
    inputs = [source]
    kind = rng.choice(("none", "scalar", "list", "list"))
    keepdims = d.within.takes("attribute", "SplitToSequence.keepdims")
    splits = [e for e in (INT32, INT64) if schemas.admits(
        "SplitToSequence", d.opset, [tensor(element), tensor(e)], [seq(element)])]
    if kind == "scalar" and size:
        inputs.append(d.constant_int(rng.randint(1, max(1, size)), rng.choice(splits), "k",
                                     "SplitToSequence.1"))
    elif kind == "list" and size:
        cuts = sorted(rng.sample(range(1, size), rng.randint(0, size - 1))) if size > 1 else []
        pieces = [b - a for a, b in zip([0, *cuts], [*cuts, size], strict=True)]
        inputs.append(d.constant_int(pieces, rng.choice(splits), "k", "SplitToSequence.1"))
    elif rng.random() < 0.35:  # (onnx's inference reads a split given as "" as present)
        inputs = d.omit_tail(inputs, "SplitToSequence")
    elif rng.random() < 0.8 and keepdims:
        attributes["keepdims"] = rng.choice((0, 1))
    if len(inputs) > 1 and inputs[1] and rng.random() < 0.3 and keepdims:  # then ignored
        attributes["keepdims"] = rng.choice((0, 1))
    out = d.name("s")
    d.node("SplitToSequence", inputs, [out], [seq(element)], **attributes)


def op_concat_from_sequence(d: Draw, element=None):
    role = lambda e: ([seq(e)], [tensor(e)])  # noqa: E731
    name, element = _use_or_new(d, "ConcatFromSequence", element, role)
    value = d.values[name]
    if not value:
        raise NoResult("ConcatFromSequence on an empty sequence")
    rank = np.asarray(value[0]).ndim
    new_axis = d.rng.choice((0, 0, 1))
    if rank == 0:
        new_axis = 1
    if new_axis and not d.within.takes("attribute", "ConcatFromSequence.new_axis"):
        raise NoResult("new_axis is refused")
    top = rank + 1 if new_axis else rank
    axis = d.rng.randrange(-top, top)
    attributes = {"axis": axis}
    if new_axis or d.rng.random() < 0.3:
        attributes["new_axis"] = new_axis
    out = d.name("t")
    d.node("ConcatFromSequence", [name], [out], [tensor(element)], **attributes)


#: The operator of each kind of SequenceMap body op_sequence_map draws.
_BODY_OPS = {"identity": "Identity", "shape": "Shape", "pair": "Identity", "pairs": "Identity",
             "constant": "Constant", "outer": "Identity"}


def op_sequence_map(d: Draw, element=None):
    role = lambda e: ([seq(e)], [seq(e)])  # noqa: E731
    name, element = _use_or_new(d, "SequenceMap", element, role)
    rng = d.rng
    body_in = d.name("b")
    inputs = [name]
    body_inputs = [ValueDecl(body_in, TensorType(element), WHERE)]
    kinds = d.within.only("op", ("identity", "shape", "pair", "pair", "pairs", "constant",
                                 "outer"), _BODY_OPS.__getitem__)
    if not kinds:
        raise NoResult("every SequenceMap body is refused")
    kind = rng.choice(kinds)
    body_out = d.name("bo")
    if kind in ("pair", "pairs"):  # one or two additional inputs; the body returns the last
        for _ in range(1 if kind == "pair" else 2):
            extra = _sequence_of(d, element) if rng.random() < 0.5 else \
                d.tensor_input(element)
            if isinstance(d.types[extra], SequenceType) and \
                    len(d.values[extra]) != len(d.values[name]):
                extra = d.tensor_input(element)
            inputs.append(extra)
            second = d.name("b")
            body_inputs.append(ValueDecl(second, TensorType(element), WHERE))
        nodes = (Node("Identity", (second,), (body_out,), (), WHERE),)
        out_element = element
    elif kind == "constant":  # the body's output made by a Constant node
        nodes = (Node("Constant", (), (body_out,), (("value_int", rng.randint(1, 9)),), WHERE),)
        out_element = INT64
    elif kind == "outer":  # the body reads a value of the enclosing graph
        outer = d.tensor_input(element)
        nodes = (Node("Identity", (outer,), (body_out,), (), WHERE),)
        out_element = element
    elif kind == "shape":
        nodes = (Node("Shape", (body_in,), (body_out,), (), WHERE),)
        out_element = INT64
    else:
        nodes = (Node("Identity", (body_in,), (body_out,), (), WHERE),)
        out_element = element
    body = Graph(tuple(body_inputs), (ValueDecl(body_out, TensorType(out_element), WHERE),),
                 nodes)
    out = d.name("s")
    if not schemas.admits("SequenceMap", d.opset, [d.types[i] for i in inputs],
                          [seq(out_element)]):
        raise NoResult("SequenceMap does not admit these types")
    d.node("SequenceMap", inputs, [out], [seq(out_element)], body=body)


def _optional_value(d: Draw, element: ElementType) -> str:
    """A value to wrap: the newest tensor or sequence of `element`, else a new one."""
    for name in reversed(list(d.types)):
        if d.types[name] in (seq(element), tensor(element)) and d.rng.random() < 0.7:
            return name
    if d.rng.random() < 0.5:
        return _sequence_of(d, element)
    return d.tensor_input(element)


def op_optional(d: Draw, element=None, inner: ValueType | None = None):
    rng = d.rng
    if inner is None:
        wrap = rng.choice((tensor, seq))
        role = lambda e: ([wrap(e)], [opt(wrap(e))])  # noqa: E731
        element = element or _pick(d, "Optional", role)
    out = d.name("o")
    if rng.random() < 0.4 and d.within.takes("attribute", "Optional.type"):  # empty
        inner = inner or wrap(element)
        d.node("Optional", [], [out], [opt(inner)], type=inner)
        return
    name = _optional_value(d, element) if inner is None else None
    inner = d.types[name] if name else cast(ValueType, inner)
    if not schemas.admits("Optional", d.opset, [inner], [opt(inner)]):
        raise NoResult(f"Optional does not admit {inner}")
    d.node("Optional", [name], [out], [opt(inner)])


def _last_optional(d: Draw):
    for name in reversed(list(d.types)):
        if isinstance(d.types[name], OptionalType):
            return name
    return None


def _optional_input(d: Draw, op_type: str) -> str:
    """An optional to read: the newest one, else a new graph input (empty or present), else
    (where the version admits it) a plain tensor or sequence."""
    name = _last_optional(d)
    if name is not None and d.rng.random() < 0.9:
        return name
    wrap = d.rng.choice((tensor, seq))
    wanted = d.rng.random() < 0.25
    found, plain = [], False
    for plain in (wanted, False):  # noqa: B007 - the one found is used below
        found = d.within.only("element", [e for e in ELEMENTS.values() if _admits_input(
            op_type, d.opset, wrap(e) if plain else opt(wrap(e)))], lambda e: e.name)
        if found:
            break
    if not found:
        raise NoResult(f"{op_type} at opset {d.opset} admits no such input")
    element = d.rng.choice(found)
    inner = d.sequence_input(element) if wrap is seq else d.tensor_input(element)
    if plain:
        return inner
    if not d.within.takes("input", "optional") or not d.sources \
            or d.sources[-1].name != inner:  # made in the graph
        out = d.name("o")
        d.node("Optional", [inner], [out], [opt(d.types[inner])])
        return out
    value = d.values.pop(inner)
    d.types.pop(inner)
    d.sources.pop()
    empty = d.rng.random() < 0.4
    return d.source(opt(wrap(element)), None if empty else value, "o")


def _admits_input(op_type: str, opset: int, value_type: ValueType) -> bool:
    """Whether an Optional* reader admits `value_type` as its input (whatever it gives)."""
    inner = value_type.element if isinstance(value_type, OptionalType) else value_type
    return any(schemas.admits(op_type, opset, [value_type], [out])
               for out in (inner, tensor(BOOL)))


def op_optional_has_element(d: Draw, element=None):
    rng = d.rng
    out = d.name("h")
    if schemas.admits("OptionalHasElement", d.opset, [], [tensor(BOOL)]) and rng.random() < 0.1:
        d.node("OptionalHasElement", [] if rng.random() < 0.5 else [""], [out], [tensor(BOOL)])
        return
    name = _optional_input(d, "OptionalHasElement")
    if not schemas.admits("OptionalHasElement", d.opset, [d.types[name]], [tensor(BOOL)]):
        raise NoResult("OptionalHasElement does not admit this input")
    d.node("OptionalHasElement", [name], [out], [tensor(BOOL)])


def op_optional_get_element(d: Draw, element=None):
    name = _optional_input(d, "OptionalGetElement")
    value_type = d.types[name]
    inner = value_type.element if isinstance(value_type, OptionalType) else value_type
    if not schemas.admits("OptionalGetElement", d.opset, [value_type], [inner]):
        raise NoResult("OptionalGetElement does not admit this input")
    out = d.name("g")
    d.node("OptionalGetElement", [name], [out], [inner])


def _use_or_new(d: Draw, op_type: str, element, role):
    """The newest sequence of an admitted element type, else a new sequence; with its
    element type."""
    name, found = _last_sequence(d)
    allowed = _elements(d, op_type, role)
    if name is not None and found in allowed and (element is None or element == found):
        return name, found
    element = element if element in allowed else None
    element = element or _pick(d, op_type, role)
    return _sequence_of(d, element), element


#: The operators a program starts from, each with how it is drawn.
OPERATORS = {
    "SequenceConstruct": op_sequence_construct,
    "SequenceEmpty": op_sequence_empty,
    "SequenceAt": op_sequence_at,
    "SequenceInsert": op_sequence_insert,
    "SequenceErase": op_sequence_erase,
    "SequenceLength": op_sequence_length,
    "SplitToSequence": op_split_to_sequence,
    "ConcatFromSequence": op_concat_from_sequence,
    "SequenceMap": op_sequence_map,
    "Optional": op_optional,
    "OptionalHasElement": op_optional_has_element,
    "OptionalGetElement": op_optional_get_element,
}


def generate(seed: int | str, operators=None, opsets=None, wider: bool = False) -> Recipe:
    """The program of `seed` (the same seed, the same program); NoResult where the spec gives
    none. `operators` and `opsets` narrow what is drawn (--op, --opset). `wider` adds the
    choices of the wider grammar (`fuzz --distil`): ranks 3 and 4, positions computed by a
    node, conditions and trip counts from initializers; drawn from a stream of their own, so
    the plain grammar's programs (and the committed seeds naming them) stay as they are.
    A seed text `S at opset N` (`preferring`) takes opset N where the drawn operator's drawn
    version holds at N, else mostly one N decides among its opsets (`_opset_preferring`); N
    drawn uniformly from every opset (campaign.run_opset), each opset of that version stays
    as likely as in the plain draw, which draws the same random numbers. A seed text
    `S within F1,F2,...` (profile.Within.seed_text: refusal-aware drawing) draws from `S`
    leaving out the choices a backend refuses: its operators, opsets, element types, sources,
    attributes, sequence and optional graph inputs (made in the graph instead) and outputs
    (read in the graph instead: `_readable`); a plain seed draws every choice."""
    seed, within = drawn_from(seed)
    seed, preferred = _preferred(seed)
    rng = random.Random(seed)
    names = within.only("op", sorted(operators or OPERATORS))
    if not names:
        raise NoResult("every operator is refused")
    op_type = rng.choice(names)
    version_map = schemas.version_opsets(op_type)
    choices = within.only("opset", [o for v in sorted(version_map) for o in version_map[v]
                                    if not opsets or o in opsets])
    if not choices:
        raise NoResult(f"{op_type} exists at none of the opsets {sorted(opsets or [])}")
    version = rng.choice(sorted({schemas_version(op_type, o) for o in choices}))
    at_version = [o for o in choices if schemas_version(op_type, o) == version]
    opset = _opset_preferring(rng.choice(at_version), at_version, preferred)
    d = Draw(rng, opset, random.Random(f"{seed}+wider") if wider else None, within)
    OPERATORS[op_type](d)
    shape = rng.random()
    if shape < 0.45:  # a chain: the next operators read what the last one made
        for _ in range(rng.randint(1, 3)):
            follow = rng.choice([n for n in names if schemas.version_opsets(n)
                                 and any(opset in o for o in schemas.version_opsets(n).values())])
            OPERATORS[follow](d)
    elif shape < 0.65:  # through a carrier
        carried = [n for n in d.types if isinstance(d.types[n], (SequenceType, OptionalType))
                   and n in {o for node in d.nodes for o in node.outputs}]
        carriers = within.only("op", sorted(CARRIERS))
        if carried and carriers:
            CARRIERS[rng.choice(carriers)](d, carried[-1])
    if shape > 0.9 and schemas.version_opsets("Optional") and opset >= 15 \
            and within.takes("op", "Optional"):
        op_optional(d)  # one more output: an optional, often empty
    outputs = _outputs(d)
    return Recipe(opset, tuple(d.nodes), tuple(d.sources), tuple(outputs), dict(d.types),
                  fixed=rng.random() < 0.5)


#: What ends a seed text with the opset its program prefers (`preferring`).
AT_OPSET = " at opset "


def preferring(text: str, opset: int | None) -> str:
    """The seed text `text` whose program takes `opset` where its operator's version holds
    at it (campaign.run_opset: programs of one opset share a compiled model), else the
    opset it draws; `text` itself for None."""
    return text if opset is None else f"{text}{AT_OPSET}{opset}"


def _opset_preferring(drawn: int, at_version: list[int], preferred: int | None) -> int:
    """The opset of a program that drew `drawn` among `at_version` (its operator's version's
    opsets, oldest first) and prefers `preferred` (`preferring`): `preferred` where the version
    holds at it; else, for most N outside, the opset N decides (the j-th opset outside is
    given the (j mod L)-th of L opsets, for j below the largest multiple of L), so programs
    preferring one N mostly share an opset there too; else `drawn`. N uniform over every
    opset, each opset of `at_version` is exactly as likely as `drawn` is: 1/L."""
    if preferred is None:
        return drawn
    if preferred in at_version:
        return preferred
    outside = [o for o in schemas.opsets() if o not in at_version]
    if preferred not in outside:  # an opset this onnx does not release: the program's own
        return drawn
    index, length = outside.index(preferred), len(at_version)
    return at_version[index % length] if index < len(outside) // length * length else drawn


def _preferred(seed) -> tuple:
    """(the seed, the opset it prefers or None) of a seed text (`preferring`); NoResult
    for a seed text whose opset is not a number (a database's text is anyone's)."""
    if isinstance(seed, str) and AT_OPSET in seed:
        text, opset = seed.rsplit(AT_OPSET, 1)
        if not opset.isdigit():
            raise NoResult(f"seed text {seed!r}: {opset!r} after {AT_OPSET.strip()!r} is not "
                           "an opset")
        return text, int(opset)
    return seed, None


def _outputs(d: Draw) -> list[str]:
    """The program's outputs: the values no node reads (else the last one made), and 3 times
    in 10 one more value made; a sequence or optional of a kind `d.within` refuses as a graph
    output is read in the graph first (`_readable`)."""
    while True:
        produced = [o for node in d.nodes for o in node.outputs]
        used = {i for node in d.nodes for i in node.inputs}
        outputs = [n for n in produced if n not in used] or produced[-1:]
        refused = [n for n in outputs if not d.within.takes("output", value_kind(d.types[n]))]
        if not refused:
            break
        for name in refused:
            _readable(d, name)
    more = d.within.only("output", produced, lambda n: value_kind(d.types[n]))
    if d.rng.random() < 0.3 and len(produced) > len(outputs) and more:
        outputs = sorted(set(outputs) | {d.rng.choice(more)}, key=produced.index)
    return outputs


#: The operators that read a sequence or an optional into a tensor (or an optional's value).
_READERS = {"sequence": ("SequenceAt", "SequenceLength", "ConcatFromSequence"),
            "optional": ("OptionalGetElement", "OptionalHasElement")}


def _readable(d: Draw, name: str) -> None:
    """A node reading the sequence or optional `name` (an output a backend refuses): one of
    `_READERS` that the draw may choose, the schema admits and the value allows."""
    value_type, value = d.types[name], d.values[name]
    kind = value_kind(value_type)
    if kind not in _READERS:
        raise NoResult(f"a {kind} output is refused")
    inner = value_type.element if isinstance(value_type, (SequenceType, OptionalType)) \
        else value_type
    positions = _position_types("SequenceAt", d.opset,
                                lambda p: ([value_type, tensor(p)], [inner]))
    gives = {"SequenceLength": tensor(INT64), "OptionalHasElement": tensor(BOOL)}
    needs = {"OptionalGetElement": value is not None,  # what the value and the schema allow
             "SequenceAt": kind == "sequence" and len(value) > 0 and bool(positions)}
    needs["ConcatFromSequence"] = needs["SequenceAt"]
    readers = [op for op in _READERS[kind] if d.within.takes("op", op) and needs.get(op, True)
               and (op == "SequenceAt" or schemas.admits(op, d.opset, [value_type],
                                                         [gives.get(op, inner)]))]
    if not readers:
        raise NoResult(f"no reader of a {kind} output may be drawn")
    op, out = d.rng.choice(readers), d.name("r")
    if op in gives:
        d.node(op, [name], [out], [gives[op]])
    elif op == "SequenceAt":
        d.node(op, [name, d.position(len(value), False, positions, "SequenceAt.1")], [out],
               [inner])
    elif op == "ConcatFromSequence":
        d.node(op, [name], [out], [inner], axis=0, new_axis=1)
    else:
        d.node(op, [name], [out], [inner])


def schemas_version(op_type: str, opset: int) -> int:
    for version, found in schemas.version_opsets(op_type).items():
        if opset in found:
            return version
    raise KeyError((op_type, opset))
