"""Mutants of the optional operators, SequenceMap, If and Loop: one plausible runtime bug each,
as data (see kit.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..._core.cases import Node, outer_names
from ..._core.errors import MutantError
from ..._core.value_kinds import SequenceType
from .. import oracle
from ..oracle import Context, Operator
from .kit import MISSING, Mutant, after, present, refusing, spec, targeted

# -- Optional, OptionalHasElement, OptionalGetElement --------------------------------------------


def _optional_empty_is_present(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    if present(args):
        return spec("Optional")(node, args, attributes, context)
    value_type = attributes.get("type")
    if isinstance(value_type, SequenceType):
        return [[]]
    element = value_type.element.dtype if value_type is not None else np.float32
    return [np.zeros((0,), dtype=element)]


def _optional_wraps_in_list(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    given = present(args)
    if not given:
        return [None]
    return [[np.asarray(given[0])] if not isinstance(given[0], list) else [given[0]]]


def _optional_of_empty_sequence_is_empty(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    given = present(args)
    if given and isinstance(given[0], list) and not given[0]:
        return [None]
    return spec("Optional")(node, args, attributes, context)


def _has_element_numel(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    given = present(args)
    value = given[0] if given else None
    if value is None:
        return [np.array(False)]
    size = len(value) if isinstance(value, list) else np.asarray(value).size
    return [np.array(size > 0)]


def _has_element_empty_sequence_false(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    given = present(args)
    if given and isinstance(given[0], list) and not given[0]:
        return [np.array(False)]
    return spec("OptionalHasElement")(node, args, attributes, context)


def _has_element_missing_true(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    if not present(args):
        return [np.array(True)]
    return spec("OptionalHasElement")(node, args, attributes, context)


def _get_element_zero_refused(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    value = args[0]
    if value is not None and not isinstance(value, list) and np.asarray(value).size == 0:
        raise MutantError("OptionalGetElement: empty")
    return spec("OptionalGetElement")(node, args, attributes, context)


def _no_kernel_at(op_type: str, opset: int) -> Operator:
    return refusing(op_type, lambda node, args, c: c.opset >= opset,
                    f"could not find an implementation for {op_type}({opset})")


_OPTIONAL = (
    Mutant("optional_empty_is_present",
           "Optional with no input gives a present, empty value",
           {"Optional": _optional_empty_is_present},
           modelled_on="onnx reference evaluator (Optional() gives [None])"),
    Mutant("optional_wraps_value_in_list",
           "Optional(x) gives a one-element sequence [x]",
           {"Optional": _optional_wraps_in_list}, modelled_on="onnx reference evaluator"),
    Mutant("optional_input_with_type_refused",
           "Optional fails when given both an input and a type attribute (reads the type as "
           "a tensor element type)",
           {"Optional": refusing("Optional", lambda node, args, c: bool(present(args)) and
                                 "type" in attributes_of(node),
                                 "KeyError: the type is not a tensor element type")},
           modelled_on="onnx reference evaluator"),
    Mutant("optional_of_empty_sequence_is_empty",
           "Optional of an empty sequence gives an empty optional (None and [] confused)",
           {"Optional": _optional_of_empty_sequence_is_empty}, sources=("onnx/onnx#4835",)),
    Mutant("optional_has_element_numel",
           "OptionalHasElement is 'not None and numel() > 0': False for a present "
           "zero-element tensor or empty sequence",
           {"OptionalHasElement": _has_element_numel}, modelled_on="tinygrad 0.14"),
    Mutant("optional_has_element_empty_sequence_false",
           "OptionalHasElement gives false for a present empty sequence (None and [] "
           "confused)", {"OptionalHasElement": _has_element_empty_sequence_false},
           sources=("onnx/onnx#4835",)),
    Mutant("optional_has_element_missing_input_true",
           "OptionalHasElement with no input returns true",
           {"OptionalHasElement": _has_element_missing_true}),
    Mutant("optional_has_element_missing_input_refused",
           "OptionalHasElement with no input fails (input count 0 not in range [1, 1])",
           {"OptionalHasElement": refusing("OptionalHasElement", lambda node, args, c: not
                                           present(args), "input size 0 not in range")},
           sources=("microsoft/onnxscript#280", "microsoft/onnxruntime#12571")),
    Mutant("optional_has_element_empty_optional_crashes",
           "OptionalHasElement crashes on an empty optional",
           {"OptionalHasElement": refusing("OptionalHasElement", lambda node, args, c: bool(
               present(args)) and args[0] is None, "segmentation fault")},
           sources=("microsoft/onnxruntime#11717",)),
    Mutant("optional_get_element_zero_element_refused",
           "OptionalGetElement calls a present zero-element tensor empty and fails",
           {"OptionalGetElement": _get_element_zero_refused}),
    Mutant("optional_operators_have_no_opset_28_kernel",
           "Optional, OptionalHasElement and OptionalGetElement fail at opset 28",
           {op: _no_kernel_at(op, 28) for op in ("Optional", "OptionalHasElement",
                                                 "OptionalGetElement")},
           modelled_on="onnxruntime 1.32", sources=("microsoft/onnxruntime#32393",)),
    Mutant("identity_empty_optional_refused",
           "Identity raises on an empty optional",
           {"Identity": refusing("Identity", lambda node, args, c: args[0] is None,
                                 "unexpected type NoneType")},
           modelled_on="onnx reference evaluator"),
    Mutant("identity_empty_sequence_as_empty_optional",
           "Identity returns an empty sequence as an empty optional",
           {"Identity": after("Identity", lambda node, args, at, out: [None] if isinstance(
               args[0], list) and not args[0] else out)}),
)

# -- SequenceMap --------------------------------------------------------------------------------


def _map_not_zipped(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    if len(present(args)) >= 3:
        raise MutantError("Issues with types: SequenceMap passes whole sequences")
    return spec("SequenceMap")(node, args, attributes, context)


def _map_tensor_indexed(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    first, *extra = present(args)
    extra = [list(e) if not isinstance(e, list) else e for e in extra]  # a tensor as rows
    return spec("SequenceMap")(node, [first, *extra], attributes, context)


def _body_has(op_type: str) -> Callable[[Node, list[Any], Context], bool]:
    def refuses(node: Node, args: list[Any], context: Context) -> bool:
        return any(n.op_type == op_type for n in attributes_of(node)["body"].nodes)
    return refuses


def _body_reads_outer_scope(node: Node, args: list[Any], context: Context) -> bool:
    return bool(outer_names(attributes_of(node)["body"]))


def _body_reads_outer_sequence(node: Node, args: list[Any], context: Context) -> bool:
    return any(isinstance(context.scope.get(name), list)
               for name in outer_names(attributes_of(node)["body"]))


def _map_single_unwrapped(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    outputs = spec("SequenceMap")(node, args, attributes, context)
    if len(outputs) == 1 and len(outputs[0]) == 1:
        return [outputs[0][0]]
    return outputs


def attributes_of(node: Node) -> dict[str, Any]:
    """A node's attributes by name."""
    return dict(node.attributes)


_SEQUENCE_MAP = (
    Mutant("sequence_map_extra_sequences_not_zipped",
           "SequenceMap with two or more additional inputs passes them whole",
           {"SequenceMap": _map_not_zipped}, modelled_on="onnx reference evaluator"),
    Mutant("sequence_map_empty_input_raises",
           "SequenceMap raises on an empty input sequence",
           {"SequenceMap": refusing("SequenceMap", lambda node, args, c: not args[0],
                                    "empty input")},
           modelled_on="onnx reference evaluator", sources=("microsoft/onnxruntime#28813",)),
    Mutant("sequence_map_tensor_input_indexed",
           "SequenceMap indexes an additional tensor input like a sequence",
           {"SequenceMap": _map_tensor_indexed}),
    Mutant("sequence_map_body_constant_refused",
           "SequenceMap fails when its body has a Constant node",
           {"SequenceMap": refusing("SequenceMap", _body_has("Constant"),
                                    "body with a Constant node")},
           sources=("microsoft/onnxruntime#12491",)),
    Mutant("sequence_map_outer_scope_invisible",
           "SequenceMap's body cannot read values of the enclosing scope",
           {"SequenceMap": refusing("SequenceMap", _body_reads_outer_scope,
                                    "input is not output of any previous nodes")},
           sources=("onnx/onnx#4892",)),
    Mutant("sequence_map_single_sample_unwrapped",
           "SequenceMap with one output over a one-tensor sequence returns that tensor, not a "
           "sequence of one", {"SequenceMap": _map_single_unwrapped},
           sources=("ENOT-AutoDL/onnx2torch#201",)),
)

# -- If and Loop --------------------------------------------------------------------------------


def _if_always_then(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    return context.subgraph(attributes["then_branch"])([])


def _if_constant_outputs_zero(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    branch = attributes["then_branch" if bool(np.asarray(args[0]).reshape(-1)[0])
                        else "else_branch"]
    outputs = spec("If")(node, args, attributes, context)
    made = {o for n in branch.nodes if n.op_type == "Constant" for o in n.outputs}
    return [np.zeros_like(np.asarray(v)) if d.name in made and not isinstance(v, list)
            and v is not None else v for d, v in zip(branch.outputs, outputs, strict=True)]


def _loop(*, refuse_none: bool = False, refuse_sequences: bool = False,
          **rules: Any) -> Operator:
    """The oracle's Loop with one of its `oracle.LoopRules` changed, or refusing an empty
    optional or a sequence among the loop-carried values (the spec's when every flag keeps its
    default)."""
    run_loop = oracle.loop(oracle.LoopRules(**rules))

    def run(node: Node, args: list[Any], attributes: dict[str, Any],
            context: oracle.Context) -> list[Any]:
        carried = args[2:]
        if refuse_none and any(v is None for v in carried):
            raise MutantError("Issues with types")
        if refuse_sequences and any(isinstance(v, list) for v in carried):
            raise MutantError("type error: loop-carried seq(tensor)")
        return run_loop(node, args, attributes, context)
    return run


def _loop_scan_vstack(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    outputs = spec("Loop")(node, args, attributes, context)
    carried = len(args) - 2  # the outputs after the loop-carried ones are scan outputs
    return [np.vstack(list(v)) if i >= carried and np.asarray(v).ndim == 1 else v
            for i, v in enumerate(outputs)]


def _loop_omitted_condition_runs_nothing(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    if len(args) > 1 and args[1] is MISSING:
        carried = list(args[2:])
        if len(node.outputs) > len(carried):
            raise MutantError("no iteration")
        return carried
    return spec("Loop")(node, args, attributes, context)


_CONTROL = (
    Mutant("if_always_then", "If runs then_branch whatever the condition",
           {"If": _if_always_then}),
    Mutant("if_sequence_outputs_empty", "If returns empty sequences from its branches",
           {"If": after("If", lambda node, args, at, out: [[] if isinstance(v, list) else v
                                                           for v in out])},
           modelled_on="OpenVINO: If with sequences"),
    Mutant("if_empty_optional_output_refused",
           "If fails when a branch returns an empty optional",
           {"If": after("If", lambda node, args, at, out: _none_refused(out))}),
    Mutant("if_constant_branch_outputs_zero",
           "If returns zeros for a branch output that a Constant node inside the branch makes",
           {"If": _if_constant_outputs_zero}, sources=("microsoft/onnxruntime#5496",)),
    Mutant("control_flow_one_element_condition_refused",
           "If and Loop take only a 0-d condition and trip count: one of shape [1] fails",
           {"If": refusing("If", lambda node, args, c: np.asarray(args[0]).ndim != 0,
                           "the condition must be a scalar"),
            "Loop": refusing("Loop", lambda node, args, c: any(
                arg is not MISSING and arg is not None and np.asarray(arg).ndim != 0
                for arg in args[:2]), "the trip count and condition must be scalars")},
           sources=("NervanaSystems/ngraph#2825",)),
    Mutant("loop_body_outer_sequence_invisible",
           "A Loop body cannot read a sequence of the enclosing graph (outer tensors only)",
           {"Loop": refusing("Loop", _body_reads_outer_sequence,
                             "a value of the enclosing scope is not a tensor")},
           sources=("tracel-ai/burn#4119", "openvinotoolkit/openvino#957")),
    Mutant("loop_one_turn_short", "Loop runs trip_count - 1 turns",
           {"Loop": _loop(trip_shift=-1)}),
    Mutant("loop_one_turn_long", "Loop runs trip_count + 1 turns",
           {"Loop": _loop(trip_shift=1)},
           sources=("microsoft/onnxruntime#13894", "onnx/onnx-tensorrt#891")),
    Mutant("loop_zero_trip_count_runs_once",
           "Loop with a trip count of 0 runs its body once",
           {"Loop": _loop(zero_trips_run_once=True)}, sources=("microsoft/onnxruntime#1272",)),
    Mutant("loop_condition_checked_after_first_turn",
           "Loop runs its body once even when the initial condition is false",
           {"Loop": _loop(check_cond_first=False)}),
    Mutant("loop_body_condition_ignored", "Loop ignores the condition its body returns",
           {"Loop": _loop(body_cond=False)}),
    Mutant("loop_carried_sequence_not_updated",
           "Loop keeps a loop-carried sequence at its initial value",
           {"Loop": _loop(carried_sequences=False)},
           modelled_on="OpenVINO: Loop with sequences"),
    Mutant("loop_carried_sequence_refused",
           "Loop fails on a loop-carried sequence",
           {"Loop": _loop(refuse_sequences=True)}, sources=("microsoft/onnxruntime#8999",)),
    Mutant("loop_scan_0d_stacked_as_column",
           "Loop stacks N 0-d scan values into shape [N, 1] (numpy.vstack)",
           {"Loop": _loop_scan_vstack}, modelled_on="onnx reference evaluator"),
    Mutant("loop_omitted_condition_runs_nothing",
           "Loop with the cond input omitted runs no iteration",
           {"Loop": _loop_omitted_condition_runs_nothing},
           modelled_on="onnx reference evaluator"),
    Mutant("loop_empty_optional_carried_refused",
           "Loop refuses an empty optional as a loop-carried value",
           {"Loop": _loop(refuse_none=True)}, modelled_on="onnx reference evaluator",
           sources=("pytorch/pytorch#83600",)),
)


def _none_refused(outputs: Any) -> Any:
    if any(v is None for v in outputs):
        raise MutantError("If: an empty optional output")
    return outputs


MUTANTS: tuple[Mutant, ...] = _OPTIONAL + _SEQUENCE_MAP + _CONTROL

#: The features each mutant targets (kit.targeted): the data that tells it from the spec.
TARGETS = {
    "optional_empty_is_present": ("no input, type attribute",),
    "optional_wraps_value_in_list": ("input given",),
    "optional_input_with_type_refused": ("input and type attribute",),
    "optional_of_empty_sequence_is_empty": ("empty sequence in",),
    "optional_has_element_numel": ("zero-element tensor", "empty sequence in"),
    "optional_has_element_empty_sequence_false": ("empty sequence in",),
    "optional_has_element_missing_input_true": ("no input",),
    "optional_has_element_missing_input_refused": ("no input",),
    "optional_has_element_empty_optional_crashes": ("empty optional in",),
    "optional_get_element_zero_element_refused": ("zero-element tensor",),
    "optional_operators_have_no_opset_28_kernel": ("empty optional in",),
    "identity_empty_optional_refused": ("empty optional in",),
    "identity_empty_sequence_as_empty_optional": ("empty sequence in",),
    "sequence_map_extra_sequences_not_zipped": ("several sequences",),
    "sequence_map_empty_input_raises": ("empty sequence in",),
    "sequence_map_tensor_input_indexed": ("tensor input",),
    "sequence_map_body_constant_refused": ("Constant node in a subgraph",),
    "sequence_map_outer_scope_invisible": ("reads an outer tensor", "reads an outer sequence",
                                           "body reads an outer name"),
    "sequence_map_single_sample_unwrapped": ("sequence length 1",),
    "if_always_then": ("sequence from else branch", "optional from else branch"),
    "if_sequence_outputs_empty": ("sequence from then branch", "sequence from else branch"),
    "if_empty_optional_output_refused": ("empty optional out",),
    "if_constant_branch_outputs_zero": ("Constant node in a subgraph",),
    "control_flow_one_element_condition_refused": ("condition of shape [1]",
                                                   "trip count of shape [1]"),
    "loop_body_outer_sequence_invisible": ("reads an outer sequence",),
    "loop_one_turn_short": ("carries a sequence", "scan output"),
    "loop_one_turn_long": ("carries a sequence", "scan output"),
    "loop_zero_trip_count_runs_once": ("trip count 0",),
    "loop_condition_checked_after_first_turn": ("condition false at start",),
    "loop_body_condition_ignored": ("trip count omitted",),
    "loop_carried_sequence_not_updated": ("carries a sequence",),
    "loop_carried_sequence_refused": ("carries a sequence",),
    "loop_scan_0d_stacked_as_column": ("scan output",),
    "loop_omitted_condition_runs_nothing": ("condition omitted",),
    "loop_empty_optional_carried_refused": ("carries an optional", "empty optional out"),
}
MUTANTS = targeted(MUTANTS, TARGETS)

