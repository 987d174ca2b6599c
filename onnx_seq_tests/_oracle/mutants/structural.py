"""Mutants of structure (issue: every structural feature targeted): how SplitToSequence and
ConcatFromSequence walk the memory of rank >= 2 tensors, sequence lengths and positions 0 and 1,
positions from Constant nodes or computed, chains of sequence operators, omitted inputs, the
element type of SequenceEmpty, infinities at the boundary; as data (see kit.py). The control
flow contexts are in control.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..._core.cases import Node
from ..._core.errors import MutantError
from .. import oracle
from ..oracle import Context, Operator
from .kit import (
    Mutant,
    concat_from_sequence,
    each_tensor,
    present,
    refusing,
    scalar,
    sequence_at,
    sequence_erase,
    sequence_insert,
    spec,
    spec_index,
    targeted,
)

# -- SplitToSequence and ConcatFromSequence over memory -----------------------------------------


def _row_blocks(tensor: np.ndarray, sizes: list[int], keep: int) -> list[np.ndarray]:
    """`tensor` viewed as [prod(shape[:keep]), rest], cut into consecutive column blocks of
    `sizes` elements per row (keep=0: the flat buffer in consecutive blocks)."""
    rows = math.prod(tensor.shape[:keep])
    view = tensor.reshape(rows, -1)
    starts = np.cumsum([0, *sizes])
    return [view[:, s:e] for s, e in zip(starts[:-1], starts[1:], strict=True)]


def _split_blocks(keep: Callable[[np.ndarray, int], int | None]) -> Operator:
    """SplitToSequence copying each part as consecutive blocks of the buffer: the rows of the
    view [prod(shape[:k]), rest] with k = `keep(tensor, axis)` (None: the spec's parts). Right
    exactly where every axis from k to the split axis has size 1."""
    def run(node: Node, args: list[Any], attributes: dict[str, Any],
            context: Context) -> list[Any]:
        parts: list[Any] = spec("SplitToSequence")(node, args, attributes, context)[0]
        tensor = np.asarray(args[0])
        axis = attributes.get("axis", 0) % max(tensor.ndim, 1)
        k = keep(tensor, axis)
        if k is None or tensor.size == 0:
            return [parts]
        rows = math.prod(tensor.shape[:k])
        blocks = _row_blocks(tensor, [p.size // rows for p in parts], k)
        return [[np.array(b.reshape(p.shape)) for b, p in zip(blocks, parts, strict=True)]]
    return run


def _matrix_split(node: Node, args: list[Any], attributes: dict[str, Any],
                  context: Context) -> list[Any]:
    """A kernel for matrices: rank 1 viewed as a row [1, n] (parts keep the 1), rank >= 3
    flattened to [d0, rest] (blocks per row)."""
    tensor = np.asarray(args[0])
    if tensor.ndim == 1:
        parts = spec("SplitToSequence")(node, args, attributes, context)[0]
        return [[np.expand_dims(p, 0) for p in parts]]
    return _split_blocks(lambda t, axis: 1 if t.ndim >= 3 and axis >= 1 else None)(
        node, args, attributes, context)


def _blocks_rule(keep: Callable[[np.ndarray, int, int], int | None]
                 ) -> Callable[[list[Any], int, int], Any]:
    """A `kit.concat_from_sequence` rule appending each element's buffer as consecutive blocks
    of the rows of [prod(shape[:k]), rest], k = `keep(first, axis, new_axis)` (None: the
    spec's answer), reshaped to the spec's shape; new_axis=1 joins the elements unsqueezed."""
    def rule(sequence: list[Any], axis: int, new_axis: int) -> Any:
        expected = oracle.concat_from_sequence(sequence, axis, new_axis)
        elements = [np.asarray(t) for t in sequence]
        if new_axis:
            elements = [np.expand_dims(t, axis) for t in elements]
        k = keep(elements[0], axis % elements[0].ndim, new_axis)
        if k is None or expected.size == 0:
            return expected
        rows = math.prod(elements[0].shape[:k])
        joined = np.concatenate([t.reshape(rows, -1) for t in elements], axis=1)
        return joined.reshape(expected.shape)
    return rule


def _matrix_concat(sequence: list[Any], axis: int, new_axis: int) -> Any:
    """A kernel for matrices: rank-1 elements joined along axis 0 as rows (numpy.vstack), rank
    >= 3 flattened to [d0, rest] (blocks per row)."""
    if not new_axis and np.asarray(sequence[0]).ndim == 1:
        return np.vstack([np.asarray(t) for t in sequence])
    return _blocks_rule(lambda t, a, n: 1 if t.ndim >= 3 and a >= 1 and not n else None)(
        sequence, axis, new_axis)


def _split_last_axis(node: Node, args: list[Any], attributes: dict[str, Any],
                     context: Context) -> list[Any]:
    """The split's ranges applied to the last axis whatever 'axis' says."""
    return spec("SplitToSequence")(node, args, {**attributes, "axis": -1}, context)


def _extra_empty_chunk(node: Node, args: list[Any], attributes: dict[str, Any],
                       context: Context) -> list[Any]:
    """The chunk count of a scalar split as size // split + 1: one empty chunk more when the
    split divides the axis."""
    parts: list[Any] = spec("SplitToSequence")(node, args, attributes, context)[0]
    given = present(args)
    tensor = np.asarray(args[0])
    if len(given) > 1 and np.asarray(given[1]).ndim == 0 and tensor.ndim:
        axis = attributes.get("axis", 0)
        if tensor.shape[axis] % scalar(given[1]) == 0:
            parts.append(np.take(tensor, np.arange(0), axis=axis))
    return [parts]


def _ones_split_as_default(node: Node, args: list[Any], attributes: dict[str, Any],
                           context: Context) -> list[Any]:
    """A 1-D split of all ones taken for the default split, so keepdims=0 squeezes the axis."""
    given = present(args)
    if len(given) > 1 and np.asarray(given[1]).ndim == 1 and (np.asarray(given[1]) == 1).all():
        return spec("SplitToSequence")(node, [given[0]], attributes, context)
    return spec("SplitToSequence")(node, args, attributes, context)


def _concat_mixed_refused(node: Node, args: list[Any], attributes: dict[str, Any],
                          context: Context) -> list[Any]:
    if len({np.asarray(t).shape for t in args[0]}) > 1:
        raise MutantError("ConcatFromSequence: the sequence's element shape is not uniform")
    return spec("ConcatFromSequence")(node, args, attributes, context)


def _last_zero_length(node: Node, args: list[Any], c: Context) -> bool:
    """The last element has size 0 along the (new_axis=0) axis."""
    attributes: dict[str, Any] = dict(node.attributes)
    last = np.asarray(args[0][-1]) if args[0] else np.zeros(1)
    return not attributes.get("new_axis", 0) and last.ndim > 0 and \
        last.shape[int(attributes["axis"]) % last.ndim] == 0


def _new_axis_at_rank(node: Node, args: list[Any], c: Context) -> bool:
    attributes = dict(node.attributes)
    return bool(args[0]) and attributes.get("new_axis", 0) == 1 and \
        attributes["axis"] == np.asarray(args[0][0]).ndim


_MEMORY = (
    Mutant("split_to_sequence_consecutive_blocks",
           "SplitToSequence copies each part as one consecutive block of the buffer (a memcpy "
           "per part, the kernel's before_dims taken as 1): right only where the axes before "
           "the split axis have size 1",
           {"SplitToSequence": _split_blocks(lambda t, axis: 0)},
           modelled_on="a plausible slip in a before_dims/after_dims split kernel (the layout "
                       "of onnxruntime's SplitToSequence, microsoft/onnxruntime#2131)"),
    Mutant("split_to_sequence_matrix_kernel",
           "SplitToSequence through a kernel for matrices: a rank-1 input viewed as [1, n] "
           "(its parts keep the leading 1), a rank >= 3 input flattened to [d0, rest] (parts "
           "along axis >= 2 cut as blocks of the flattened rows)",
           {"SplitToSequence": _matrix_split},
           modelled_on="a plausible 2-D split kernel reused for every rank"),
    Mutant("split_to_sequence_slices_last_axis",
           "SplitToSequence applies its ranges to the last axis whatever 'axis' says",
           {"SplitToSequence": _split_last_axis}, sources=("Ivorforce/NumDot#176",)),
    Mutant("split_to_sequence_divisible_split_extra_empty_chunk",
           "SplitToSequence counts the chunks of a scalar split as size // split + 1, so a "
           "split that divides the axis gives one more, empty chunk",
           {"SplitToSequence": _extra_empty_chunk},
           modelled_on="a ceiling division off by one"),
    Mutant("split_to_sequence_ones_split_as_default",
           "SplitToSequence takes a 1-D split of all ones for the default split and applies "
           "keepdims=0 to it (the spec ignores keepdims when split is given)",
           {"SplitToSequence": _ones_split_as_default},
           modelled_on="the sibling of split_to_sequence_keepdims_applied_with_split "
                       "(onnxruntime 1.32) for a 1-D split"),
    Mutant("concat_from_sequence_consecutive_blocks",
           "ConcatFromSequence appends each element's buffer as one block (a memcpy per "
           "element): right only along axis 0 or where the axes before it have size 1",
           {"ConcatFromSequence": concat_from_sequence(_blocks_rule(lambda t, axis, n: 0))},
           modelled_on="a plausible concat kernel that ignores the outer dims"),
    Mutant("concat_from_sequence_matrix_kernel",
           "ConcatFromSequence through a kernel for matrices: rank-1 elements along axis 0 "
           "stacked as rows (numpy.vstack), rank >= 3 elements flattened to [d0, rest]",
           {"ConcatFromSequence": concat_from_sequence(_matrix_concat)},
           modelled_on="numpy.vstack (as the reference evaluator's Loop scan stacking, "
                       "loop_scan_0d_stacked_as_column) and a 2-D kernel reused for every rank"),
    Mutant("concat_from_sequence_0d_elements_refused",
           "ConcatFromSequence cannot stack 0-d elements (new_axis=1): it concatenates first "
           "and reshapes after",
           {"ConcatFromSequence": refusing("ConcatFromSequence", lambda node, args, c: bool(
               args[0]) and np.asarray(args[0][0]).ndim == 0,
               "zero-dimensional arrays cannot be concatenated")},
           modelled_on="numpy.concatenate of 0-d arrays"),
    Mutant("concat_from_sequence_last_zero_length_refused",
           "ConcatFromSequence fails when its last element has size 0 along the axis (the "
           "start corner of the last copy is out of bounds)",
           {"ConcatFromSequence": refusing("ConcatFromSequence", _last_zero_length,
                                           "the start corner is out of bounds")},
           sources=("NervanaSystems/ngraph#1120",)),
    Mutant("concat_from_sequence_new_axis_at_rank_refused",
           "ConcatFromSequence with new_axis=1 checks 'axis' against [-r, r - 1], so stacking "
           "at axis = r (numpy.stack(..., axis=-1)) is refused",
           {"ConcatFromSequence": refusing("ConcatFromSequence", _new_axis_at_rank,
                                           "axis out of range")},
           sources=("robertknight/rten#1460",)),
    Mutant("concat_from_sequence_mixed_shapes_refused",
           "ConcatFromSequence needs every element of one shape (a sequence stored as one "
           "stacked tensor): elements that differ along the axis are refused",
           {"ConcatFromSequence": _concat_mixed_refused},
           modelled_on="a sequence kept as a stacked tensor with a fixed element shape"),
)

# -- lengths and positions ----------------------------------------------------------------------


def _erase_swap_remove(node: Node, args: list[Any], attributes: dict[str, Any],
                       context: Context) -> list[Any]:
    """The tensor at the position replaced by the last one, then the last dropped."""
    sequence, *rest = present(args)
    spec("SequenceErase")(node, args, attributes, context)  # the spec's range checks
    index = len(sequence) - 1 if not rest else spec_index(scalar(rest[0]), len(sequence), 0)
    items = [np.array(t) for t in sequence]
    items[index] = items[-1]
    return [items[:-1]]


def _one_based(node: Node, c: Context, p: Any, n: int) -> int:
    """A non-negative position read 1-based (p - 1; Python's wrap makes 0 the last)."""
    if p is None or p < 0:
        return n if p is None else p + n
    return (p - 1) % n if n else 0


def _one_based_insert(node: Node, c: Context, p: Any, n: int) -> int:
    """list.insert(p - 1, x): 0 inserts before the last tensor."""
    if p is None or p < 0:
        return n if p is None else p + n
    return p - 1 if p else max(n - 1, 0)


def _not_folded(index: int) -> Callable[[Node, Context], bool]:
    return lambda node, c: not c.from_constant(node, index)


_POSITIONS = (
    Mutant("sequence_erase_swap_remove",
           "SequenceErase moves the last tensor into the erased place (Vec::swap_remove in "
           "place of Vec::remove): the order changes in a sequence of 3 or more",
           {"SequenceErase": _erase_swap_remove},
           modelled_on="Rust's Vec::swap_remove used for an ordered erase"),
    Mutant("position_one_based",
           "SequenceAt, SequenceErase and SequenceInsert read a non-negative position 1-based "
           "(index p - 1, so 0 wraps to the last tensor)",
           {"SequenceAt": sequence_at(lambda node, c, p, n: _one_based(node, c, p, n)),
            "SequenceErase": sequence_erase(lambda node, c, p, n: n - 1 if p is None
                                            else _one_based(node, c, p, n)),
            "SequenceInsert": sequence_insert(_one_based_insert)},
           modelled_on="a 1-based index (MATLAB, Lua, Julia) carried into a converter"),
    Mutant("position_zero_as_omitted",
           "SequenceErase and SequenceInsert test the position for truth (`position or "
           "default`): position 0 erases the last tensor, or appends",
           {"SequenceErase": sequence_erase(lambda node, c, p, n: n - 1 if not p
                                            else spec_index(p, n, n - 1)),
            "SequenceInsert": sequence_insert(lambda node, c, p, n: n if not p
                                              else spec_index(p, n, n))},
           modelled_on="a falsy-zero test in a Python converter"),
    Mutant("position_not_constant_falls_back",
           "SequenceInsert appends and SequenceErase erases the last tensor when the position "
           "is not a constant (computed by a node or fed), instead of reading it",
           {"SequenceInsert": sequence_insert(lambda node, c, p, n: n if p is None or
                                              _not_folded(2)(node, c) else spec_index(p, n, n)),
            "SequenceErase": sequence_erase(lambda node, c, p, n: n - 1 if p is None or
                                            _not_folded(1)(node, c)
                                            else spec_index(p, n, n - 1))},
           sources=("openvinotoolkit/openvino#36445",)),
)

# -- Constant nodes, chains, omitted inputs, SequenceEmpty, infinities --------------------------


def _constant_scalar_as_1d(node: Node, args: list[Any], attributes: dict[str, Any],
                           context: Context) -> list[Any]:
    out = spec("Constant")(node, args, attributes, context)
    if "value" in attributes and np.asarray(out[0]).ndim == 0:
        return [np.asarray(out[0]).reshape(1)]
    return out


_SEQUENCE_CONSUMERS = ("SequenceAt", "SequenceInsert", "SequenceErase", "SequenceLength",
                       "ConcatFromSequence")


def _skips_erase(op_type: str) -> Operator:
    """`op_type` reading, for a sequence SequenceErase made, the erase's own input sequence."""
    def run(node: Node, args: list[Any], attributes: dict[str, Any],
            context: Context) -> list[Any]:
        producer = context.made_by.get(node.inputs[0])
        if producer is not None and producer.op_type == "SequenceErase":
            args = [context.scope[producer.inputs[0]], *args[1:]]
        return spec(op_type)(node, args, attributes, context)
    return run


class _Typed(list):  # type: ignore[type-arg]
    """An empty sequence that remembers the element type it was made with."""

    dtype: Any = np.float32


def _empty_float(node: Node, args: list[Any], attributes: dict[str, Any],
                 context: Context) -> list[Any]:
    return [_Typed()]


def _insert_checks_type(node: Node, args: list[Any], attributes: dict[str, Any],
                        context: Context) -> list[Any]:
    if isinstance(args[0], _Typed) and np.asarray(args[1]).dtype != np.dtype(args[0].dtype):
        raise MutantError("SequenceInsert: the tensor's type is not the sequence's (float)")
    return spec("SequenceInsert")(node, args, attributes, context)


#: Input counts of the schema (onnx.defs) for the operators whose trailing inputs are optional.
_FULL_ARITY = {"SequenceInsert": 3, "SequenceErase": 2, "SplitToSequence": 2}


def _fewer_than_schema(node: Node, args: list[Any], c: Context) -> bool:
    return len(node.inputs) < _FULL_ARITY[node.op_type]


def _has_empty_name(node: Node, args: list[Any], c: Context) -> bool:
    return "" in node.inputs


def _infinity_as_nan(tensor: np.ndarray) -> np.ndarray:
    if tensor.dtype.kind in "fc" and np.isinf(tensor).any():
        return np.where(np.isinf(tensor), np.array(np.nan, tensor.dtype), tensor)
    return tensor


_OTHER = (
    Mutant("constant_value_int_refused",
           "Constant with value_int or value_ints fails (only the tensor attribute 'value' of "
           "Constant-1 is read)",
           {"Constant": refusing("Constant", lambda node, args, c: bool(
               {"value_int", "value_ints"} & set(dict(node.attributes))),
               "attribute value_int(s) not supported")},
           modelled_on="a reader written against Constant-1 (value_int added in opset 12)",
           sources=("onnx/onnx#3985",)),
    Mutant("constant_scalar_tensor_as_1d",
           "Constant's 0-d 'value' tensor comes out with shape [1] (empty dims read as one "
           "element), so a position from it is not a scalar",
           {"Constant": _constant_scalar_as_1d},
           modelled_on="a TensorProto reader taking dims [] for [1]"),
    Mutant("sequence_chain_skips_erase",
           "A sequence operator fed by SequenceErase sees the sequence before the erase (a "
           "chain walker that resolves SequenceInsert only)",
           {op: _skips_erase(op) for op in _SEQUENCE_CONSUMERS},
           sources=("openvinotoolkit/openvino#36445",)),
    Mutant("empty_name_input_refused",
           'An input omitted with "" is counted as given and read as a value: the node fails',
           {op: refusing(op, _has_empty_name, 'input "" is not produced by any node')
            for op in ("Loop", "SequenceInsert", "SequenceErase", "OptionalHasElement",
                       "SplitToSequence")},
           sources=("microsoft/onnxruntime#22035", "microsoft/onnxruntime#7075",
                    "tracel-ai/burn-onnx#106")),
    Mutant("trailing_optional_inputs_required",
           "SequenceInsert, SequenceErase and SplitToSequence fail when trailing optional "
           "inputs are left off (the input count checked against the schema's full arity)",
           {op: refusing(op, _fewer_than_schema, "wrong number of inputs") for op in _FULL_ARITY},
           modelled_on="an arity check that ignores optional inputs"),
    Mutant("sequence_empty_dtype_ignored",
           "SequenceEmpty ignores 'dtype' and makes a float sequence: inserting a tensor of "
           "the given type fails",
           {"SequenceEmpty": _empty_float, "SequenceInsert": _insert_checks_type},
           sources=("microsoft/onnxscript#2949",)),
    Mutant("sequence_empty_dtype_required",
           "SequenceEmpty without 'dtype' fails (the attribute read as required, no float "
           "default)",
           {"SequenceEmpty": refusing("SequenceEmpty", lambda node, args, c: "dtype" not in
                                      dict(node.attributes), "attribute dtype is required")},
           modelled_on="an attribute reader with no default"),
    Mutant("infinities_as_nan",
           "inf and -inf come back as NaN (a strict-JSON API writes them as null)",
           outputs=each_tensor(_infinity_as_nan),
           modelled_on="strict JSON has no Infinity: written as null, read back as NaN",
           sources=("root-project/root#1927",)),
)

MUTANTS: tuple[Mutant, ...] = _MEMORY + _POSITIONS + _OTHER

#: The features each mutant targets (kit.targeted): the data that tells it from the spec.
TARGETS = {
    "split_to_sequence_consecutive_blocks": ("axis interior", "axis last", "rank 2 input"),
    "split_to_sequence_matrix_kernel": ("rank 1 input", "rank 3 input", "rank 4 input"),
    "split_to_sequence_slices_last_axis": ("axis first",),
    "split_to_sequence_divisible_split_extra_empty_chunk": ("scalar split divides",),
    "split_to_sequence_ones_split_as_default": ("1-D split all ones",),
    "concat_from_sequence_consecutive_blocks": ("axis last", "new axis at rank",
                                                "rank 2 elements"),
    "concat_from_sequence_matrix_kernel": ("rank 1 elements", "rank 3 elements",
                                           "rank 4 elements"),
    "concat_from_sequence_0d_elements_refused": ("rank 0 elements",),
    "concat_from_sequence_last_zero_length_refused": ("size 0 along the axis",),
    "concat_from_sequence_new_axis_at_rank_refused": ("new axis at rank",),
    "concat_from_sequence_mixed_shapes_refused": ("elements differ along the axis",),
    "sequence_erase_swap_remove": ("sequence length 3+", "position 0"),
    "position_one_based": ("position 0", "position 1"),
    "position_zero_as_omitted": ("position 0",),
    "position_not_constant_falls_back": ("position computed by a node",),
    "constant_value_int_refused": ("position from Constant value_int(s)",),
    "constant_scalar_tensor_as_1d": ("position from Constant value tensor",),
    "sequence_chain_skips_erase": ("fed by a sequence operator",),
    "empty_name_input_refused": ('input omitted with ""',),
    "trailing_optional_inputs_required": ("trailing optional input left off",),
    "sequence_empty_dtype_ignored": ("dtype given",),
    "sequence_empty_dtype_required": ("dtype default",),
    "infinities_as_nan": ("inf", "-inf"),
}
MUTANTS = targeted(MUTANTS, TARGETS)
