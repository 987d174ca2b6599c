"""The spec oracle: the sequence and optional operators as small numpy functions, and an
interpreter that runs a case's graph on a data set, to check authored expectations.

Each operator function follows the text of its schema's doc in onnx.defs (quoted beside it).
These operators move data and do not compute, so the oracle's answers are exact. The tensor
operators exporters put around them (Split, Gather, Slice, Add, Cast, MatMul, Softmax, ArgMax,
Scan, ...) are in tensor_ops.py, elementwise.py, math_ops.py, reductions.py and scan.py, at
every version onnx.defs has. Values follow
onnx's backend convention: an ndarray is a tensor, a list is a sequence, None is an empty
optional, and a present optional is the value itself. `MISSING` stands for an input that was
left off or omitted with "".

Where the spec gives no result (a position out of range, an empty optional read, an empty
sequence concatenated), the oracle raises OracleError: a case must not expect anything there.

The operator table is a parameter, not state: `run_graph(graph, opset, inputs,
operators=table)` runs with `table` (default `OPERATORS`, the spec's, read-only). An entry is
`run(node, args, attributes, context) -> outputs`; `context` (a `Context`) gives the opset,
`context.subgraph(graph)` for bodies and branches, and where an input came from
(`from_graph_input`, `from_constant`). `present(args)` and `position_index(...)` are the
helpers the spec's entries use, public so that a variant entry reads inputs the same way.
`loop(LoopRules(...))` is the spec's Loop with one step changed, the one Loop the mutants run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper

from .._core import operators
from .._core.budgets import MAX_LOOP_ITERATIONS, NODE_WORK, TENSOR_WORK
from .._core.cases import UNTYPED, Graph, Initializer, Node, ValueDecl
from .._core.errors import BudgetError, OracleError
from .._core.problems import Where, quote
from .._core.value_kinds import ValueType, from_type_proto

# MISSING is a word of the oracle's own interface (the docstring above)
from .._core.work import MISSING as MISSING
from .._core.work import Spent, budget_text, check_elements, elements_of, measure, work_of
from .constants import constant
from .elementwise import ELEMENTWISE_OPERATORS
from .math_ops import MATH_OPERATORS
from .ml_ops import ML_OPERATORS
from .tensor_ops import SHAPE_OPERATORS, axis_index

#: The operators whose spec behaviour this module implements, beside the helpers below: every
#: sequence/optional operator onnx.defs knows and the carriers (tests check each has a function).
SPEC_OPERATORS = operators.sequence_operators() + operators.CARRIERS

#: An entry of an operator table: `run(node, args, attributes, context) -> outputs`.
Operator = Callable[[Node, list[Any], dict[str, Any], "Context"], list[Any]]
#: What `run_graph` calls after every node: `trace(node, inputs, outputs)`.
Trace = Callable[[Node, list[Any], list[Any]], None]


# -- the sequence operators --------------------------------------------------------------------

def sequence_construct(*tensors: Any) -> list[Any]:
    """'Construct a tensor sequence containing inputs tensors. All tensors in inputs must have
    the same data type.'"""
    _same_dtype(tensors, "SequenceConstruct inputs")
    return [np.array(t) for t in tensors]


def sequence_empty() -> list[Any]:
    """'Construct an empty tensor sequence, with given data type.' The dtype lives in the type."""
    return []


def sequence_at(sequence: list[Any], position: Any) -> np.ndarray:
    """'Outputs a tensor copy from the tensor at position in input_sequence. Accepted range for
    position is in [-n, n - 1]... Negative value means counting positions from the back.'"""
    index = position_index(position, len(sequence), "SequenceAt", allow_end=False)
    return np.array(sequence[index])


def sequence_insert(sequence: list[Any], tensor: Any, position: Any = MISSING) -> list[Any]:
    """'Outputs a tensor sequence that inserts tensor into input_sequence at position. Accepted
    range for position is in [-n, n]... by default it inserts tensor to the back.'"""
    _same_dtype([*sequence, tensor], "SequenceInsert's sequence and tensor")
    if position is MISSING:
        index = len(sequence)
    else:
        index = position_index(position, len(sequence), "SequenceInsert", allow_end=True)
    return [np.array(t) for t in sequence[:index]] + [np.array(tensor)] + [
        np.array(t) for t in sequence[index:]]


def sequence_erase(sequence: list[Any], position: Any = MISSING) -> list[Any]:
    """'Outputs a tensor sequence that removes the tensor at position... Accepted range for
    position is in [-n, n - 1]... by default it erases the last tensor.'"""
    if position is MISSING:
        if not sequence:
            raise OracleError("SequenceErase without position on an empty sequence: there is "
                              "no last tensor to erase")
        index = len(sequence) - 1
    else:
        index = position_index(position, len(sequence), "SequenceErase", allow_end=False)
    return [np.array(t) for i, t in enumerate(sequence) if i != index]


def sequence_length(sequence: list[Any]) -> np.ndarray:
    """'Produces a scalar (tensor of empty shape) containing the number of tensors.'"""
    return np.array(len(sequence), dtype=np.int64)


def split_to_sequence(tensor: np.ndarray, split: Any = MISSING, axis: int = 0,
                      keepdims: int = 1) -> list[Any]:
    """'Split a tensor into a sequence of tensors, along the specified axis.' Without split, a
    scalar split of 1 is used and keepdims=0 removes the split axis; a scalar split gives
    chunks of that size, the last one alone smaller; a 1-D split gives the chunk lengths, which
    must add up to the axis' size. 'If input split is specified, this attribute [keepdims] is
    ignored.'"""
    rank = tensor.ndim
    if rank == 0:
        raise OracleError("SplitToSequence cannot split a 0-d tensor: it has no axis")
    axis = axis_index(axis, rank, "SplitToSequence axis")
    size = tensor.shape[axis]
    if split is MISSING:
        lengths = [1] * size
    else:
        split = np.asarray(split)
        if split.ndim == 0:
            chunk = int(split)
            if chunk <= 0:
                raise OracleError(f"SplitToSequence split {chunk}: split must be positive")
            lengths = [chunk] * (size // chunk) + ([size % chunk] if size % chunk else [])
        elif split.ndim == 1:
            lengths = [int(n) for n in split]
            if any(n <= 0 for n in lengths):
                raise OracleError(f"SplitToSequence split {lengths}: the spec says 'split must "
                                  "contain only positive numbers'")
            if sum(lengths) != size:
                raise OracleError(f"SplitToSequence split {lengths} adds up to {sum(lengths)}, "
                                  f"not the axis size {size}")
        else:
            raise OracleError(f"SplitToSequence split has rank {split.ndim}; it must be a "
                              "scalar or 1-D")
    starts: Sequence[int] | np.ndarray = np.cumsum([0] + lengths[:-1]) if lengths else []
    parts = [np.take(tensor, np.arange(s, s + n), axis=axis)
             for s, n in zip(starts, lengths, strict=True)]
    if split is MISSING and keepdims == 0:
        parts = [np.squeeze(p, axis=axis) for p in parts]
    return [np.array(p) for p in parts]


def concat_from_sequence(sequence: list[Any], axis: int, new_axis: int = 0) -> np.ndarray:
    """'Concatenate a sequence of tensors into a single tensor. All input tensors must have the
    same shape, except for the dimension size of the axis to concatenate on.' new_axis=1 behaves
    like numpy.stack; axis is in [-r, r - 1], or [-r - 1, r] with new_axis=1."""
    if not sequence:
        raise OracleError("ConcatFromSequence on an empty sequence: the spec defines no "
                          "result (the output's shape is unknown)")
    _same_dtype(sequence, "ConcatFromSequence's tensors")
    rank = sequence[0].ndim
    if any(t.ndim != rank for t in sequence):
        raise OracleError("ConcatFromSequence's tensors differ in rank: "
                          + ", ".join(str(list(t.shape)) for t in sequence))
    if new_axis == 1:
        axis = axis_index(axis, rank + 1, "ConcatFromSequence axis (new_axis=1)")
        if any(t.shape != sequence[0].shape for t in sequence):
            raise OracleError("ConcatFromSequence with new_axis=1 needs tensors of one shape")
        return np.stack(sequence, axis=axis)
    if rank == 0:
        raise OracleError("ConcatFromSequence with new_axis=0 cannot join 0-d tensors")
    axis = axis_index(axis, rank, "ConcatFromSequence axis")
    for t in sequence:
        if [d for i, d in enumerate(t.shape) if i != axis] != [
                d for i, d in enumerate(sequence[0].shape) if i != axis]:
            raise OracleError("ConcatFromSequence's tensors differ outside the axis: "
                              + ", ".join(str(list(s.shape)) for s in sequence))
    return np.concatenate(sequence, axis=axis)


def sequence_map(body: Callable[[list[Any]], list[Any]], input_sequence: list[Any],
                 *additional_inputs: Any) -> list[list[Any]]:
    """'Applies a sub-graph to each sample in the input sequence(s).' The first input's length
    is the number of samples; other sequence inputs must have as many; a tensor input is passed
    whole to every sample. `body(inputs) -> outputs` runs the sub-graph once."""
    count = len(input_sequence)
    for extra in additional_inputs:
        if isinstance(extra, list) and len(extra) != count:
            raise OracleError(f"SequenceMap: an additional sequence has {len(extra)} tensors, "
                              f"the first input has {count}")
    samples = [body([input_sequence[i]] + [e[i] if isinstance(e, list) else e
                                            for e in additional_inputs])
               for i in range(count)]
    return samples


# -- the optional operators --------------------------------------------------------------------

def optional(element: Any = MISSING, type: ValueType | None = None) -> Any:  # noqa: A002 - the spec's name
    """'Constructs an optional-type value containing either an empty optional of a certain type
    specified by the attribute, or a non-empty value containing the input element.'"""
    if element is MISSING:
        if type is None:
            raise OracleError("Optional without an input needs the 'type' attribute")
        return None
    return element


def optional_has_element(value: Any = MISSING) -> np.ndarray:
    """'Returns true if (1) the input is an optional-type and contains an element, or, (2) the
    input is a tensor or sequence type. If the input is not provided or is an empty
    optional-type, this op returns false.'"""
    return np.array(value is not MISSING and value is not None)


def optional_get_element(value: Any) -> Any:
    """'If the input is a tensor or sequence type, it returns the input. If the input is an
    optional type, it outputs the element... It is an error if the input is an empty
    optional-type.'"""
    if value is None:
        raise OracleError("OptionalGetElement on an empty optional: the spec calls it an error "
                          "with undefined behaviour")
    return value


def identity(value: Any) -> Any:
    """'Identity operator': the input, unchanged (a tensor, a sequence or an optional)."""
    if isinstance(value, list):
        return [np.array(t) for t in value]
    return value if value is None else np.array(value)


# -- helpers ------------------------------------------------------------------------------------

def position_index(position: Any, count: int, op: str, allow_end: bool) -> int:
    """The index a position input names in a sequence of `count` tensors (a negative one counted
    from the back); OracleError outside [-count, count - 1] (or count with `allow_end`) or for a
    position that is not an int32/int64 scalar."""
    position = np.asarray(position)
    if position.dtype not in (np.int32, np.int64):
        raise OracleError(f"{op} position is {position.dtype}; it must be int32 or int64")
    if position.ndim != 0:
        raise OracleError(f"{op} position has shape {list(position.shape)}; it must be a scalar "
                          "(tensor of empty shape)")
    value = int(position)
    high = count if allow_end else count - 1
    if not -count <= value <= high:
        raise OracleError(f"{op} position {value} is out of the accepted range [{-count}, "
                          f"{high}] for a sequence of {count} tensor(s)")
    return value + count if value < 0 else value


def _same_dtype(tensors: Sequence[Any], what: str) -> None:
    dtypes = {np.asarray(t).dtype for t in tensors}
    if len(dtypes) > 1:
        raise OracleError(f"{what} differ in data type: " + ", ".join(sorted(map(str, dtypes))))


# -- the interpreter ----------------------------------------------------------------------------

class Context:
    """What an operator sees besides its inputs and attributes: the opset (and `ml_opset`, the
    ai.onnx.ml one, None when the graph imports none), the operator table in use, the values
    in scope and where each came from, and the trace.

    `graph_inputs` names the main graph's inputs; `constants` names every initializer and every
    Constant node's output seen so far (subgraphs included), which is what a runtime that folds
    constants at load time can tell apart from a value computed or fed at run time. `spent`
    (a `Spent`) counts Loop iterations and work so far, shared with every subgraph's context
    (budgets.py). `made_by` maps each value a node made so far to that node (shared likewise);
    `declared` the declared type of every graph input and output seen so far (a value alone
    cannot tell the element type of an empty map).
    """

    def __init__(self, opset: int, operators: Mapping[str, Operator], scope: dict[str, Any],
                 trace: Trace | None, graph_inputs: frozenset[str], constants: set[str],
                 spent: Spent | None = None, made_by: dict[str, Node] | None = None,
                 ml_opset: int | None = None,
                 declared: dict[str, ValueType] | None = None) -> None:
        self.opset = opset
        self.ml_opset = ml_opset
        self.declared = {} if declared is None else declared
        self.operators = operators
        self.scope = scope
        self.trace = trace
        self.graph_inputs = graph_inputs
        self.constants = constants
        self.spent = Spent() if spent is None else spent
        self.made_by = {} if made_by is None else made_by

    def subgraph(self, graph: Graph) -> Callable[[list[Any]], list[Any]]:
        """A callable running `graph` on positional inputs, seeing this scope's values, with the
        same operator table and budgets."""
        return lambda inputs: _run(graph, inputs, Context(
            self.opset, self.operators, dict(self.scope), self.trace, self.graph_inputs,
            self.constants, self.spent, self.made_by, self.ml_opset, self.declared))

    def from_graph_input(self, node: Node, index: int) -> bool:
        """Whether `node`'s input `index` is given and is one of the main graph's inputs."""
        return len(node.inputs) > index and node.inputs[index] in self.graph_inputs

    def from_constant(self, node: Node, index: int) -> bool:
        """Whether `node`'s input `index` is given and is an initializer or a Constant's output."""
        return len(node.inputs) > index and node.inputs[index] in self.constants


def run_graph(graph: Graph, opset: int, inputs: Sequence[Any],
              outer_scope: dict[str, Any] | None = None, trace: Trace | None = None, *,
              operators: Mapping[str, Operator] | None = None,
              ml_opset: int | None = None) -> list[Any]:
    """The outputs of `graph` on positional `inputs`; OracleError where the spec has none,
    BudgetError (an OracleError) where running it would go over a budget (budgets.py).

    `trace(node, inputs, outputs)`, when given, is called after every node, subgraphs included.
    `operators` maps an op_type to `run(node, args, attributes, context) -> outputs` (default
    `OPERATORS`, the spec's table); a table with one entry swapped is a backend with one bug,
    which is how mutation testing and the fuzzer's planted faults run (no global state). An
    operator of another domain is keyed `domain.op_type` (`ai.onnx.ml.ZipMap`), run at `ml_opset`.
    """
    context = Context(opset, OPERATORS if operators is None else operators,
                      dict(outer_scope or {}), trace,
                      frozenset(d.name for d in graph.inputs), set(), ml_opset=ml_opset)
    return _run(graph, inputs, context)


def _run(graph: Graph, inputs: Sequence[Any], context: Context) -> list[Any]:
    if len(inputs) != len(graph.inputs):
        raise OracleError(f"the graph takes {len(graph.inputs)} input(s), got {len(inputs)}")
    scope = context.scope
    spent = context.spent
    spent.add(len(scope), "a graph's run")  # its scope is a copy of the outer one
    for initializer in graph.initializers:
        scope[initializer.name] = initializer.value
        context.constants.add(initializer.name)
    for decl, value in zip(graph.inputs, inputs, strict=True):
        scope[decl.name] = value
    context.declared.update((d.name, d.type) for d in (*graph.inputs, *graph.outputs)
                            if d.type is not UNTYPED)
    trace = context.trace
    for node in graph.nodes:
        args = []
        for name in node.inputs:
            if name == "":
                args.append(MISSING)
            elif name in scope:
                args.append(scope[name])
            else:
                raise OracleError(f"{node.op_type} reads {quote(name)}, which nothing produced")
        results = run_node(node, args, context)
        if len(results) != len(node.outputs):
            raise OracleError(f"{node.op_type} gave {len(results)} output(s), the node names "
                              f"{len(node.outputs)}")
        cost = NODE_WORK + sum(map(work_of, args))
        for name, value in zip(node.outputs, results, strict=True):
            elements, tensors = measure(value)
            check_elements(elements, f"{node.op_type} output {quote(name)}")
            cost += elements + TENSOR_WORK * tensors
            scope[name] = value
            context.made_by[name] = node
        spent.add(cost, node.op_type)
        if node.op_type == "Constant":
            context.constants.update(node.outputs)
        if trace is not None:
            trace(node, args, results)
    missing = [d.name for d in graph.outputs if d.name not in scope]
    if missing:
        raise OracleError("no node produces the graph output(s) " + ", ".join(missing))
    return [scope[d.name] for d in graph.outputs]


def run_node(node: Node, args: list[Any], context: Context) -> list[Any]:
    """One node's outputs from its input values (MISSING for omitted inputs), by the
    context's operator table."""
    key = operators.domain_key(node.op_type, node.domain)
    run = context.operators.get(key)
    if run is None:
        raise OracleError(f"the oracle does not implement {key}; it knows "
                          + ", ".join(sorted(context.operators)))
    outputs: list[Any] = run(node, args, dict(node.attributes), context)
    return outputs


def present(args: list[Any]) -> list[Any]:
    """The inputs up to the last one given (trailing MISSING dropped)."""
    while args and args[-1] is MISSING:
        args = args[:-1]
    return args


def _run_sequence_map(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    samples = sequence_map(context.subgraph(attributes["body"]), *present(args))
    return [[np.array(sample[k]) for sample in samples] for k in range(len(node.outputs))]


def _run_if(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    cond = np.asarray(args[0])
    if cond.size != 1:
        raise OracleError(f"If cond has {cond.size} values; it must hold one")
    branch = attributes["then_branch" if bool(cond.reshape(-1)[0]) else "else_branch"]
    return context.subgraph(branch)([])


@dataclass(frozen=True)
class LoopRules:
    """How `loop` runs a Loop: the spec's rules by default. A mutant changes one of them
    (mutants/optional_control.py), so there is one Loop, not a copy per bug."""

    trip_shift: int = 0  # turns added to a trip count that is given
    check_cond_first: bool = True  # the initial condition is tested before the first turn
    body_cond: bool = True  # the condition the body returns is tested
    carried_sequences: bool = True  # a loop-carried sequence takes the body's value
    zero_trips_run_once: bool = False  # a trip count of 0 runs one turn


def loop(rules: LoopRules = LoopRules()) -> Operator:
    """Loop: 'for (int i=0; i < trip_count && cond; ++i)'; a condition left off is not tested,
    a trip count left off bounds nothing; scan outputs are stacked along a new first axis.
    `rules` other than the default change one step (a mutant's Loop)."""
    def run(node: Node, args: list[Any], attributes: dict[str, Any],
            context: Context) -> list[Any]:
        body = context.subgraph(attributes["body"])
        trip_count, cond, *carried = args + [MISSING] * (2 - len(args))
        initial = list(carried)
        keep_going = True if cond is MISSING or not rules.check_cond_first else bool(
            np.asarray(cond).reshape(-1)[0])
        limit = None if trip_count is MISSING else (
            int(np.asarray(trip_count).reshape(-1)[0]) + rules.trip_shift)
        if rules.zero_trips_run_once and limit == 0:
            limit = 1
        scans: list[list[Any]] = []
        i = 0
        while (limit is None or i < limit) and keep_going:
            if limit is None and cond is MISSING and i == MAX_LOOP_ITERATIONS:
                raise OracleError("Loop with neither a trip count nor a condition never ends")
            context.spent.turns += 1
            if context.spent.turns > MAX_LOOP_ITERATIONS:
                raise BudgetError("Loop iterations (nested ones included) would go over "
                                  + budget_text("MAX_LOOP_ITERATIONS", MAX_LOOP_ITERATIONS))
            outputs = body([np.array(i, dtype=np.int64), np.array(keep_going), *carried])
            if cond is not MISSING and rules.body_cond:
                keep_going = bool(np.asarray(outputs[0]).reshape(-1)[0])
            carried = list(outputs[1:1 + len(carried)])
            if not rules.carried_sequences:
                carried = [init if isinstance(init, list) else new
                           for init, new in zip(initial, carried, strict=True)]
            scans.append(outputs[1 + len(carried):])
            i += 1
        scan_count = len(node.outputs) - len(carried)
        if scan_count and not scans:
            raise OracleError("Loop ran no iteration, so its scan outputs have no defined shape")
        for k in range(scan_count):
            check_elements(sum(elements_of(turn[k]) for turn in scans), f"Loop scan output {k}")
        stacked = [np.stack([np.asarray(turn[k]) for turn in scans]) for k in range(scan_count)]
        return carried + stacked
    return run


_SPEC_TABLE: dict[str, Operator] = {
    "SequenceConstruct": lambda n, a, at, c: [sequence_construct(*a)],
    "SequenceEmpty": lambda n, a, at, c: [sequence_empty()],
    "SequenceAt": lambda n, a, at, c: [sequence_at(*a)],
    "SequenceInsert": lambda n, a, at, c: [sequence_insert(*present(a))],
    "SequenceErase": lambda n, a, at, c: [sequence_erase(*present(a))],
    "SequenceLength": lambda n, a, at, c: [sequence_length(*a)],
    "SplitToSequence": lambda n, a, at, c: [split_to_sequence(
        a[0], a[1] if len(a) > 1 else MISSING, axis=at.get("axis", 0),
        keepdims=at.get("keepdims", 1))],
    "ConcatFromSequence": lambda n, a, at, c: [concat_from_sequence(
        a[0], axis=at["axis"], new_axis=at.get("new_axis", 0))],
    "SequenceMap": _run_sequence_map,
    "Optional": lambda n, a, at, c: [optional(a[0] if a else MISSING, type=at.get("type"))],
    "OptionalHasElement": lambda n, a, at, c: [optional_has_element(*present(a))],
    "OptionalGetElement": lambda n, a, at, c: [optional_get_element(*a)],
    "Identity": lambda n, a, at, c: [identity(*a)],
    "If": _run_if,
    "Loop": loop(),
    "Constant": lambda n, a, at, c: [constant(at)],
    # the tensor operators exporters put around sequences (tensor_ops.py, elementwise.py,
    # math_ops.py with reductions.py and scan.py)
    **SHAPE_OPERATORS,
    **ELEMENTWISE_OPERATORS,
    **MATH_OPERATORS,
    # the ai.onnx.ml operators of maps and of scikit-learn's converted models (ml_ops.py)
    **ML_OPERATORS,
}
#: The spec's operator table, read-only: op_type -> `run(node, args, attributes, context)`.
#: Build a variant with `{**OPERATORS, "SequenceAt": my_run}` and pass it to `run_graph`.
OPERATORS = MappingProxyType(_SPEC_TABLE)


# -- models -------------------------------------------------------------------------------------

def graph_from_proto(graph: onnx.GraphProto, where: Where | None = None) -> Graph:
    """A GraphProto as the case objects the interpreter runs (types kept where onnx has them)."""
    where = where or Where(graph.name or "model", 1, 1)

    def decl(info: onnx.ValueInfoProto) -> ValueDecl:
        try:
            value_type = from_type_proto(info.type)
        except (TypeError, KeyError):
            value_type = UNTYPED
        return ValueDecl(info.name, value_type, where)

    nodes = []
    for node in graph.node:
        attributes = []
        for attribute in node.attribute:
            value = helper.get_attribute_value(attribute)
            if attribute.type == onnx.AttributeProto.GRAPH:
                value = graph_from_proto(value, where)
            elif attribute.type == onnx.AttributeProto.TYPE_PROTO:
                value = from_type_proto(value)
            elif attribute.type == onnx.AttributeProto.TENSOR:
                value = numpy_helper.to_array(value)
            elif attribute.type == onnx.AttributeProto.STRING:
                value = value.decode("utf-8")
            elif attribute.type == onnx.AttributeProto.STRINGS:
                value = [v.decode("utf-8") for v in value]
            attributes.append((attribute.name, value))
        nodes.append(Node(node.op_type, tuple(node.input), tuple(node.output),
                          tuple(attributes), where, node.domain))
    initializers = tuple(
        Initializer(t.name, UNTYPED, numpy_helper.to_array(t), where)
        for t in graph.initializer)
    constant_names = {t.name for t in graph.initializer}
    return Graph(tuple(decl(i) for i in graph.input if i.name not in constant_names),
                 tuple(decl(o) for o in graph.output), tuple(nodes), initializers)


def run_model(model: onnx.ModelProto, inputs: Sequence[Any],
              trace: Trace | None = None) -> list[Any]:
    """The outputs of a model's graph on positional `inputs`, as `run_graph` gives them."""
    opset = operators.model_opset(model)
    if opset is None:
        raise OracleError("the model imports no ai.onnx opset")
    return run_graph(graph_from_proto(model.graph), opset, list(inputs),
                     trace=trace, ml_opset=operators.model_ml_opset(model))

