"""Mutants of the control-flow contexts of sequences (issue: every structural feature
targeted): sequence operators inside If branches, Loop and SequenceMap bodies, what a subgraph
reads of the enclosing graph, If and Loop controls of shape [] or from constants, what a Loop
carries and scans and what reads its output; as data (see kit.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._core.cases import Graph, Node, outer_names
from ..._core.value_kinds import OptionalType
from .. import oracle
from ..oracle import Context, Operator
from .kit import MISSING, Mutant, in_place, present, refusing, spec, targeted

# -- subgraphs ----------------------------------------------------------------------------------


def _context_with(context: Context, operators: dict[str, Operator]) -> Context:
    """`context` with `operators` swapped into its table (for the subgraphs it runs)."""
    return Context(context.opset, {**context.operators, **operators}, context.scope,
                   context.trace, context.graph_inputs, context.constants, context.spent,
                   context.made_by, context.ml_opset, context.declared)


def _subgraphs_in_place(op_type: str) -> Operator:
    """The spec's `op_type`, its subgraphs running SequenceInsert and SequenceErase in their
    input's own storage: a value of the enclosing graph, or the value a Loop carries in, is
    changed for every other reader."""
    def run(node: Node, args: list[Any], attributes: dict[str, Any],
            context: Context) -> list[Any]:
        inner = _context_with(context, {op: in_place(op)
                                        for op in ("SequenceInsert", "SequenceErase")})
        return spec(op_type)(node, args, attributes, inner)
    return run


def _subgraphs(node: Node) -> list[Graph]:
    return [value for _, value in node.attributes if isinstance(value, Graph)]


def _reads_outer_empty_optional(node: Node, args: list[Any], context: Context) -> bool:
    return any(context.scope.get(name, 0) is None
               for graph in _subgraphs(node) for name in outer_names(graph))


def _zero_d_control(node: Node, args: list[Any], context: Context) -> bool:
    return any(arg is not MISSING and np.asarray(arg).ndim == 0
               for arg in args[:1 if node.op_type == "If" else 2])


def _constant_condition_true(op_type: str) -> Operator:
    """If or Loop folding a constant condition by the truth of the folded object (true)."""
    at = 0 if op_type == "If" else 1

    def run(node: Node, args: list[Any], attributes: dict[str, Any],
            context: Context) -> list[Any]:
        if context.from_constant(node, at):
            args = [*args[:at], np.array(True), *args[at + 1:]]
        return spec(op_type)(node, args, attributes, context)
    return run


def _loop_constant_trip_short(node: Node, args: list[Any], attributes: dict[str, Any],
                              context: Context) -> list[Any]:
    if context.from_constant(node, 0):
        return oracle.loop(oracle.LoopRules(trip_shift=-1))(node, args, attributes, context)
    return spec("Loop")(node, args, attributes, context)


def _computed_trip_count(node: Node, args: list[Any], context: Context) -> bool:
    return bool(node.inputs) and node.inputs[0] != "" and not context.from_constant(
        node, 0) and not context.from_graph_input(node, 0)


def _grouped_by_kind(node: Node, args: list[Any], attributes: dict[str, Any],
                     context: Context) -> list[Any]:
    outputs = spec("Loop")(node, args, attributes, context)
    count = len(args) - 2
    carried = outputs[:count]
    if any(isinstance(v, list) for v in carried) and any(
            isinstance(v, np.ndarray) for v in carried):
        carried = [v for v in carried if not isinstance(v, list)] + [
            v for v in carried if isinstance(v, list)]
    return carried + outputs[count:]


class _ScanAfterUpdate(Context):
    """A context whose subgraphs (a Loop body) give their scan outputs as the body computes
    them from the updated loop-carried values: one iteration late."""

    def subgraph(self, graph: Graph) -> Any:
        body = super().subgraph(graph)

        def run(inputs: list[Any]) -> list[Any]:
            outputs = body(inputs)
            carried = len(inputs) - 2
            if len(outputs) > 1 + carried:
                again = body([inputs[0], inputs[1], *outputs[1:1 + carried]])
                outputs = outputs[:1 + carried] + again[1 + carried:]
            return outputs
        return run


def _loop_scan_after_update(node: Node, args: list[Any], attributes: dict[str, Any],
                            context: Context) -> list[Any]:
    late = _ScanAfterUpdate(context.opset, context.operators, context.scope, context.trace,
                            context.graph_inputs, context.constants, context.spent,
                            context.made_by, context.ml_opset, context.declared)
    return spec("Loop")(node, args, attributes, late)


def _loop_output_as_one_element(node: Node, args: list[Any], attributes: dict[str, Any],
                                context: Context) -> list[Any]:
    producer = context.made_by.get(node.inputs[0])
    if producer is not None and producer.op_type == "Loop" and args[0]:
        args = [[np.stack([np.asarray(t) for t in args[0]])]]
    return spec("ConcatFromSequence")(node, args, attributes, context)


def _if_output_refused(node: Node, args: list[Any], context: Context, kind: str) -> bool:
    """Whether the branch the condition takes returns a sequence or declares an optional."""
    attributes: dict[str, Any] = dict(node.attributes)
    branch: Graph = attributes["then_branch" if bool(
        np.asarray(args[0]).reshape(-1)[0]) else "else_branch"]
    if kind == "optional":
        return any(isinstance(d.type, OptionalType) for d in branch.outputs)
    return any(isinstance(v, list) for v in context.subgraph(branch)([]))


def _if_refusing(kind: str) -> Operator:
    """If refusing an output of `kind` ("sequence" or "optional") from the branch it takes."""
    return refusing("If", lambda node, args, c: _if_output_refused(node, args, c, kind),
                    f"output type {kind} not supported")


def _first_sample_for_all(node: Node, args: list[Any], attributes: dict[str, Any],
                          context: Context) -> list[Any]:
    first, *extra = present(args)
    extra = [first if isinstance(e, list) else e for e in extra]
    return spec("SequenceMap")(node, [first, *extra], attributes, context)


_SUBGRAPHS = (
    Mutant("if_branch_writes_outer_sequence_in_place",
           "SequenceInsert and SequenceErase inside an If branch write into a sequence of the "
           "enclosing graph (passed to the branch by reference), which every later reader "
           "then sees changed",
           {"If": _subgraphs_in_place("If")},
           modelled_on="sequence_insert_in_place (microsoft/onnxruntime#20606) where only a "
                       "subgraph's outer values are shared, not copied"),
    Mutant("loop_body_writes_sequences_in_place",
           "SequenceInsert and SequenceErase inside a Loop body write into their input's "
           "storage: the sequence the Loop carries in (its initial value, an outer value) and "
           "any outer sequence the body reads change with every iteration",
           {"Loop": _subgraphs_in_place("Loop")},
           modelled_on="sequence_insert_in_place (microsoft/onnxruntime#20606) where only a "
                       "subgraph's outer values are shared, not copied"),
    Mutant("sequence_map_body_writes_outer_sequence_in_place",
           "SequenceInsert and SequenceErase inside a SequenceMap body write into a sequence "
           "of the enclosing graph, so each later sample sees it changed",
           {"SequenceMap": _subgraphs_in_place("SequenceMap")},
           modelled_on="sequence_insert_in_place (microsoft/onnxruntime#20606) where only a "
                       "subgraph's outer values are shared, not copied"),
    Mutant("subgraph_outer_empty_optional_refused",
           "An empty optional of the enclosing graph is not passed into an If branch, Loop or "
           "SequenceMap body: the subgraph fails to find it",
           {op: refusing(op, _reads_outer_empty_optional,
                         "implicit input is not output of any previous nodes")
            for op in ("If", "Loop", "SequenceMap")},
           modelled_on="implicit inputs forwarded only when they hold a value"),
)

_CONTROLS = (
    Mutant("control_flow_0d_condition_refused",
           "If and Loop read the condition and trip count as cond[0] of a 1-D tensor: one of "
           "shape [] fails",
           {"If": refusing("If", _zero_d_control, "the condition must have shape [1]"),
            "Loop": refusing("Loop", _zero_d_control, "the trip count must have shape [1]")},
           sources=("llvm/torch-mlir#3846",)),
    Mutant("control_flow_constant_condition_as_true",
           "If and Loop fold a constant condition by the truth of the folded tensor object, "
           "so it is true whatever it holds",
           {op: _constant_condition_true(op) for op in ("If", "Loop")},
           modelled_on="Python's truth of a non-empty object at constant folding"),
    Mutant("loop_constant_trip_count_one_short",
           "Loop with a constant trip count is unrolled at load time one turn short",
           {"Loop": _loop_constant_trip_short},
           modelled_on="an unrolling of constant-trip loops, off by one"),
    Mutant("loop_computed_trip_count_refused",
           "Loop needs its trip count constant or fed: one a node computes (SequenceLength of "
           "a sequence) is refused",
           {"Loop": refusing("Loop", _computed_trip_count,
                             "max iteration count must be a constant")},
           modelled_on="a compiler that unrolls a loop at load time",
           sources=("sbryngelson/ANEForge#91",)),
    Mutant("loop_carried_values_grouped_by_kind",
           "Loop keeps carried tensors and sequences in two lists and returns the tensors "
           "first, so a sequence carried before a tensor swaps places with it",
           {"Loop": _grouped_by_kind},
           modelled_on="a lowering of loop-carried sequences to tensor arrays beside the "
                       "tensor state (openvinotoolkit/openvino#36445's SequenceArrayLowering)"),
    Mutant("loop_scan_outputs_after_update",
           "Loop writes its scan outputs after updating the loop-carried values, so a scan "
           "output computed from a carried value is one iteration late",
           {"Loop": _loop_scan_after_update}, sources=("onnx/onnx-mlir#1153",)),
    Mutant("concat_from_sequence_of_loop_output_as_one_element",
           "ConcatFromSequence takes a sequence a Loop made as one element (the Loop's tensor "
           "array stacked into one tensor)",
           {"ConcatFromSequence": _loop_output_as_one_element},
           modelled_on="openvinotoolkit/openvino#36445: a sequence carried across a Loop "
                       "boundary is one opaque element"),
    Mutant("if_sequence_output_refused",
           "If fails when the branch it takes returns a sequence (If registered for tensors "
           "only, as before If-13)",
           {"If": _if_refusing("sequence")},
           modelled_on="an If kernel registered for If-11's types"),
    Mutant("if_optional_output_refused",
           "If fails when the branch it takes returns an optional (If registered for the "
           "types before If-16)",
           {"If": _if_refusing("optional")},
           modelled_on="an If kernel registered for If-13's types"),
    Mutant("sequence_map_single_input_refused",
           "SequenceMap refuses a single input sequence (the variadic input read as needing "
           "two or more)",
           {"SequenceMap": refusing("SequenceMap", lambda node, args, c: len(
               present(args)) == 1, "expect 2 or more inputs")},
           modelled_on="sequence_construct_single_input_refused (apache/tvm#9113)"),
    Mutant("sequence_map_extra_inputs_get_first_sample",
           "SequenceMap feeds every sequence input of the body the first sequence's sample "
           "(inputs[0][i] for each input)",
           {"SequenceMap": _first_sample_for_all},
           modelled_on="an index slip in the per-sample loop"),
)

MUTANTS: tuple[Mutant, ...] = _SUBGRAPHS + _CONTROLS

#: The features each mutant targets (kit.targeted): the data that tells it from the spec.
TARGETS = {
    "if_branch_writes_outer_sequence_in_place": ("in an If branch",),
    "loop_body_writes_sequences_in_place": ("in a Loop body", "body on a carried sequence",
                                            "body on an outer sequence"),
    "sequence_map_body_writes_outer_sequence_in_place": ("in a SequenceMap body",),
    "subgraph_outer_empty_optional_refused": ("reads an outer optional",),
    "control_flow_0d_condition_refused": ("condition of shape []", "trip count of shape []"),
    "control_flow_constant_condition_as_true": ("condition from a constant",),
    "loop_constant_trip_count_one_short": ("trip count from a constant",),
    "loop_computed_trip_count_refused": ("trip count from SequenceLength",),
    "loop_carried_values_grouped_by_kind": ("carries a sequence and a tensor",),
    "loop_scan_outputs_after_update": ("body on a scan output",),
    "concat_from_sequence_of_loop_output_as_one_element": ("fed by Loop",),
    "if_sequence_output_refused": ("carries a sequence",),
    "if_optional_output_refused": ("carries an optional", "optional from then branch"),
    "sequence_map_single_input_refused": ("one sequence",),
    "sequence_map_extra_inputs_get_first_sample": ("body with several inputs",),
}
MUTANTS = targeted(MUTANTS, TARGETS)
