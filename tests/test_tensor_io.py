"""The tensor-boundary form: how a case is taken to tensors only (names, splits, values as graph
inputs, expectations taken apart), the cases without a form, its place in builds, checks, packs
and the drop-in, and the proof that it judges a backend as the cases as written do."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import onnx
import onnxruntime.backend
import pytest
from click.testing import CliRunner
from faulty_backends import FAULTS

import onnx_seq_tests
from onnx_seq_tests._casefile.reader import load_cases
from onnx_seq_tests._cli import main
from onnx_seq_tests._core import operators as schemas
from onnx_seq_tests._core.elements import ELEMENTS
from onnx_seq_tests._core.suite_forms import SuiteForm
from onnx_seq_tests._core.value_kinds import OptionalType, SequenceType, TensorType
from onnx_seq_tests._published.pack import pack
from onnx_seq_tests._run.verifier import verify
from onnx_seq_tests._suite import tensor_io
from onnx_seq_tests._suite.build import build
from onnx_seq_tests._suite.build_check import check
from onnx_seq_tests._suite.manifest import verify as verify_manifest

ROOT = Path(__file__).resolve().parent.parent
FORM_DIR = SuiteForm.TENSOR_BOUNDARY.folder
FORM = SuiteForm.TENSOR_BOUNDARY.manifest_form

CASES = """
- name: tio_insert
  opset: 11
  inputs:
    - {name: seq, type: seq(tensor(float)), shape: [2]}
    - {name: item, type: tensor(float), shape: [2]}
    - {name: position, type: tensor(int64), shape: []}
  outputs:
    - {name: longer, type: seq(tensor(float)), shape: [2]}
  nodes:
    - op_type: SequenceInsert
      inputs: {input_sequence: seq, tensor: item, position: position}
      outputs: {output_sequence: longer}
  data_sets:
    - inputs: {seq: [[1.0, 2.0], [3.0, 4.0]], item: [5.0, 6.0], position: -1}
      outputs: {longer: [[1.0, 2.0], [5.0, 6.0], [3.0, 4.0]]}
    - inputs: {seq: [], item: [5.0, 6.0], position: 0}
      outputs: {longer: [[5.0, 6.0]]}
    - inputs: {seq: [[7.0, 8.0], [9.0, 0.5]], item: [5.0, 6.0], position: 2}
      outputs: {longer: [[7.0, 8.0], [9.0, 0.5], [5.0, 6.0]]}
- name: tio_optional_seq
  opset: 18
  inputs:
    - {name: maybe, type: optional(seq(tensor(int64))), shape: [1]}
  outputs:
    - {name: same, type: optional(seq(tensor(int64))), shape: [1]}
  nodes:
    - op_type: Identity
      inputs: {input: maybe}
      outputs: {output: same}
  data_sets:
    - inputs: {maybe: [[1], [2]]}
      outputs: {same: [[1], [2]]}
    - inputs: {maybe: {optional: empty}}
      outputs: {same: {optional: empty}}
- name: tio_plain
  opset: 11
  inputs:
    - {name: x, type: tensor(int32), shape: [3]}
  outputs:
    - {name: joined, type: tensor(int32), shape: [3]}
  nodes:
    - op_type: SplitToSequence
      inputs: {input: x}
      outputs: {output_sequence: parts}
    - op_type: ConcatFromSequence
      inputs: {input_sequence: parts}
      outputs: {concat_result: joined}
      attributes: {axis: 0, new_axis: 0}
  data_sets:
    - inputs: {x: [1, 2, 3]}
      outputs: {joined: [1, 2, 3]}
- name: tio_bfloat16
  opset: 24
  inputs:
    - {name: x, type: tensor(bfloat16), shape: [2]}
  outputs:
    - {name: parts, type: seq(tensor(bfloat16)), shape: [1]}
  nodes:
    - op_type: SplitToSequence
      inputs: {input: x}
      outputs: {output_sequence: parts}
      attributes: {keepdims: 1}
  data_sets:
    - inputs: {x: [1.0, 2.0]}
      outputs: {parts: [[1.0], [2.0]]}
"""


@pytest.fixture(scope="module")
def cases(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("cases")
    (folder / "tio.yaml").write_text(CASES)
    return {case.name: case for case in load_cases([folder])}


@pytest.fixture(scope="module")
def small_suite(tmp_path_factory, cases) -> Path:
    folder = tmp_path_factory.mktemp("small")
    (folder / "tio.yaml").write_text(CASES)
    root = folder / "generated"
    build([folder / "tio.yaml"], root)
    return root


# -- one case to its variants -------------------------------------------------------------------

def test_a_case_splits_by_signature_and_keeps_its_values_as_graph_inputs(cases):
    form = tensor_io.derive(cases["tio_insert"])
    names = [v.name for v in form.variants]
    assert names == ["tio_insert__len2_len3", "tio_insert__len0_len1"]
    long, empty = form.variants
    assert [len(v.data_sets) for v in form.variants] == [2, 1]
    assert [d.name for d in long.graph.inputs] == ["seq_0", "seq_1", "item", "position"]
    assert [d.doc for d in long.graph.inputs] == ["element 0 of input 'seq'",
                                                  "element 1 of input 'seq'", "", ""]
    assert [d.name for d in long.graph.outputs] == ["longer_length", "longer_0", "longer_1",
                                                    "longer_2"]
    assert all(isinstance(d.type, TensorType) for d in (*long.graph.inputs, *long.graph.outputs))
    # the case's own values are graph inputs; the only constants are the unwrapping positions
    constants = [n for n in long.graph.nodes if n.op_type == "Constant"]
    assert [c.outputs[0] for c in constants] == [f"longer_position_{k}" for k in range(3)]
    second = long.data_sets[1]
    assert [np.asarray(v).tolist() for v in second.inputs] == [[7.0, 8.0], [9.0, 0.5],
                                                              [5.0, 6.0], 2]
    assert int(second.outputs[0]) == 3 and second.outputs[0].dtype == np.int64
    assert np.asarray(second.outputs[3]).tolist() == [5.0, 6.0]
    assert [n.op_type for n in empty.graph.nodes][:2] == ["SequenceEmpty", "SequenceInsert"]
    assert dict(empty.graph.nodes[0].attributes) == {"dtype": ELEMENTS["float"].proto}
    assert "(its data set(s) 1)" in empty.doc and empty.opset == 11


def test_optional_of_a_sequence_is_built_and_taken_apart_both_ways(cases):
    present, absent = tensor_io.derive(cases["tio_optional_seq"]).variants
    assert (present.name, absent.name) == ("tio_optional_seq__somelen2_somelen2",
                                           "tio_optional_seq__none_none")
    assert [n.op_type for n in present.graph.nodes] == [
        "SequenceConstruct", "Optional", "Identity", "OptionalHasElement", "OptionalGetElement",
        "SequenceLength", "Constant", "SequenceAt", "Constant", "SequenceAt"]
    assert [d.doc for d in present.graph.outputs] == [
        "presence of output 'same'", "length of the value of output 'same'",
        "element 0 of the value of output 'same'", "element 1 of the value of output 'same'"]
    assert absent.graph.inputs == ()
    optional = absent.graph.nodes[0]
    assert optional.op_type == "Optional" and optional.inputs == ()
    assert dict(optional.attributes) == {
        "type": SequenceType(TensorType(ELEMENTS["int64"], (1,)))}
    assert [bool(v) for v in absent.data_sets[0].outputs] == [False]


def test_a_case_without_sequence_or_optional_boundary_values_is_its_own_form(cases):
    (only,) = tensor_io.derive(cases["tio_plain"]).variants
    assert only.name == "tio_plain__tensors"
    assert only.graph.nodes == cases["tio_plain"].graph.nodes


def test_types_the_wrapping_operators_do_not_allow_leave_a_case_without_a_form(cases):
    form = tensor_io.derive(cases["tio_bfloat16"])
    assert form.variants == ()
    assert form.reason == ("SequenceLength-11 does not allow seq(tensor(bfloat16)) "
                           "(its only version)")


def test_the_opset_is_raised_only_where_a_wrapping_operator_needs_it():
    floats = TensorType(ELEMENTS["float"], (2,))
    optional = [("Optional", [floats], [OptionalType(floats)])]
    assert tensor_io.first_opset(18, optional) == (18, "")
    assert tensor_io.first_opset(13, optional) == (15, "")  # Optional exists from opset 15
    bf16 = TensorType(ELEMENTS["bfloat16"], (2,))
    opset, reason = tensor_io.first_opset(28, [("SequenceConstruct", [bf16], [SequenceType(bf16)])])
    assert opset is None and reason.startswith("SequenceConstruct-11 does not allow")


# -- the built suite ----------------------------------------------------------------------------

def test_the_manifest_ties_each_case_to_its_variants_or_to_its_reason():
    manifest = json.loads((ROOT / "generated" / "manifest.json").read_bytes())
    cases = manifest["cases"]
    originals = {n: e for n, e in cases.items() if "form" not in e}
    derived = {n: e for n, e in cases.items() if e.get("form") == FORM}
    without = {n for n, e in originals.items() if not e[FORM]}
    by_type = {n for n in without if not originals[n]["no_tensor_io_form"].startswith("map(")}
    assert len(derived) > len(originals) > 10 * len(by_type) > 0 and without > by_type
    assert all(originals[n]["no_tensor_io_form"] for n in without)
    for name, entry in derived.items():
        assert name in originals[entry["derived_from"]][FORM]
        assert entry["folder"] == f"{FORM_DIR}/test_{name}"
    assert sum(len(e[FORM]) for e in originals.values()) == len(derived)


def test_build_check_pack_and_drop_in_cover_both_forms(small_suite, tmp_path):
    assert sorted(p.name for p in small_suite.iterdir()) == [
        "manifest.json", *sorted(form.folder for form in SuiteForm)]
    assert len(list((small_suite / FORM_DIR).iterdir())) == 5
    assert check([small_suite.parent / "tio.yaml"], small_suite) == []
    # a folder and a file in the form's folder that no build wrote are drift
    copy = tmp_path / "generated"
    shutil.copytree(small_suite, copy)
    shutil.copytree(copy / FORM_DIR / "test_tio_plain__tensors", copy / FORM_DIR / "test_gone")
    (copy / FORM_DIR / "notes.txt").write_text("x")
    drift = check([small_suite.parent / "tio.yaml"], copy)
    why = "(no build wrote it; `gen-seq-tests build` refuses to run until it is moved out)"
    assert f"foreign: {FORM_DIR}/test_gone/ {why}" in drift
    assert f"foreign: {FORM_DIR}/notes.txt {why}" in drift
    # pack takes both forms
    sha, count = pack(small_suite, tmp_path / "suite.tar.gz")
    assert count == 1 + len(json.loads((small_suite / "manifest.json").read_bytes())["files"])
    assert verify_manifest(small_suite) == []
    # the drop-in loads both forms, under their own names
    backend_test = onnx_seq_tests.backend_test(onnxruntime.backend, small_suite)
    names = {name for cls in backend_test.test_cases.values() for name in dir(cls)
             if name.startswith("test_tio")}
    assert {"test_tio_insert_cpu", "test_tio_insert__len2_len3_cpu",
            "test_tio_optional_seq__none_none_cpu", "test_tio_plain__tensors_cpu"} <= names


def test_an_edit_rebuilds_the_case_and_its_variants_only(tmp_path):
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "tio.yaml").write_text(CASES)
    root = tmp_path / "generated"
    build([folder], root)
    (folder / "tio.yaml").write_text(CASES.replace("[1, 2, 3]", "[1, 2, 4]"))
    report = build([folder], root)
    assert report.rebuilt == ["tio_plain"]  # its folder and its variant's
    assert report.cases == 4


def test_a_case_named_like_a_variant_is_refused(tmp_path):
    (tmp_path / "c.yaml").write_text(CASES + CASES.split("- name: tio_optional_seq")[0]
                                     .replace("name: tio_insert", "name: tio_insert__len0_len1"))
    result = CliRunner().invoke(main, ["build", str(tmp_path / "c.yaml"), "-o",
                                       str(tmp_path / "out")])
    assert result.exit_code == 2
    assert "duplicate case names: tio_insert__len0_len1" in result.output
    assert not (tmp_path / "out").exists()


# -- the two forms judge alike ------------------------------------------------------------------

def _by_original(results) -> dict:
    """(original name, backend) -> (its outcome, [(variant, outcome)])."""
    manifest = json.loads((ROOT / "generated" / "manifest.json").read_bytes())
    outcome = {(r.name.removeprefix("test_"), r.backend): r.outcome for r in results}
    backends = sorted({r.backend for r in results})
    table = {}
    for name, entry in manifest["cases"].items():
        if "form" in entry or not entry[FORM] or (name, backends[0]) not in outcome:
            continue
        for backend in backends:
            table[(name, backend)] = (outcome[(name, backend)],
                                      [(v, outcome[(v, backend)]) for v in entry[FORM]])
    return table


def _optionals(folder: str) -> int:
    model = onnx.load(str(ROOT / "generated" / folder / "model.onnx"))
    return sum(1 for node in model.graph.node if node.op_type == "Optional")


def _builds_an_optional(name: str, variant: str) -> bool:
    """Whether the variant builds an optional input with Optional (more Optional nodes)."""
    return _optionals(f"{FORM_DIR}/test_{variant}") > _optionals(f"sequence_optional/test_{name}")


def test_a_case_passes_exactly_when_all_its_variants_pass(suite_verification):
    """Over the whole committed suite. onnxruntime: no exception. onnx's reference evaluator:
    its Optional operator is wrong (Optional() gives [None], so OptionalHasElement says True;
    Optional(x) gives [x], so OptionalGetElement returns a list), so a
    variant that builds an optional input with Optional can fail where the case passes; every
    disagreement must be one of those, and none may go the other way."""
    table = _by_original(suite_verification)
    manifest = json.loads((ROOT / "generated" / "manifest.json").read_bytes())
    with_form = [e for e in manifest["cases"].values() if e.get(FORM)]
    assert len(table) == 2 * len(with_form)
    disagree = {key: value for key, value in table.items()
                if (value[0] == "pass") != all(o == "pass" for _, o in value[1])}
    assert [key for key in disagree if key[1] == "onnxruntime"] == []
    for (name, backend), (outcome, variants) in disagree.items():
        assert outcome == "pass", (name, backend)
        for variant, variant_outcome in variants:
            assert variant_outcome == "pass" or _builds_an_optional(name, variant), (name, variant)
    assert len(disagree) < 260  # 212 with 747 cases: the Optional* cases of v15, v18, v28
    passing = sum(1 for (_, b), (o, _) in table.items() if b == "onnxruntime" and o == "pass")
    assert passing > 300


def test_every_planted_fault_is_caught_on_both_forms(tmp_path):
    """Each fault of faulty_backends, on a sample of cases and all their variants: it fails an
    original case exactly when it fails one of that case's variants."""
    manifest = json.loads((ROOT / "generated" / "manifest.json").read_bytes())
    sample = ["sequence_insert_at_length_append", "sequence_insert_into_empty",
              "sequence_erase_default_position", "optional_v15_no_input_tensor_type",
              "loop_v16_produces_empty_optional", "if_v16_optional_either_branch",
              "split_to_sequence_uneven_sizes", "concat_from_sequence_new_axis_negative",
              "optional_get_element_v18_optional_seq_int64",
              "optional_has_element_v18_optional_tensor_float", "sequence_map_empty_sequence"]
    root = tmp_path / "suite"
    for name in sample:
        for folder in [manifest["cases"][name]["folder"]] + [
                manifest["cases"][v]["folder"] for v in manifest["cases"][name][FORM]]:
            shutil.copytree(ROOT / "generated" / folder, root / folder)
    specs = [f"faulty_backends:{fault.__name__}" for fault in FAULTS]
    table = _by_original(verify(root, ["onnxruntime", *specs], jobs=2))
    for name in sample:
        outcome, variants = table[(name, "onnxruntime")]
        assert outcome == "pass" and {o for _, o in variants} == {"pass"}, name
    for spec in specs:
        caught = [n for n in sample if table[(n, spec)][0] != "pass"]
        caught_in_form = [n for n in sample
                          if any(o != "pass" for _, o in table[(n, spec)][1])]
        assert caught, spec
        assert caught == caught_in_form, spec


def test_the_docs_name_exactly_the_types_without_a_form():
    """docs/suite-layout.md names the element types whose sequences have no tensor-boundary form
    (those SequenceConstruct-11 does not allow), and every case the manifest leaves without a form
    moves one of them."""
    text = (ROOT / "docs" / "suite-layout.md").read_text(encoding="utf-8")
    paragraph = text[text.index("Some cases have no tensor-boundary form"):]
    paragraph = " ".join(paragraph[:paragraph.index("\n\n")].split())
    allowed = schemas.allowed_types(schemas.schema("SequenceConstruct", 11), "T")
    left_out = [e for e in ELEMENTS if f"tensor({e})" not in allowed]
    named = paragraph[paragraph.index("leave out"):paragraph.index("(from `onnx.defs`)")]
    assert sorted(re.findall(r"\b([a-z0-9]+)\b", named.replace("leave out", "").replace(
        " and ", " "))) == sorted(left_out)
    manifest = json.loads((ROOT / "generated" / "manifest.json").read_bytes())
    without = [n for n, e in manifest["cases"].items() if "no_tensor_io_form" in e]
    maps = [n for n in without if manifest["cases"][n]["no_tensor_io_form"].startswith("map(")]
    by_type = [n for n in without if n not in maps]
    assert by_type and all(any(t in n for t in left_out) for n in by_type)
    assert text.count(f"{len(without)} cases have no tensor-boundary form: {len(by_type)} "
                      "because") == 1
    assert f"and {len(maps)} because a graph\ninput or output holds a map" in text
