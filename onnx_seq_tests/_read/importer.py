"""Case folders of any suite in the standard layout back into case-file YAML.

Each folder becomes one case: nodes keyed by the schema's formal names at the model's opset,
the main graph's initializers as the case's `initializers:`, values written as the README's
case format writes them, the tolerance from data.json, and a comment line above the case naming
the folder it came from (the case's `doc` stays the model's graph doc_string, so building the
case gives the same model bytes). A Constant node whose `value` tensor one of Constant's
`value_*` attributes also makes (an int64, float or string scalar or non-empty 1-D tensor) is
written with that attribute, and a `# note:` comment line above the case says so. What the
case format cannot express (another opset domain, initializers of a subgraph or that are also
graph inputs, any other tensor attribute, a node with a domain, a tensor whose shape has a 0
before another dim, ...) is reported per case with the reason, never dropped silently.

A built case gives byte-identical files when the folder was built by this project; a folder
from elsewhere differs where the format does not keep a detail: node names, value_info, the
model's producer, IR version and doc string, metadata, the empty-optional encoding, the
encoding of an initializer's data (raw or typed fields), a Constant's `value` written as
`value_*`, and a missing data.json (a build always writes one). Those differences leave the
values equal.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
import yaml
from onnx import AttributeProto, helper

from .._core import operators
from .._core.elements import BY_PROTO, nan_bits, nan_text
from .._core.problems import SeqTestsError, one_line
from .._core.value_types import OptionalType, SequenceType, TensorType, ValueType, from_type_proto
from .._suite.bounded import as_paths
from .._suite.bounded import shown as shown_path
from .._suite.discovery import case_folders
from .._suite.tensor_io import TENSOR_IO_SUITE
from .load import ReadError, read_folder
from .show import Shown

_NAME_BAD = re.compile(r"[^a-z0-9_]+")


class NotExpressible(SeqTestsError):
    """A detail of a case folder the case format cannot hold; the message says which."""


@dataclass
class Imported:
    """The cases read from the folders, as YAML-ready mappings, and the folders left out."""

    cases: list[tuple[str, dict]]  # (origin folder, case mapping)
    skipped: list[tuple[str, str]]  # (folder, reason)
    #: origin folder -> what its case writes another way than the folder does (same values)
    notes: dict[str, list[str]] = field(default_factory=dict)


def import_folders(paths, prefix: str = "") -> Imported:
    """Every case folder under `paths` (case folders or folders holding them).

    A case folder named in `paths` that cannot be read raises ReadError; one found below a
    named folder that cannot be read, or that the case format cannot express, is listed in
    `skipped` with the reason and the import goes on."""
    if not isinstance(prefix, str):
        raise ValueError(f"prefix must be a str, not {type(prefix).__name__}")
    folders: list[tuple[Path, bool]] = []  # (folder, named itself)
    for path in as_paths(paths, "paths"):
        if (path / "model.onnx").exists():
            folders.append((path, True))
            continue
        found = case_folders(path) if path.is_dir() else []
        # a built suite's tensor-boundary form is derived from its cases: building the
        # imported cases writes it again, so it is not imported as cases of its own
        found = [f for f in found if f.parent.name != TENSOR_IO_SUITE] or found
        if not found:
            raise ReadError(f"{shown_path(path)}: not a case folder (no model.onnx) and no case "
                            "folders (test_*/model.onnx) below it")
        folders.extend((f, False) for f in found)
    result = Imported([], [])
    names: set[str] = set()
    for folder, named in folders:
        shown_folder = shown_path(folder.as_posix())
        notes: list[str] = []
        try:
            shown = read_folder(folder)
            case = case_mapping(shown, prefix, notes)
        except ReadError as error:
            if named:
                raise
            result.skipped.append((shown_folder, f"cannot read it: {error}"))
            continue
        except NotExpressible as error:
            result.skipped.append((shown_folder, str(error)))
            continue
        except (ValueError, TypeError, KeyError, IndexError, OverflowError) as error:
            reason = one_line(" ".join(str(error).split()))[:300]
            if named:
                raise ReadError(f"{shown_folder}: cannot import it ({reason})") from None
            result.skipped.append((shown_folder, f"cannot import it ({reason})"))
            continue
        name, k = case["name"], 2
        while case["name"] in names:
            case["name"] = f"{name}_{k}"
            k += 1
        names.add(case["name"])
        result.cases.append((shown_folder, case))
        if notes:
            result.notes[shown_folder] = notes
    return result


def case_name(folder_name: str, prefix: str = "") -> str:
    name = folder_name[len("test_"):] if folder_name.startswith("test_") else folder_name
    return prefix + (_NAME_BAD.sub("_", name.lower()).strip("_") or "case")


def case_mapping(shown: Shown, prefix: str = "", notes: list[str] | None = None) -> dict:
    """The case-file mapping of one read case folder; NotExpressible says what it cannot hold.
    Each detail written another way with the same values is added to `notes`."""
    notes = [] if notes is None else notes
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
    defaults = {t.name for t in model.graph.initializer} & {i.name for i in model.graph.input}
    notes.extend(f"input {one_line(name)!r} has an initializer (a default value): written as a "
                 "plain input, each data set giving its value (the initializer's where the "
                 "folder has no .pb file for it)" for name in sorted(defaults))
    if graph.doc_string:
        case["doc"] = graph.doc_string
    case["opset"] = opset
    body = graph_mapping(graph, opset, top_level=True, notes=notes)
    if body["inputs"]:
        case["inputs"] = body["inputs"]
    if body.get("initializers"):
        case["initializers"] = body["initializers"]
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


def graph_mapping(graph: onnx.GraphProto, opset: int, top_level: bool = False,
                  notes: list[str] | None = None) -> dict:
    """The mapping of a graph; the main graph's initializers under "initializers"."""
    if graph.sparse_initializer:
        raise NotExpressible(f"graph {graph.name!r} has sparse initializers; case files "
                             "write dense tensors only")
    if graph.initializer and not top_level:
        raise NotExpressible(f"subgraph {graph.name!r} has initializers; case files declare "
                             "initializers for the main graph only")
    mapping = {"inputs": [value_decl(v) for v in graph.input],
               "outputs": [value_decl(v) for v in graph.output]}
    if graph.initializer:
        mapping["initializers"] = initializers_data(graph)
    mapping["nodes"] = [node_mapping(n, opset, notes) for n in graph.node]
    return mapping


def initializers_data(graph: onnx.GraphProto) -> list[dict]:
    """The graph's initializers as `{name, type, shape, value}`, in the graph's order."""
    inputs = {v.name for v in graph.input}
    outputs = {v.name for v in graph.output}
    found: list[dict] = []
    seen: set[str] = set()
    for tensor in graph.initializer:
        what = f"initializer {one_line(tensor.name)!r}"
        if not tensor.name or tensor.name in seen:
            raise NotExpressible(f"{what}: an initializer needs a name of its own")
        seen.add(tensor.name)
        if tensor.name in inputs:  # a default value: each data set gives the input's value
            continue
        if tensor.name in outputs:
            raise NotExpressible(f"{what} is also a graph output; case files keep "
                                 "initializers apart from the graph's outputs")
        if tensor.data_location == onnx.TensorProto.EXTERNAL:
            raise NotExpressible(f"{what} keeps its data in an external file; case files "
                                 "write every value")
        element = BY_PROTO.get(tensor.data_type)
        if element is None:
            raise NotExpressible(f"{what} has element type {tensor.data_type}, which case "
                                 "files cannot write")
        try:
            array = onnx.numpy_helper.to_array(tensor)
        except (ValueError, TypeError) as error:
            raise NotExpressible(f"{what} cannot be read: {str(error).splitlines()[0]}") \
                from None
        value_type = TensorType(element, tuple(array.shape))
        found.append(_FlowMap(name=tensor.name, type=str(value_type),
                              shape=_Flow(array.shape), value=tensor_data(array, what)))
    return found


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


def node_mapping(node: onnx.NodeProto, opset: int, notes: list[str] | None = None) -> dict:
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
        attributes = {}
        for attribute in node.attribute:
            if node.op_type == "Constant" and attribute.type == AttributeProto.TENSOR:
                name, value = constant_value(attribute, op_schema, node)
                if notes is not None:
                    notes.append(f"Constant {node.output[0]!r}: its tensor attribute "
                                 f"{attribute.name!r} written as {name!r} (same value)")
            else:
                name, value = attribute.name, attribute_data(attribute, opset, node.op_type,
                                                             notes)
            attributes[name] = value
        mapping["attributes"] = attributes
    return mapping


#: Constant's value_* attributes: (onnx element type, rank) -> the attribute making that tensor
#: (Constant's spec: value_float gives a float scalar, value_floats a 1-D float tensor, ...).
_CONSTANT_FORMS = {
    (onnx.TensorProto.INT64, 0): "value_int", (onnx.TensorProto.INT64, 1): "value_ints",
    (onnx.TensorProto.FLOAT, 0): "value_float", (onnx.TensorProto.FLOAT, 1): "value_floats",
    (onnx.TensorProto.STRING, 0): "value_string", (onnx.TensorProto.STRING, 1): "value_strings",
}


def constant_value(attribute: AttributeProto, op_schema, node: onnx.NodeProto):
    """(attribute name, value) of Constant's `value_*` attribute that makes the same tensor as
    its tensor attribute `value`; NotExpressible when no `value_*` attribute makes it."""
    tensor = attribute.t
    rank = len(tensor.dims)
    form = _CONSTANT_FORMS.get((tensor.data_type, rank))
    element = BY_PROTO.get(tensor.data_type)
    shown = (f"tensor({element.name if element else tensor.data_type}) of shape "
             f"{list(tensor.dims)}")
    why = (f"Constant {node.output[0]!r}: its attribute "
           f"{attribute.name!r} holds a {shown}; case files write a Constant's tensor only as "
           "value_int/value_ints (int64), value_float/value_floats (float) or "
           "value_string/value_strings (string), a scalar or a non-empty 1-D list")
    if form is None or tensor.data_location == onnx.TensorProto.EXTERNAL:
        raise NotExpressible(why)
    if form not in op_schema.attributes:
        raise NotExpressible(f"{why}, and Constant-{op_schema.since_version} has no {form}")
    try:
        array = onnx.numpy_helper.to_array(tensor)
    except (ValueError, TypeError) as error:
        raise NotExpressible(f"Constant {node.output[0]!r}: its attribute {attribute.name!r} "
                             f"cannot be read: {str(error).splitlines()[0]}") from None
    if array.size == 0:
        raise NotExpressible(why)
    if tensor.data_type == onnx.TensorProto.STRING:
        try:  # the stored bytes: an attribute holds UTF-8 text
            items = [item.decode("utf-8") for item in tensor.string_data]
        except UnicodeDecodeError:
            raise NotExpressible(f"{why}; its strings are not UTF-8") from None
        return form, items[0] if rank == 0 else _Flow(items)
    if tensor.data_type == onnx.TensorProto.INT64:
        items = [int(v) for v in array.reshape(-1)]
    else:
        items = [_Float(float(v)) for v in array.reshape(-1)]
    return form, items[0] if rank == 0 else _Flow(items)


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


def attribute_data(attribute: AttributeProto, opset: int, op_type: str,
                   notes: list[str] | None = None):
    kind = attribute.type
    if kind == AttributeProto.GRAPH:
        return graph_mapping(attribute.g, opset, notes=notes)
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


class _NanBits(str):
    """A NaN written by its bit pattern, plain (unquoted): `nan(0x7fa00001)`."""


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
        leaves = _float_leaves(array)
    else:  # ml_dtypes: bfloat16, float8/6/4 kinds (exact in float32) and narrow ints
        wide = array.astype(np.float32)
        if np.all(np.isnan(wide) | (wide == np.round(wide))) and "int" in array.dtype.name:
            leaves = np.vectorize(int, otypes=[object])(wide) if array.size else wide
        else:
            leaves = _float_leaves(array) if array.size else wide
    return _nest(leaves)


def _float_leaves(array: np.ndarray):
    """Each float element as written (`_float_leaf`), read from the array in its own dtype
    (np.vectorize would widen an ml_dtypes element first and lose a NaN's bits)."""
    if not array.size:
        return array
    leaves = np.empty(array.shape, dtype=object)
    for index in np.ndindex(array.shape):
        leaves[index] = _float_leaf(array[index])
    return leaves


def _float_leaf(value):
    """A float element as written: a NaN of unusual bits as its `nan(0x...)` text."""
    if nan_bits(value) is not None:
        return _NanBits(nan_text(value))
    with np.errstate(invalid="ignore"):
        return _Float(float(np.asarray(value).astype(np.float64)))


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
_Dumper.add_representer(_NanBits, lambda dumper, value: dumper.represent_scalar(
    "tag:yaml.org,2002:str", str(value)))
_Dumper.add_representer(_FlowMap, lambda dumper, value: dumper.represent_mapping(
    "tag:yaml.org,2002:map", value, flow_style=True))


def to_yaml(imported: Imported, header: str = "") -> str:
    """The case file: each case under a comment naming the folder it came from."""
    parts = [header] if header else []
    for origin, case in imported.cases:
        text = yaml.dump([case], Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                         width=100, default_flow_style=False)
        notes = "".join(f"# note: {note}\n" for note in imported.notes.get(origin, ()))
        parts.append(f"# imported from {origin}\n{notes}{text}")
    return "\n".join(parts)


def refused_by_builder(imported: Imported) -> Imported:
    """`imported` without the cases the case-file reader or the builder refuses, each moved to
    `skipped` with the first problem found."""
    import tempfile

    from .._casefile.reader import load_file
    from .._core.problems import Problems
    from .._suite.build import compile_case

    kept = Imported([], list(imported.skipped), dict(imported.notes))
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
