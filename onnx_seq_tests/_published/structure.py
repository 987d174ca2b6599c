"""Structural features: what a program's shape asks of a runtime beyond the (operator, version,
type) cells. Ranks and axis classes, sizes of 0, the forms of a split and of a position (its
class, its type, what computes it), where a sequence operator runs (an If branch, a Loop body, a
SequenceMap body) and on what (a carried, an outer sequence, a scan output), what its sequence
comes from (a chain of sequence operators), outer-scope reads, If and Loop controls (shape [] or
[1], from a constant, omitted where the schema allows it), and what Identity, If and Loop pass
through. Rows about positions, controls and carriers are made from onnx.defs (the position's
types, which inputs are optional, the first version admitting a sequence or an optional).

Each feature is a label of the coverage machinery (case_features.py): `traced(node, args,
results)` gives the ones a node shows on one data set (run by the spec oracle), `static(graph)`
the ones the graph's form shows. `STRUCTURE` lists what the report counts, per suite form.
"""

from __future__ import annotations

import numpy as np

from .._core import operators
from .._core.cases import Graph, outer_names, walk
from .._oracle import oracle

#: Position classes per positional operator (what the issue lists; `len` only where the schema
#: lets a position equal the length, SequenceInsert's append): op -> labels.
_POSITION_CLASSES = {"SequenceAt": ("position 0", "position 1", "position -1", "position -len"),
                     "SequenceErase": ("position 0", "position 1", "position -1",
                                       "position -len"),
                     "SequenceInsert": ("position 1",)}  # the others: EDGE_CASES's rows


def _position_rows() -> list[tuple[str, str, str]]:
    """A row per position class, and per position element type the schema admits (onnx.defs:
    the `tensor(int32)`, `tensor(int64)` of the position's type constraint)."""
    rows = []
    for op_type, labels in _POSITION_CLASSES.items():
        rows += [(f"{op_type} at {label}", op_type, label) for label in labels]
        formal = operators.defined_schema(op_type, operators.versions(op_type)[-1]).inputs[-1]
        for element in operators.element_names(operators.constraint_types(
                operators.defined_schema(op_type, operators.versions(op_type)[-1]),
                formal.type_str) or ()):
            rows.append((f"{op_type} with an {element} position", op_type,
                         f"{element} position"))
    return rows


#: The control inputs of If and Loop, by formal name, and the words the labels use.
_CONTROLS = {("If", "cond"): "condition", ("Loop", "M"): "trip count",
             ("Loop", "cond"): "condition"}


def _control_rows() -> list[tuple[str, str, str]]:
    """Per control input: given of shape [], from a constant (an initializer or a Constant
    node), and left off (IMPOSSIBLE where the schema requires it: _required_controls)."""
    rows = []
    for (op_type, _), word in _CONTROLS.items():
        rows.append((f"{op_type} with a {word} of shape []", op_type, f"{word} of shape []"))
        rows.append((f"{op_type} with a {word} from a constant", op_type,
                     f"{word} from a constant"))
        rows.append((f"{op_type} with its {word} omitted", op_type, f"{word} omitted"))
    return rows


def _required_controls() -> dict[str, str]:
    """The controls the schema requires (onnx.defs, newest version): left off, no case."""
    return {f"{op_type} with its {word} omitted":
            f"{op_type}'s `{formal}` is a required input (onnx.defs), never omitted"
            for (op_type, formal), word in _CONTROLS.items() if not _optional(op_type, formal)}


def _optional(op_type: str, formal: str) -> bool:
    op_schema = operators.defined_schema(op_type, operators.versions(op_type)[-1])
    return any(f.name == formal and f.option == operators.OPTIONAL for f in op_schema.inputs)


def _passed(op_type: str, version: int) -> tuple[str, ...]:
    """The types a carrier's outputs may have in `version` (onnx.defs)."""
    op_schema = operators.defined_schema(op_type, version)
    return tuple(t for formal in op_schema.outputs
                 for t in operators.constraint_types(op_schema, formal.type_str) or ())


def _carrier_rows() -> list[tuple[str, str, str]]:
    """Per carrier (Identity, If, Loop) and kind (sequence, optional): passing one through, from
    the first version whose schema admits it (onnx.defs). Loop carrying a sequence is
    EDGE_CASES's row."""
    rows = []
    for op_type in operators.CARRIERS:
        for kind, prefix in (("sequence", "seq("), ("optional", "optional(")):
            first = next((v for v in operators.versions(op_type)
                          if any(t.startswith(prefix) for t in _passed(op_type, v))), None)
            if first is None or (op_type, kind) == ("Loop", "sequence"):
                continue
            article = "an" if kind == "optional" else "a"
            rows.append((f"{op_type} passing {article} {kind} through ({op_type}-{first} on)",
                         op_type, f"carries {article} {kind}"))
    return rows


#: The structural features the report counts: (what, operator or None for any, label).
STRUCTURE = (
    ("SplitToSequence on a rank-1 input", "SplitToSequence", "rank 1 input"),
    ("SplitToSequence on a rank-2 input", "SplitToSequence", "rank 2 input"),
    ("SplitToSequence on a rank-3 input", "SplitToSequence", "rank 3 input"),
    ("SplitToSequence on a rank-4 input", "SplitToSequence", "rank 4 input"),
    ("SplitToSequence on a 0-d input", "SplitToSequence", "rank 0 input"),
    ("SplitToSequence with a negative axis", "SplitToSequence", "negative axis"),
    ("SplitToSequence: size 0 along the axis", "SplitToSequence", "size 0 along the axis"),
    ("SplitToSequence: size 0 off the axis", "SplitToSequence", "size 0 off the axis"),
    ("SplitToSequence along the first axis", "SplitToSequence", "axis first"),
    ("SplitToSequence along an interior axis", "SplitToSequence", "axis interior"),
    ("SplitToSequence along the last axis", "SplitToSequence", "axis last"),
    ("SplitToSequence: a scalar split that divides the axis", "SplitToSequence",
     "scalar split divides"),
    ("SplitToSequence: a scalar split that does not divide the axis", "SplitToSequence",
     "scalar split does not divide"),
    ("SplitToSequence: a 1-D split of all ones", "SplitToSequence", "1-D split all ones"),
    ("SplitToSequence: a single chunk", "SplitToSequence", "single chunk"),
    ("SplitToSequence: split from a Constant's value_int or value_ints", "SplitToSequence",
     "split from Constant value_int(s)"),
    ("SplitToSequence: split from a Constant's value tensor", "SplitToSequence",
     "split from Constant value tensor"),
    ("ConcatFromSequence of 0-d elements", "ConcatFromSequence", "rank 0 elements"),
    ("ConcatFromSequence of rank-1 elements", "ConcatFromSequence", "rank 1 elements"),
    ("ConcatFromSequence of rank-2 elements", "ConcatFromSequence", "rank 2 elements"),
    ("ConcatFromSequence of rank-3 elements", "ConcatFromSequence", "rank 3 elements"),
    ("ConcatFromSequence of rank-4 elements", "ConcatFromSequence", "rank 4 elements"),
    ("ConcatFromSequence: size 0 along the axis", "ConcatFromSequence",
     "size 0 along the axis"),
    ("ConcatFromSequence: size 0 off the axis", "ConcatFromSequence", "size 0 off the axis"),
    ("ConcatFromSequence along the first axis", "ConcatFromSequence", "axis first"),
    ("ConcatFromSequence along an interior axis", "ConcatFromSequence", "axis interior"),
    ("ConcatFromSequence along the last axis", "ConcatFromSequence", "axis last"),
    ("ConcatFromSequence stacking at axis = rank (new_axis=1)", "ConcatFromSequence",
     "new axis at rank"),
    ("a sequence of length 0", None, "sequence length 0"),
    ("a sequence of length 1", None, "sequence length 1"),
    ("a sequence of 3 or more tensors", None, "sequence length 3+"),
    ("a sequence operator inside an If branch", None, "in an If branch"),
    ("a sequence operator inside a Loop body", None, "in a Loop body"),
    ("a sequence operator inside a SequenceMap body", None, "in a SequenceMap body"),
    ("a subgraph reading a sequence of the enclosing graph", None, "reads an outer sequence"),
    ("a subgraph reading an optional of the enclosing graph", None, "reads an outer optional"),
    ("a subgraph reading a tensor of the enclosing graph", None, "reads an outer tensor"),
    ("a subgraph with a Constant node", None, "Constant node in a subgraph"),
    ("If with a condition of shape [1]", "If", "condition of shape [1]"),
    ("Loop with a trip count of shape [1]", "Loop", "trip count of shape [1]"),
    ("Loop carrying a sequence and a tensor together", "Loop",
     "carries a sequence and a tensor"),
    ("a Loop's trip count from SequenceLength", "Loop", "trip count from SequenceLength"),
    ("a sequence operator fed by another one (a chain)", None, "fed by a sequence operator"),
    ("ConcatFromSequence of a Loop's output", "ConcatFromSequence", "fed by Loop"),
    ("a sequence read by two or more nodes", None, "sequence read twice"),
    ("a position that is a graph input", None, "position from a graph input"),
    ("a position from a Constant's value_int", None, "position from Constant value_int(s)"),
    ("a position from a Constant's value tensor", None, "position from Constant value tensor"),
    ("SplitToSequence: a split that is a graph input", "SplitToSequence",
     "split from a graph input"),
    ("Optional with both an input and a type", "Optional", "input and type attribute"),
    ("Loop with a trip count of 0", "Loop", "trip count 0"),
    ("Loop whose condition is false at the start", "Loop", "condition false at start"),
    *_position_rows(),
    ("a position computed by another node (not a Constant)", None,
     "position computed by a node"),
    ("a Loop body running a sequence operator on a carried sequence", "Loop",
     "body on a carried sequence"),
    ("a Loop body making a scan output with a sequence operator", "Loop",
     "body on a scan output"),
    ("a Loop body running a sequence operator on an outer sequence", "Loop",
     "body on an outer sequence"),
    ("a SequenceMap body with several inputs", "SequenceMap", "body with several inputs"),
    ("a SequenceMap body reading names of the enclosing graph", "SequenceMap",
     "body reads an outer name"),
    *_control_rows(),
    *_carrier_rows(),
)

#: Features of STRUCTURE no valid case can hold, in any form: what -> why (the spec's words,
#: or what the schema says).
IMPOSSIBLE = {
    "SplitToSequence on a 0-d input": "SplitToSequence's axis: 'Accepted range is [-rank, "
                                      "rank-1]', empty for rank 0; the spec gives no result",
    **_required_controls(),
}

#: Inputs whose source is a feature: op_type -> (input index, what it is). The source is a
#: graph input, or a Constant node by the attribute that holds its tensor (`_CONSTANT_FORMS`).
_FED = {"SequenceAt": (1, "position"), "SequenceErase": (1, "position"),
        "SequenceInsert": (2, "position"), "SplitToSequence": (1, "split")}

#: A Constant's attribute -> how the features name it: exporters write the tensor attribute
#: `value`, hand-written models often `value_int(s)` (issues 26, 29).
_CONSTANT_FORMS = {"value": "value tensor", "value_int": "value_int(s)",
                   "value_ints": "value_int(s)"}

#: The operators whose inputs and outputs are sequences (a chain joins two of them).
_SEQUENCE_OPERATORS = frozenset(operators.sequence_only_operators())

_CONTEXTS = {"If": "in an If branch", "Loop": "in a Loop body",
             "SequenceMap": "in a SequenceMap body"}


def traced(node, args: list, results: list) -> set[str]:
    """The structural features a node shows on one data set."""
    labels = set()
    for value in [*args, *results]:
        if isinstance(value, list):
            count = len(value)
            labels.add("sequence length 0" if count == 0 else "sequence length 1"
                       if count == 1 else "sequence length 3+" if count >= 3 else "")
    if node.op_type == "SplitToSequence":
        labels |= _split(node, args, results)
    elif node.op_type == "ConcatFromSequence" and args[0]:
        labels |= _concat(node, args[0])
    elif node.op_type == "If":
        labels.add(_shape_label("condition", args[0]))
    elif node.op_type == "Optional" and args and args[0] is not oracle.MISSING and \
            "type" in dict(node.attributes):
        labels.add("input and type attribute")
    elif node.op_type == "Loop":
        given = [a is not oracle.MISSING for a in args[:2]] + [False, False]
        for word, at in (("trip count", 0), ("condition", 1)):
            if given[at]:
                labels.add(_shape_label(word, args[at]))
        if given[0] and int(np.asarray(args[0]).reshape(-1)[0]) == 0:
            labels.add("trip count 0")
        if given[1] and not bool(np.asarray(args[1]).reshape(-1)[0]):
            labels.add("condition false at start")
        carried = args[2:]
        if any(isinstance(v, list) for v in carried) and any(
                isinstance(v, np.ndarray) for v in carried):
            labels.add("carries a sequence and a tensor")
    labels.discard("")
    return labels


def _shape_label(word: str, value) -> str:
    """`word of shape []` or `word of shape [1]` (or "" for another shape)."""
    shape = np.asarray(value).shape
    return {(): f"{word} of shape []", (1,): f"{word} of shape [1]"}.get(shape, "")


def _zero_sizes(shape: tuple, axis: int | None) -> set[str]:
    """size 0 along `axis` and size 0 off it (axis None: every dim is off the axis)."""
    labels = set()
    for k, length in enumerate(shape):
        if length == 0:
            labels.add("size 0 along the axis" if k == axis else "size 0 off the axis")
    return labels


def _concat(node, sequence: list) -> set[str]:
    rank = np.asarray(sequence[0]).ndim
    attributes = dict(node.attributes)
    new_axis = attributes.get("new_axis", 0)
    axis = attributes["axis"]
    labels = {f"rank {rank} elements",
              _axis_class(axis, rank + new_axis, at_rank=bool(new_axis))}
    along = None if new_axis or not rank else axis + rank if axis < 0 else axis
    for element in sequence:
        labels |= _zero_sizes(np.asarray(element).shape, along)
    return labels


def _split(node, args, results) -> set[str]:
    tensor = np.asarray(args[0])
    attributes = dict(node.attributes)
    rank = tensor.ndim
    labels = {f"rank {rank} input"}
    if rank == 0:
        return labels
    axis = attributes.get("axis", 0)
    labels.add(_axis_class(axis, rank))
    labels |= _zero_sizes(tensor.shape, axis + rank if axis < 0 else axis)
    if len(results[0]) == 1:
        labels.add("single chunk")
    if len(args) > 1 and args[1] is not oracle.MISSING:
        split = np.asarray(args[1])
        size = tensor.shape[axis]
        if split.ndim == 0:
            labels.add("scalar split divides" if size % int(split) == 0
                       else "scalar split does not divide")
        elif split.size and (split == 1).all():
            labels.add("1-D split all ones")
    return labels


def _axis_class(axis: int, rank: int, at_rank: bool = False) -> str:
    """first, interior or last of `rank` axes (`rank` counts the new axis when stacking)."""
    axis = axis + rank if axis < 0 else axis
    if at_rank and axis == rank - 1:
        return "new axis at rank"
    return "axis first" if axis == 0 else "axis last" if axis == rank - 1 else "axis interior"


def static(graph: Graph, types: dict[str, str]) -> set[tuple[str, str]]:
    """(op_type, label) for the features the form of `graph` shows: where each node runs, what
    feeds it, what its subgraphs read from outside. `types` maps value names to type strings."""
    found: set[tuple[str, str]] = set()
    _static(graph, types, None, {}, found)
    sources = {value.name: "a graph input" for value in graph.inputs}
    for node in walk(graph):
        form = next((_CONSTANT_FORMS[n] for n, _ in node.attributes if n in _CONSTANT_FORMS),
                    None)
        if node.op_type == "Constant" and form:
            sources[node.outputs[0]] = f"Constant {form}"
    constants = {i.name for i in graph.initializers} | {
        o for n in walk(graph) if n.op_type == "Constant" for o in n.outputs}
    made = {o: n.op_type for n in walk(graph) for o in n.outputs}
    for node in walk(graph):
        at, what = _FED.get(node.op_type, (0, ""))
        if what and len(node.inputs) > at and node.inputs[at] in sources:
            found.add((node.op_type, f"{what} from {sources[node.inputs[at]]}"))
        if what == "position" and len(node.inputs) > at and \
                made.get(node.inputs[at], "Constant") != "Constant":
            found.add((node.op_type, "position computed by a node"))
        for (op_type, formal), word in _CONTROLS.items():
            at = _formal_index(op_type, formal) if node.op_type == op_type else -1
            if 0 <= at < len(node.inputs) and node.inputs[at] in constants:
                found.add((op_type, f"{word} from a constant"))
        for _, subgraph in node.attributes:
            if isinstance(subgraph, Graph):
                found.update(_body_features(node, subgraph, types))
    return found


def _formal_index(op_type: str, formal: str) -> int:
    op_schema = operators.defined_schema(op_type, operators.versions(op_type)[-1])
    return next(k for k, f in enumerate(op_schema.inputs) if f.name == formal)


def _body_features(node, body: Graph, types: dict[str, str]) -> set[tuple[str, str]]:
    """What a Loop or SequenceMap body does with sequences: a sequence operator on a carried
    sequence, on an outer one, making a scan output; a SequenceMap body's inputs and outer
    names."""
    found = set()
    outer = outer_names(body)
    if node.op_type == "SequenceMap":
        if len(body.inputs) > 1:
            found.add(("SequenceMap", "body with several inputs"))
        if outer:
            found.add(("SequenceMap", "body reads an outer name"))
    if node.op_type != "Loop":
        return found
    carried = {d.name for d in body.inputs[2:]}
    made = {}
    for inner in body.nodes:
        if inner.op_type in _SEQUENCE_OPERATORS:
            for name in inner.inputs:
                if name in carried:
                    found.add(("Loop", "body on a carried sequence"))
                if name in outer and types.get(name, "").startswith("seq("):
                    found.add(("Loop", "body on an outer sequence"))
            made.update(dict.fromkeys(inner.outputs, inner.op_type))
    scans = body.outputs[1 + len(carried):]
    if any(d.name in made for d in scans):
        found.add(("Loop", "body on a scan output"))
    return found


def _static(graph: Graph, types, context: str | None, producers: dict, found: set) -> None:
    producers = dict(producers)
    readers: dict[str, int] = {}
    for node in graph.nodes:
        for name in node.inputs:
            readers[name] = readers.get(name, 0) + 1
    for node in graph.nodes:
        if context and node.op_type in _SEQUENCE_OPERATORS:
            found.add((node.op_type, context))
        for name in node.inputs:
            producer = producers.get(name)
            if producer in _SEQUENCE_OPERATORS and node.op_type in _SEQUENCE_OPERATORS:
                found.add((node.op_type, "fed by a sequence operator"))
            if producer == "Loop" and node.op_type == "ConcatFromSequence":
                found.add((node.op_type, "fed by Loop"))
            if types.get(name, "").startswith("seq(") and readers.get(name, 0) > 1:
                found.add((node.op_type, "sequence read twice"))
        if node.op_type == "Loop" and node.inputs and producers.get(node.inputs[0]) == \
                "SequenceLength":
            found.add(("Loop", "trip count from SequenceLength"))
        for output in node.outputs:
            producers[output] = node.op_type
    for node in graph.nodes:
        for _, subgraph in node.attributes:
            if not isinstance(subgraph, Graph):
                continue
            for name in outer_names(subgraph):
                kind = {"seq": "sequence", "optional": "optional", "tensor": "tensor"}.get(
                    types.get(name, "").split("(")[0])
                if kind:
                    found.add((node.op_type, f"reads an outer {kind}"))
            if any(n.op_type == "Constant" for n in subgraph.nodes):
                found.add((node.op_type, "Constant node in a subgraph"))
            _static(subgraph, types, _CONTEXTS.get(node.op_type), producers, found)


def structure_markdown(ours: list, derived: list[tuple[str, list]], theirs: list) -> list[str]:
    """The report's "Structure" section: each feature of STRUCTURE with how many cases hold it
    in each suite form (`derived`: each derived form's title and rows; [] for a form without
    folders counts 0) and in onnx's node cases (rows of Summary.structure())."""
    lines = ["", "## Structure", "",
             "Structural features (onnx_seq_tests/_published/structure.py): ranks and axis "
             "classes, sizes of 0, forms of split and of a position, where a sequence operator "
             "runs and what feeds it, outer-scope reads, If and Loop controls, what Identity, "
             "If and Loop pass through. Counted in each suite form from its own models and data "
             "sets. A feature no case holds is a gap that `gen-seq-tests fuzz --distil` fills "
             "with the smallest program holding it (`cases/distilled/`, docs/fuzzing.md).", "",
             "| feature | cases as written | "
             + "".join(f"{title} | " for title, _ in derived) + "onnx's cases | example |",
             "|---|---:|" + "---:|" * len(derived) + "---:|---|"]
    for k, ((what, names), (_, onnx_names)) in enumerate(zip(ours, theirs, strict=True)):
        example = f"`{names[0]}`" if names else "**missing**"
        counts = "".join(f"{len(rows[k][1]) if rows else 0} | " for _, rows in derived)
        lines.append(f"| {what} | {len(names)} | {counts}{len(onnx_names)} | {example} |")
    lines += ["", "Impossible in every form (no valid case can hold them; not a gap):", ""]
    lines += [f"- {what}: {why}." for what, why in IMPOSSIBLE.items()]
    return lines
