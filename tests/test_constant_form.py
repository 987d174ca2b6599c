"""The constant form (onnx_seq_tests/_suite/constant_form.py): every case of cases/ either has
one variant per data set, with no graph input, a valid model and the spec oracle's answer as its
expected values twice, or a reason why it has none; the built suite holds it in its own folder,
and docs/suite-layout.md counts why cases have none; a folding optimizer run on it shows wrong
values (onnxscript's keepdims fold), and a runtime keeping state between runs fails it."""

import json
import shutil

import onnx
import pytest
from conftest import GENERATED, ROOT

from onnx_seq_tests._casefile.reader import load_cases
from onnx_seq_tests._core.errors import InvalidModel
from onnx_seq_tests._core.suite_forms import SuiteForm, is_derived_folder
from onnx_seq_tests._oracle.expectations import check_case
from onnx_seq_tests._published import coverage
from onnx_seq_tests._run.verifier import verify
from onnx_seq_tests._suite import tensor_io
from onnx_seq_tests._suite.constant_form import derive
from onnx_seq_tests._suite.model import build_model, validate
from onnx_seq_tests._transforms import TRANSFORMS, apply_transforms, builtin

FOLDER = SuiteForm.CONSTANT.folder

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
            # the same data set twice: the second run on the same prepared model
            assert variant.graph.inputs == () and len(variant.data_sets) == 2
            for data_set in variant.data_sets:
                assert data_set.inputs == ()
                assert data_set.outputs == case.data_sets[k].outputs
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


def test_the_form_is_named_once_and_found_by_manifest_or_folder():
    form = SuiteForm.CONSTANT
    assert (form.value, form.folder, form.manifest_form, form.title, form.short) == (
        "constant", "sequence_optional_constant", "constant", "constant form", "const.")
    assert SuiteForm.derived() == (SuiteForm.TENSOR_BOUNDARY, SuiteForm.CONSTANT)
    assert SuiteForm.of_manifest("constant") is form
    assert SuiteForm.of_manifest(None) is SuiteForm.of_manifest("x") is SuiteForm.AS_WRITTEN
    assert SuiteForm.of_case(f"{form.folder}/test_x__constant") is form
    assert SuiteForm.of_case("sequence_optional/test_x") is SuiteForm.AS_WRITTEN
    assert is_derived_folder(form.folder) and not is_derived_folder("sequence_optional")


# -- the built suite ----------------------------------------------------------------------------

def test_the_committed_suite_holds_each_constant_variant_and_no_input_file():
    manifest = json.loads((GENERATED / "manifest.json").read_bytes())
    cases = manifest["cases"]
    originals = {n: e for n, e in cases.items() if "form" not in e}
    variants = {n: e for n, e in cases.items() if e.get("form") == SuiteForm.CONSTANT.manifest_form}
    assert variants and all(bool(e["constant"]) != ("no_constant_form" in e)
                            for e in originals.values())
    assert sorted(n for e in originals.values() for n in e["constant"]) == sorted(variants)
    for name, entry in variants.items():
        assert entry["folder"] == f"{FOLDER}/test_{name}" and entry["data_sets"] == 2
        assert name in originals[entry["derived_from"]]["constant"]
    assert sorted(p.name for p in (GENERATED / FOLDER).iterdir()) == sorted(
        f"test_{n}" for n in variants)
    assert not [p for p in (GENERATED / FOLDER).rglob("input_*.pb")]


def test_the_layout_doc_counts_why_cases_have_no_constant_form():
    """docs/suite-layout.md's table of reasons is the one coverage renders from the committed
    manifest (`make refresh` does not rewrite it: copy the table below into the doc)."""
    table = "\n".join(coverage.reasons_table(coverage.derived_form(GENERATED, SuiteForm.CONSTANT)))
    text = (ROOT / "docs" / "suite-layout.md").read_text(encoding="utf-8")
    section = text[text.index("## The constant form"):]
    assert table in section, f"docs/suite-layout.md: the constant form's reasons are stale:\n" \
                             f"{table}"


def test_on_onnxruntime_each_case_stands_where_its_constant_variants_stand(suite_verification):
    """Built from initializers, a data set gives onnxruntime's verdict on the case as written:
    a case passes exactly when all its constant variants pass, and a variant that does not
    pass has its case's outcome."""
    outcome = {r.name.removeprefix("test_"): r.outcome for r in suite_verification
               if r.backend == "onnxruntime"}
    cases = json.loads((GENERATED / "manifest.json").read_bytes())["cases"]
    wrong = []
    for name, entry in cases.items():
        variants = [outcome[v] for v in entry.get("constant", ())]
        if variants and (outcome[name] == "pass") != (set(variants) == {"pass"}):
            wrong.append((name, outcome[name], variants))
        wrong += [(name, outcome[name], v) for v in variants if v not in ("pass", outcome[name])]
    assert wrong == []


# -- a folding optimizer on the constant form -----------------------------------------------------

KEEPDIMS = "test_split_to_sequence_1d_split_of_ones_keepdims_ignored__constant"


def test_onnxscript_folds_the_keepdims_case_to_wrong_values(tmp_path):
    """onnxscript's optimizer applies keepdims=0 to a SplitToSequence although `split` is given
    (docs/findings/onnxscript.md): on the constant form it rewrites the split as Split and
    Squeeze, and onnxruntime, right on the model as built, returns parts of shape [2] for
    [1, 2]: a comparator failure against the spec's expected values, not an exception. (The
    model it writes still declares the parts [1, 2], by onnx's inference before the fold, so
    a transform run with onnx's full check refuses it as invalid.)"""
    case = tmp_path / FOLDER / KEEPDIMS
    shutil.copytree(GENERATED / FOLDER / KEEPDIMS, case)
    model = onnx.load(case / "model.onnx")
    assert [n.op_type for n in model.graph.node] == ["SplitToSequence"]
    (before,) = verify(case, ["onnxruntime"])
    assert before.outcome == "pass", before.message
    folded = builtin.onnxscript_optimize(model)
    assert "SplitToSequence" not in {n.op_type for n in folded.graph.node}
    (case / "model.onnx").write_bytes(folded.SerializeToString())
    (after,) = verify(case, ["onnxruntime"])
    assert after.outcome == "fail"
    assert "element 0: expected shape [1, 2], got [2]" in after.message
    with pytest.raises(InvalidModel, match="differ in rank"):
        apply_transforms(model, [TRANSFORMS["onnxscript-optimize"]])


def test_a_runtime_keeping_state_between_runs_fails_the_constant_form(tmp_path):
    """The second data set of a constant variant is the same model run again: a backend whose
    second run differs from its first (faulty_backends.LeakAcrossRuns) passes the case as
    written (one data set) and fails its constant form, at data set 1."""
    name = "cc_sequence_insert_default"
    for form, folder in ((SuiteForm.AS_WRITTEN.folder, f"test_{name}"),
                         (FOLDER, f"test_{name}__constant")):
        shutil.copytree(GENERATED / form / folder, tmp_path / form / folder)
    results = {r.name: r for r in verify(tmp_path, ["faulty_backends:LeakAcrossRuns"])}
    assert results[f"test_{name}"].outcome == "pass"
    leaked = results[f"test_{name}__constant"]
    assert leaked.outcome == "fail" and leaked.message.startswith("data set 1: "), leaked.message
