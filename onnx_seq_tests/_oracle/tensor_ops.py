"""The tensor operators exporters put around sequences (Split, Squeeze, Unsqueeze, Concat,
Gather, Shape, Size, Slice, Reshape, Range, ConstantOfShape), as the oracle runs them, at every
version onnx.defs has; the arithmetic, logic and Cast are in elementwise.py, the maths,
matrix products and reductions in math_ops.py and reductions.py.

Each function follows its schema's doc (quoted beside it) at the version in force, which
`typed` reads from onnx.defs with the schema's type rules: an operator not defined at the opset,
an input or output of a type the schema does not admit, is an OracleError. Where the spec gives
no result (an axis out of range, a split that does not add up, an index out of bounds), the
oracle raises OracleError too. Values are numpy arrays of the exact element type.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._core import operators
from .._core.cases import Node
from .._core.elements import BY_DTYPE
from .._core.errors import OracleError
from .._core.work import MISSING, check_elements
from .constants import constant_of_shape

#: An operator as this module writes it: `run(node, args, attributes, version) -> outputs`,
#: `version` the since_version of the schema in force.
Versioned = Callable[[Node, list[Any], dict[str, Any], int], list[Any]]
#: An entry of the oracle's table: `run(node, args, attributes, context) -> outputs`.
Entry = Callable[[Node, list[Any], dict[str, Any], Any], list[Any]]


def axis_index(axis: int, rank: int, what: str) -> int:
    """`axis` in [-rank, rank - 1] made non-negative; OracleError outside."""
    if not -rank <= axis <= rank - 1:
        raise OracleError(f"{what} {axis} is out of the accepted range [{-rank}, {rank - 1}]")
    return axis + rank if axis < 0 else axis


def type_string(value: Any) -> str | None:
    """A tensor value's type string (`tensor(float)`), "" for an input left off, None for what
    is not a tensor (sequences and optionals are not judged here)."""
    if value is MISSING:
        return ""
    if not isinstance(value, (np.ndarray, np.generic)):
        return None
    if value.dtype.kind in "OUS":
        return "tensor(string)"
    element = BY_DTYPE.get(value.dtype)
    return None if element is None else f"tensor({element.name})"


def typed(run: Versioned) -> Entry:
    """`run` as an entry of the oracle's table, inside its schema's rules: defined at the
    context's opset, inputs (before) and outputs (after) of types the schema admits."""
    def checked(node: Node, args: list[Any], attributes: dict[str, Any],
                context: Any) -> list[Any]:
        schema = operators.schema(node.op_type, context.opset)
        if schema is None:
            raise OracleError(f"{node.op_type} is not defined at opset {context.opset}")
        admitted(node, schema, [type_string(a) for a in args], "input")
        outputs = run(node, args, attributes, schema.since_version)
        admitted(node, schema, [type_string(o) for o in outputs], "output")
        return outputs
    return checked


def admitted(node: Node, schema: Any, types: list[str | None], side: str) -> None:
    refused = operators.type_refusal(schema, types if side == "input" else [],
                                     types if side == "output" else [])
    if refused is not None:
        position = refused[1]
        given = types[position] or "left off"
        raise OracleError(f"{node.op_type}-{schema.since_version} {side} {position} is "
                          f"{given}, which its schema does not admit")


def ints(value: Any, what: str, scalar: bool = False) -> list[int]:
    """The integers of a 1-D int32/int64 tensor input (the schemas' '1-D tensor' of axes,
    starts, ends, steps, split lengths, shape); a 0-d one too with `scalar`."""
    array = np.asarray(value)
    if array.dtype not in (np.int32, np.int64):
        raise OracleError(f"{what} is {array.dtype}; it must be int32 or int64")
    if array.ndim != 1 and not (scalar and array.ndim == 0):
        raise OracleError(f"{what} has shape {list(array.shape)}; it must be 1-D")
    return [int(v) for v in array.reshape(-1)]


def _given(args: list[Any], index: int) -> bool:
    return len(args) > index and args[index] is not MISSING


def distinct(axes: Sequence[int], what: str) -> None:
    if len(set(axes)) != len(axes):
        raise OracleError(f"{what} {list(axes)} repeats an axis; the spec defines no result")


# -- Split --------------------------------------------------------------------------------------

def split(node: Node, args: list[Any], attributes: dict[str, Any], version: int) -> list[Any]:
    """Split: 'Split a tensor into a list of tensors, along the specified axis.' The lengths
    come from the `split` attribute (versions 1 to 11; also the second input at 1) or input
    (13 on), else 'the tensor is split to equal sized parts' (one per output); from 18 'Either
    input split or the attribute num_outputs should be specified, but not both. If the tensor
    is not evenly splittable into num_outputs, the last chunk will be smaller.' split 'Values
    should be >= 0. Sum of the values must be equal to the dim value at axis specified.'"""
    data = np.asarray(args[0])
    if version == 1 and "axis" not in attributes:
        raise OracleError("Split-1 gives its axis attribute no default; set axis")
    axis = axis_index(attributes.get("axis", 0), data.ndim, "Split axis")
    size, count = data.shape[axis], len(node.outputs)
    if version >= 13 or (version == 1 and _given(args, 1)):
        lengths = ints(args[1], "Split's split input") if _given(args, 1) else None
    else:
        lengths = list(attributes["split"]) if "split" in attributes else None
    if version >= 18 and (lengths is None) == ("num_outputs" not in attributes):
        raise OracleError("Split-18: 'Either input split or the attribute num_outputs should "
                          "be specified, but not both'")
    if lengths is None and version >= 18:
        parts = attributes["num_outputs"]
        chunk = -(-size // parts) if parts > 0 else 0
        lengths = [chunk] * (parts - 1) + [size - chunk * (parts - 1)]
        if parts != count or chunk == 0 and size or lengths[-1] < 0:
            raise OracleError(f"Split-18 num_outputs {parts} on a dim of {size} into {count} "
                              f"output(s): chunks of {chunk} do not give num_outputs parts")
    elif lengths is None:
        if size % count:
            raise OracleError(f"Split-{version} into {count} equal parts: the dim {size} at "
                              f"axis {axis} does not divide evenly")
        lengths = [size // count] * count
    if len(lengths) != count or any(n < 0 for n in lengths) or sum(lengths) != size:
        raise OracleError(f"Split lengths {lengths} for {count} output(s) on a dim of {size}: "
                          "they must be >= 0, one per output, adding up to the dim")
    bounds = np.cumsum([0, *lengths])
    return [np.array(np.take(data, np.arange(bounds[i], bounds[i + 1]), axis=axis))
            for i in range(count)]


# -- Squeeze, Unsqueeze -------------------------------------------------------------------------

def axes_of(args: list[Any], attributes: dict[str, Any], version: int, op: str,
            input_from: int = 13) -> list[int] | None:
    """The axes of Squeeze, Unsqueeze, the Reduce operators: the attribute before
    `input_from` (13; 18 for most Reduce operators), the input from then on, a '1D tensor' by
    the schemas; a 0-d one is read as one axis, since onnx's own node cases feed one
    (test_loop13_seq's Unsqueeze) and the oracle agrees with those cases."""
    if version >= input_from:
        return ints(args[1], f"{op}'s axes input", scalar=True) if _given(args, 1) else None
    return list(attributes["axes"]) if "axes" in attributes else None


def squeeze(node: Node, args: list[Any], attributes: dict[str, Any], version: int) -> list[Any]:
    """Squeeze: 'Remove single-dimensional entries from the shape of a tensor... If axes is not
    provided, all the single dimensions will be removed from the shape. If an axis is selected
    with shape entry not equal to one, an error is raised.' Axes are 'non-negative' at 1,
    in [-r, r-1] from 11 (an attribute before 13, an input from 13)."""
    data = np.asarray(args[0])
    axes = axes_of(args, attributes, version, "Squeeze")
    if axes is None:
        return [np.array(data.reshape([d for d in data.shape if d != 1]))]
    if version == 1 and any(a < 0 for a in axes):
        raise OracleError(f"Squeeze-1 axes {axes}: 'List of non-negative integers'")
    chosen = [axis_index(a, data.ndim, "Squeeze axis") for a in axes]
    distinct(chosen, "Squeeze axes")
    if any(data.shape[a] != 1 for a in chosen):
        raise OracleError(f"Squeeze axes {axes} of shape {list(data.shape)}: 'If an axis is "
                          "selected with shape entry not equal to one, an error is raised'")
    return [np.array(data.reshape([d for i, d in enumerate(data.shape) if i not in chosen]))]


def unsqueeze(node: Node, args: list[Any], attributes: dict[str, Any],
              version: int) -> list[Any]:
    """Unsqueeze: 'Insert single-dimensional entries to the shape of an input tensor... The
    rank of the output tensor (output_rank) is the rank of the input tensor (data) plus the
    number of values in axes. Each value in axes should be within the (inclusive) range
    [-output_rank , output_rank - 1]... It is an error if it contains duplicates.' Non-negative
    at 1; an attribute before 13, an input from 13."""
    data = np.asarray(args[0])
    axes = axes_of(args, attributes, version, "Unsqueeze")
    if axes is None:
        raise OracleError("Unsqueeze needs axes ('Takes one required input axes')")
    if version == 1 and any(a < 0 for a in axes):
        raise OracleError(f"Unsqueeze-1 axes {axes}: 'List of non-negative integers'")
    rank = data.ndim + len(axes)
    chosen = sorted(axis_index(a, rank, "Unsqueeze axis") for a in axes)
    distinct(chosen, "Unsqueeze axes")
    shape = list(data.shape)
    for axis in chosen:
        shape.insert(axis, 1)
    return [np.array(data.reshape(shape))]


# -- Concat, Gather, Shape ----------------------------------------------------------------------

def concat(node: Node, args: list[Any], attributes: dict[str, Any], version: int) -> list[Any]:
    """Concat: 'Concatenate a list of tensors into a single tensor. All input tensors must have
    the same shape, except for the dimension size of the axis to concatenate on.' axis:
    'Default value is 1' at 1, required from 4, in [-r, r-1] from 11."""
    tensors = [np.asarray(a) for a in args]
    if "axis" not in attributes and version >= 4:
        raise OracleError(f"Concat-{version} needs its axis attribute")
    if len({t.dtype for t in tensors}) > 1 or len({t.ndim for t in tensors}) > 1:
        raise OracleError("Concat's inputs differ in type or rank: "
                          + ", ".join(f"{t.dtype}{list(t.shape)}" for t in tensors))
    axis = attributes.get("axis", 1)
    if version < 11 and axis < 0:
        raise OracleError(f"Concat-{version} axis {axis}: negative axes come at Concat-11")
    axis = axis_index(axis, tensors[0].ndim, "Concat axis")
    others = {tuple(d for i, d in enumerate(t.shape) if i != axis) for t in tensors}
    if len(others) > 1:
        raise OracleError("Concat's inputs differ outside the axis: "
                          + ", ".join(str(list(t.shape)) for t in tensors))
    return [np.concatenate(tensors, axis=axis)]


def gather(node: Node, args: list[Any], attributes: dict[str, Any], version: int) -> list[Any]:
    """Gather: 'Given data tensor of rank r >= 1, and indices tensor of rank q, gather entries
    of the axis dimension of data... in an output tensor of rank q + (r - 1).' From 11: 'All
    index values are expected to be within bounds [-s, s-1] along axis of size s. It is an
    error if any of the index values are out of bounds' (at 1: 'within bounds', no negatives)."""
    data, indices = np.asarray(args[0]), np.asarray(args[1])
    if data.ndim == 0:
        raise OracleError("Gather's data has rank 0; it must have rank r >= 1")
    axis = axis_index(attributes.get("axis", 0), data.ndim, "Gather axis")
    size = data.shape[axis]
    low = 0 if version < 11 else -size
    if indices.size and not (low <= indices.min() and indices.max() <= size - 1):
        raise OracleError(f"Gather indices {indices.tolist()} out of the bounds [{low}, "
                          f"{size - 1}] of an axis of size {size}")
    check_elements(indices.size * data.size // max(size, 1), "Gather's result")
    return [np.array(np.take(data, np.where(indices < 0, indices + size, indices), axis=axis))]


def shape(node: Node, args: list[Any], attributes: dict[str, Any], version: int) -> list[Any]:
    """Shape: 'outputs an 1D int64 tensor containing the shape of the input tensor.' From 15:
    'Optional attributes start and end can be used to compute a slice of the input tensor's
    shape... axes will be clamped to the range [0, r]... If start > end, the result will be an
    empty shape.'"""
    dims = np.array(np.asarray(args[0]).shape, dtype=np.int64)
    rank = len(dims)
    if version < 15:
        return [dims]
    start, end = (min(max(v + rank if v < 0 else v, 0), rank)
                  for v in (attributes.get("start", 0), attributes.get("end", rank)))
    return [dims[start:end]]


# -- Slice --------------------------------------------------------------------------------------

def slice_(node: Node, args: list[Any], attributes: dict[str, Any], version: int) -> list[Any]:
    """Slice: 'Produces a slice of the input tensor along multiple axes. Similar to numpy.' At
    1 starts, ends, axes are attributes, no steps: 'If a negative value is passed for any of the
    start or end indices, it represent number of elements before the end of that dimension. If
    the value passed to start or end is larger than the n... it represents n.' From 10 they are
    inputs with steps; 'If axes are omitted, they are set to [0, ..., r-1]', steps 'cannot be
    0'; 'Behavior is undefined if an axis is repeated.'"""
    data = np.asarray(args[0])
    if version == 1:
        starts, ends = list(attributes["starts"]), list(attributes["ends"])
        axes = list(attributes.get("axes", range(len(starts))))
        steps = [1] * len(starts)
    else:
        starts, ends = ints(args[1], "Slice starts"), ints(args[2], "Slice ends")
        axes = ints(args[3], "Slice axes") if _given(args, 3) else list(range(len(starts)))
        steps = ints(args[4], "Slice steps") if _given(args, 4) else [1] * len(starts)
    if not len(starts) == len(ends) == len(axes) == len(steps):
        raise OracleError(f"Slice starts {starts}, ends {ends}, axes {axes}, steps {steps} "
                          "differ in length")
    chosen = [axis_index(a, data.ndim, "Slice axis") for a in axes]
    distinct(chosen, "Slice axes")
    for start, end, axis, step in zip(starts, ends, chosen, steps, strict=True):
        data = np.take(data, _slice_indices(start, end, step, data.shape[axis]), axis=axis)
    return [np.array(data)]


def _slice_indices(start: int, end: int, step: int, dim: int) -> np.ndarray:
    """The spec's effective indices: 'All negative values in starts[i] and ends[i] have
    dims[axes[i]] added to them... starts[axes[i]] is clamped to range [0, dims[axes[i]]] for
    positive stepping, or to range [0, dims[axes[i]]-1] for negative stepping... for positive
    stepping ends[axes[i]] is clamped to [0, dims[axes[i]]], while for negative stepping it is
    clamped to [-1, dims[axes[i]]-1].'"""
    if step == 0:
        raise OracleError("Slice steps: 'steps cannot be 0'")
    start, end = (v + dim if v < 0 else v for v in (start, end))
    if step > 0:
        start, end = min(max(start, 0), dim), min(max(end, 0), dim)
    else:
        start, end = min(max(start, 0), dim - 1), min(max(end, -1), dim - 1)
    return np.arange(start, end, step, dtype=np.int64) if dim else np.zeros(0, np.int64)


# -- Reshape, Size -----------------------------------------------------------------------------

def reshape(node: Node, args: list[Any], attributes: dict[str, Any], version: int) -> list[Any]:
    """Reshape: 'At most one dimension of the new shape can be -1. In this case, the value is
    inferred from the size of the tensor and the remaining dimensions. A dimension could also be
    0, in which case the actual dimension value is unchanged (i.e. taken from the input
    tensor)... The input tensor's shape and the output tensor's shape are required to have the
    same number of elements.' The shape is an attribute at 1, an input from 5; from 14 'If
    allowzero is set, and the new shape includes 0, the dimension will be set explicitly to
    zero', and 'it is invalid for the specified shape to contain both a zero value and -1'."""
    data = np.asarray(args[0])
    wanted = list(attributes["shape"]) if version == 1 else ints(args[1], "Reshape's shape")
    allowzero = version >= 14 and bool(attributes.get("allowzero", 0))
    if wanted.count(-1) > 1 or any(d < -1 for d in wanted) or (
            allowzero and 0 in wanted and -1 in wanted):
        raise OracleError(f"Reshape to {wanted}: at most one -1, no other negative dim (and "
                          "not 0 with -1 under allowzero)")
    dims = [data.shape[i] if d == 0 and not allowzero and i < data.ndim else d
            for i, d in enumerate(wanted)]
    if any(d == 0 and not allowzero and i >= data.ndim for i, d in enumerate(wanted)):
        raise OracleError(f"Reshape to {wanted}: a 0 beyond the input's rank {data.ndim} "
                          "copies no dimension")
    known = math.prod(d for d in dims if d != -1)
    if -1 in dims:
        if known == 0 or data.size % known:
            raise OracleError(f"Reshape of {list(data.shape)} to {wanted}: the -1 dim "
                              "cannot be inferred")
        dims[dims.index(-1)] = data.size // known
    if math.prod(dims) != data.size:
        raise OracleError(f"Reshape of {list(data.shape)} to {wanted}: 'required to have the "
                          "same number of elements'")
    return [np.array(data.reshape(dims))]


def size(node: Node, args: list[Any], attributes: dict[str, Any], version: int) -> list[Any]:
    """Size: 'Takes a tensor as input and outputs a int64 scalar that equals to the total
    number of elements of the input tensor.'"""
    return [np.array(np.asarray(args[0]).size, dtype=np.int64)]


# -- Range, ConstantOfShape ---------------------------------------------------------------------

def range_(node: Node, args: list[Any], attributes: dict[str, Any], version: int) -> list[Any]:
    """Range: 'number_of_elements = max( ceil( (limit - start) / delta ) , 0 )' and
    'output[i] = start + (i * delta)', in T; from 27, 'For float16 and bfloat16 inputs... Setting
    stash_type to 1 (float) causes start, limit, and delta to be cast to 32-bit float before the
    loop, with the output cast back to the original type.'"""
    start, limit, delta = (np.asarray(a) for a in args)
    if any(v.ndim for v in (start, limit, delta)) or len({start.dtype, limit.dtype,
                                                          delta.dtype}) > 1:
        raise OracleError("Range's start, limit and delta must be scalars of one type")
    dtype = start.dtype
    if dtype.kind in "iu":
        first, last, step = int(start), int(limit), int(delta)
        if step == 0:
            raise OracleError("Range with delta 0: (limit - start) / delta has no value")
        count = max(-((first - last) // step), 0)
        check_elements(count, "Range's result")
        return [np.array([first + i * step for i in range(count)], dtype=dtype)]
    work = dtype
    if dtype.itemsize == 2 and version >= 27:
        stash = attributes.get("stash_type", 1)
        work = np.dtype(np.float32) if stash == 1 else dtype
    low, high, by = (v.astype(work) for v in (start, limit, delta))
    with np.errstate(all="ignore"):
        steps = np.ceil((high - low) / by)
    if by == 0 or not np.isfinite(steps):
        raise OracleError(f"Range ({start}, {limit}, {delta}): the count "
                          "ceil((limit - start) / delta) is not a number")
    count = max(int(steps), 0)
    check_elements(count, "Range's result")
    with np.errstate(all="ignore"):
        values = low + np.arange(count).astype(work) * by
    return [np.array(values.astype(dtype))]


def _constant_of_shape(node: Node, args: list[Any], attributes: dict[str, Any],
                       version: int) -> list[Any]:
    return [constant_of_shape(args, attributes)]


#: These operators, as entries of the oracle's table.
SHAPE_OPERATORS: dict[str, Entry] = {
    "Split": typed(split),
    "Squeeze": typed(squeeze),
    "Unsqueeze": typed(unsqueeze),
    "Concat": typed(concat),
    "Gather": typed(gather),
    "Shape": typed(shape),
    "Slice": typed(slice_),
    "Range": typed(range_),
    "Reshape": typed(reshape),
    "Size": typed(size),
    "ConstantOfShape": typed(_constant_of_shape),
}

