"""Mutants of SplitToSequence and ConcatFromSequence: one plausible runtime bug each, as data
(see kit.py)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any, cast

import numpy as np

from ..._core.cases import Node
from ..._core.errors import MutantError
from ..._core.suite_forms import GRAPH_INPUT
from .. import oracle
from ..oracle import Context, Operator
from .kit import (
    MISSING,
    Mutant,
    concat_from_sequence,
    present,
    refusing,
    spec,
    split_to_sequence,
    targeted,
)

# -- SplitToSequence ----------------------------------------------------------------------------


def _split_parts(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    parts: list[Any] = spec("SplitToSequence")(node, args, attributes, context)[0]
    return parts


def _keepdims_ignored(tensor: Any, split: Any, axis: int, keepdims: int,
                      parts: list[Any]) -> list[Any]:
    if split is MISSING and keepdims == 0:
        return [np.expand_dims(p, axis) for p in parts]
    return parts


def _keepdims_with_scalar(tensor: Any, split: Any, axis: int, keepdims: int,
                          parts: list[Any]) -> list[Any]:
    if keepdims == 0 and split is not MISSING and np.asarray(split).ndim == 0 \
            and int(split) == 1:
        return [np.squeeze(p, axis=axis) for p in parts]
    return parts


def _remainder_dropped(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    parts = _split_parts(node, args, attributes, context)
    given = present(args)
    if len(given) > 1 and np.asarray(given[1]).ndim == 0 and len(parts) > 1:
        axis = attributes.get("axis", 0)
        if parts[-1].shape[axis] != parts[0].shape[axis]:
            parts = parts[:-1]
    return [parts]


def _split_ignored_when(source: Callable[[Context, Node, int], bool]) -> Operator:
    """SplitToSequence that ignores a 'split' for which `source(context, node, 1)` holds."""
    def run(node: Node, args: list[Any], attributes: dict[str, Any],
            context: Context) -> list[Any]:
        given = present(args)
        if len(given) > 1 and source(context, node, 1):
            attributes = {**attributes, "keepdims": 1}
            return spec("SplitToSequence")(node, [given[0]], attributes, context)
        return spec("SplitToSequence")(node, args, attributes, context)
    return run


def _zero_axis_one_piece(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    tensor = np.asarray(args[0])
    axis = attributes.get("axis", 0)
    if tensor.ndim and tensor.shape[axis] == 0:
        return [[np.array(tensor)]]
    return spec("SplitToSequence")(node, args, attributes, context)


def _single_chunk_as_tensor(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    parts = _split_parts(node, args, attributes, context)
    return [parts[0] if len(parts) == 1 else parts]


def _zero_element_parts_dropped(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    return [[p for p in _split_parts(node, args, attributes, context) if p.size]]


def _strings_keep_axis(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    parts = _split_parts(node, args, attributes, context)
    if np.asarray(args[0]).dtype.kind == "O":
        return [[p.reshape((1,)) if p.ndim == 0 else p for p in parts]]
    return [parts]


def _first_split_value_as_chunk(node: Node, args: list[Any], attributes: dict[str, Any],
        context: Context) -> list[Any]:
    """A 1-D split read as a scalar chunk of its first value."""
    given = present(args)
    if len(given) > 1 and np.asarray(given[1]).ndim == 1 and np.asarray(given[1]).size:
        chunk = np.asarray(given[1]).reshape(-1)[:1].reshape(())
        return spec("SplitToSequence")(node, [given[0], chunk], attributes, context)
    return spec("SplitToSequence")(node, args, attributes, context)


def _dtype_refused(names: Collection[str]) -> Callable[[Node, list[Any], Context], bool]:
    def refuses(node: Node, args: list[Any], context: Context) -> bool:
        return np.asarray(args[0]).dtype.name in names or (
            "string" in names and np.asarray(args[0]).dtype.kind == "O")
    return refuses


_SMALL_SPLIT_TYPES = {"int8", "int16", "uint8", "uint16", "uint32", "uint64", "bfloat16"}

_SPLIT = (
    Mutant("split_to_sequence_keepdims_ignored",
           "SplitToSequence keeps the split axis with keepdims=0 and no split",
           {"SplitToSequence": split_to_sequence(keepdims_rule=_keepdims_ignored)},
           sources=("onnx/onnx-tensorflow#630", "onnx/onnx#6656")),
    Mutant("split_to_sequence_keepdims_applied_with_split",
           "SplitToSequence applies keepdims=0 to a scalar split of 1",
           {"SplitToSequence": split_to_sequence(keepdims_rule=_keepdims_with_scalar)},
           modelled_on="onnxruntime 1.32"),
    Mutant("split_to_sequence_negative_axis_off_by_one",
           "SplitToSequence normalises a negative axis as rank + axis - 1",
           {"SplitToSequence": split_to_sequence(axis_rule=lambda axis, rank: axis + rank - 1
                                                 if axis < 0 and axis + rank - 1 >= 0
                                                 else axis)}),
    Mutant("split_to_sequence_remainder_dropped",
           "SplitToSequence with a scalar split drops the smaller last chunk",
           {"SplitToSequence": _remainder_dropped}),
    Mutant("split_to_sequence_zero_size_axis_one_piece",
           "SplitToSequence over an axis of size 0 returns the tensor as one piece",
           {"SplitToSequence": _zero_axis_one_piece}),
    Mutant("split_to_sequence_single_chunk_as_tensor",
           "SplitToSequence returns its only chunk as a tensor, not a sequence of length 1",
           {"SplitToSequence": _single_chunk_as_tensor},
           modelled_on="TVM 0.27, found by gen-seq-tests fuzz (docs/conformance.md)"),
    Mutant("split_to_sequence_zero_element_parts_dropped",
           "SplitToSequence leaves out parts with no elements",
           {"SplitToSequence": _zero_element_parts_dropped}),
    Mutant("split_to_sequence_strings_keep_axis",
           "SplitToSequence of strings with keepdims=0 gives parts of shape [1], not 0-d",
           {"SplitToSequence": _strings_keep_axis},
           modelled_on="OpenVINO: strings split to 0-d parts"),
    Mutant("split_to_sequence_split_input_ignored",
           "SplitToSequence ignores a 'split' that is a graph input (needs a constant)",
           {"SplitToSequence": _split_ignored_when(
               lambda c, node, i: c.from_graph_input(node, i))},
           modelled_on="OpenVINO: split must be a constant", needs=(GRAPH_INPUT,)),
    Mutant("split_to_sequence_split_constant_ignored",
           "SplitToSequence ignores a 'split' that is an initializer or Constant node",
           {"SplitToSequence": _split_ignored_when(
               lambda c, node, i: c.from_constant(node, i))}),
    Mutant("split_to_sequence_small_integer_types_refused",
           "SplitToSequence has no kernel for int8, int16, uint8..uint64 or bfloat16",
           {"SplitToSequence": refusing("SplitToSequence", _dtype_refused(_SMALL_SPLIT_TYPES),
                                        "could not find an implementation")},
           modelled_on="onnxruntime 1.32", sources=("microsoft/onnxruntime#8615",)),
    Mutant("split_to_sequence_scalar_split_refused",
           "SplitToSequence accepts a 1-D split only: a scalar split fails",
           {"SplitToSequence": refusing("SplitToSequence", lambda node, args, c: len(
               present(args)) > 1 and np.asarray(args[1]).ndim == 0,
               "split must be 1-D")}, sources=("onnx/onnx#4831",)),
    Mutant("split_to_sequence_split_first_value_as_chunk",
           "SplitToSequence reads a 1-D split as a scalar chunk of its first value",
           {"SplitToSequence": _first_split_value_as_chunk},
           sources=("openvinotoolkit/openvino#32377",)),
    Mutant("split_to_sequence_negative_axis_refused",
           "SplitToSequence does not normalise a negative axis and fails on it",
           {"SplitToSequence": refusing("SplitToSequence", lambda node, args, c:
                                        node_axis(node) < 0, "axis is out of range")},
           sources=("openvinotoolkit/openvino#32377",)),
    Mutant("split_to_sequence_bool_refused",
           "SplitToSequence has no kernel for bool",
           {"SplitToSequence": refusing("SplitToSequence", _dtype_refused({"bool"}),
                                        "not implemented for bool")},
           sources=("microsoft/onnxruntime#16905",)),
    Mutant("split_to_sequence_float16_refused",
           "SplitToSequence has no kernel for float16",
           {"SplitToSequence": refusing("SplitToSequence", _dtype_refused({"float16"}),
                                        "cannot support float16")},
           sources=("microsoft/onnxruntime#16006",)),
    Mutant("split_to_sequence_double_refused",
           "SplitToSequence has no kernel for double",
           {"SplitToSequence": refusing("SplitToSequence", _dtype_refused({"float64"}),
                                        "not implemented for double")},
           sources=("microsoft/onnxruntime#8382",)),
    Mutant("split_to_sequence_strings_refused",
           "SplitToSequence has no kernel for strings",
           {"SplitToSequence": refusing("SplitToSequence", _dtype_refused({"string"}),
                                        "could not find an implementation for strings")},
           sources=("microsoft/onnxruntime#927",)),
)


def node_axis(node: Node) -> int:
    """A node's 'axis' attribute (0 when it has none)."""
    return cast(int, dict(node.attributes).get("axis", 0))


# -- ConcatFromSequence -------------------------------------------------------------------------

def _new_axis_negative(sequence: list[Any], axis: int, new_axis: int) -> Any:
    if new_axis == 1 and axis < 0:
        axis = axis + np.asarray(sequence[0]).ndim  # against the input rank, not rank + 1
        if axis < 0:
            raise MutantError("axis out of range")
    return oracle.concat_from_sequence(sequence, axis, new_axis)


def _negative_off_by_one(sequence: list[Any], axis: int, new_axis: int) -> Any:
    if new_axis == 0 and axis < 0 and sequence:
        axis = axis + np.asarray(sequence[0]).ndim - 1
        if axis < 0:
            raise MutantError("axis out of range")
    return oracle.concat_from_sequence(sequence, axis, new_axis)


def _single_passthrough(sequence: list[Any], axis: int, new_axis: int) -> Any:
    if len(sequence) == 1:
        return np.array(sequence[0])
    return oracle.concat_from_sequence(sequence, axis, new_axis)


def _drops_empty(sequence: list[Any], axis: int, new_axis: int) -> Any:
    kept = [t for t in sequence if np.asarray(t).size] or sequence[:1]
    return oracle.concat_from_sequence(kept, axis, new_axis)


def _new_axis_always_last(sequence: list[Any], axis: int, new_axis: int) -> Any:
    """new_axis=1 as s[..., newaxis] for each tensor, joined along the last axis."""
    if new_axis == 1 and sequence:
        return np.concatenate([np.asarray(t)[..., np.newaxis] for t in sequence], axis=-1)
    return oracle.concat_from_sequence(sequence, axis, new_axis)


_CONCAT = (
    Mutant("concat_from_sequence_new_axis_negative_axis",
           "ConcatFromSequence with new_axis=1 normalises a negative axis against rank r, not "
           "r + 1", {"ConcatFromSequence": concat_from_sequence(_new_axis_negative)},
           sources=("robertknight/rten#1460",)),
    Mutant("concat_from_sequence_new_axis_ignored",
           "ConcatFromSequence ignores new_axis=1",
           {"ConcatFromSequence": concat_from_sequence(
               lambda s, a, n: oracle.concat_from_sequence(s, a, 0))}),
    Mutant("concat_from_sequence_negative_axis_off_by_one",
           "ConcatFromSequence normalises a negative axis as rank + axis - 1",
           {"ConcatFromSequence": concat_from_sequence(_negative_off_by_one)}),
    Mutant("concat_from_sequence_single_tensor_passthrough",
           "ConcatFromSequence returns a one-tensor sequence's tensor as is (an Identity in "
           "place of the concat, wrong with new_axis=1)",
           {"ConcatFromSequence": concat_from_sequence(_single_passthrough)},
           sources=("microsoft/onnxscript#2661",)),
    Mutant("concat_from_sequence_drops_zero_element_tensors",
           "ConcatFromSequence leaves out tensors with no elements",
           {"ConcatFromSequence": concat_from_sequence(_drops_empty)},
           sources=("microsoft/onnxscript#2661", "ROCm/torch_migraphx#91")),
    Mutant("concat_from_sequence_new_axis_always_last",
           "ConcatFromSequence with new_axis=1 stacks along the last axis whatever 'axis' says",
           {"ConcatFromSequence": concat_from_sequence(_new_axis_always_last)},
           sources=("onnx/onnx#6366", "onnx/onnx#6369")),
)

MUTANTS: tuple[Mutant, ...] = _SPLIT + _CONCAT

#: The features each mutant targets (kit.targeted): the data that tells it from the spec.
TARGETS = {
    "split_to_sequence_keepdims_ignored": ("keepdims=0",),
    "split_to_sequence_keepdims_applied_with_split": ("keepdims=0 with split (ignored)",
                                                      "scalar split"),
    "split_to_sequence_negative_axis_off_by_one": ("negative axis",),
    "split_to_sequence_remainder_dropped": ("scalar split does not divide",),
    "split_to_sequence_zero_size_axis_one_piece": ("zero-element tensor",
                                                   "size 0 along the axis"),
    "split_to_sequence_single_chunk_as_tensor": ("single chunk",),
    "split_to_sequence_zero_element_parts_dropped": ("zero-element tensor",
                                                     "size 0 off the axis"),
    "split_to_sequence_strings_keep_axis": ("keepdims=0", "tensor(string)"),
    "split_to_sequence_split_input_ignored": ("split from a graph input",),
    "split_to_sequence_split_constant_ignored": ("constant split",
                                                 "split from Constant value_int(s)",
                                                 "split from Constant value tensor"),
    "split_to_sequence_small_integer_types_refused": (
        "tensor(int8)", "tensor(int16)", "tensor(uint8)", "tensor(uint16)", "tensor(uint32)",
        "tensor(uint64)", "tensor(bfloat16)"),
    "split_to_sequence_scalar_split_refused": ("scalar split",),
    "split_to_sequence_split_first_value_as_chunk": ("uneven split",),
    "split_to_sequence_negative_axis_refused": ("negative axis",),
    "split_to_sequence_bool_refused": ("tensor(bool)",),
    "split_to_sequence_float16_refused": ("tensor(float16)",),
    "split_to_sequence_double_refused": ("tensor(double)",),
    "split_to_sequence_strings_refused": ("tensor(string)",),
    "concat_from_sequence_new_axis_negative_axis": ("new_axis=1", "negative axis"),
    "concat_from_sequence_new_axis_ignored": ("new_axis=1",),
    "concat_from_sequence_negative_axis_off_by_one": ("negative axis",),
    "concat_from_sequence_single_tensor_passthrough": ("sequence length 1", "new_axis=1"),
    "concat_from_sequence_drops_zero_element_tensors": ("zero-element tensor",
                                                        "size 0 off the axis"),
    "concat_from_sequence_new_axis_always_last": ("axis first", "axis interior"),
}
MUTANTS = targeted(MUTANTS, TARGETS)

