"""Types for the subgraph inputs and outputs a model leaves untyped (onnxscript writes Loop and
If bodies so), from onnx shape inference at the model's own opsets.

Only untyped values get a type: every node and every value the model types stays as it is.
A value inference cannot type is refused (NotExpressible) with its name and the reason.
"""

from __future__ import annotations

import onnx

from .._core.cases import graph_protos
from .._core.errors import NotExpressible, one_line
from .._core.problems import quote


def _subgraphs(graph: onnx.GraphProto) -> list[onnx.GraphProto]:
    """Every subgraph below `graph`, depth first in node order."""
    return list(graph_protos(graph))[1:]


def _untyped(graph: onnx.GraphProto) -> list[onnx.ValueInfoProto]:
    return [v for v in [*graph.input, *graph.output] if v.type.WhichOneof("value") is None]


def with_subgraph_types(model: onnx.ModelProto) -> onnx.ModelProto:
    """`model` itself when every subgraph input and output has a type; otherwise a copy whose
    untyped ones carry the type onnx.shape_inference.infer_shapes gives them."""
    if not any(_untyped(body) for body in _subgraphs(model.graph)):
        return model
    try:
        inferred = onnx.shape_inference.infer_shapes(model)
        failure = ""
    except Exception as error:  # onnx raises InferenceError, and others on a malformed model
        inferred, failure = model, one_line(" ".join(str(error).split()))[:200]
    typed = onnx.ModelProto()
    typed.CopyFrom(model)
    pairs = zip(_subgraphs(typed.graph), _subgraphs(inferred.graph), strict=True)
    for body, inferred_body in pairs:
        found = {v.name: v.type for v in [*inferred_body.input, *inferred_body.output]}
        for value in _untyped(body):
            kind = found[value.name].WhichOneof("value") if value.name in found else None
            if kind is None:
                why = f"shape inference failed: {failure}" if failure else \
                    "onnx shape inference gives it none"
                raise NotExpressible(f"value {quote(value.name)} of subgraph {quote(body.name)} "
                                     f"has no type, and {why}; give it a type in the model")
            value.type.CopyFrom(found[value.name])
    return typed
