"""Declared shapes in the tensor-boundary form: each variant's boundary tensors declare the most
specific shape its data sets allow, so a runtime's handling of unknown dims is pinned by the
cases written for it (cases/unknown_dims.yaml), not met in front of every sequence operator."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

from onnx_seq_tests._core.elements import ELEMENTS
from onnx_seq_tests._core.suite_forms import SuiteForm
from onnx_seq_tests._core.value_kinds import TensorType
from onnx_seq_tests._published.case_folder import read_case_folder
from onnx_seq_tests._suite import tensor_io

TENSOR_FOLDER = SuiteForm.TENSOR_BOUNDARY.folder

FLOAT = ELEMENTS["float"]


def _dims(value: onnx.ValueInfoProto) -> list:
    tensor = value.type.tensor_type
    if not tensor.HasField("shape"):
        return []
    return [d.dim_value if d.HasField("dim_value") else d.dim_param or None
            for d in tensor.shape.dim]


def test_a_dim_is_fixed_where_the_data_sets_agree_and_named_where_they_differ():
    declared = TensorType(FLOAT, (None, None))
    one = [[np.zeros((2, 3))], [np.zeros((2, 5))]]
    assert tensor_io.specific_type(declared, one, "x").shape == (2, "x_dim1")


def test_a_declared_named_dim_is_kept_where_the_data_sets_differ():
    declared = TensorType(FLOAT, ("N",))
    assert tensor_io.specific_type(declared, [[np.zeros(2)], [np.zeros(4)]], "x").shape == ("N",)
    assert tensor_io.specific_type(declared, [[np.zeros(2)], [np.zeros(2)]], "x").shape == (2,)


def test_elements_of_one_sequence_that_differ_leave_the_dim_unknown():
    # as onnx infers one element type per sequence, a dim on which one data set's elements
    # differ is unknown (a named dim would say they are equal)
    declared = TensorType(FLOAT, None)
    groups = [[np.zeros((1, 2)), np.zeros((1, 0))]]
    assert tensor_io.specific_type(declared, groups, "s").shape == (1, None)


def test_values_of_different_ranks_keep_the_declared_type():
    declared = TensorType(FLOAT, None)
    assert tensor_io.specific_type(declared, [[np.zeros(2)], [np.zeros((2, 2))]], "x") == declared


def test_no_input_of_the_committed_tensor_boundary_form_has_an_unknown_dim(committed_suite):
    unknown = []
    for model_path in sorted((committed_suite / TENSOR_FOLDER).glob("*/model.onnx")):
        graph = onnx.load(model_path).graph
        for value in graph.input:
            if not value.type.tensor_type.HasField("shape") or None in _dims(value):
                unknown.append(f"{model_path.parent.name}: {value.name}")
    assert unknown == []


@pytest.mark.parametrize("name", ["test_unknown_dims_independent_lengths",
                                  "test_unknown_dims_sequence_length_of_uneven_inputs"])
def test_the_dedicated_cases_keep_unnamed_unknown_dims_in_the_original_form(committed_suite,
                                                                            name):
    folder = read_case_folder(committed_suite / "sequence_optional" / name)
    for value in folder.model.graph.input:
        assert set(_dims(value)) == {None}, value.name


def test_the_dedicated_zero_dim_is_declared_as_zero(committed_suite):
    folder = read_case_folder(committed_suite / "sequence_optional" / "test_zero_dim_declared")
    assert _dims(folder.model.graph.input[0]) == [0]
