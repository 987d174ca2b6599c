"""Case folders of any suite in the standard layout back into case-file YAML.

Each folder becomes one case: nodes keyed by the schema's formal names at the model's opset,
values written as the README's case format writes them, the tolerance from data.json, and a
comment line above the case naming the folder it came from (the case's `doc` stays the model's
graph doc_string, so building the case gives the same model bytes). What the case format cannot
express (another opset domain, initializers, a tensor attribute, a node with a domain, a tensor
whose shape has a 0 before another dim, ...) is reported per case with the reason, never
dropped silently.

A built case gives byte-identical files when the folder was built by this project; a folder
from elsewhere differs where the format does not keep a detail: node names, value_info, the
model's producer, IR version and doc string, metadata, the empty-optional encoding, and a
missing data.json (a build always writes one). Those differences leave the values equal.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
import yaml
from onnx import AttributeProto, helper

from .._core import operators
from .._core.value_types import OptionalType, SequenceType, TensorType, ValueType, from_type_proto
from .._suite.layout import case_folders
from .._suite.tensor_io import TENSOR_IO_SUITE
from .load import ReadError, read_folder
from .show import Shown

_NAME_BAD = re.compile(r"[^a-z0-9_]+")


class NotExpressible(Exception):
    """A detail of a case folder the case format cannot hold; the message says which."""


@dataclass
class Imported:
    """The cases read from the folders, as YAML-ready mappings, and the folders left out."""

    cases: list[tuple[str, dict]]  # (origin folder, case mapping)
    skipped: list[tuple[str, str]]  # (folder, reason)


def import_folders(paths, prefix: str = "") -> Imported:
    """Every case folder under `paths` (case folders or folders holding them)."""
    folders: list[Path] = []
    for path in map(Path, paths):
        if (path / "model.onnx").is_file():
            folders.append(path)
            continue
        found = case_folders(path) if path.is_dir() else []
        # a built suite's tensor-boundary form is derived from its cases: building the
        # imported cases writes it again, so it is not imported as cases of its own
        found = [f for f in found if f.parent.name != TENSOR_IO_SUITE] or found
        if not found:
            raise ReadError(f"{path}: not a case folder (no model.onnx) and no case folders "
                            "(test_*/model.onnx) below it")
        folders.extend(found)
    result = Imported([], [])
    names: set[str] = set()
    for folder in folders:
        shown_folder = folder.as_posix()
        shown = read_folder(folder)  # a folder that cannot be read stops the import
        try:
            case = case_mapping(shown, prefix)
        except NotExpressible as error:
            result.skipped.append((shown_folder, str(error)))
            continue
        name, k = case["name"], 2
        while case["name"] in names:
            case["name"] = f"{name}_{k}"
            k += 1
        names.add(case["name"])
        result.cases.append((shown_folder, case))
    return result


def case_name(folder_name: str, prefix: str = "") -> str:
    name = folder_name[len("test_"):] if folder_name.startswith("test_") else folder_name
    return prefix + (_NAME_BAD.sub("_", name.lower()).strip("_") or "case")


def case_mapping(shown: Shown, prefix: str = "") -> dict:
    """The case-file mapping of one read case folder; NotExpressible says what it cannot hold."""
    model = shown.model
    domains = {o.domain for o in model.opset_import} - {"", "ai.onnx"}
    if domains:
        raise NotExpressible(f"imports the opset domain(s) {', '.join(sorted(domains))}; case "
                             "files import only ai.onnx")
    opsets = [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")]
    if not opsets:
        raise NotExpressible("imports no ai.onnx opset")
    if model.functions:
        raise NotExpressible("defines model-local functions; case files cannot hold them")
    opset = opsets[0]
    graph = model.graph
    case: dict = {"name": case_name(Path(shown.folder or shown.name).name, prefix)}
    if graph.doc_string:
        case["doc"] = graph.doc_string
    case["opset"] = opset
    body = graph_mapping(graph, opset, top_level=True)
    if body["inputs"]:
        case["inputs"] = body["inputs"]
    case["outputs"] = body["outputs"]
    case["nodes"] = body["nodes"]
    if shown.atol or shown.rtol:
        case["tolerance"] = {"atol": float(shown.atol or 0.0), "rtol": float(shown.rtol or 0.0)}
    data_sets = []
    for inputs, outputs in shown.data_sets:
        data_sets.append({
            "inputs": {i.name: value_data(v, t, f"input {i.name!r}") for i, t, v in zip(
                graph.input, shown.input_types, inputs, strict=True)},
            "outputs": {o.name: value_data(v, t, f"output {o.name!r}") for o, t, v in zip(
                graph.output, shown.output_types, outputs, strict=True)}})
    if not data_sets:
        raise NotExpressible("has no test_data_set_<k> folder; a case needs a data set")
    case["data_sets"] = data_sets
    return case


def graph_mapping(graph: onnx.GraphProto, opset: int, top_level: bool = False) -> dict:
    if graph.initializer or graph.sparse_initializer:
        raise NotExpressible(f"graph {graph.name!r} has initializers; case files give every "
                             "value as a graph input (a Constant node with a tensor attribute "
                             "is not expressible either)")
    return {"inputs": [value_decl(v) for v in graph.input],
            "outputs": [value_decl(v) for v in graph.output],
            "nodes": [node_mapping(n, opset) for n in graph.node]}


def value_decl(info: onnx.ValueInfoProto) -> dict:
    try:
        value_type = from_type_proto(info.type)
    except (TypeError, KeyError):
        raise NotExpressible(f"value {info.name!r} has a type case files cannot write "
                             f"({info.type.WhichOneof('value') or 'no type'})") from None
    decl = _FlowMap(name=info.name, type=str(value_type))
    shape = _innermost(value_type).shape
    if shape is not None:
        decl["shape"] = _Flow(shape)
    return decl


def _innermost(value_type: ValueType) -> TensorType:
    while not isinstance(value_type, TensorType):
        value_type = value_type.element
    return value_type


def node_mapping(node: onnx.NodeProto, opset: int) -> dict:
    if node.domain not in ("", "ai.onnx"):
        raise NotExpressible(f"node {node.op_type} is in domain {node.domain!r}")
    op_schema = operators.schema(node.op_type, opset)
    if op_schema is None:
        raise NotExpressible(f"{node.op_type} is not an ai.onnx operator at opset {opset}")
    mapping: dict = {"op_type": node.op_type}
    mapping["inputs"] = _formal(list(node.input), op_schema.inputs, node.op_type, "inputs")
    mapping["outputs"] = _formal(list(node.output), op_schema.outputs, node.op_type, "outputs")
    if not mapping["inputs"]:
        del mapping["inputs"]
    if node.attribute:
        mapping["attributes"] = {a.name: attribute_data(a, opset, node.op_type)
                                 for a in node.attribute}
    return mapping


def _formal(values: list[str], formals, op_type: str, side: str) -> dict:
    found = _FlowMap()
    at = 0
    for formal in formals:
        if at >= len(values):
            break
        if formal.option == operators.VARIADIC:
            found[formal.name] = _Flow(values[at:])
            at = len(values)
        else:
            found[formal.name] = values[at]
            at += 1
    if at < len(values):
        raise NotExpressible(f"{op_type} has {len(values)} {side}, more than its schema's "
                             "formal parameters take")
    return found


def attribute_data(attribute: AttributeProto, opset: int, op_type: str):
    kind = attribute.type
    if kind == AttributeProto.GRAPH:
        return graph_mapping(attribute.g, opset)
    if kind == AttributeProto.TYPE_PROTO:
        try:
            value_type = from_type_proto(attribute.tp)
        except (TypeError, KeyError):
            raise NotExpressible(f"{op_type} attribute {attribute.name!r} holds a type case "
                                 "files cannot write") from None
        shape = _innermost(value_type).shape
        return str(value_type) if shape is None else {"type": str(value_type),
                                                      "shape": list(shape)}
    if kind in (AttributeProto.INT, AttributeProto.STRING, AttributeProto.FLOAT):
        return _scalar_attribute(helper.get_attribute_value(attribute))
    if kind in (AttributeProto.INTS, AttributeProto.FLOATS, AttributeProto.STRINGS):
        value = helper.get_attribute_value(attribute)
        if not value:
            raise NotExpressible(f"{op_type} attribute {attribute.name!r} is an empty list; "
                                 "case files cannot write one")
        return [_scalar_attribute(v) for v in value]
    kind_name = AttributeProto.AttributeType.Name(kind)
    raise NotExpressible(f"{op_type} attribute {attribute.name!r} is of kind {kind_name}, "
                         "which case files cannot write")


def _scalar_attribute(value):
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, float):
        return _Float(value)
    return value


# -- values ---------------------------------------------------------------------------------

class _Float(float):
    """A float written as its shortest exact text (nan, inf, -inf for the special ones)."""


class _Flow(list):
    """A list written in flow style: `[1, 2, 3]`."""


class _FlowMap(dict):
    """A mapping written in flow style: `{name: x, type: tensor(float)}`."""


def value_data(value, value_type: ValueType, what: str):
    """A value as a case file writes it."""
    if isinstance(value_type, OptionalType):
        return {"optional": "empty"} if value is None else value_data(value, value_type.element,
                                                                       what)
    if isinstance(value_type, SequenceType):
        return _Flow(tensor_data(v, what) for v in value)
    return tensor_data(value, what)


def tensor_data(array: np.ndarray, what: str):
    array = np.asarray(array)
    shape = array.shape
    if 0 in shape and any(shape[shape.index(0) + 1:]):
        raise NotExpressible(f"{what} has shape {list(shape)}: nested lists cannot give a 0 "
                             "before another dim")
    kind = array.dtype.kind
    if kind in "OSU":
        leaves = np.vectorize(_text, otypes=[object])(array) if array.size else array
    elif kind == "b":
        leaves = array.astype(bool)
    elif kind in "iu":
        leaves = array.astype(object)
        leaves = np.vectorize(int, otypes=[object])(array) if array.size else leaves
    elif kind == "c":
        leaves = np.vectorize(_complex_text, otypes=[object])(array) if array.size else array
    elif kind == "f":
        leaves = np.vectorize(lambda x: _Float(float(x)), otypes=[object])(array) \
            if array.size else array
    else:  # ml_dtypes: bfloat16, float8/6/4 kinds (exact in float32) and narrow ints
        wide = array.astype(np.float32)
        if np.all(np.isnan(wide) | (wide == np.round(wide))) and "int" in array.dtype.name:
            leaves = np.vectorize(int, otypes=[object])(wide) if array.size else wide
        else:
            leaves = np.vectorize(lambda x: _Float(float(x)), otypes=[object])(wide) \
                if array.size else wide
    return _nest(leaves)


def _nest(array):
    if isinstance(array, np.ndarray) and array.ndim == 0:
        array = array[()]
    if not isinstance(array, np.ndarray):
        return bool(array) if isinstance(array, (bool, np.bool_)) else array
    return _Flow(_nest(array[i]) for i in range(array.shape[0]))


def _text(item) -> str:
    return item.decode("utf-8", "surrogateescape") if isinstance(item, bytes) else str(item)


def _complex_text(value) -> str:
    return repr(complex(value)).strip("()")


# -- YAML text ------------------------------------------------------------------------------

class _Dumper(yaml.SafeDumper):
    pass


def _float_representer(dumper, value):
    if math.isnan(value):
        text = "nan"
    elif math.isinf(value):
        text = "inf" if value > 0 else "-inf"
    else:
        text = repr(float(value))
    # tagged as what the text reads as in YAML 1.1 (`nan`, `1e-05`: str), so it stays plain;
    # the case-file reader reads a plain number by its own rules
    tag = dumper.resolve(yaml.ScalarNode, text, (True, False))
    return dumper.represent_scalar(tag, text)


def _flow_representer(dumper, value):
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=True)


_Dumper.add_representer(_Float, _float_representer)
_Dumper.add_representer(_Flow, _flow_representer)
_Dumper.add_representer(_FlowMap, lambda dumper, value: dumper.represent_mapping(
    "tag:yaml.org,2002:map", value, flow_style=True))


def to_yaml(imported: Imported, header: str = "") -> str:
    """The case file: each case under a comment naming the folder it came from."""
    parts = [header] if header else []
    for origin, case in imported.cases:
        text = yaml.dump([case], Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                         width=100, default_flow_style=False)
        parts.append(f"# imported from {origin}\n{text}")
    return "\n".join(parts)


def refused_by_builder(imported: Imported) -> Imported:
    """`imported` without the cases the case-file reader or the builder refuses, each moved to
    `skipped` with the first problem found."""
    import tempfile

    from .._casefile.reader import load_file
    from .._core.problems import Problems
    from .._suite.build import compile_case

    kept = Imported([], list(imported.skipped))
    with tempfile.TemporaryDirectory() as folder:
        for origin, case in imported.cases:
            path = Path(folder) / "case.yaml"
            path.write_text(to_yaml(Imported([(origin, case)], [])), encoding="utf-8")
            problems = Problems()
            cases = load_file(path, problems)
            if not problems.found:
                for loaded in cases:
                    compile_case(loaded, "undefined", problems)
            if problems.found:
                first = problems.found[0]
                kept.skipped.append((origin, f"the case format refuses it: line {first.line}: "
                                             f"{first.message}"))
            else:
                kept.cases.append((origin, case))
    return kept
