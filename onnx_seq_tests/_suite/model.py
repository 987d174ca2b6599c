"""Case objects to ModelProtos, checked against onnx's schemas, checker and strict inference."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import AttributeProto, ModelProto, helper, shape_inference

from .._core import operators
from .._core.cases import Case, Graph, Node, graph_protos, walk
from .._core.elements import BY_DTYPE, BY_PROTO
from .._core.errors import ModelError
from .._core.value_kinds import TensorType, ValueType, from_type_proto, to_type_proto
from .codec import encode

PRODUCER = "onnx-seq-tests"


def build_model(case: Case) -> ModelProto:
    """The ModelProto of a case, validated; raises ModelError with a readable reason."""
    graph = _graph_proto(case.graph, f"test_{case.name}", case.doc)
    graph.initializer.extend(encode(i.value, i.type, i.name) for i in case.graph.initializers)
    opset_imports = [helper.make_opsetid("", case.opset)]
    if case.ml_opset is not None:
        opset_imports.append(helper.make_opsetid(operators.ML_DOMAIN, case.ml_opset))
    model = helper.make_model(
        graph,
        opset_imports=opset_imports,
        ir_version=helper.find_min_ir_version_for(opset_imports),
        producer_name=PRODUCER,
    )
    validate(model, case)
    return model


def _graph_proto(graph: Graph, name: str, doc: str = "") -> onnx.GraphProto:
    return helper.make_graph(
        [_node_proto(node, i) for i, node in enumerate(graph.nodes)],
        name,
        [_value_info(d.name, d.type, d.doc) for d in graph.inputs],
        [_value_info(d.name, d.type, d.doc) for d in graph.outputs],
        doc_string=doc or None,
    )


def _value_info(name: str, value_type: ValueType, doc: str = "") -> onnx.ValueInfoProto:
    info = onnx.ValueInfoProto(name=name, doc_string=doc or None)
    info.type.CopyFrom(to_type_proto(value_type))
    return info


def _node_proto(node: Node, index: int) -> onnx.NodeProto:
    proto = helper.make_node(node.op_type, list(node.inputs), list(node.outputs),
                             domain=node.domain or None)
    for name, value in node.attributes:
        proto.attribute.append(_attribute(name, value, f"{node.op_type}_{index}_{name}"))
    return proto


def _attribute(name: str, value, graph_name: str) -> AttributeProto:
    if isinstance(value, Graph):
        return helper.make_attribute(name, _graph_proto(value, graph_name))
    if isinstance(value, (int, float, str, list)):
        return helper.make_attribute(name, value)
    if isinstance(value, np.ndarray):  # a tensor, e.g. Constant's value: encoded as initializers
        tensor = encode(value, TensorType(BY_DTYPE[value.dtype], value.shape))
        tensor.ClearField("name")  # an attribute's tensor has none
        return helper.make_attribute(name, tensor)
    attribute = AttributeProto(name=name, type=AttributeProto.TYPE_PROTO)
    attribute.tp.CopyFrom(to_type_proto(value))
    return attribute


def validate(model: ModelProto, case: Case) -> None:
    """Schema types per node first (the clearest message), then strict inference and checker."""
    known = _known_types(model)
    for node in walk(case.graph):
        _check_node_types(node, case.opsets, known)
    try:
        shape_inference.infer_shapes(model, check_type=True, strict_mode=True, data_prop=True)
    except (onnx.shape_inference.InferenceError, onnx.checker.ValidationError,
            ValueError) as error:
        raise ModelError(f"onnx shape inference refuses the model: {_first_line(error)}") \
            from None
    try:
        onnx.checker.check_model(model, full_check=True)
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError,
            ValueError) as error:
        raise ModelError(f"onnx checker refuses the model: {_first_line(error)}") from None


def _known_types(model: ModelProto) -> dict[str, ValueType]:
    """The type of every value onnx can tell, boundary values as declared."""
    try:
        inferred = shape_inference.infer_shapes(model, check_type=False, strict_mode=False)
    except Exception:  # noqa: BLE001 - strict inference below reports the real problem
        inferred = model
    known: dict[str, ValueType] = {}
    for graph in graph_protos(inferred.graph):
        for info in [*graph.input, *graph.value_info, *graph.output]:
            if info.type.WhichOneof("value") is None:
                continue
            try:
                known.setdefault(info.name, from_type_proto(info.type))
            except (TypeError, KeyError):
                continue
    for info in [*model.graph.input, *model.graph.output]:
        known[info.name] = from_type_proto(info.type)
    for tensor in model.graph.initializer:
        known[tensor.name] = TensorType(BY_PROTO[tensor.data_type], tuple(tensor.dims))
    return known


def _check_node_types(node: Node, opsets: operators.Opsets,
                      known: dict[str, ValueType]) -> None:
    opset = opsets.of(node.domain) or 0
    op_schema = operators.defined_schema(node.op_type, opset, node.domain)
    label = f"{node.op_type}-{op_schema.since_version}"
    for side, count, least, most in (
            ("inputs", len(node.inputs), op_schema.min_input, op_schema.max_input),
            ("outputs", len(node.outputs), op_schema.min_output, op_schema.max_output)):
        if not least <= count <= most:
            omit = " (omit an optional one with \"\" to keep its place)" if side == "inputs" \
                else ""
            takes = f"at least {least}" if most > 1000 else f"{least}..{most}"
            raise ModelError(f"{label} takes {takes} {side}, this node has {count}{omit}",
                             node.where)
    def types(names: tuple[str, ...]) -> list[str | None]:
        return [str(known[name]) if name and name in known else None for name in names]

    refused = operators.type_refusal(op_schema, types(node.inputs), types(node.outputs))
    if refused is not None:
        side, position = refused
        names, formals = ((node.inputs, op_schema.inputs) if side == "input"
                          else (node.outputs, op_schema.outputs))
        name = names[position]
        formal = formals[min(position, len(formals) - 1)]
        allowed = operators.allowed_types(op_schema, formal.type_str)
        actual = str(known[name])
        hint = _newer_version_hint(node.op_type, opset, formal.type_str, actual, node.domain)
        raise ModelError(
            f"{label} {side} '{formal.name}' ('{name}') is {actual}, which {label} does "
            f"not allow; it allows {_summary(allowed)}{hint}", node.where)


def _newer_version_hint(op_type: str, opset: int, type_str: str, actual: str,
                        domain: str = "") -> str:
    for version in operators.versions(op_type, domain):
        if version <= opset:
            continue
        newer = operators.defined_schema(op_type, version, domain)
        for formal in [*newer.inputs, *newer.outputs]:
            if formal.type_str == type_str and actual in operators.allowed_types(newer, type_str):
                return f" ({op_type}-{version} accepts {actual}: use opset {version} or later)"
    return ""


def _summary(allowed) -> str:
    if len(allowed) <= 6:
        return ", ".join(allowed)
    kinds = sorted({t.split("(")[0] + ("(seq(...))" if t.startswith("optional(seq") else
                                        "(...)") for t in allowed})
    return f"{len(allowed)} types: " + ", ".join(kinds)


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return " ".join(text.split())[:600]
