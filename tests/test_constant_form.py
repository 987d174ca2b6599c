"""The constant form (onnx_seq_tests/_suite/constant_form.py): every case of cases/ either has
one variant per data set, with no graph input, a valid model and the spec oracle's answer as its
expected values, or a reason why it has none."""

import onnx
import pytest
from conftest import ROOT

from onnx_seq_tests._casefile.reader import load_cases
from onnx_seq_tests._oracle.expectations import check_case
from onnx_seq_tests._suite import tensor_io
from onnx_seq_tests._suite.constant_form import derive
from onnx_seq_tests._suite.model import build_model, validate

INPUTLESS = "the case has no graph input: it is its own constant form"


@pytest.fixture(scope="module")
def cases():
    return load_cases(sorted((ROOT / "cases").rglob("*.yaml")))


def test_every_variant_is_valid_has_no_input_and_the_spec_answer(cases):
    variants = 0
    for case in cases:
        form = derive(case)
        assert bool(form.variants) != bool(form.reason), case.name
        if form.reason:  # no graph input, or the wrapping operators' limit (tensor_io's)
            assert form.reason in (INPUTLESS, tensor_io.derive(case).reason), case.name
        for k, variant in enumerate(form.variants):
            variants += 1
            assert variant.graph.inputs == () and len(variant.data_sets) == 1
            assert variant.data_sets[0].inputs == ()
            assert variant.data_sets[0].outputs == case.data_sets[k].outputs
            model = build_model(variant)
            validate(model, variant)
            onnx.checker.check_model(model, full_check=True)
            assert not model.graph.input
            assert check_case(variant) == [], variant.name  # the oracle agrees
    assert variants > len(cases)


def test_names_and_reasons(cases):
    by_name = {case.name: case for case in cases}
    one = derive(by_name["sequence_construct_newest_opset"])
    assert [v.name for v in one.variants] == ["sequence_construct_newest_opset__constant"]
    assert [n.op_type for n in one.variants[0].graph.nodes][:1] == ["SequenceConstruct"]
    several = next(c for c in cases if len(c.data_sets) > 1 and derive(c).variants)
    assert [v.name for v in derive(several).variants] == [
        f"{several.name}__constant{k}" for k in range(len(several.data_sets))]
    inputless = next(c for c in cases if not c.graph.inputs)
    assert derive(inputless).reason == INPUTLESS
