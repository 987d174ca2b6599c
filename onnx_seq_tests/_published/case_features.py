"""What one case exercises: which (operator, version, type) combinations of the matrix, and
which edge features, read from its model and data sets.

The matrix comes from onnx.defs: for each sequence/optional operator and each version up to the
installed onnx's newest released opset (the ceiling of case files too), every type string in the
type constraints that allow a sequence or optional type. A combination is covered when a case
has a node of that operator, at an opset that selects that version, with an input or output of
exactly that type (types of intermediate values come from onnx's shape inference). Edge features
are found by running each data set through the spec oracle and looking at the values every node
sees. coverage.py adds them up over a suite and onnx's own node cases, and writes the report.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import shape_inference

from .._core import operators
from .._core.cases import proto_subgraphs, walk
from .._core.elements import BY_DTYPE, PACKED_PER_BYTE
from .._core.errors import OracleError
from .._core.value_kinds import HOLDER_PREFIXES, from_type_proto
from .._oracle import oracle
from .structure import static, traced

#: The operators of the matrix: every sequence/optional operator onnx.defs knows, and the
#: ai.onnx.ml operators of maps and sequences of maps (ZipMap, CastMap, DictVectorizer).
MATRIX_OPERATORS = operators.sequence_operators() + operators.map_operators()
#: Operators that carry sequences and optionals; their features are reported, not their types.
CARRIERS = operators.CARRIERS

#: The edge cases every suite should hold: (what, operator or None for any, feature label).
EDGE_CASES = (
    ("empty sequence as input", None, "empty sequence in"),
    ("empty sequence as output", None, "empty sequence out"),
    ("empty optional as input", None, "empty optional in"),
    ("empty optional as output", None, "empty optional out"),
    ('an input omitted with ""', None, 'input omitted with ""'),
    ("trailing optional inputs left off", None, "trailing optional input left off"),
    ("SequenceInsert at position -1", "SequenceInsert", "position -1"),
    ("SequenceInsert at position -len", "SequenceInsert", "position -len"),
    ("SequenceInsert at position 0", "SequenceInsert", "position 0"),
    ("SequenceInsert at position len-1", "SequenceInsert", "position len-1"),
    ("SequenceInsert at position len (append)", "SequenceInsert", "position len"),
    ("int32 position", None, "int32 position"),
    ("int64 position", None, "int64 position"),
    ("0-d tensors in a sequence", None, "0-d tensors in a sequence"),
    ("sequence elements that differ in shape", None, "elements differ in shape"),
    ("SplitToSequence with uneven split sizes", "SplitToSequence", "uneven split"),
    ("SplitToSequence with a scalar split", "SplitToSequence", "scalar split"),
    ("SplitToSequence with keepdims=0", "SplitToSequence", "keepdims=0"),
    ("ConcatFromSequence with new_axis=1", "ConcatFromSequence", "new_axis=1"),
    ("ConcatFromSequence with a negative axis", "ConcatFromSequence", "negative axis"),
    ("ConcatFromSequence on elements that differ along the axis", "ConcatFromSequence",
     "elements differ along the axis"),
    ("SequenceEmpty with dtype", "SequenceEmpty", "dtype given"),
    ("SequenceEmpty without dtype", "SequenceEmpty", "dtype default"),
    ("SequenceMap over one sequence", "SequenceMap", "one sequence"),
    ("SequenceMap over several sequences", "SequenceMap", "several sequences"),
    ("SequenceMap with a tensor input", "SequenceMap", "tensor input"),
    ("Optional with no input and a type", "Optional", "no input, type attribute"),
    ("If returning a sequence from the then branch", "If", "sequence from then branch"),
    ("If returning a sequence from the else branch", "If", "sequence from else branch"),
    ("If returning an optional from the then branch", "If", "optional from then branch"),
    ("If returning an optional from the else branch", "If", "optional from else branch"),
    ("Loop carrying a sequence", "Loop", "carries a sequence"),
    ("Loop producing an empty optional", "Loop", "empty optional out"),
    ("strings with non-ASCII characters", None, "non-ASCII string"),
    ("empty strings", None, "empty string"),
    ("nan", None, "nan"),
    ("inf", None, "inf"),
    ("-inf", None, "-inf"),
    ("-0.0", None, "-0.0"),
    ("int64 min", None, "int64 min"),
    ("int64 max", None, "int64 max"),
    ("uint64 max", None, "uint64 max"),
    ("several data sets in one case", None, "several data sets"),
    ("zero-element tensor", None, "zero-element tensor"),
    ("packed sub-byte tensor whose count does not fill its last byte", None,
     "odd packed count"),
    ("position from an initializer or Constant node", None, "constant position"),
    ("SplitToSequence split from an initializer or Constant node", "SplitToSequence",
     "constant split"),
)


def matrix() -> dict[tuple[str, int], tuple[str, ...]]:
    """(operator, version) -> the type strings that count, sorted; from onnx.defs."""
    found = {}
    for op_type in MATRIX_OPERATORS:
        domain = operators.domain_of(op_type)
        newest = max(operators.released_ml_opsets()) if domain else \
            operators.newest_released_opset()
        for version in operators.versions(op_type, domain):
            if version > newest:
                continue
            op_schema = operators.defined_schema(op_type, version, domain)
            allowed: set[str] = set()
            for constraint in op_schema.type_constraints:
                types = operators.type_strs(constraint)
                if any(t.startswith(HOLDER_PREFIXES) for t in types):
                    allowed.update(types)
            found[(op_type, version)] = tuple(sorted(allowed))
    return found


@dataclass
class CaseCoverage:
    """What one case exercises: (op, version, type) combinations and (op, version, feature)."""

    name: str
    combinations: set = field(default_factory=set)
    features: set = field(default_factory=set)


def case_coverage(name: str, model: onnx.ModelProto, data_sets) -> CaseCoverage:
    """The coverage of one model and its data sets [(inputs, outputs), ...]."""
    result = CaseCoverage(name)
    opset = operators.model_opset(model)
    if opset is None:
        raise ValueError(f"{name}: the model imports no ai.onnx opset")
    opsets = operators.Opsets(opset, operators.model_ml_opset(model))
    try:
        inferred = shape_inference.infer_shapes(model)
    except (onnx.shape_inference.InferenceError, onnx.checker.ValidationError):
        inferred = model
    types: dict[str, str] = {}
    for node, scope in _nodes_with_types(inferred.graph, {}):
        version = _version(node.op_type, opsets, node.domain)
        for value in [*node.input, *node.output]:
            if value in scope:
                types.setdefault(value, scope[value])
                if node.op_type in MATRIX_OPERATORS and version is not None:
                    result.combinations.add((node.op_type, version, scope[value]))
    graph = oracle.graph_from_proto(model.graph)
    constants = {i.name for i in graph.initializers} | {
        o for n in walk(graph) if n.op_type == "Constant" for o in n.outputs}
    for node in walk(graph):
        version = _version(node.op_type, opsets, node.domain)
        if version is not None:
            for label in _static_features(node, version, types):
                result.features.add((node.op_type, version, label))
            for label, at in _CONSTANT_INPUTS.get(node.op_type, ()):
                if len(node.inputs) > at and node.inputs[at] in constants:
                    result.features.add((node.op_type, version, label))
            if len(data_sets) > 1:
                result.features.add((node.op_type, version, "several data sets"))
    for op_type, label in static(graph, types):
        version = _version(op_type, opsets, operators.domain_of(op_type))
        if version is not None:
            result.features.add((op_type, version, label))

    def trace(node, args, results):
        version = _version(node.op_type, opsets, node.domain)
        if version is not None:
            for label in node_features(node, args, results, types):
                result.features.add((node.op_type, version, label))

    for inputs, _ in data_sets:
        try:
            oracle.run_graph(graph, opset, list(inputs), trace=trace, ml_opset=opsets.ml)
        except OracleError:
            continue  # the spec gives no result here: the data set adds no traced feature
    return result


#: Inputs whose constant form is an edge case: op_type -> ((label, input index), ...).
_CONSTANT_INPUTS = {"SequenceAt": (("constant position", 1),),
                    "SequenceErase": (("constant position", 1),),
                    "SequenceInsert": (("constant position", 2),),
                    "SplitToSequence": (("constant split", 1),)}


def _version(op_type: str, opsets: operators.Opsets, domain: str) -> int | None:
    """The version of a matrix operator or carrier in force at `opsets`; None for another."""
    if op_type not in MATRIX_OPERATORS + CARRIERS or domain != operators.domain_of(op_type):
        return None
    opset = opsets.of(domain)
    op_schema = None if opset is None else operators.schema(op_type, opset, domain)
    return None if op_schema is None else op_schema.since_version


def _nodes_with_types(graph: onnx.GraphProto, outer: dict):
    """Every node below `graph` with the type strings of the values it can see."""
    scope = dict(outer)
    for initializer in graph.initializer:
        scope[initializer.name] = str(from_type_proto(onnx.helper.make_tensor_type_proto(
            initializer.data_type, initializer.dims)))
    for info in [*graph.input, *graph.value_info, *graph.output]:
        try:
            scope[info.name] = str(from_type_proto(info.type))
        except (TypeError, KeyError):
            continue
    for node in graph.node:
        yield node, scope
        for subgraph in proto_subgraphs(node):
            yield from _nodes_with_types(subgraph, scope)


def _static_features(node, version: int, types: dict[str, str]) -> set[str]:
    """Features a node shows by its form alone."""
    labels = set()
    formals = operators.defined_schema(node.op_type, version, node.domain).inputs
    if "" in node.inputs:
        labels.add('input omitted with ""')
    variadic = formals and formals[-1].option == operators.VARIADIC
    if not variadic and len(node.inputs) < len(formals):
        labels.add("trailing optional input left off")
    attributes = dict(node.attributes)
    if node.op_type == "SequenceEmpty":
        labels.add("dtype given" if "dtype" in attributes else "dtype default")
    if node.op_type in CARRIERS:
        kinds = {types.get(name, "").split("(")[0] for name in node.outputs}
        labels.update({"seq": "carries a sequence", "optional": "carries an optional"}[k]
                      for k in kinds if k in ("seq", "optional"))
    return labels


def node_features(node, args: list, results: list, types: dict[str, str]) -> set[str]:
    """Features a node shows on one data set: its input values `args` and outputs `results`."""
    labels = set()
    for side, values in (("in", args), ("out", results)):
        for value in values:
            if value is None:
                labels.add(f"empty optional {side}")
            elif isinstance(value, list):
                if not value:
                    labels.add(f"empty sequence {side}")
                if any(np.asarray(t).ndim == 0 for t in value):
                    labels.add("0-d tensors in a sequence")
                if len({np.asarray(t).shape for t in value}) > 1:
                    labels.add("elements differ in shape")
    for value in [*args, *results]:
        for tensor in value if isinstance(value, list) else [value]:
            if isinstance(tensor, np.ndarray):
                labels.update(_value_features(tensor))
    labels.update(_OPERATOR_FEATURES.get(node.op_type, _none)(node, args, results, types))
    labels.update(traced(node, args, results))
    return labels


def _none(node, args, results, types):
    return set()


def _value_features(tensor: np.ndarray) -> set[str]:
    """Special values in one tensor: empty and non-ASCII strings, nan, inf, -inf, integer ends."""
    labels = set()
    if tensor.size == 0:
        labels.add("zero-element tensor")
    if tensor.size % PACKED_PER_BYTE.get(tensor.dtype.name, 1):
        labels.add("odd packed count")
    element = BY_DTYPE.get(tensor.dtype)
    kind = "string" if tensor.dtype == object else element.kind if element else ""
    if kind == "string":
        texts = [t.decode("utf-8") if isinstance(t, bytes) else str(t) for t in tensor.flat]
        if "" in texts:
            labels.add("empty string")
        if not all(t.isascii() for t in texts):
            labels.add("non-ASCII string")
    elif tensor.dtype == np.int64:
        if (tensor == np.iinfo(np.int64).min).any():
            labels.add("int64 min")
        if (tensor == np.iinfo(np.int64).max).any():
            labels.add("int64 max")
    elif tensor.dtype == np.uint64 and (tensor == np.iinfo(np.uint64).max).any():
        labels.add("uint64 max")
    elif kind in ("float", "complex"):
        with np.errstate(invalid="ignore"):  # a signalling NaN read as a double
            wide = tensor.astype(np.complex128 if kind == "complex" else np.float64)
        for part in ((wide.real, wide.imag) if kind == "complex" else (wide,)):
            if np.isnan(part).any():
                labels.add("nan")
            if (part == np.inf).any():
                labels.add("inf")
            if (part == -np.inf).any():
                labels.add("-inf")
            if np.signbit(part[part == 0]).any():
                labels.add("-0.0")
    return labels


def _position_features(node, args, results, types):
    sequence = args[0]
    at = 2 if node.op_type == "SequenceInsert" else 1
    if len(args) <= at or args[at] is oracle.MISSING:
        return {"no position"}
    position = np.asarray(args[at])
    labels = {f"{position.dtype} position"}
    count, value = len(sequence), int(position.reshape(-1)[0])
    if count < 2:  # in shorter sequences the position classes below coincide
        return labels
    for label, at in (("position -1", -1), ("position -len", -count), ("position 0", 0),
                      ("position 1", 1), ("position len-1", count - 1),
                      ("position len", count)):
        if value == at and (label != "position len" or node.op_type == "SequenceInsert"):
            labels.add(label)
    return labels


def _split_features(node, args, results, types):
    attributes = dict(node.attributes)
    labels = {"negative axis"} if attributes.get("axis", 0) < 0 else set()
    if len(args) < 2 or args[1] is oracle.MISSING:
        labels.add("no split")
        if attributes.get("keepdims", 1) == 0:
            labels.add("keepdims=0")
        return labels
    if attributes.get("keepdims", 1) == 0:
        labels.add("keepdims=0 with split (ignored)")
    split = np.asarray(args[1])
    if split.ndim == 0:
        labels.add("scalar split")
    else:
        labels.add("1-D split")
    if len({np.asarray(p).shape for p in results[0]}) > 1:
        labels.add("uneven split")
    return labels


def _concat_features(node, args, results, types):
    attributes = dict(node.attributes)
    labels = {"negative axis"} if attributes["axis"] < 0 else set()
    if attributes.get("new_axis", 0) == 1:
        labels.add("new_axis=1")
    elif len({np.asarray(t).shape for t in args[0]}) > 1:
        labels.add("elements differ along the axis")
    return labels


def _map_features(node, args, results, types):
    extra = [a for a in args[1:] if a is not oracle.MISSING]
    labels = {"several sequences" if any(isinstance(a, list) for a in extra) else
              "one sequence"}
    if any(isinstance(a, np.ndarray) for a in extra):
        labels.add("tensor input")
    if len(results) > 1:
        labels.add("several outputs")
    return labels


def _optional_features(node, args, results, types):
    if not args or args[0] is oracle.MISSING:
        return {"no input, type attribute"} if "type" in dict(node.attributes) else set()
    return {"input given"}


def _has_element_features(node, args, results, types):
    return {"no input"} if not args or args[0] is oracle.MISSING else set()


def _if_features(node, args, results, types):
    branch = "then" if bool(np.asarray(args[0]).reshape(-1)[0]) else "else"
    kinds = {types.get(name, "").split("(")[0] for name in node.outputs}
    return {f"{word} from {branch} branch" for kind, word in (("seq", "sequence"),
                                                               ("optional", "optional"))
            if kind in kinds}


def _loop_features(node, args, results, types):
    labels = set()
    if not args or args[0] is oracle.MISSING:
        labels.add("trip count omitted")
    if len(args) < 2 or args[1] is oracle.MISSING:
        labels.add("condition omitted")
    carried = len(args) - 2
    if len(node.outputs) > carried:
        labels.add("scan output")
    return labels


_OPERATOR_FEATURES = {
    "SequenceAt": _position_features,
    "SequenceErase": _position_features,
    "SequenceInsert": _position_features,
    "SplitToSequence": _split_features,
    "ConcatFromSequence": _concat_features,
    "SequenceMap": _map_features,
    "Optional": _optional_features,
    "OptionalHasElement": _has_element_features,
    "If": _if_features,
    "Loop": _loop_features,
}
