"""Case folders of any suite in the standard layout back into case-file YAML.

Each folder becomes one case: nodes keyed by the schema's formal names at the model's opset,
the main graph's initializers as the case's `initializers:`, values written as the README's
case format writes them, the tolerance from data.json, and a comment line above the case naming
the folder it came from (the case's `doc` stays the model's graph doc_string, so building the
case gives the same model bytes). Tensor attributes (a Constant's or ConstantOfShape's
`value`, of any element type and shape) are written as tensors, `{type, shape, value}`, kept as
they are: never rewritten as Constant's `value_int` and the like, which would change the model.
What the case format cannot express (another opset domain, initializers of a subgraph, sparse
tensors, a node with a domain, a tensor kept in an external file, ...) is reported per case
with the reason, never dropped silently.

A built case gives byte-identical files when the folder was built by this project; a folder
from elsewhere differs where the format does not keep a detail: node names, value_info, the
model's producer, IR version and doc string, metadata, the empty-optional encoding, the
encoding of a tensor's data (raw or typed fields) in an initializer or a tensor attribute,
and a missing data.json (a build always writes one). Those differences leave the
values equal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import onnx
from onnx import AttributeProto, helper

from .._casefile import writer
from .._casefile.reader import load_text
from .._casefile.vocabulary import ATTRIBUTE_FORMS
from .._casefile.writer import (
    cases_text,
    decl_data,
    formal_data,
    initializer_data,
    value_data,
)
from .._core import operators
from .._core.elements import BY_PROTO
from .._core.errors import NotExpressible, ReadError, one_line
from .._core.problems import Problems, quote
from .._core.suite_forms import is_derived_folder
from .._core.value_kinds import decode, from_type_proto
from .._published.bounded import as_paths
from .._published.bounded import shown as shown_path
from .._published.discovery import Skipped, case_folders, read_each
from .inferred_types import with_subgraph_types
from .load import read_folder
from .show import Shown

_NAME_BAD = re.compile(r"[^a-z0-9_]+")


@dataclass
class Imported:
    """The cases read from the folders, as YAML-ready mappings, and the folders left out."""

    cases: list[tuple[str, dict]]  # (origin folder, case mapping)
    skipped: list[Skipped]  # (folder, kind, reason)
    #: origin folder -> what its case writes another way than the folder does (same values)
    notes: dict[str, list[str]] = field(default_factory=dict)


def import_folders(paths, prefix: str = "") -> Imported:
    """Every case folder under `paths` (case folders or folders holding them).

    Each folder is read on its own (`read_each`). A case folder named in `paths` that cannot be
    read raises ReadError; one found below a named folder that cannot be read (`unreadable`,
    `corrupt`, `unsupported`), or that the case format cannot express (`not expressible`, a
    named folder too), is listed in `skipped` with its kind and reason and the import goes on."""
    if not isinstance(prefix, str):
        raise ValueError(f"prefix must be a str, not {type(prefix).__name__}")
    folders: list[Path] = []
    named: set[Path] = set()
    for path in as_paths(paths, "paths"):
        if (path / "model.onnx").exists():
            folders.append(path)
            named.add(path)
            continue
        found = case_folders(path) if path.is_dir() else []
        # a built suite's derived forms (tensor-boundary, constant) come from its cases:
        # building the imported cases writes them again, so they are not imported as cases
        found = [f for f in found if not is_derived_folder(f.parent.name)] or found
        if not found:
            raise ReadError(f"{shown_path(path)}: not a case folder (no model.onnx) and no case "
                            "folders (test_*/model.onnx) below it")
        folders.extend(found)
    outcomes = read_each(folders, lambda folder: _case_of(folder, prefix))
    named_shown = {shown_path(f) for f in named}
    for skipped in outcomes.skipped:  # a folder named itself that cannot be read: bad input
        if skipped.folder in named_shown and skipped.kind != NotExpressible.kind \
                and skipped.error is not None:
            raise skipped.error
    result = Imported([], outcomes.skipped)
    names: set[str] = set()
    for folder, (case, notes) in outcomes.done:
        shown_folder = shown_path(folder.as_posix())
        name, k = case["name"], 2
        while case["name"] in names:
            case["name"] = f"{name}_{k}"
            k += 1
        names.add(case["name"])
        result.cases.append((shown_folder, case))
        if notes:
            result.notes[shown_folder] = notes
    return result


def _case_of(folder: Path, prefix: str) -> tuple[dict, list[str]]:
    """The case mapping of one folder and its notes; ReadError (NotExpressible for what
    the case format cannot hold)."""
    notes: list[str] = []
    shown = read_folder(folder)
    try:
        return case_mapping(shown, prefix, notes), notes
    except NotExpressible:  # a ReadError: import leaves the folder out as `not expressible`
        raise
    except (ValueError, TypeError, KeyError, IndexError, OverflowError) as error:
        reason = one_line(" ".join(str(error).split()))[:300]
        raise ReadError(f"{shown_path(folder.as_posix())}: cannot import it ({reason})") \
            from None


def case_name(folder_name: str, prefix: str = "") -> str:
    name = folder_name[len("test_"):] if folder_name.startswith("test_") else folder_name
    return prefix + (_NAME_BAD.sub("_", name.lower()).strip("_") or "case")


def case_mapping(shown: Shown, prefix: str = "", notes: list[str] | None = None) -> dict:
    """The case-file mapping of one read case folder; NotExpressible says what it cannot hold.
    Each detail written another way with the same values is added to `notes`."""
    notes = [] if notes is None else notes
    model = shown.model
    domains = {o.domain for o in model.opset_import} - {*operators.DEFAULT_DOMAINS,
                                                        operators.ML_DOMAIN}
    if domains:
        raise NotExpressible(f"imports the opset domain(s) {', '.join(sorted(domains))}; case "
                             f"files import only ai.onnx and {operators.ML_DOMAIN}")
    opset = operators.model_opset(model)
    if opset is None:
        raise NotExpressible("imports no ai.onnx opset")
    opsets = operators.Opsets(opset, operators.model_ml_opset(model))
    if model.functions:
        raise NotExpressible("defines model-local functions; case files cannot hold them")
    model = with_subgraph_types(model)
    graph = model.graph
    case: dict = {"name": case_name(Path(shown.folder or shown.name).name, prefix)}
    defaults = {t.name for t in model.graph.initializer} & {i.name for i in model.graph.input}
    notes.extend(f"input {quote(name)} has an initializer (a default value): written as a "
                 "plain input, each data set giving its value (the initializer's where the "
                 "folder has no .pb file for it)" for name in sorted(defaults))
    if graph.doc_string:
        case["doc"] = graph.doc_string
    case["opset"] = opset
    if opsets.ml is not None:
        case["ml_opset"] = opsets.ml
    body = graph_mapping(graph, opsets, top_level=True, notes=notes)
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
            "inputs": {i.name: value_data(v, t, f"input {quote(i.name)}") for i, t, v in zip(
                graph.input, shown.input_types, inputs, strict=True)},
            "outputs": {o.name: value_data(v, t, f"output {quote(o.name)}") for o, t, v in zip(
                graph.output, shown.output_types, outputs, strict=True)}})
    if not data_sets:
        raise NotExpressible("has no test_data_set_<k> folder; a case needs a data set")
    case["data_sets"] = data_sets
    return case


def graph_mapping(graph: onnx.GraphProto, opsets: operators.Opsets, top_level: bool = False,
                  notes: list[str] | None = None) -> dict:
    """The mapping of a graph; the main graph's initializers under "initializers"."""
    if graph.sparse_initializer:
        raise NotExpressible(f"graph {quote(graph.name)} has sparse initializers; case files "
                             "write dense tensors only")
    if graph.initializer and not top_level:
        raise NotExpressible(f"subgraph {quote(graph.name)} has initializers; case files declare "
                             "initializers for the main graph only")
    mapping = {"inputs": [value_decl(v) for v in graph.input],
               "outputs": [value_decl(v) for v in graph.output]}
    if graph.initializer:
        mapping["initializers"] = initializers_data(graph)
    mapping["nodes"] = [node_mapping(n, opsets, notes) for n in graph.node]
    return mapping


def initializers_data(graph: onnx.GraphProto) -> list[dict]:
    """The graph's initializers as `{name, type, shape, value}`, in the graph's order."""
    inputs = {v.name for v in graph.input}
    outputs = {v.name for v in graph.output}
    found: list[dict] = []
    seen: set[str] = set()
    for tensor in graph.initializer:
        what = f"initializer {quote(tensor.name)}"
        if not tensor.name or tensor.name in seen:
            raise NotExpressible(f"{what}: an initializer needs a name of its own")
        seen.add(tensor.name)
        if tensor.name in inputs:  # a default value: each data set gives the input's value
            continue
        if tensor.name in outputs:
            raise NotExpressible(f"{what} is also a graph output; case files keep "
                                 "initializers apart from the graph's outputs")
        array = tensor_array(tensor, what)
        found.append(initializer_data(tensor.name, array, what))
    return found


def tensor_array(tensor: onnx.TensorProto, what: str):
    """The array an initializer or a tensor attribute holds (strings as their UTF-8 text,
    exactly); NotExpressible when case files cannot write it."""
    if tensor.data_location == onnx.TensorProto.EXTERNAL:
        raise NotExpressible(f"{what} keeps its data in an external file; case files "
                             "write every value")
    if BY_PROTO.get(tensor.data_type) is None:
        raise NotExpressible(f"{what} has element type {tensor.data_type}, which case "
                             "files cannot write")
    try:
        return decode(tensor)
    except (ValueError, TypeError) as error:
        raise NotExpressible(f"{what} cannot be read: {str(error).splitlines()[0]}") from None


def value_decl(info: onnx.ValueInfoProto) -> dict:
    try:
        value_type = from_type_proto(info.type)
    except (TypeError, KeyError):
        raise NotExpressible(f"value {quote(info.name)} has a type case files cannot write "
                             f"({info.type.WhichOneof('value') or 'no type'})") from None
    return decl_data(info.name, value_type)


def node_mapping(node: onnx.NodeProto, opsets: operators.Opsets,
                 notes: list[str] | None = None) -> dict:
    opset = opsets.of(node.domain)
    if opset is None:
        raise NotExpressible(f"node {node.op_type} is in domain {quote(node.domain)}, which "
                             "the model does not import" if node.domain in (
                                 operators.ML_DOMAIN, *operators.DEFAULT_DOMAINS) else
                             f"node {node.op_type} is in domain {quote(node.domain)}")
    op_schema = operators.schema(node.op_type, opset, node.domain)
    if op_schema is None:
        raise NotExpressible(f"{node.op_type} is not an {node.domain or 'ai.onnx'} operator at "
                             f"opset {opset}")
    mapping: dict = {"op_type": node.op_type}
    if node.domain not in operators.DEFAULT_DOMAINS:
        mapping["domain"] = node.domain
    mapping["inputs"] = formal_data(list(node.input), op_schema.inputs, node.op_type, "inputs")
    mapping["outputs"] = formal_data(list(node.output), op_schema.outputs, node.op_type, "outputs")
    if not mapping["inputs"]:
        del mapping["inputs"]
    if node.attribute:
        mapping["attributes"] = {a.name: attribute_data(a, opsets, node.op_type, notes)
                                 for a in node.attribute}
    return mapping


def attribute_data(attribute: AttributeProto, opsets: operators.Opsets, op_type: str,
                   notes: list[str] | None = None):
    """An attribute as the case file writes it (the writer's forms, a subgraph mapped here)."""
    kind = attribute.type
    what = f"{op_type} attribute {quote(attribute.name)}"
    if kind == AttributeProto.GRAPH:
        return graph_mapping(attribute.g, opsets, notes=notes)
    if kind == AttributeProto.TYPE_PROTO:
        try:
            value = from_type_proto(attribute.tp)
        except (TypeError, KeyError):
            raise NotExpressible(f"{what} holds a type case files cannot write") from None
    elif kind == AttributeProto.TENSOR:
        value = tensor_array(attribute.t, what)
    elif kind in ATTRIBUTE_FORMS:
        value = helper.get_attribute_value(attribute)
    else:
        kind_name = AttributeProto.AttributeType.Name(kind)
        raise NotExpressible(f"{what} is of kind {kind_name}, which case files cannot write")
    return writer.attribute_data(value, kind, opsets, what)


def to_yaml(imported: Imported, header: str = "") -> str:
    """The case file: each case under a comment naming the folder it came from."""
    return cases_text([([f"imported from {origin}",
                         *(f"note: {note}" for note in imported.notes.get(origin, ()))], case)
                       for origin, case in imported.cases], header)


def refused_by_builder(imported: Imported) -> Imported:
    """`imported` without the cases the case-file reader or the builder refuses, each moved to
    `skipped` with the first problem found."""
    from .._suite.compiling import compile_case

    kept = Imported([], list(imported.skipped), dict(imported.notes))
    for origin, case in imported.cases:
        problems = Problems()
        cases = load_text(to_yaml(Imported([(origin, case)], [])), origin, problems)
        if not problems.found:
            for loaded in cases:
                compile_case(loaded, "undefined", problems)
        if problems.found:
            first = problems.found[0]
            kept.skipped.append(Skipped(origin, NotExpressible.kind,
                                        f"the case format refuses it: line {first.line}: "
                                        f"{one_line(first.message)}"))
        else:
            kept.cases.append((origin, case))
    return kept
