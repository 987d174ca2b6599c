"""Mutation testing of a suite: mutant backends, each the spec oracle with one plausible runtime
bug, and the score of a suite = the share of mutants that some case of it catches.

A mutant replaces one operator of the oracle's interpreter (`oracle._OPERATORS`) or transforms
the values crossing the graph boundary (how a runtime feeds and returns them). Mutants run
in-process on a suite read once, so scoring 60 mutants over the whole suite takes seconds.
A case kills a mutant when the unmutated oracle passes it and the mutant does not (a wrong
value, a wrong kind, dtype or shape, or an error where the spec gives a result).
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx

from .._core import oracle
from .._core.cases import Graph, subgraphs
from .._core.compare import compare_outputs
from .._core.elements import PACKED_PER_BYTE
from .._core.value_types import OptionalType, SequenceType, ValueType, from_type_proto
from .._suite.coverage import onnx_node_tests
from .._suite.layout import case_folders, read_case_folder
from .._suite.tensor_io import TENSOR_IO_SUITE

_BASE = dict(oracle._OPERATORS)  # the spec's own operators, before any mutant touches them


class MutantError(RuntimeError):
    """What a mutant raises where the runtime it models fails."""


@dataclass(frozen=True)
class Mutant:
    """One plausible runtime bug: `operators` replace oracle operators (same signature:
    `run(node, args, attributes, context) -> outputs`); `inputs`/`outputs` map each graph
    input/output value (with its declared type, None if unknown) on the way in/out."""

    name: str
    behaviour: str
    operators: dict = field(default_factory=dict)
    inputs: Callable | None = None
    outputs: Callable | None = None
    modelled_on: str = ""


@dataclass
class Subject:
    """One case, ready to run: its graph read back from the model, and its data sets."""

    name: str
    graph: Graph
    opset: int
    data_sets: list
    input_types: list
    output_types: list
    atol: float | None
    rtol: float | None
    graph_inputs: frozenset = frozenset()
    constants: frozenset = frozenset()
    operators: frozenset = frozenset()


# -- the run ------------------------------------------------------------------------------------

class _Run:
    """What operator mutants may look at: where the current graph's values come from."""

    graph_inputs: frozenset = frozenset()
    constants: frozenset = frozenset()


_RUN = _Run()


def _from_input(node, index: int) -> bool:
    return len(node.inputs) > index and node.inputs[index] in _RUN.graph_inputs


def _from_constant(node, index: int) -> bool:
    return len(node.inputs) > index and node.inputs[index] in _RUN.constants


@contextlib.contextmanager
def _installed(mutant: Mutant | None):
    saved = dict(oracle._OPERATORS)
    if mutant is not None:
        oracle._OPERATORS.update(mutant.operators)
    try:
        yield
    finally:
        oracle._OPERATORS.clear()
        oracle._OPERATORS.update(saved)


def _map(function, value, value_type):
    """Apply `function(tensor)` to every tensor inside a value (a sequence's elements, an
    optional's content)."""
    if value is None or value is oracle.MISSING:
        return value
    if isinstance(value, list):
        element = value_type.element if isinstance(value_type, SequenceType) else None
        return [function(np.asarray(v), element) for v in value]
    if isinstance(value_type, OptionalType):
        return _map(function, value, value_type.element)
    return function(np.asarray(value), value_type)


def passes(subject: Subject, mutant: Mutant | None, data_set: int | None = None) -> bool:
    """Whether `mutant` (None: the plain oracle) gives every expected output of `subject`."""
    _RUN.graph_inputs, _RUN.constants = subject.graph_inputs, subject.constants
    chosen = subject.data_sets if data_set is None else [subject.data_sets[data_set]]
    with _installed(mutant):
        for inputs, expected in chosen:
            inputs = list(inputs)
            try:
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    if mutant is not None and mutant.inputs is not None:
                        inputs = [mutant.inputs(v, t) for v, t in zip(
                            inputs, subject.input_types, strict=True)]
                    actual = oracle.run_graph(subject.graph, subject.opset, inputs)
                    if mutant is not None and mutant.outputs is not None:
                        actual = [mutant.outputs(v, t) for v, t in zip(
                            actual, subject.output_types, strict=True)]
            except Exception:  # noqa: BLE001 - a runtime failing is what a mutant may do
                return False
            if compare_outputs(list(expected), actual, atol=subject.atol, rtol=subject.rtol,
                               types=subject.output_types):
                return False
    return True


@dataclass
class Score:
    """Which case killed each mutant, and the mutants no case killed."""

    label: str
    cases: int
    killed: dict  # mutant name -> the first case that killed it
    survivors: list
    left_out: list = field(default_factory=list)  # cases the plain oracle does not pass

    @property
    def total(self) -> int:
        return len(self.killed) + len(self.survivors)

    @property
    def percent(self) -> float:
        return 100.0 * len(self.killed) / self.total if self.total else 0.0


def score(subjects: list[Subject], mutants, label: str = "suite") -> Score:
    """Run every mutant over the subjects the plain oracle passes, stopping at its first kill."""
    usable = [s for s in subjects if passes(s, None)]
    killed, survivors = {}, []
    for mutant in mutants:
        touched = set(mutant.operators)
        killer = next((s.name for s in usable if (not touched or touched & s.operators)
                       and not passes(s, mutant)), None)
        if killer is None:
            survivors.append(mutant.name)
        else:
            killed[mutant.name] = killer
    left_out = [f"{s.name} ({_why(s)})" for s in subjects if s not in usable]
    return Score(label, len(usable), killed, survivors, left_out)


def _why(subject: Subject) -> str:
    """Why the plain oracle does not pass a subject: the spec's refusal or the difference."""
    for k, (inputs, expected) in enumerate(subject.data_sets):
        try:
            actual = oracle.run_graph(subject.graph, subject.opset, list(inputs))
        except Exception as error:  # noqa: BLE001 - reported, not raised
            return f"data set {k}: {error}"
        found = compare_outputs(list(expected), actual, atol=subject.atol, rtol=subject.rtol,
                                types=subject.output_types)
        if found:
            return f"data set {k}: {found[0]}"
    return "passes"


# -- subjects -----------------------------------------------------------------------------------

def _subject(name, model: onnx.ModelProto, data_sets, atol, rtol) -> Subject:
    graph = oracle.graph_from_proto(model.graph)
    constants = {i.name for i in graph.initializers}
    operators = set()
    for g in [graph, *(sub for _, _, sub in subgraphs(graph))]:
        constants.update(o for n in g.nodes if n.op_type == "Constant" for o in n.outputs)
        operators.update(n.op_type for n in g.nodes)
    types = []
    for side in (model.graph.input, model.graph.output):
        found = []
        for info in side:
            try:
                found.append(from_type_proto(info.type))
            except (TypeError, KeyError):
                found.append(None)
        types.append(found)
    return Subject(name, graph, oracle.model_opset(model), [(list(i), list(o)) for i, o in
                                                             data_sets],
                   types[0], types[1], atol, rtol, frozenset(d.name for d in graph.inputs),
                   frozenset(constants), frozenset(operators))


def suite_subjects(root: Path) -> list[Subject]:
    """Every case folder under `root`, read once as a consumer reads it; the tensor-boundary
    form's folders (copies of the same cases) are left out, as coverage leaves them out."""
    subjects = []
    for path in case_folders(Path(root)):
        if path.parent.name == TENSOR_IO_SUITE:
            continue
        folder = read_case_folder(path)
        subjects.append(_subject(folder.name, folder.model, folder.data_sets,
                                 folder.atol, folder.rtol))
    return subjects


def onnx_subjects() -> list[Subject]:
    """onnx's own node cases that use a sequence or optional operator or value."""
    wanted = {"SequenceConstruct", "SequenceEmpty", "SequenceAt", "SequenceInsert",
              "SequenceErase", "SequenceLength", "SplitToSequence", "ConcatFromSequence",
              "SequenceMap", "Optional", "OptionalHasElement", "OptionalGetElement"}
    subjects = []
    tests = onnx_node_tests()
    for test in tests:
        graph = oracle.graph_from_proto(test.model.graph)
        ops = {n.op_type for n in graph.nodes} | {n.op_type for _, _, g in subgraphs(graph)
                                                  for n in g.nodes}
        values = [*test.model.graph.input, *test.model.graph.output]
        carries = any(v.type.WhichOneof("value") in ("sequence_type", "optional_type")
                      for v in values)
        if not (ops & wanted or carries):
            continue
        rtol = getattr(test, "rtol", None)
        atol = getattr(test, "atol", None)
        subjects.append(_subject(test.name, test.model, test.data_sets, atol, rtol))
    return subjects


# -- helpers for mutants ------------------------------------------------------------------------

def _position_value(position) -> int:
    return int(np.asarray(position).reshape(-1)[0])


def _checked(index: int, count: int) -> int:
    if not 0 <= index < count:
        raise MutantError(f"index {index} out of range")
    return index


def _at(rule):
    """SequenceAt with `rule(node, position, n) -> index`."""
    def run(node, args, attributes, context):
        sequence, position = args
        oracle._position(position, len(sequence), "SequenceAt", allow_end=False)
        index = _checked(rule(node, _position_value(position), len(sequence)), len(sequence))
        return [np.array(sequence[index])]
    return run


def _insert(rule):
    """SequenceInsert with `rule(node, position or None, n) -> index`."""
    def run(node, args, attributes, context):
        sequence, tensor, *rest = oracle._present(args)
        position = None if not rest else rest[0]
        if position is not None:
            oracle._position(position, len(sequence), "SequenceInsert", allow_end=True)
            position = _position_value(position)
        index = rule(node, position, len(sequence))
        if not 0 <= index <= len(sequence):
            raise MutantError(f"index {index} out of range")
        return [list(sequence[:index]) + [np.array(tensor)] + list(sequence[index:])]
    return run


def _erase(rule):
    """SequenceErase with `rule(node, position or None, n) -> index`."""
    def run(node, args, attributes, context):
        sequence, *rest = oracle._present(args)
        position = None if not rest else rest[0]
        if position is not None:
            oracle._position(position, len(sequence), "SequenceErase", allow_end=False)
            position = _position_value(position)
        elif not sequence:
            raise MutantError("empty")
        index = _checked(rule(node, position, len(sequence)), len(sequence))
        return [[np.array(t) for i, t in enumerate(sequence) if i != index]]
    return run


def _spec_index(position, n, default):
    if position is None:
        return default
    return position + n if position < 0 else position


def _split(*, keepdims_rule=None, axis_rule=None):
    """SplitToSequence with one step changed."""
    def run(node, args, attributes, context):
        tensor, *rest = oracle._present(args)
        split = rest[0] if rest else oracle.MISSING
        axis = attributes.get("axis", 0)
        keepdims = attributes.get("keepdims", 1)
        if axis_rule is not None:
            axis = axis_rule(axis, np.asarray(tensor).ndim)
        parts = oracle.split_to_sequence(tensor, split, axis=axis, keepdims=keepdims)
        if keepdims_rule is not None:
            parts = keepdims_rule(tensor, split, axis, keepdims, parts)
        return [parts]
    return run


def _concat(rule):
    def run(node, args, attributes, context):
        sequence = args[0]
        return [rule(sequence, attributes["axis"], attributes.get("new_axis", 0))]
    return run


def _base(op_type):
    return _BASE[op_type]


def _tensor_outputs(function):
    """A boundary transform applying `function(tensor, tensor_type)` to every tensor."""
    def transform(value, value_type: ValueType | None):
        return _map(lambda t, vt: function(t), value, value_type)
    return transform


def _when_dtype(dtype, function):
    def apply(tensor):
        return function(tensor) if tensor.dtype == np.dtype(dtype) else tensor
    return _tensor_outputs(apply)


def _negative_zero_lost(tensor):
    if tensor.dtype.kind == "f" or tensor.dtype.name in ("bfloat16", "float16"):
        zero = np.zeros((), dtype=tensor.dtype)
        return np.where(tensor == zero, zero, tensor).astype(tensor.dtype)
    return tensor


def _nan_to_zero(tensor):
    if tensor.dtype.kind == "f" and tensor.dtype.itemsize >= 2:
        return np.where(np.isnan(tensor), np.zeros((), tensor.dtype), tensor).astype(tensor.dtype)
    return tensor


def _packed_padding(tensor):
    """A reader that sizes a packed buffer as size // per_byte and reads the last value back
    as the padding (zero)."""
    name = tensor.dtype.name
    if name in PACKED_PER_BYTE and tensor.size % 2:
        flat = tensor.reshape(-1).copy()
        flat[-1] = np.zeros((), dtype=tensor.dtype)
        return flat.reshape(tensor.shape)
    return tensor


def _strings(function):
    def apply(tensor):
        if tensor.dtype.kind != "O":
            return tensor
        out = np.empty(tensor.shape, dtype=object)
        for index in np.ndindex(tensor.shape):
            out[index] = function(tensor[index])
        return out
    return _tensor_outputs(apply)


def _latin1(text):
    return text.encode("utf-8").decode("latin-1") if isinstance(text, str) else text


def _zero_d_in_sequences(value, value_type):
    if isinstance(value, list):
        return [np.reshape(t, (1,)) if np.asarray(t).ndim == 0 else t for t in value]
    return value


def _empty_sequence_as_none(value, value_type):
    return None if isinstance(value, list) and not value else value


def _empty_optional_sequence_as_empty_sequence(value, value_type):
    if value is None and isinstance(value_type, OptionalType) and isinstance(
            value_type.element, SequenceType):
        return []
    return value


def _zero_element_loses_dtype(value, value_type):
    def apply(tensor, _):
        return np.zeros(tensor.shape, np.float32) if tensor.size == 0 else tensor
    return _map(apply, value, value_type)


def _int64_cut(tensor):
    return tensor.astype(np.int32).astype(np.int64)


# -- operator mutants ----------------------------------------------------------------------------

def _optional_empty_is_present(node, args, attributes, context):
    if oracle._present(args):
        return _base("Optional")(node, args, attributes, context)
    value_type = attributes.get("type")
    if isinstance(value_type, SequenceType):
        return [[]]
    element = value_type.element.dtype if value_type is not None else np.float32
    return [np.zeros((0,), dtype=element)]


def _has_element_numel(node, args, attributes, context):
    value = oracle._present(args)[0] if oracle._present(args) else None
    if value is None:
        return [np.array(False)]
    size = len(value) if isinstance(value, list) else np.asarray(value).size
    return [np.array(size > 0)]


def _get_element_zero_refused(node, args, attributes, context):
    value = args[0]
    if value is not None and not isinstance(value, list) and np.asarray(value).size == 0:
        raise MutantError("OptionalGetElement: empty")
    return _base("OptionalGetElement")(node, args, attributes, context)


def _identity_refuses_none(node, args, attributes, context):
    if args[0] is None:
        raise MutantError("unexpected type NoneType")
    return _base("Identity")(node, args, attributes, context)


def _identity_empty_sequence_none(node, args, attributes, context):
    if isinstance(args[0], list) and not args[0]:
        return [None]
    return _base("Identity")(node, args, attributes, context)


def _if_always_then(node, args, attributes, context):
    return context.subgraph(attributes["then_branch"])([])


def _if_sequences_empty(node, args, attributes, context):
    outputs = _base("If")(node, args, attributes, context)
    return [[] if isinstance(v, list) else v for v in outputs]


def _if_refuses_none(node, args, attributes, context):
    outputs = _base("If")(node, args, attributes, context)
    if any(v is None for v in outputs):
        raise MutantError("If: an empty optional output")
    return outputs


def _loop(*, trip_shift=0, check_cond_first=True, body_cond=True, carried_sequences=True,
          refuse_none=False):
    def run(node, args, attributes, context):
        body = context.subgraph(attributes["body"])
        trip_count, cond, *carried = args + [oracle.MISSING] * (2 - len(args))
        if refuse_none and any(v is None for v in carried):
            raise MutantError("Issues with types")
        initial = list(carried)
        keep_going = True if cond is oracle.MISSING or not check_cond_first else bool(
            np.asarray(cond).reshape(-1)[0])
        limit = None if trip_count is oracle.MISSING else int(
            np.asarray(trip_count).reshape(-1)[0]) + trip_shift
        scans, i = [], 0
        while (limit is None or i < limit) and keep_going:
            if i >= 1000:  # the suite's loops are short; a runaway loop is a failure
                raise MutantError("never ends")
            outputs = body([np.array(i, dtype=np.int64), np.array(keep_going), *carried])
            if cond is not oracle.MISSING and body_cond:
                keep_going = bool(np.asarray(outputs[0]).reshape(-1)[0])
            carried = list(outputs[1:1 + len(carried)])
            if not carried_sequences:
                carried = [init if isinstance(init, list) else new
                           for init, new in zip(initial, carried, strict=True)]
            scans.append(outputs[1 + len(carried):])
            i += 1
        scan_count = len(node.outputs) - len(carried)
        if scan_count and not scans:
            raise MutantError("no iteration")
        return carried + [np.stack([np.asarray(t[k]) for t in scans]) for k in
                          range(scan_count)]
    return run


def _map_not_zipped(node, args, attributes, context):
    present = oracle._present(args)
    if len(present) >= 3:
        raise MutantError("Issues with types: SequenceMap passes whole sequences")
    return _base("SequenceMap")(node, args, attributes, context)


def _map_empty_raises(node, args, attributes, context):
    if not args[0]:
        raise MutantError("SequenceMap: empty input")
    return _base("SequenceMap")(node, args, attributes, context)


def _map_tensor_indexed(node, args, attributes, context):
    first, *extra = oracle._present(args)
    extra = [list(e) if not isinstance(e, list) else e for e in extra]  # a tensor as rows
    return _base("SequenceMap")(node, [first, *extra], attributes, context)


def _concat_new_axis_negative(sequence, axis, new_axis):
    if new_axis == 1 and axis < 0:
        rank = np.asarray(sequence[0]).ndim
        axis = axis + rank  # against the input rank, not rank + 1
        if axis < 0:
            raise MutantError("axis out of range")
    return oracle.concat_from_sequence(sequence, axis, new_axis)


def _concat_negative_off_by_one(sequence, axis, new_axis):
    if new_axis == 0 and axis < 0 and sequence:
        axis = axis + np.asarray(sequence[0]).ndim - 1
        if axis < 0:
            raise MutantError("axis out of range")
    return oracle.concat_from_sequence(sequence, axis, new_axis)


def _concat_single_passthrough(sequence, axis, new_axis):
    if len(sequence) == 1:
        return np.array(sequence[0])
    return oracle.concat_from_sequence(sequence, axis, new_axis)


def _concat_drops_empty(sequence, axis, new_axis):
    kept = [t for t in sequence if np.asarray(t).size] or sequence[:1]
    return oracle.concat_from_sequence(kept, axis, new_axis)


def _split_keepdims_ignored(tensor, split, axis, keepdims, parts):
    if split is oracle.MISSING and keepdims == 0:
        return [np.expand_dims(p, axis) for p in parts]
    return parts


def _split_keepdims_with_scalar(tensor, split, axis, keepdims, parts):
    if keepdims == 0 and split is not oracle.MISSING and np.asarray(split).ndim == 0 \
            and int(split) == 1:
        return [np.squeeze(p, axis=axis) for p in parts]
    return parts


def _split_remainder(node, args, attributes, context):
    parts = _BASE["SplitToSequence"](node, args, attributes, context)[0]
    present = oracle._present(args)
    if len(present) > 1 and np.asarray(present[1]).ndim == 0 and len(parts) > 1:
        axis = attributes.get("axis", 0)
        if parts[-1].shape[axis] != parts[0].shape[axis]:
            parts = parts[:-1]
    return [parts]


def _split_input_ignored(source):
    def run(node, args, attributes, context):
        present = oracle._present(args)
        if len(present) > 1 and source(node, 1):
            attributes = {**attributes, "keepdims": 1}
            return _BASE["SplitToSequence"](node, [present[0]], attributes, context)
        return _BASE["SplitToSequence"](node, args, attributes, context)
    return run


def _split_zero_axis_one_piece(node, args, attributes, context):
    tensor = np.asarray(args[0])
    axis = attributes.get("axis", 0)
    if tensor.ndim and tensor.shape[axis] == 0:
        return [[np.array(tensor)]]
    return _BASE["SplitToSequence"](node, args, attributes, context)


def _split_zero_element_parts_dropped(node, args, attributes, context):
    parts = _BASE["SplitToSequence"](node, args, attributes, context)[0]
    return [[p for p in parts if p.size]]


def _split_strings_keep_axis(node, args, attributes, context):
    parts = _BASE["SplitToSequence"](node, args, attributes, context)[0]
    if np.asarray(args[0]).dtype.kind == "O":
        return [[p.reshape((1,)) if p.ndim == 0 else p for p in parts]]
    return [parts]


def _construct_drops_empty(node, args, attributes, context):
    return [oracle.sequence_construct(*[a for a in args if np.asarray(a).size])]


def _length_int32(node, args, attributes, context):
    return [np.array(len(args[0]), dtype=np.int32)]


def _at_int32_refused(node, args, attributes, context):
    if np.asarray(args[1]).dtype == np.int32:
        raise MutantError("SequenceAt: int32 position not registered")
    return _base("SequenceAt")(node, args, attributes, context)


def _optional_wraps_in_list(node, args, attributes, context):
    present = oracle._present(args)
    if not present:
        return [None]
    return [[np.asarray(present[0])] if not isinstance(present[0], list) else [present[0]]]


def _has_element_missing_true(node, args, attributes, context):
    if not oracle._present(args):
        return [np.array(True)]
    return _base("OptionalHasElement")(node, args, attributes, context)


def _loop_scan_vstack(node, args, attributes, context):
    outputs = _base("Loop")(node, args, attributes, context)
    carried = len(args) - 2  # the outputs after the loop-carried ones are scan outputs
    return [np.vstack(list(v)) if i >= carried and np.asarray(v).ndim == 1 else v
            for i, v in enumerate(outputs)]


def _loop_omitted_condition_runs_nothing(node, args, attributes, context):
    if len(args) > 1 and args[1] is oracle.MISSING:
        carried = list(args[2:])
        if len(node.outputs) > len(carried):
            raise MutantError("no iteration")
        return carried
    return _base("Loop")(node, args, attributes, context)


def _refuse_dtypes(names, message):
    def check(value, value_type):
        def look(tensor, _):
            if tensor.dtype.name in names:
                raise MutantError(f"{message}: {tensor.dtype.name}")
            return tensor
        return _map(look, value, value_type)
    return check


_SMALL_SPLIT_TYPES = {"int8", "int16", "uint8", "uint16", "uint32", "uint64", "bfloat16"}


def _split_small_types_refused(node, args, attributes, context):
    if np.asarray(args[0]).dtype.name in _SMALL_SPLIT_TYPES:
        raise MutantError("Could not find an implementation for SplitToSequence")
    return _base("SplitToSequence")(node, args, attributes, context)


def _no_kernel_at(op_type, opset):
    def run(node, args, attributes, context):
        if context.opset >= opset:
            raise MutantError(f"Could not find an implementation for {op_type}({opset})")
        return _base(op_type)(node, args, attributes, context)
    return run


def _identity_packed_refused(node, args, attributes, context):
    value = args[0]
    tensors = value if isinstance(value, list) else [value]
    if any(t is not None and np.asarray(t).dtype.name in PACKED_PER_BYTE for t in tensors):
        raise MutantError("Could not find an implementation for Identity")
    return _base("Identity")(node, args, attributes, context)




def mutants() -> list[Mutant]:
    """Every mutant, each one plausible runtime bug in one behaviour."""
    at = []
    at.append(Mutant("sequence_at_negative_off_by_one",
                     "SequenceAt counts a negative position from n - 1 (index n + p - 1)",
                     {"SequenceAt": _at(lambda node, p, n: n + p - 1 if p < 0 else p)}))
    at.append(Mutant("sequence_at_negative_position_input",
                     "SequenceAt clamps a negative position to 0 when it is a graph input",
                     {"SequenceAt": _at(lambda node, p, n: 0 if p < 0 and _from_input(node, 1)
                                        else (p + n if p < 0 else p))},
                     modelled_on="OpenVINO: negative positions right as constants, wrong as "
                                 "inputs"))
    at.append(Mutant("sequence_at_negative_position_constant",
                     "SequenceAt clamps a negative position to 0 when it is a constant "
                     "(initializer or Constant node), folded at load time",
                     {"SequenceAt": _at(lambda node, p, n: 0 if p < 0 and
                                        _from_constant(node, 1) else (p + n if p < 0 else p))}))
    at.append(Mutant("sequence_at_last_refused",
                     "SequenceAt refuses position n - 1 (range check p < n - 1)",
                     {"SequenceAt": _at(lambda node, p, n: -1 if p == n - 1 else
                                        (p + n if p < 0 else p))}))
    at.append(Mutant("sequence_at_int32_position_refused",
                     "SequenceAt has no kernel for an int32 position",
                     {"SequenceAt": _at_int32_refused}))

    def insert_rule(rule):
        return _insert(lambda node, p, n: rule(node, p, n))

    ins = [
        Mutant("sequence_insert_at_length_goes_front",
               "SequenceInsert normalises position as (p + n) % n, so p = n inserts at the front",
               {"SequenceInsert": insert_rule(lambda node, p, n: n if p is None else
                                              (p + n) % n if n else 0)},
               modelled_on="onnx reference evaluator"),
        Mutant("sequence_insert_into_empty_fails",
               "SequenceInsert with a position into an empty sequence divides by zero",
               {"SequenceInsert": insert_rule(lambda node, p, n: n if p is None else
                                              (p + n) % n)},
               modelled_on="onnx reference evaluator"),
        Mutant("sequence_insert_default_front",
               "SequenceInsert without position inserts at the front",
               {"SequenceInsert": insert_rule(lambda node, p, n: 0 if p is None else
                                              _spec_index(p, n, n))}),
        Mutant("sequence_insert_negative_off_by_one",
               "SequenceInsert puts a negative position one place later (n + p + 1)",
               {"SequenceInsert": insert_rule(lambda node, p, n: n if p is None else
                                              (n + p + 1 if p < 0 else p))}),
        Mutant("sequence_insert_negative_position_input",
               "SequenceInsert appends for a negative position that is a graph input",
               {"SequenceInsert": insert_rule(lambda node, p, n: n if p is None else
                                              (n if p < 0 and _from_input(node, 2)
                                               else _spec_index(p, n, n)))},
               modelled_on="OpenVINO: negative positions right as constants, wrong as inputs"),
        Mutant("sequence_insert_negative_position_constant",
               "SequenceInsert inserts at the front for a negative constant position",
               {"SequenceInsert": insert_rule(lambda node, p, n: n if p is None else
                                              (0 if p < 0 and _from_constant(node, 2)
                                               else _spec_index(p, n, n)))}),
    ]
    era = [
        Mutant("sequence_erase_default_first",
               "SequenceErase without position erases the first tensor",
               {"SequenceErase": _erase(lambda node, p, n: 0 if p is None else
                                        _spec_index(p, n, 0))}),
        Mutant("sequence_erase_negative_off_by_one",
               "SequenceErase counts a negative position from n - 1",
               {"SequenceErase": _erase(lambda node, p, n: n - 1 if p is None else
                                        (n + p - 1 if p < 0 else p))}),
        Mutant("sequence_erase_negative_position_input",
               "SequenceErase erases the first tensor for a negative position that is a graph "
               "input",
               {"SequenceErase": _erase(lambda node, p, n: n - 1 if p is None else
                                        (0 if p < 0 and _from_input(node, 1)
                                         else _spec_index(p, n, n - 1)))},
               modelled_on="OpenVINO: negative positions right as constants, wrong as inputs"),
        Mutant("sequence_erase_negative_position_constant",
               "SequenceErase erases the last tensor for a negative constant position",
               {"SequenceErase": _erase(lambda node, p, n: n - 1 if p is None else
                                        (n - 1 if p < 0 and _from_constant(node, 1)
                                         else _spec_index(p, n, n - 1)))}),
    ]
    misc = [
        Mutant("sequence_length_int32", "SequenceLength returns an int32 scalar",
               {"SequenceLength": _length_int32}),
        Mutant("sequence_construct_drops_zero_element_tensors",
               "SequenceConstruct skips inputs with no elements",
               {"SequenceConstruct": _construct_drops_empty}),
    ]
    split = [
        Mutant("split_to_sequence_keepdims_ignored",
               "SplitToSequence keeps the split axis with keepdims=0 and no split",
               {"SplitToSequence": _split(keepdims_rule=_split_keepdims_ignored)}),
        Mutant("split_to_sequence_keepdims_applied_with_split",
               "SplitToSequence applies keepdims=0 to a scalar split of 1",
               {"SplitToSequence": _split(keepdims_rule=_split_keepdims_with_scalar)},
               modelled_on="onnxruntime 1.32"),
        Mutant("split_to_sequence_negative_axis_off_by_one",
               "SplitToSequence normalises a negative axis as rank + axis - 1",
               {"SplitToSequence": _split(axis_rule=lambda axis, rank: axis + rank - 1
                                          if axis < 0 and axis + rank - 1 >= 0 else axis)}),
        Mutant("split_to_sequence_remainder_dropped",
               "SplitToSequence with a scalar split drops the smaller last chunk",
               {"SplitToSequence": _split_remainder}),
        Mutant("split_to_sequence_zero_size_axis_one_piece",
               "SplitToSequence over an axis of size 0 returns the tensor as one piece",
               {"SplitToSequence": _split_zero_axis_one_piece}),
        Mutant("split_to_sequence_zero_element_parts_dropped",
               "SplitToSequence leaves out parts with no elements",
               {"SplitToSequence": _split_zero_element_parts_dropped}),
        Mutant("split_to_sequence_strings_keep_axis",
               "SplitToSequence of strings with keepdims=0 gives parts of shape [1], not 0-d",
               {"SplitToSequence": _split_strings_keep_axis},
               modelled_on="OpenVINO: strings split to 0-d parts"),
        Mutant("split_to_sequence_split_input_ignored",
               "SplitToSequence ignores a 'split' that is a graph input (needs a constant)",
               {"SplitToSequence": _split_input_ignored(_from_input)},
               modelled_on="OpenVINO: split must be a constant"),
        Mutant("split_to_sequence_split_constant_ignored",
               "SplitToSequence ignores a 'split' that is an initializer or Constant node",
               {"SplitToSequence": _split_input_ignored(_from_constant)}),
    ]
    concat = [
        Mutant("concat_from_sequence_new_axis_negative_axis",
               "ConcatFromSequence with new_axis=1 normalises a negative axis against rank r, "
               "not r + 1",
               {"ConcatFromSequence": _concat(_concat_new_axis_negative)}),
        Mutant("concat_from_sequence_new_axis_ignored",
               "ConcatFromSequence ignores new_axis=1",
               {"ConcatFromSequence": _concat(lambda s, a, n: oracle.concat_from_sequence(
                   s, a, 0))}),
        Mutant("concat_from_sequence_negative_axis_off_by_one",
               "ConcatFromSequence normalises a negative axis as rank + axis - 1",
               {"ConcatFromSequence": _concat(_concat_negative_off_by_one)}),
        Mutant("concat_from_sequence_single_tensor_passthrough",
               "ConcatFromSequence returns a one-tensor sequence's tensor as is",
               {"ConcatFromSequence": _concat(_concat_single_passthrough)}),
        Mutant("concat_from_sequence_drops_zero_element_tensors",
               "ConcatFromSequence leaves out tensors with no elements",
               {"ConcatFromSequence": _concat(_concat_drops_empty)}),
    ]
    seqmap = [
        Mutant("sequence_map_extra_sequences_not_zipped",
               "SequenceMap with two or more additional inputs passes them whole",
               {"SequenceMap": _map_not_zipped}, modelled_on="onnx reference evaluator"),
        Mutant("sequence_map_empty_input_raises",
               "SequenceMap raises on an empty input sequence",
               {"SequenceMap": _map_empty_raises}, modelled_on="onnx reference evaluator"),
        Mutant("sequence_map_tensor_input_indexed",
               "SequenceMap indexes an additional tensor input like a sequence",
               {"SequenceMap": _map_tensor_indexed}),
    ]
    opt = [
        Mutant("optional_empty_is_present",
               "Optional with no input gives a present, empty value",
               {"Optional": _optional_empty_is_present},
               modelled_on="onnx reference evaluator (Optional() gives [None])"),
        Mutant("optional_wraps_value_in_list",
               "Optional(x) gives a one-element sequence [x]",
               {"Optional": _optional_wraps_in_list}, modelled_on="onnx reference evaluator"),
        Mutant("optional_has_element_numel",
               "OptionalHasElement is 'not None and numel() > 0': False for a present "
               "zero-element tensor or empty sequence",
               {"OptionalHasElement": _has_element_numel}, modelled_on="tinygrad 0.14"),
        Mutant("optional_has_element_missing_input_true",
               "OptionalHasElement with no input returns true",
               {"OptionalHasElement": _has_element_missing_true}),
        Mutant("optional_get_element_zero_element_refused",
               "OptionalGetElement calls a present zero-element tensor empty and fails",
               {"OptionalGetElement": _get_element_zero_refused}),
        Mutant("identity_empty_optional_refused",
               "Identity raises on an empty optional", {"Identity": _identity_refuses_none},
               modelled_on="onnx reference evaluator"),
        Mutant("identity_empty_sequence_as_empty_optional",
               "Identity returns an empty sequence as an empty optional",
               {"Identity": _identity_empty_sequence_none}),
    ]
    control = [
        Mutant("if_always_then", "If runs then_branch whatever the condition",
               {"If": _if_always_then}),
        Mutant("if_sequence_outputs_empty", "If returns empty sequences from its branches",
               {"If": _if_sequences_empty}, modelled_on="OpenVINO: If with sequences"),
        Mutant("if_empty_optional_output_refused", "If fails when a branch returns an empty "
               "optional", {"If": _if_refuses_none}),
        Mutant("loop_one_turn_short", "Loop runs trip_count - 1 turns",
               {"Loop": _loop(trip_shift=-1)}),
        Mutant("loop_condition_checked_after_first_turn",
               "Loop runs its body once even when the initial condition is false",
               {"Loop": _loop(check_cond_first=False)}),
        Mutant("loop_body_condition_ignored", "Loop ignores the condition its body returns",
               {"Loop": _loop(body_cond=False)}),
        Mutant("loop_carried_sequence_not_updated",
               "Loop keeps a loop-carried sequence at its initial value",
               {"Loop": _loop(carried_sequences=False)},
               modelled_on="OpenVINO: Loop with sequences"),
        Mutant("loop_scan_0d_stacked_as_column",
               "Loop stacks N 0-d scan values into shape [N, 1] (numpy.vstack)",
               {"Loop": _loop_scan_vstack}, modelled_on="onnx reference evaluator"),
        Mutant("loop_omitted_condition_runs_nothing",
               "Loop with the cond input omitted runs no iteration",
               {"Loop": _loop_omitted_condition_runs_nothing},
               modelled_on="onnx reference evaluator"),
        Mutant("loop_empty_optional_carried_refused",
               "Loop refuses an empty optional as a loop-carried value",
               {"Loop": _loop(refuse_none=True)}, modelled_on="onnx reference evaluator"),
    ]
    boundary = [
        Mutant("int64_cut_to_32_bits", "int64 values cross the boundary as int32",
               inputs=_when_dtype(np.int64, _int64_cut), outputs=_when_dtype(np.int64, _int64_cut),
               modelled_on="OpenVINO CPU plugin"),
        Mutant("uint64_through_double", "uint64 values pass through a double",
               outputs=_when_dtype(np.uint64, lambda t: t.astype(np.float64).astype(np.uint64))),
        Mutant("double_through_float", "double values pass through float",
               outputs=_when_dtype(np.float64, lambda t: t.astype(np.float32).astype(
                   np.float64)), modelled_on="OpenVINO CPU plugin"),
        Mutant("negative_zero_lost", "-0.0 comes back as 0.0",
               outputs=_tensor_outputs(_negative_zero_lost)),
        Mutant("nan_to_zero", "NaN comes back as 0", outputs=_tensor_outputs(_nan_to_zero)),
        Mutant("float16_widened", "float16 comes back as float32",
               outputs=_when_dtype(np.float16, lambda t: t.astype(np.float32))),
        Mutant("bfloat16_widened", "bfloat16 comes back as float32",
               outputs=_when_dtype("bfloat16", lambda t: t.astype(np.float32)),
               modelled_on="tinygrad Tensor.numpy()"),
        Mutant("bool_as_uint8", "bool comes back as uint8",
               outputs=_when_dtype(np.bool_, lambda t: t.astype(np.uint8))),
        Mutant("int8_as_uint8", "int8 comes back as uint8 (sign lost)",
               outputs=_when_dtype(np.int8, lambda t: t.astype(np.uint8))),
        Mutant("strings_as_bytes", "strings come back as bytes",
               outputs=_strings(lambda s: s.encode("utf-8") if isinstance(s, str) else s)),
        Mutant("non_ascii_strings_mangled", "UTF-8 strings are read back as Latin-1",
               outputs=_strings(_latin1)),
        Mutant("packed_odd_count_last_value_lost",
               "a packed 4-bit/2-bit tensor with an odd element count loses its last value to "
               "the padding", inputs=_tensor_outputs(_packed_padding),
               outputs=_tensor_outputs(_packed_padding)),
        Mutant("zero_d_elements_as_1d", "0-d tensors in a sequence come back with shape [1]",
               outputs=_zero_d_in_sequences),
        Mutant("empty_sequence_as_empty_optional", "an empty sequence comes back as None",
               outputs=_empty_sequence_as_none),
        Mutant("empty_optional_sequence_as_empty_sequence",
               "an empty optional(seq) comes back as an empty sequence",
               outputs=_empty_optional_sequence_as_empty_sequence),
        Mutant("complex_types_refused", "complex64 and complex128 values are not registered",
               inputs=_refuse_dtypes({"complex64", "complex128"}, "MLDataType not registered"),
               modelled_on="onnxruntime 1.32"),
        Mutant("split_to_sequence_small_integer_types_refused",
               "SplitToSequence has no kernel for int8, int16, uint8..uint64 or bfloat16",
               {"SplitToSequence": _split_small_types_refused}, modelled_on="onnxruntime 1.32"),
        Mutant("optional_operators_have_no_opset_28_kernel",
               "Optional, OptionalHasElement and OptionalGetElement fail at opset 28",
               {op: _no_kernel_at(op, 28) for op in ("Optional", "OptionalHasElement",
                                                     "OptionalGetElement")},
               modelled_on="onnxruntime 1.32"),
        Mutant("identity_packed_types_refused",
               "Identity has no kernel for int4, uint4, float4e2m1, int2, uint2",
               {"Identity": _identity_packed_refused}, modelled_on="onnxruntime 1.32"),
        Mutant("zero_element_input_loses_dtype",
               "a zero-element input tensor arrives as float32",
               inputs=_zero_element_loses_dtype, modelled_on="OpenVINO: drops zero-size inputs"),
    ]
    return at + ins + era + misc + split + concat + seqmap + opt + control + boundary


# -- the report ---------------------------------------------------------------------------------

def markdown(ours: Score, theirs: Score) -> str:
    """The mutation score table, ours beside onnx's node cases, and every mutant's line."""
    every = {m.name: m for m in mutants()}
    lines = [
        "## Mutation score",
        "",
        f"{ours.total} mutant backends (`onnx_seq_tests/_verify/mutation.py`), each the spec "
        "oracle with one plausible runtime bug; a case kills a mutant when the plain oracle "
        "passes it and the mutant does not. Reproduce with `gen-seq-tests mutation`.",
        "",
        "| suite | cases run | mutants killed | score |",
        "| --- | ---: | ---: | ---: |",
    ]
    for result in (ours, theirs):
        lines.append(f"| {result.label} | {result.cases} | {len(result.killed)} of "
                     f"{result.total} | {result.percent:.0f}% |")
    for result in (ours, theirs):
        if result.left_out:
            lines += ["", f"Not run for {result.label} (the plain spec oracle does not pass "
                          "them, so they cannot tell a mutant from the spec): "
                      + "; ".join(f"`{n.split(' ', 1)[0]}` {n.split(' ', 1)[1]}"
                                   for n in result.left_out) + "."]
    lines += ["", "| mutant | the bug | modelled on | killed by (this suite) | killed by "
              "(onnx) |", "| --- | --- | --- | --- | --- |"]
    for name, mutant in every.items():
        mine = ours.killed.get(name, "**survives**")
        other = theirs.killed.get(name, "survives")
        lines.append(f"| `{name}` | {mutant.behaviour} | {mutant.modelled_on or '-'} | "
                     f"{mine} | {other} |")
    return "\n".join(lines) + "\n"
