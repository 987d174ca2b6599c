"""The built-in transforms: the tools that rewrite a model between an exporter and a runtime
(optimizers, simplifiers, IR libraries, onnx's version converter, onnxruntime's offline
optimizer), each called as its users call it, with its defaults. Each function takes a
ModelProto and returns the ModelProto the tool made; the tool's own package is imported only
when the transform runs."""

from __future__ import annotations

import os
import tempfile

import onnx
from onnx import ModelProto

from .._core import operators
from .._core.cases import graph_protos, proto_subgraphs


def onnxsim(model: ModelProto) -> ModelProto:
    """onnx-simplifier's `simplify` with its defaults (constant folding, shape inference and
    onnxoptimizer's passes); its own numerical check is off (`check_n=0`, its default)."""
    import onnxsim as tool

    simplified, _ = tool.simplify(model)
    return simplified


def onnxoptimizer(model: ModelProto) -> ModelProto:
    """onnxoptimizer's `optimize` with its default passes."""
    import onnxoptimizer as tool

    return tool.optimize(model)


def onnxoptimizer_fuse(model: ModelProto) -> ModelProto:
    """onnxoptimizer's `optimize` with its fuse and elimination passes."""
    import onnxoptimizer as tool

    return tool.optimize(model, tool.get_fuse_and_elimination_passes())


def onnxslim(model: ModelProto) -> ModelProto:
    """onnxslim's `slim` with its defaults."""
    import onnxslim as tool

    return tool.slim(model)


def onnxscript_optimize(model: ModelProto) -> ModelProto:
    """onnxscript's `optimizer.optimize` (constant folding, inlining, unused-node removal)."""
    from onnxscript import optimizer

    return optimizer.optimize(model)


def onnxscript_rewrite(model: ModelProto) -> ModelProto:
    """onnxscript's `rewriter.rewrite` with its default rules."""
    from onnxscript import rewriter

    return rewriter.rewrite(model)


def onnx_ir_round_trip(model: ModelProto) -> ModelProto:
    """onnx_ir's deserialization and serialization, nothing changed in between."""
    import onnx_ir as ir

    return ir.serde.serialize_model(ir.serde.deserialize_model(model))


def onnx_ir_passes(model: ModelProto) -> ModelProto:
    """onnx_ir's common passes that keep what a model computes: common-subexpression
    elimination, identity elimination, unused-node removal, constants lifted to initializers."""
    import onnx_ir as ir
    from onnx_ir.passes import PassManager, common

    passes = PassManager([common.CommonSubexpressionEliminationPass(),
                          common.IdentityEliminationPass(),
                          common.RemoveUnusedNodesPass(),
                          common.LiftConstantsToInitializersPass()])
    ir_model = ir.serde.deserialize_model(model)
    passes(ir_model)
    return ir.serde.serialize_model(ir_model)


def version_newest(model: ModelProto) -> ModelProto:
    """onnx's version converter, to the newest ai.onnx opset the installed onnx knows."""
    from onnx import version_converter

    return version_converter.convert_version(model, onnx.defs.onnx_opset_version())


def version_lowest(model: ModelProto) -> ModelProto:
    """onnx's version converter, down to the lowest ai.onnx opset that has every operator of
    the model (`lowest_opset`)."""
    from onnx import version_converter

    return version_converter.convert_version(model, lowest_opset(model))


def lowest_opset(model: ModelProto) -> int:
    """The lowest ai.onnx opset at which the model, as it is, is valid: from the newest first
    version of its operators (subgraphs too) on, the first opset at which onnx's full check
    accepts it (a newer version of an operator may be what admits its types); the model's own
    opset when none below it does."""
    ops = {node.op_type for graph in graph_protos(model.graph) for node in graph.node
           if node.domain in ("", "ai.onnx")}
    own = operators.model_opset(model) or onnx.defs.onnx_opset_version()
    firsts = [operators.versions(op)[0] for op in ops if operators.versions(op)]
    for candidate in range(max(firsts, default=1), own):
        trial = ModelProto()
        trial.CopyFrom(model)
        for opset in trial.opset_import:
            if opset.domain in ("", "ai.onnx"):
                opset.version = candidate
        try:
            onnx.checker.check_model(trial, full_check=True)
        except Exception:  # the checker's refusal: not valid at this opset
            continue
        return candidate
    return own


def onnxruntime_offline(model: ModelProto) -> ModelProto:
    """onnxruntime's offline optimizer at its basic level (the graph optimizations that hold on
    every execution provider: constant folding, redundant node elimination), the optimized
    model saved by `SessionOptions.optimized_model_filepath` and read back, with the opset
    imports no node uses dropped (`unused_opsets_dropped`).

    onnxruntime writes an import of its own `com.microsoft` opset into every model it saves,
    and `onnxruntime.backend.prepare` refuses a model importing an opset that is not released:
    without the drop every case would be refused, an artifact of the harness. A model whose
    nodes do use `com.microsoft` keeps the import and is refused honestly."""
    import onnxruntime

    with tempfile.TemporaryDirectory(prefix="onnx-seq-tests-ort-") as folder:
        path = os.path.join(folder, "optimized.onnx")
        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.optimized_model_filepath = path
        options.log_severity_level = 3
        onnxruntime.InferenceSession(model.SerializeToString(), options,
                                     providers=["CPUExecutionProvider"])
        return unused_opsets_dropped(onnx.load(path))


def unused_opsets_dropped(model: ModelProto) -> ModelProto:
    """`model` without the opset imports of domains that no node uses, in the main graph, a
    subgraph or a model-local function (their own imports are left as they are); the default
    domain's import is always kept."""
    graphs = [*graph_protos(model.graph), *(graph for function in model.functions
                                            for node in function.node
                                            for top in proto_subgraphs(node)
                                            for graph in graph_protos(top))]
    used = {node.domain or "ai.onnx" for graph in graphs for node in graph.node}
    used |= {node.domain or "ai.onnx" for function in model.functions for node in function.node}
    kept = [o for o in model.opset_import if (o.domain or "ai.onnx") in used | {"ai.onnx"}]
    del model.opset_import[:]
    model.opset_import.extend(kept)
    return model


def onnx_text_round_trip(model: ModelProto) -> ModelProto:
    """onnx's printer and parser: the model as ONNX text, parsed back."""
    import onnx.parser
    import onnx.printer

    return onnx.parser.parse_model(onnx.printer.to_text(model))


def onnx_inline(model: ModelProto) -> ModelProto:
    """onnx's inliner: every model-local function call inlined."""
    import onnx.inliner

    return onnx.inliner.inline_local_functions(model)


def onnx_shape_inference(model: ModelProto) -> ModelProto:
    """onnx's shape inference (strict, with data propagation), the inferred types written into
    the model as value_info."""
    return onnx.shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
