"""Mutants of SequenceAt, SequenceInsert, SequenceErase, SequenceLength, SequenceConstruct and
Identity on sequences: one plausible runtime bug each, as data (see kit.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._core.cases import Node
from ..._core.elements import PACKED_PER_BYTE
from ..._core.errors import MutantError
from ..._core.suite_forms import GRAPH_INPUT
from .. import oracle
from ..oracle import Context, Operator
from .kit import (
    Mutant,
    PositionRule,
    after,
    checked,
    in_place,
    present,
    refusing,
    scalar,
    sequence_at,
    sequence_erase,
    sequence_insert,
    spec,
    spec_index,
    targeted,
    tensors_of,
)

# -- rules: `rule(node, context, position, n) -> index` -----------------------------------------


def _negative_position(p: int, n: int) -> int:
    return p + n if p < 0 else p


def _insert_rule(rule: PositionRule) -> Operator:
    """SequenceInsert whose default (no position) appends, `rule` for a given position."""
    return sequence_insert(lambda node, c, p, n: n if p is None else rule(node, c, p, n))


def _erase_rule(rule: PositionRule) -> Operator:
    """SequenceErase whose default erases the last tensor, `rule` for a given position."""
    return sequence_erase(lambda node, c, p, n: n - 1 if p is None else rule(node, c, p, n))


# -- operators ----------------------------------------------------------------------------------

def _at_int32_refused(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    if np.asarray(args[1]).dtype == np.int32:
        raise MutantError("SequenceAt: int32 position not registered")
    return spec("SequenceAt")(node, args, attributes, context)


def _length_int32(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    return [np.array(len(args[0]), dtype=np.int32)]


def _construct_drops_empty(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    return [oracle.sequence_construct(*[a for a in args if np.asarray(a).size])]


def _insert_at_length_refused(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    """The range check [-n, n - 1] of SequenceAt used for SequenceInsert."""
    sequence, _, *rest = present(args)
    if rest and scalar(rest[0]) == len(sequence):
        raise MutantError("SequenceInsert: invalid sequence index")
    return spec("SequenceInsert")(node, args, attributes, context)


def _insert_default_past_end(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    """The default index n + 1 ('default is append'), then the range check."""
    if len(present(args)) < 3:
        raise MutantError(f"SequenceInsert: invalid sequence index {len(args[0]) + 1}")
    return spec("SequenceInsert")(node, args, attributes, context)


def _erase_raw_slice(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    """seq[:p] + seq[p + 1:] with the position as given (a negative p slices from the back)."""
    sequence, *rest = present(args)
    if not rest:
        return spec("SequenceErase")(node, args, attributes, context)
    oracle.position_index(rest[0], len(sequence), "SequenceErase", allow_end=False)
    p = scalar(rest[0])
    return [[np.array(t) for t in list(sequence[:p]) + list(sequence[p + 1:])]]


def _erase_default_erases_nothing(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    """Without a position, -1 normalised as n + p + 1 = n: no tensor has that index."""
    if len(present(args)) < 2:
        return [[np.array(t) for t in args[0]]]
    return spec("SequenceErase")(node, args, attributes, context)


def _construct_single_refused(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    if len(args) == 1:
        raise MutantError("SequenceConstruct: expect 2 or more inputs")
    return spec("SequenceConstruct")(node, args, attributes, context)


def _insert_mixed_shapes_refused(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    sequence, tensor, *_ = present(args)
    shapes = {np.asarray(t).shape for t in [*sequence, tensor]}
    if len(shapes) > 1:
        raise MutantError("SequenceInsert: SeqType with unranked sequence element")
    return spec("SequenceInsert")(node, args, attributes, context)


def _identity_refuses_sequence(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    if isinstance(args[0], list):
        raise MutantError("Identity: no kernel for seq(tensor)")
    return spec("Identity")(node, args, attributes, context)


def _identity_packed_refused(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    if any(t.dtype.name in PACKED_PER_BYTE for t in tensors_of(args[0])):
        raise MutantError("Could not find an implementation for Identity")
    return spec("Identity")(node, args, attributes, context)


def _identity_no_kernel_from_19(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    if context.opset >= 19:
        raise MutantError("Could not find an implementation for Identity(19)")
    return spec("Identity")(node, args, attributes, context)


_AT = (
    Mutant("sequence_at_negative_off_by_one",
           "SequenceAt counts a negative position from n - 1 (index n + p - 1)",
           {"SequenceAt": sequence_at(lambda node, c, p, n: n + p - 1 if p < 0 else p)}),
    Mutant("sequence_at_negative_position_input",
           "SequenceAt clamps a negative position to 0 when it is a graph input",
           {"SequenceAt": sequence_at(lambda node, c, p, n: 0 if p < 0 and c.from_graph_input(
               node, 1) else _negative_position(p, n))},
           modelled_on="OpenVINO: negative positions right as constants, wrong as inputs",
           sources=("openvinotoolkit/openvino#35713",), needs=(GRAPH_INPUT,)),
    Mutant("sequence_at_negative_position_constant",
           "SequenceAt clamps a negative position to 0 when it is a constant (initializer or "
           "Constant node), folded at load time",
           {"SequenceAt": sequence_at(lambda node, c, p, n: 0 if p < 0 and c.from_constant(
               node, 1) else _negative_position(p, n))}),
    Mutant("sequence_at_last_refused",
           "SequenceAt refuses position n - 1 (range check p < n - 1)",
           {"SequenceAt": sequence_at(lambda node, c, p, n: -1 if p == n - 1 else
                                      _negative_position(p, n))}),
    Mutant("sequence_at_int32_position_refused",
           "SequenceAt has no kernel for an int32 position", {"SequenceAt": _at_int32_refused}),
    Mutant("sequence_at_position_input_refused",
           "SequenceAt needs a constant position: one that is a graph input is refused",
           {"SequenceAt": refusing("SequenceAt", lambda node, args, c: c.from_graph_input(
               node, 1), "can't find position (not a constant)")},
           sources=("apache/tvm#9116", "tracel-ai/burn-onnx#469"), needs=(GRAPH_INPUT,)),
)

_INSERT = (
    Mutant("sequence_insert_at_length_goes_front",
           "SequenceInsert normalises position as (p + n) % n, so p = n inserts at the front",
           {"SequenceInsert": _insert_rule(lambda node, c, p, n: (p + n) % n if n else 0)},
           modelled_on="onnx reference evaluator"),
    Mutant("sequence_insert_into_empty_fails",
           "SequenceInsert with a position into an empty sequence divides by zero",
           {"SequenceInsert": _insert_rule(lambda node, c, p, n: (p + n) % n)},
           modelled_on="onnx reference evaluator"),
    Mutant("sequence_insert_default_front",
           "SequenceInsert without position inserts at the front",
           {"SequenceInsert": sequence_insert(lambda node, c, p, n: 0 if p is None else
                                              spec_index(p, n, n))}),
    Mutant("sequence_insert_negative_off_by_one",
           "SequenceInsert puts a negative position one place later (n + p + 1)",
           {"SequenceInsert": _insert_rule(lambda node, c, p, n: n + p + 1 if p < 0 else p)}),
    Mutant("sequence_insert_negative_position_input",
           "SequenceInsert appends for a negative position that is a graph input",
           {"SequenceInsert": _insert_rule(lambda node, c, p, n: n if p < 0 and
                                           c.from_graph_input(node, 2) else spec_index(p, n, n))},
           modelled_on="OpenVINO: negative positions right as constants, wrong as inputs",
           needs=(GRAPH_INPUT,)),
    Mutant("sequence_insert_negative_position_constant",
           "SequenceInsert inserts at the front for a negative constant position",
           {"SequenceInsert": _insert_rule(lambda node, c, p, n: 0 if p < 0 and
                                           c.from_constant(node, 2) else spec_index(p, n, n))}),
    Mutant("sequence_insert_at_length_refused",
           "SequenceInsert checks a position against [-n, n - 1], so p = n (append) is refused",
           {"SequenceInsert": _insert_at_length_refused},
           sources=("microsoft/onnxruntime#7335",)),
    Mutant("sequence_insert_default_past_end",
           "SequenceInsert without position uses index n + 1 and fails its range check",
           {"SequenceInsert": _insert_default_past_end},
           sources=("microsoft/onnxruntime#7335",)),
    Mutant("sequence_insert_position_ignored",
           "SequenceInsert appends whatever the position (an append-only chain walker)",
           {"SequenceInsert": _insert_rule(lambda node, c, p, n: n)},
           sources=("openvinotoolkit/openvino#35711",)),
    Mutant("sequence_insert_mixed_shapes_refused",
           "SequenceInsert fails when the sequence's tensors would differ in shape (a "
           "statically ranked, uniform element type)",
           {"SequenceInsert": _insert_mixed_shapes_refused},
           sources=("onnx/onnx-mlir#1650",)),
)

_ERASE = (
    Mutant("sequence_erase_default_first",
           "SequenceErase without position erases the first tensor",
           {"SequenceErase": sequence_erase(lambda node, c, p, n: 0 if p is None else
                                            spec_index(p, n, 0))}),
    Mutant("sequence_erase_negative_off_by_one",
           "SequenceErase counts a negative position from n - 1",
           {"SequenceErase": _erase_rule(lambda node, c, p, n: n + p - 1 if p < 0 else p)}),
    Mutant("sequence_erase_negative_position_input",
           "SequenceErase erases the first tensor for a negative position that is a graph input",
           {"SequenceErase": _erase_rule(lambda node, c, p, n: 0 if p < 0 and
                                         c.from_graph_input(node, 1) else spec_index(p, n, n - 1))},
           modelled_on="OpenVINO: negative positions right as constants, wrong as inputs",
           needs=(GRAPH_INPUT,)),
    Mutant("sequence_erase_negative_position_constant",
           "SequenceErase erases the last tensor for a negative constant position",
           {"SequenceErase": _erase_rule(lambda node, c, p, n: n - 1 if p < 0 and
                                         c.from_constant(node, 1) else spec_index(p, n, n - 1))}),
    Mutant("sequence_erase_negative_raw_slice",
           "SequenceErase as seq[:p] + seq[p + 1:] with a negative p left as is (p = -1 keeps "
           "all but the last, then appends the whole sequence)",
           {"SequenceErase": _erase_raw_slice}, sources=("llvm/torch-mlir#3425",)),
    Mutant("sequence_erase_negative_plus_one",
           "SequenceErase normalises a negative position as n + p + 1",
           {"SequenceErase": _erase_rule(lambda node, c, p, n: checked(
               n + p + 1 if p < 0 else p, n))}, sources=("apache/tvm#13865",)),
    Mutant("sequence_erase_default_erases_nothing",
           "SequenceErase without position erases nothing (the default -1 normalised as n)",
           {"SequenceErase": _erase_default_erases_nothing}, sources=("apache/tvm#13865",)),
    Mutant("sequence_erase_position_input_refused",
           "SequenceErase needs a constant position: one that is a graph input is refused",
           {"SequenceErase": refusing("SequenceErase", lambda node, args, c: c.from_graph_input(
               node, 1), "position must be a constant")}, sources=("apache/tvm#13865",),
           needs=(GRAPH_INPUT,)),
    Mutant("sequence_erase_default_refused",
           "SequenceErase without position fails (the optional input has no default)",
           {"SequenceErase": refusing("SequenceErase", lambda node, args, c: len(
               present(args)) < 2, "position is required")},
           sources=("onnx/onnx-tensorflow#660",)),
)

_IN_PLACE = (
    Mutant("sequence_insert_in_place",
           "SequenceInsert appends into its input's storage: every other reader of the input "
           "sequence (a second consumer, an outer-scope read in a Loop body) sees it longer",
           {"SequenceInsert": in_place("SequenceInsert")},
           sources=("microsoft/onnxruntime#20606", "onnx/onnx#2082")),
    Mutant("sequence_erase_in_place",
           "SequenceErase removes from its input's storage: every other reader of the input "
           "sequence sees it shorter",
           {"SequenceErase": in_place("SequenceErase")},
           sources=("microsoft/onnxruntime#20606",)),
)

def _empty_type_lost(node: Node, args: list[Any], attributes: dict[str, Any],
                     outputs: list[Any]) -> list[Any]:
    """SequenceInsert into an empty sequence casts the tensor to float32 (no type kept)."""
    if args[0]:
        return outputs
    return [[np.asarray(t).astype(np.float32) for t in outputs[0]]]


_OTHER = (
    Mutant("sequence_length_int32", "SequenceLength returns an int32 scalar",
           {"SequenceLength": _length_int32}),
    Mutant("empty_sequence_type_lost",
           "an empty sequence keeps no element type: a tensor inserted into it becomes "
           "float32 (SequenceEmpty's default)", {"SequenceInsert": after(
               "SequenceInsert", _empty_type_lost)}, sources=("microsoft/onnxscript#2949",)),
    Mutant("sequence_construct_drops_zero_element_tensors",
           "SequenceConstruct skips inputs with no elements",
           {"SequenceConstruct": _construct_drops_empty}),
    Mutant("sequence_construct_single_input_refused",
           "SequenceConstruct refuses a single input (expects two or more)",
           {"SequenceConstruct": _construct_single_refused}, sources=("apache/tvm#9113",)),
    Mutant("identity_sequence_refused",
           "Identity has no kernel for a sequence (only tensors)",
           {"Identity": _identity_refuses_sequence}, sources=("microsoft/onnxruntime#7335",)),
    Mutant("identity_packed_types_refused",
           "Identity has no kernel for int4, uint4, float4e2m1, int2, uint2",
           {"Identity": _identity_packed_refused}, modelled_on="onnxruntime 1.32"),
    Mutant("identity_no_kernel_from_opset_19",
           "Identity fails at opset 19 and later (no kernel registered for the new version)",
           {"Identity": _identity_no_kernel_from_19},
           sources=("microsoft/onnxruntime#15575",)),
)

MUTANTS: tuple[Mutant, ...] = _AT + _INSERT + _ERASE + _IN_PLACE + _OTHER

#: The features each mutant targets (kit.targeted): the data that tells it from the spec.
TARGETS = {
    "sequence_at_negative_off_by_one": ("position -1", "position -len"),
    "sequence_at_negative_position_input": ("position -1", "position -len"),
    "sequence_at_negative_position_constant": ("constant position", "position -1"),
    "sequence_at_last_refused": ("position len-1",),
    "sequence_at_int32_position_refused": ("int32 position",),
    "sequence_at_position_input_refused": ("position from a graph input",),
    "sequence_insert_at_length_goes_front": ("position len",),
    "sequence_insert_into_empty_fails": ("empty sequence in", "sequence length 0"),
    "empty_sequence_type_lost": ("empty sequence in",),
    "sequence_insert_default_front": ("no position",),
    "sequence_insert_negative_off_by_one": ("position -1", "position -len"),
    "sequence_insert_negative_position_input": ("position -1", "position -len"),
    "sequence_insert_negative_position_constant": ("constant position", "position -1"),
    "sequence_insert_at_length_refused": ("position len",),
    "sequence_insert_default_past_end": ("no position",),
    "sequence_insert_position_ignored": ("position 0", "position len-1"),
    "sequence_insert_mixed_shapes_refused": ("elements differ in shape",),
    "sequence_erase_default_first": ("no position",),
    "sequence_erase_negative_off_by_one": ("position -1", "position -len"),
    "sequence_erase_negative_position_input": ("position -1", "position -len"),
    "sequence_erase_negative_position_constant": ("constant position", "position -len"),
    "sequence_erase_negative_raw_slice": ("position -1",),
    "sequence_erase_negative_plus_one": ("position -1", "position -len"),
    "sequence_erase_default_erases_nothing": ("no position",),
    "sequence_erase_position_input_refused": ("position from a graph input",),
    "sequence_erase_default_refused": ("no position",),
    "sequence_insert_in_place": ("sequence read twice",),
    "sequence_erase_in_place": ("sequence read twice",),
    "sequence_length_int32": ("tensor(int64)",),
    "sequence_construct_drops_zero_element_tensors": ("zero-element tensor",),
    "sequence_construct_single_input_refused": ("sequence length 1",),
    "identity_sequence_refused": ("carries a sequence",),
    "identity_packed_types_refused": ("odd packed count",),
    "identity_no_kernel_from_opset_19": ("carries a sequence", "carries an optional"),
}
MUTANTS = targeted(MUTANTS, TARGETS)

