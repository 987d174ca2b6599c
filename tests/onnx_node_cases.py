"""onnx's own node cases that use a sequence or optional operator, written to disk in the
standard layout (onnx >= 1.23 keeps them in memory only), as a foreign suite to read."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import onnx

from onnx_seq_tests._core.value_kinds import boundary_types
from onnx_seq_tests._suite.codec import encode

SEQUENCE_OR_OPTIONAL = ("Sequence", "Optional", "ConcatFromSequence", "SplitToSequence")


def _uses_sequences(graph: onnx.GraphProto) -> bool:
    for node in graph.node:
        if node.op_type.startswith(SEQUENCE_OR_OPTIONAL) or node.op_type in (
                "ConcatFromSequence", "SplitToSequence"):
            return True
        for attribute in node.attribute:
            if attribute.type == onnx.AttributeProto.GRAPH and _uses_sequences(attribute.g):
                return True
    types = [v.type.WhichOneof("value") for v in (*graph.input, *graph.output)]
    return any(t in ("sequence_type", "optional_type") for t in types)


def write_onnx_node_cases(root: Path) -> list[str]:
    """Write them under `root/node/`; return the folder names."""
    from onnx.backend.test.loader import load_model_tests

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tests = load_model_tests(kind="node")
    names = []
    for test in tests:
        if test.model is None or not _uses_sequences(test.model.graph):
            continue
        folder = Path(root) / "node" / test.name
        folder.mkdir(parents=True)
        (folder / "model.onnx").write_bytes(test.model.SerializeToString())
        (folder / "data.json").write_text(json.dumps({"atol": test.atol, "rtol": test.rtol}))
        input_types, output_types = boundary_types(test.model)
        for k, (inputs, outputs) in enumerate(test.data_sets):
            data = folder / f"test_data_set_{k}"
            data.mkdir()
            graph = test.model.graph
            for side, infos, types, values in (("input", graph.input, input_types, inputs),
                                               ("output", graph.output, output_types, outputs)):
                for j, (info, value_type, value) in enumerate(zip(infos, types, values,
                                                                  strict=True)):
                    proto = encode(value, value_type, info.name)
                    (data / f"{side}_{j}.pb").write_bytes(proto.SerializeToString())
        names.append(test.name)
    return names
