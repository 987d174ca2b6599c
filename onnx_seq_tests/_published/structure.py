"""Structural features: what a program's shape asks of a runtime beyond the (operator, version,
type) cells. Ranks and axis classes, the forms of a split and of a position, where a sequence
operator runs (an If branch, a Loop body, a SequenceMap body), what its sequence comes from (a
chain of sequence operators), outer-scope reads, and conditions and trip counts of shape [1].

Each feature is a label of the coverage machinery (case_features.py): `traced(node, args,
results)` gives the ones a node shows on one data set (run by the spec oracle), `static(graph)`
the ones the graph's form shows. `STRUCTURE` lists what the report counts, per suite form.
"""

from __future__ import annotations

import numpy as np

from .._core import operators
from .._core.cases import Graph, outer_names, walk
from .._oracle import oracle

#: The structural features the report counts: (what, operator or None for any, label).
STRUCTURE = (
    ("SplitToSequence on a rank-1 input", "SplitToSequence", "rank 1 input"),
    ("SplitToSequence on a rank-2 input", "SplitToSequence", "rank 2 input"),
    ("SplitToSequence on a rank-3 input", "SplitToSequence", "rank 3 input"),
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
)

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
    labels.discard("")
    if node.op_type == "SplitToSequence":
        labels |= _split(node, args, results)
    elif node.op_type == "ConcatFromSequence" and args[0]:
        rank = np.asarray(args[0][0]).ndim
        labels.add(f"rank {rank} elements")
        attributes = dict(node.attributes)
        new_axis = attributes.get("new_axis", 0)
        labels.add(_axis_class(attributes["axis"], rank + new_axis, at_rank=bool(new_axis)))
    elif node.op_type == "If" and np.asarray(args[0]).shape == (1,):
        labels.add("condition of shape [1]")
    elif node.op_type == "Optional" and args and args[0] is not oracle.MISSING and \
            "type" in dict(node.attributes):
        labels.add("input and type attribute")
    elif node.op_type == "Loop":
        given = [a is not oracle.MISSING for a in args[:2]] + [False, False]
        if given[0] and np.asarray(args[0]).shape == (1,):
            labels.add("trip count of shape [1]")
        if given[0] and int(np.asarray(args[0]).reshape(-1)[0]) == 0:
            labels.add("trip count 0")
        if given[1] and not bool(np.asarray(args[1]).reshape(-1)[0]):
            labels.add("condition false at start")
        carried = args[2:]
        if any(isinstance(v, list) for v in carried) and any(
                isinstance(v, np.ndarray) for v in carried):
            labels.add("carries a sequence and a tensor")
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
    for node in walk(graph):
        at, what = _FED.get(node.op_type, (0, ""))
        if what and len(node.inputs) > at and node.inputs[at] in sources:
            found.add((node.op_type, f"{what} from {sources[node.inputs[at]]}"))
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
             "classes, forms of split, where a sequence operator runs and what feeds it, "
             "outer-scope reads, conditions and trip counts of shape [1]. Counted in each suite "
             "form from its own models and data sets.", "",
             "| feature | cases as written | "
             + "".join(f"{title} | " for title, _ in derived) + "onnx's cases | example |",
             "|---|---:|" + "---:|" * len(derived) + "---:|---|"]
    for k, ((what, names), (_, onnx_names)) in enumerate(zip(ours, theirs, strict=True)):
        example = f"`{names[0]}`" if names else "**missing**"
        counts = "".join(f"{len(rows[k][1]) if rows else 0} | " for _, rows in derived)
        lines.append(f"| {what} | {len(names)} | {counts}{len(onnx_names)} | {example} |")
    return lines
