"""Case folders of models whose graph boundary holds a map, as exporters of real tools write
them (ai.onnx.ml operators, opset imports ai.onnx and ai.onnx.ml), each with a data set:

- ZipMap: float[1, 3] in, seq(map(int64, float)) out, what every scikit-learn classifier that
  skl2onnx converts ends in;
- DictVectorizer: map(string, float) in (a MapProto .pb), float[1, 3] out, what skl2onnx makes
  of a DictVectorizer.

Expected values follow the ai.onnx.ml operator documentation: ZipMap makes one map per row,
class label -> the row's value; DictVectorizer writes each key's value at its index in
`string_vocabulary`, 0 for the keys the map does not hold.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from onnx import ModelProto, SequenceProto, TensorProto, helper, numpy_helper

ML = "ai.onnx.ml"


def _model(node, inputs, outputs) -> ModelProto:
    graph = helper.make_graph([node], node.op_type.lower(), inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                   helper.make_opsetid(ML, 1)])


def _write(folder: Path, model: ModelProto, inputs, outputs) -> Path:
    data = folder / "test_data_set_0"
    data.mkdir(parents=True)
    (folder / "model.onnx").write_bytes(model.SerializeToString())
    for kind, protos in (("input", inputs), ("output", outputs)):
        for j, proto in enumerate(protos):
            (data / f"{kind}_{j}.pb").write_bytes(proto.SerializeToString())
    return folder


def _floats(values) -> SequenceProto:
    return helper.make_sequence("", SequenceProto.TENSOR,
                                [numpy_helper.from_array(np.float32(v)) for v in values])


def write_zipmap_folder(folder: Path) -> Path:
    """ZipMap's case folder: output 'y' is seq(map(int64, tensor(float)))."""
    node = helper.make_node("ZipMap", ["x"], ["y"], domain=ML, classlabels_int64s=[0, 1, 2])
    out_type = helper.make_sequence_type_proto(helper.make_map_type_proto(
        TensorProto.INT64, helper.make_tensor_type_proto(TensorProto.FLOAT, [])))
    model = _model(node, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3])],
                   [helper.make_value_info("y", out_type)])
    x = np.float32([[0.2, 0.5, 0.3]])
    row = helper.make_map("row", TensorProto.INT64, [0, 1, 2], _floats(x[0]))
    return _write(folder, model, [numpy_helper.from_array(x, "x")],
                  [helper.make_sequence("y", SequenceProto.MAP, [row])])


def write_dict_vectorizer_folder(folder: Path) -> Path:
    """DictVectorizer's case folder: input 'x' is map(string, tensor(float))."""
    node = helper.make_node("DictVectorizer", ["x"], ["y"], domain=ML,
                            string_vocabulary=["a", "b", "c"])
    in_type = helper.make_map_type_proto(
        TensorProto.STRING, helper.make_tensor_type_proto(TensorProto.FLOAT, []))
    model = _model(node, [helper.make_value_info("x", in_type)],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])])
    x = helper.make_map("x", TensorProto.STRING, [b"a", b"c"], _floats([1.5, 2.0]))
    y = numpy_helper.from_array(np.float32([[1.5, 0.0, 2.0]]), "y")
    return _write(folder, model, [x], [y])


#: The map models: folder name -> (writer, the graph value and its type as messages say them,
#: the ai.onnx.ml operator).
MAP_FOLDERS = {
    "test_zipmap": (write_zipmap_folder, "graph output 'y' is seq(map(int64, tensor(float)))",
                    "ZipMap"),
    "test_dict_vectorizer": (write_dict_vectorizer_folder,
                             "graph input 'x' is map(string, tensor(float))", "DictVectorizer"),
}
