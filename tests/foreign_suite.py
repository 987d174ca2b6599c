"""A small suite in the standard layout, written by hand with onnx.helper and numpy_helper.

It does not use the project's case compiler or codec, so it stands for a suite the project
never saw: sequences of 0-d tensors, empty sequences, empty optionals in both encodings (elem_type
UNDEFINED and elem_type TENSOR/SEQUENCE), strings (non-ASCII and empty), uneven SplitToSequence,
optional sequences, several data sets, a data.json tolerance, and case folders at several depths.
Expected values are written by hand from the ONNX operator documentation quoted beside them.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
from onnx import OptionalProto, SequenceProto, TensorProto, helper, numpy_helper

F32, I32, I64, STR = TensorProto.FLOAT, TensorProto.INT32, TensorProto.INT64, TensorProto.STRING
OPSET = 18


def tensor_type(elem: int, shape) -> onnx.TypeProto:
    return helper.make_tensor_type_proto(elem, shape)


def seq_type(elem: int, shape) -> onnx.TypeProto:
    return helper.make_sequence_type_proto(tensor_type(elem, shape))


def opt_type(inner: onnx.TypeProto) -> onnx.TypeProto:
    return helper.make_optional_type_proto(inner)


def tensor(array, name: str = "") -> TensorProto:
    return numpy_helper.from_array(np.asarray(array), name)


def sequence(arrays, name: str = "") -> SequenceProto:
    proto = SequenceProto(name=name, elem_type=SequenceProto.TENSOR)
    proto.tensor_values.extend(tensor(a) for a in arrays)
    return proto


def empty_optional_undefined(name: str = "") -> OptionalProto:
    """elem_type UNDEFINED, no value: what numpy_helper.from_optional(None) writes."""
    return numpy_helper.from_optional(None, name)


def empty_optional_typed(elem_type: int, name: str = "") -> OptionalProto:
    """elem_type TENSOR or SEQUENCE, no value: what onnxruntime's onnx_test_runner reads."""
    return OptionalProto(name=name, elem_type=elem_type)


def present_optional(inner, name: str = "") -> OptionalProto:
    proto = OptionalProto(name=name)
    if isinstance(inner, TensorProto):
        proto.elem_type = OptionalProto.TENSOR
        proto.tensor_value.CopyFrom(inner)
    else:
        proto.elem_type = OptionalProto.SEQUENCE
        proto.sequence_value.CopyFrom(inner)
    return proto


def write_case(root: Path, name: str, nodes, inputs, outputs, data_sets, tolerance=None,
               opset: int = OPSET) -> None:
    """Write `root/name`: inputs/outputs are (name, TypeProto); data sets hold protos whose
    names are set here to the graph value names."""
    graph = helper.make_graph(nodes, name,
                              [helper.make_value_info(n, t) for n, t in inputs],
                              [helper.make_value_info(n, t) for n, t in outputs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              ir_version=8)
    onnx.checker.check_model(model, full_check=True)
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "model.onnx").write_bytes(model.SerializeToString())
    if tolerance is not None:
        (folder / "data.json").write_text(json.dumps(tolerance))
    for k, (ins, outs) in enumerate(data_sets):
        data = folder / f"test_data_set_{k}"
        data.mkdir()
        for side, protos, decls in (("input", ins, inputs), ("output", outs, outputs)):
            for j, (proto, (value_name, _)) in enumerate(zip(protos, decls, strict=True)):
                proto.name = value_name
                (data / f"{side}_{j}.pb").write_bytes(proto.SerializeToString())


#: Cases whose outputs hold a sequence of two or more distinct elements.
SEQUENCE_CASES = (
    "test_seq_of_scalars", "test_seq_of_int64_extremes", "test_strings_sequence",
    "test_split_to_sequence_uneven", "test_split_to_sequence_lengths",
    "test_split_to_sequence_keepdims_0", "test_optional_of_sequence",
    "test_optional_get_element_sequence", "test_identity_optional_sequence",
    "test_tolerance_from_data_json",
)
#: Cases whose outputs hold at least one tensor with a value.
TENSOR_CASES = (*SEQUENCE_CASES, "test_string_sequence_at_last", "test_sequence_at_scalars",
                "test_optional_has_element_both_encodings", "test_sequence_length_of_empty")
#: Cases whose expected outputs hold an empty optional.
EMPTY_OPTIONAL_CASES = (
    "test_optional_empty_undefined_encoding", "test_optional_empty_typed_encoding",
    "test_optional_seq_empty_typed_encoding", "test_identity_optional_sequence",
)
#: Per planted fault (a class of faulty_backends), exactly the cases whose outputs it changes:
#: each must fail there and pass everywhere else.
FAULT_TARGETS = {
    "DropLast": SEQUENCE_CASES,
    "EmptySequences": SEQUENCE_CASES,
    "Reverse": SEQUENCE_CASES,
    "ChangeValue": TENSOR_CASES,
    "ChangeDtype": TENSOR_CASES,
    "LeadingDim": TENSOR_CASES,
    "FillEmptyOptional": EMPTY_OPTIONAL_CASES,
}


def write_foreign_suite(root: Path) -> Path:
    """Write the suite under `root` (at two depths) and return `root`."""
    root = Path(root)
    flat, deep = root / "seq", root / "more" / "optional"

    # SequenceConstruct: "Construct a tensor sequence containing 'inputs' tensors." 0-d tensors.
    write_case(flat, "test_seq_of_scalars",
               [helper.make_node("SequenceConstruct", ["a", "b", "c"], ["s"])],
               [("a", tensor_type(F32, [])), ("b", tensor_type(F32, [])),
                ("c", tensor_type(F32, []))],
               [("s", seq_type(F32, []))],
               [([tensor(np.float32(1.5)), tensor(np.float32(-2.0)), tensor(np.float32(np.nan))],
                 [sequence([np.float32(1.5), np.float32(-2.0), np.float32(np.nan)])]),
                ([tensor(np.float32(0.0)), tensor(np.float32(7.25)), tensor(np.float32(-1.0))],
                 [sequence([np.float32(0.0), np.float32(7.25), np.float32(-1.0)])])],
               tolerance={"atol": 0.0, "rtol": 0.0})
    big, small = np.iinfo(np.int64).max, np.iinfo(np.int64).min
    write_case(flat, "test_seq_of_int64_extremes",
               [helper.make_node("SequenceConstruct", ["a", "b"], ["s"])],
               [("a", tensor_type(I64, [])), ("b", tensor_type(I64, [2]))],
               [("s", seq_type(I64, None))],
               [([tensor(np.int64(big)), tensor(np.array([small, -1], np.int64))],
                 [sequence([np.int64(big), np.array([small, -1], np.int64)])])])

    # SequenceEmpty: "Construct an empty tensor sequence, with given data type."
    write_case(flat, "test_sequence_empty_int64",
               [helper.make_node("SequenceEmpty", [], ["s"], dtype=I64)],
               [], [("s", seq_type(I64, None))],
               [([], [sequence([])])])
    # SequenceErase: "by default it erases the last tensor"; one element in, none out.
    write_case(flat, "test_sequence_erase_to_empty",
               [helper.make_node("SequenceErase", ["s"], ["t"])],
               [("s", seq_type(I32, [2]))], [("t", seq_type(I32, [2]))],
               [([sequence([np.array([4, 5], np.int32)])], [sequence([])])])
    # SequenceLength of an empty sequence read from a file whose dtype lives only in the model.
    write_case(flat, "test_sequence_length_of_empty",
               [helper.make_node("SequenceLength", ["s"], ["n"])],
               [("s", seq_type(F32, [3]))], [("n", tensor_type(I64, []))],
               [([sequence([])], [tensor(np.int64(0))]),
                ([sequence([np.zeros(3, np.float32), np.ones(3, np.float32)])],
                 [tensor(np.int64(2))])])
    # SequenceAt: "Outputs a tensor copy from the tensor at 'position' in 'input_sequence'."
    write_case(flat, "test_sequence_at_scalars",
               [helper.make_node("SequenceAt", ["s", "p"], ["t"])],
               [("s", seq_type(I32, [])), ("p", tensor_type(I64, []))],
               [("t", tensor_type(I32, []))],
               [([sequence([np.int32(3), np.int32(-8), np.int32(0)]), tensor(np.int64(1))],
                 [tensor(np.int32(-8))]),
                ([sequence([np.int32(3), np.int32(-8), np.int32(0)]), tensor(np.int64(-1))],
                 [tensor(np.int32(0))])])

    # Strings, non-ASCII and empty, in elements of different shapes.
    a = np.array(["héllo", "", "日本語"], dtype=object)
    b = np.array([["", "ß"], ["x", "😀"]], dtype=object)
    write_case(flat, "test_strings_sequence",
               [helper.make_node("SequenceConstruct", ["a", "b"], ["s"])],
               [("a", tensor_type(STR, [3])), ("b", tensor_type(STR, [2, 2]))],
               [("s", seq_type(STR, None))],
               [([tensor(a), tensor(b)], [sequence([a, b])])])
    write_case(flat, "test_string_sequence_at_last",
               [helper.make_node("SequenceAt", ["s", "p"], ["t"])],
               [("s", seq_type(STR, None)), ("p", tensor_type(I64, []))],
               [("t", tensor_type(STR, [None, None]))],
               [([sequence([a, b]), tensor(np.int64(-1))], [tensor(b)])])

    # SplitToSequence: "The last chunk alone may be smaller than 'split' if the 'input' size
    # along the given axis 'axis' is not divisible by 'split'."
    x = np.arange(10, dtype=np.float32).reshape(5, 2)
    write_case(flat, "test_split_to_sequence_uneven",
               [helper.make_node("SplitToSequence", ["x", "split"], ["s"], axis=0)],
               [("x", tensor_type(F32, [5, 2])), ("split", tensor_type(I64, []))],
               [("s", seq_type(F32, [None, 2]))],
               [([tensor(x), tensor(np.int64(2))], [sequence([x[0:2], x[2:4], x[4:5]])])])
    # "the input tensor is split into 'size(split)' chunks, with lengths ... specified in 'split'"
    write_case(flat, "test_split_to_sequence_lengths",
               [helper.make_node("SplitToSequence", ["x", "split"], ["s"], axis=0)],
               [("x", tensor_type(F32, [5, 2])), ("split", tensor_type(I64, [2]))],
               [("s", seq_type(F32, [None, 2]))],
               [([tensor(x), tensor(np.array([1, 4], np.int64))], [sequence([x[0:1], x[1:5]])])])
    # No split: "a default scalar value of 1"; keepdims 0 drops the split axis.
    y = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int64)
    write_case(flat, "test_split_to_sequence_keepdims_0",
               [helper.make_node("SplitToSequence", ["y"], ["s"], axis=1, keepdims=0)],
               [("y", tensor_type(I64, [2, 3]))], [("s", seq_type(I64, [2]))],
               [([tensor(y)], [sequence([y[:, 0], y[:, 1], y[:, 2]])])])

    # Optional: "containing either an empty optional of a certain type specified by the
    # attribute, or a non-empty value containing the input element."
    write_case(deep, "test_optional_empty_undefined_encoding",
               [helper.make_node("Optional", [], ["o"], type=tensor_type(F32, [2]))],
               [], [("o", opt_type(tensor_type(F32, [2])))],
               [([], [empty_optional_undefined()])])
    write_case(deep, "test_optional_empty_typed_encoding",
               [helper.make_node("Optional", [], ["o"], type=tensor_type(F32, [2]))],
               [], [("o", opt_type(tensor_type(F32, [2])))],
               [([], [empty_optional_typed(OptionalProto.TENSOR)])])
    write_case(deep, "test_optional_seq_empty_typed_encoding",
               [helper.make_node("Optional", [], ["o"], type=seq_type(I32, None))],
               [], [("o", opt_type(seq_type(I32, None)))],
               [([], [empty_optional_typed(OptionalProto.SEQUENCE)])])
    # OptionalHasElement: "If the input is not provided or is an empty optional-type, this op
    # returns false." Inputs in both empty encodings, then a present one.
    write_case(deep, "test_optional_has_element_both_encodings",
               [helper.make_node("OptionalHasElement", ["o"], ["h"])],
               [("o", opt_type(tensor_type(I32, [2])))], [("h", tensor_type(TensorProto.BOOL, []))],
               [([empty_optional_undefined()], [tensor(np.bool_(False))]),
                ([empty_optional_typed(OptionalProto.TENSOR)], [tensor(np.bool_(False))]),
                ([present_optional(tensor(np.array([1, 2], np.int32)))],
                 [tensor(np.bool_(True))])])
    # Optional(seq): present, elements of different shapes.
    p, q = np.array([1.0, 2.0], np.float32), np.array([3.0, 4.0, 5.0], np.float32)
    write_case(deep, "test_optional_of_sequence",
               [helper.make_node("Optional", ["s"], ["o"])],
               [("s", seq_type(F32, [None]))], [("o", opt_type(seq_type(F32, [None])))],
               [([sequence([p, q])], [present_optional(sequence([p, q]))])])
    # OptionalGetElement: "If the input is an optional type, it outputs the element in the
    # input." A present optional holding an empty sequence is not an empty optional.
    write_case(deep, "test_optional_get_element_sequence",
               [helper.make_node("OptionalGetElement", ["o"], ["s"])],
               [("o", opt_type(seq_type(I32, None)))], [("s", seq_type(I32, None))],
               [([present_optional(sequence([np.array([7], np.int32),
                                             np.array([[8, 9]], np.int32)]))],
                 [sequence([np.array([7], np.int32), np.array([[8, 9]], np.int32)])]),
                ([present_optional(sequence([]))], [sequence([])])])
    # Identity on optional(seq): present, empty (UNDEFINED), empty (typed SEQUENCE).
    write_case(deep, "test_identity_optional_sequence",
               [helper.make_node("Identity", ["o"], ["r"])],
               [("o", opt_type(seq_type(F32, [None])))],
               [("r", opt_type(seq_type(F32, [None])))],
               [([present_optional(sequence([p, q]))], [present_optional(sequence([p, q]))]),
                ([empty_optional_undefined()], [empty_optional_typed(OptionalProto.SEQUENCE)]),
                ([empty_optional_typed(OptionalProto.SEQUENCE)], [empty_optional_undefined()])])

    # A tolerance from data.json: x / 3 written to four places, within atol 1e-3.
    write_case(flat, "test_tolerance_from_data_json",
               [helper.make_node("Constant", [], ["three"],
                                 value=tensor(np.array(3.0, np.float32))),
                helper.make_node("Div", ["x", "three"], ["y"]),
                helper.make_node("SequenceConstruct", ["y", "x"], ["s"])],
               [("x", tensor_type(F32, [2]))], [("s", seq_type(F32, [2]))],
               [([tensor(np.array([1.0, 2.0], np.float32))],
                 [sequence([np.array([0.3333, 0.6667], np.float32),
                            np.array([1.0, 2.0], np.float32)])])],
               tolerance={"atol": 1e-3, "rtol": 0.0})
    return root


def case_names() -> list[str]:
    """Every case folder name the suite holds."""
    return sorted({*SEQUENCE_CASES, *TENSOR_CASES, *EMPTY_OPTIONAL_CASES,
                   "test_sequence_empty_int64", "test_sequence_erase_to_empty",
                   "test_optional_seq_empty_typed_encoding"})
