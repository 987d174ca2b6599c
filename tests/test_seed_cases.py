"""The seed cases in generated/ against the seed pages, read back as any consumer reads them."""

import ast
import re
from pathlib import Path

import numpy as np
import pytest

from onnx_seq_tests._published.case_folder import read_case_folder
from onnx_seq_tests._suite.layout import SUITE

DATA = Path(__file__).parent / "data"
SUITE_DIR = Path(__file__).resolve().parent.parent / "generated" / SUITE


def parse_printed_array(text: str):
    """A numpy-printed array (`[[-1.  ,  0.  ], [ 2., 3.]]`) as nested Python lists."""
    text = re.sub(r"\s+", " ", text.strip())
    text = re.sub(r"(?<=[0-9.\]])\s+(?=[-0-9\[])", ", ", text)
    text = re.sub(r",\s*,", ",", text)
    return ast.literal_eval(text)


def seed_examples() -> dict:
    """{case name: (inputs [(name, dtype, value)], output (kind, dtype, value))} from the page."""
    page = (DATA / "seed_sequence_construct.txt").read_text()
    blocks = re.split(r"\n(test_cc_\w+)\n", page)[1:]
    examples = {}
    for name, body in zip(blocks[0::2], blocks[1::2], strict=True):
        inputs_text, outputs_text = body.split("\nOutputs:\n")
        inputs_text = inputs_text.split("\nInputs:\n")[1]
        outputs_text = outputs_text.split("\nOn this page")[0]
        inputs = [(m[0], m[1], parse_printed_array(m[2])) for m in re.findall(
            r"^  (\w+): shape=\([^)]*\), dtype=(\w+)\n(.*?)(?=^  \w+:|\Z)", inputs_text,
            flags=re.M | re.S)]
        sequence = re.match(r"  \w+: sequence\(len=(\d+)\), element_shape=\([^)]*\), "
                            r"element_dtype=(\w+)\n(.*)", outputs_text, flags=re.S)
        if sequence:
            items = re.split(r"\[\d+\]", sequence[3].strip()[1:-1])[1:]
            output = ("seq", sequence[2], [parse_printed_array(i) for i in items])
            assert len(output[2]) == int(sequence[1])
        else:
            tensor = re.match(r"  \w+: shape=\([^)]*\), dtype=(\w+)\n(.*)", outputs_text, re.S)
            output = ("tensor", tensor[1], parse_printed_array(tensor[2]))
        examples[name] = (inputs, output)
    return examples


EXAMPLES = seed_examples()


def test_the_page_has_seventeen_examples():
    assert len(EXAMPLES) == 17


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_seed_case_matches_page_value_for_value(name):
    folder = read_case_folder(SUITE_DIR / name)
    inputs, (kind, dtype, expected) = EXAMPLES[name]
    assert [i.name for i in folder.model.graph.input] == [n for n, _, _ in inputs]
    (got_inputs, got_outputs), = folder.data_sets
    for (_, want_dtype, want), got in zip(inputs, got_inputs, strict=True):
        assert got.dtype == np.dtype(want_dtype)
        np.testing.assert_array_equal(got, np.array(want, dtype=want_dtype))
    (got,) = got_outputs
    if kind == "seq":
        assert isinstance(got, list) and len(got) == len(expected)
        for element, want in zip(got, expected, strict=True):
            assert element.dtype == np.dtype(dtype)
            np.testing.assert_array_equal(element, np.array(want, dtype=dtype))
    else:
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(got, np.array(expected, dtype=dtype))
    assert (folder.atol, folder.rtol) == (0.0, 0.0)


# What the OptionalHasElement spec gives for each case: (opset, input type or None, expectations
# per data set). Version 18: "Returns true if (1) the input is an optional-type and contains an
# element, or, (2) the input is a tensor or sequence type. If the input is not provided or is an
# empty optional-type, this op returns false."
OPTIONAL_HAS_ELEMENT = {
    "v15_optional_tensor_present": (15, "optional(tensor(float))", [True]),
    "v15_optional_tensor_empty": (15, "optional(tensor(int32))", [False]),
    "v15_optional_seq_present": (15, "optional(seq(tensor(float)))", [True]),
    "v15_optional_seq_empty": (15, "optional(seq(tensor(float)))", [False]),
    "v18_optional_tensor_present": (18, "optional(tensor(float))", [True]),
    "v18_optional_tensor_empty": (18, "optional(tensor(int32))", [False]),
    "v18_optional_seq_present": (18, "optional(seq(tensor(int64)))", [True, True]),
    "v18_optional_seq_empty": (18, "optional(seq(tensor(int64)))", [False]),
    "v18_tensor_input": (18, "tensor(float)", [True]),
    "v18_seq_input": (18, "seq(tensor(float))", [True, True]),
    "v18_empty_input_name": (18, None, [False]),
    "v18_no_input": (18, None, [False]),
}


@pytest.mark.parametrize("suffix", sorted(OPTIONAL_HAS_ELEMENT))
def test_optional_has_element_expects_what_the_spec_says(suffix):
    opset, input_type, expectations = OPTIONAL_HAS_ELEMENT[suffix]
    folder = read_case_folder(SUITE_DIR / f"test_optional_has_element_{suffix}")
    assert [o.version for o in folder.model.opset_import] == [opset]
    assert [str(t) for t in folder.input_types] == ([input_type] if input_type else [])
    (node,) = folder.model.graph.node
    assert node.op_type == "OptionalHasElement"
    assert list(node.input) == {"v18_empty_input_name": [""], "v18_no_input": []}.get(
        suffix, [folder.model.graph.input[0].name] if input_type else [])
    got = [outputs[0] for _, outputs in folder.data_sets]
    assert [o.shape for o in got] == [()] * len(got)
    assert [o.dtype for o in got] == [np.dtype(bool)] * len(got)
    assert [bool(o) for o in got] == expectations
