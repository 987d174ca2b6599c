"""Coverage: the matrix from onnx.defs, the features seen through the oracle, the project's suite
covering every combination and edge case, onnx's own cases, and the report and its CLI; and the
oracle's agreement with onnx's own node cases.

Every test that needs onnx's node cases (the `node_cases` fixture: seconds to generate) is in
this file, so that with pytest-xdist's --dist loadfile one worker loads them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import MINI_CASES

from onnx_seq_tests._cli import main
from onnx_seq_tests._core import operators as schemas
from onnx_seq_tests._core.cases import Node
from onnx_seq_tests._core.compare import compare_outputs
from onnx_seq_tests._core.errors import OracleError
from onnx_seq_tests._core.problems import Where
from onnx_seq_tests._core.suite_forms import SuiteForm
from onnx_seq_tests._fuzz import mutant_score
from onnx_seq_tests._oracle import oracle
from onnx_seq_tests._oracle.math_ops import MATH_OPERATORS
from onnx_seq_tests._oracle.oracle import MISSING
from onnx_seq_tests._published import case_features, coverage, hidden, structure
from onnx_seq_tests._published.discovery import read_manifest
from onnx_seq_tests._run import mutation

ROOT = Path(__file__).resolve().parent.parent
HERE = Where("test", 1, 1)


@pytest.fixture(scope="module")
def suite_root(committed_suite) -> Path:
    return committed_suite


@pytest.fixture(scope="module")
def suite_cases(suite_root) -> list[case_features.CaseCoverage]:
    return coverage.suite_coverage(suite_root)


@pytest.fixture(scope="module")
def ours(suite_cases) -> coverage.Summary:
    return coverage.summarize(suite_cases)


@pytest.fixture(scope="module")
def onnx_cases(node_cases) -> list[case_features.CaseCoverage]:
    """onnx_coverage loads the node cases itself; onnx keeps them once loaded in a process, so
    after the session's `node_cases` that is no second load."""
    assert node_cases
    return coverage.onnx_coverage()


@pytest.fixture(scope="module")
def theirs(onnx_cases) -> coverage.Summary:
    return coverage.summarize(onnx_cases)


@pytest.fixture(scope="module")
def onnx_subjects(node_cases) -> list[mutation.Subject]:
    assert node_cases
    return mutation.onnx_subjects()


@pytest.fixture(scope="module")
def subjects(suite_root) -> list[mutation.Subject]:
    return mutation.suite_subjects(suite_root)


@pytest.fixture(scope="module")
def suite_score(suite_root, subjects, suite_cases) -> mutation.Score:
    """The suite's mutation score with its discrimination and its derived forms' scores, as
    `coverage` measures them."""
    every = mutation.mutants()
    result = mutation.score(subjects, every, "this suite")
    result.discrimination = mutation.discrimination(result, subjects, suite_cases)
    result.forms = [mutation.form_score(suite_root, d.form, every, suite_cases, d.coverages)
                    for d in coverage.derived_forms(suite_root)]
    return result


@pytest.fixture(scope="module")
def mutation_table(suite_score, onnx_subjects) -> str:
    """The mutation section the report ends with (the suite's score beside onnx's, and the
    discrimination of the features the mutants target)."""
    return mutation.markdown(
        suite_score, mutation.score(onnx_subjects, mutation.mutants(),
                                    "onnx's node cases"),
        fuzz=mutant_score.read(ROOT / "docs" / "mutation-fuzz.json", mutation.FUZZ_LABEL))


# -- the matrix ---------------------------------------------------------------------------------

def test_matrix_counts_the_types_of_sequence_and_optional_constraints():
    matrix = case_features.matrix()
    # onnx 1.23.2, pinned: 772 cells of ai.onnx, 10 of ai.onnx.ml's map operators
    assert sum(len(types) for types in matrix.values()) == 782
    assert len(matrix[("SequenceMap", 17)]) == 30  # V: 15 tensors and 15 sequences
    assert len(matrix[("Optional", 28)]) == 112
    assert ("SplitToSequence", 24) in matrix and ("OptionalHasElement", 18) in matrix
    assert "seq(tensor(bfloat16))" in matrix[("SplitToSequence", 24)]
    assert "seq(tensor(bfloat16))" not in matrix[("SplitToSequence", 11)]
    assert matrix[("ZipMap", 1)] == ("seq(map(int64, tensor(float)))",
                                     "seq(map(string, tensor(float)))")
    assert len(matrix[("DictVectorizer", 1)]) == 6 and len(matrix[("CastMap", 1)]) == 2
    for (op_type, version), types in matrix.items():
        op_schema = schemas.schema(op_type, version, schemas.domain_of(op_type))
        allowed = {t for c in op_schema.type_constraints for t in schemas.type_strs(c)}
        assert set(types) <= allowed
        assert any(t.startswith(("seq(", "optional(", "map(")) for t in types)


# -- features of single nodes -------------------------------------------------------------------

def node(op_type, inputs, outputs=("y",), **attributes):
    return Node(op_type, tuple(inputs), tuple(outputs), tuple(attributes.items()), HERE)


def features(op_type, args, results, inputs=None, outputs=("y",), types=None, **attributes):
    inputs = inputs or tuple(f"x{i}" for i in range(len(args)))
    return case_features.node_features(node(op_type, inputs, outputs, **attributes), args, results,
                                  types or {})


def i64(value):
    return np.array(value, dtype=np.int64)


SEQ = [np.zeros(1, np.float32), np.zeros(2, np.float32), np.zeros(1, np.float32)]


@pytest.mark.parametrize("position, label", [
    (-1, "position -1"), (-3, "position -len"), (0, "position 0"), (2, "position len-1"),
    (3, "position len")])
def test_insert_position_classes(position, label):
    found = features("SequenceInsert", [SEQ, SEQ[0], i64(position)], [SEQ + [SEQ[0]]])
    assert label in found and "int64 position" in found
    assert "elements differ in shape" in found


def test_position_classes_need_two_tensors_to_differ():
    found = features("SequenceInsert", [[], SEQ[0], np.array(0, np.int32)], [[SEQ[0]]])
    assert "int32 position" in found and "empty sequence in" in found
    assert not {f for f in found if f.startswith("position")}


def test_split_and_concat_features():
    x = np.zeros((5,), np.float32)
    parts = [x[:2], x[2:4], x[4:]]
    assert {"scalar split", "uneven split"} <= features("SplitToSequence", [x, i64(2)], [parts])
    assert {"no split", "keepdims=0", "negative axis"} <= features(
        "SplitToSequence", [x], [list(x)], keepdims=0, axis=-1)
    with_split = features("SplitToSequence", [x, i64(1)], [parts], keepdims=0)
    assert "keepdims=0" not in with_split and "keepdims=0 with split (ignored)" in with_split
    assert {"elements differ along the axis", "negative axis"} <= features(
        "ConcatFromSequence", [parts], [x], axis=-1)
    assert "new_axis=1" in features("ConcatFromSequence", [[x, x]], [np.stack([x, x])],
                                    axis=0, new_axis=1)


def test_structural_features_of_split_and_concat():
    x = np.arange(12).reshape(2, 3, 2)
    split = [x[:, :2], x[:, 2:]]
    found = features("SplitToSequence", [x, i64(2)], [split], axis=1)
    assert {"rank 3 input", "axis interior", "scalar split does not divide"} <= found
    last = features("SplitToSequence", [x, i64([1, 1])], [[x[..., :1], x[..., 1:]]], axis=-1)
    assert {"axis last", "1-D split all ones"} <= last and "axis interior" not in last
    one = features("SplitToSequence", [x[:1, 0, 0], i64(1)], [[x[:1, 0, 0]]])
    assert {"rank 1 input", "axis first", "single chunk", "scalar split divides",
            "sequence length 1"} <= one
    pair = [x[0], x[1]]
    assert "axis interior" in features("ConcatFromSequence", [pair], [np.stack(pair, 1)],
                                       axis=1, new_axis=1)
    at_rank = features("ConcatFromSequence", [pair], [np.stack(pair, 2)], axis=2, new_axis=1)
    assert {"rank 2 elements", "new axis at rank"} <= at_rank
    assert "axis last" in features("ConcatFromSequence", [pair], [np.concatenate(pair, 1)],
                                   axis=-1)


def test_structural_features_of_control_flow():
    assert "condition of shape [1]" in features("If", [np.array([True])], [SEQ])
    assert "condition of shape [1]" not in features("If", [np.array(True)], [SEQ])
    loop = features("Loop", [i64([2]), MISSING, SEQ, i64(0)], [SEQ, i64(1)], outputs=("s", "t"))
    assert {"trip count of shape [1]", "carries a sequence and a tensor",
            "sequence length 3+"} <= loop and not {"trip count 0",
                                                     "condition false at start"} & loop
    never = features("Loop", [i64(0), np.array(False), SEQ], [SEQ])
    assert {"trip count 0", "condition false at start"} <= never
    assert "input and type attribute" in features("Optional", [SEQ], [SEQ], type="seq")
    assert "input and type attribute" not in features("Optional", [SEQ], [SEQ])


def test_graph_inputs_as_positions_and_splits_are_structural_features():
    """A position or split that is a graph input (of the graph or read by a body inside it),
    not one from an initializer or another node."""
    from onnx_seq_tests._core.cases import Graph, ValueDecl
    from onnx_seq_tests._core.value_kinds import parse_type

    def graph(nodes, inputs):
        return Graph(tuple(ValueDecl(n, parse_type("tensor(int64)"), HERE) for n in inputs),
                     (), tuple(nodes))

    at = node("SequenceAt", ("s", "p"), ("t",))
    split = node("SplitToSequence", ("x", "n"), ("s",))
    found = structure.static(graph([at, split], ["s", "p", "x", "n"]), {})
    assert {("SequenceAt", "position from a graph input"),
            ("SplitToSequence", "split from a graph input")} <= found
    made = structure.static(graph([node("Constant", (), ("p",)), at], ["s"]), {})
    assert not {label for _, label in made if "graph input" in label}


def test_constant_positions_and_splits_are_told_apart_by_their_attribute():
    """A position or split from a Constant counts by the attribute holding its tensor: the
    tensor attribute `value` (exporters) or value_int(s) (issues 26, 29), in a body too."""
    from onnx_seq_tests._core.cases import Graph

    at = node("SequenceAt", ("s", "p"), ("t",))
    erase = node("SequenceErase", ("s", "q"), ("r",))
    split = node("SplitToSequence", ("x", "n"), ("parts",))
    split_again = node("SplitToSequence", ("x", "m"), ("more",))
    constants = [node("Constant", (), ("p",), value=np.array(-1, np.int32)),
                 node("Constant", (), ("q",), value_int=-1),
                 node("Constant", (), ("n",), value_ints=[1, 2]),
                 node("Constant", (), ("m",), value=np.array([1, 2], np.int64))]
    body = Graph((), (), (*constants[1:], erase, split, split_again))
    outer = Graph((), (), (constants[0], at, node("If", ("c",), ("z",), then_branch=body,
                                                  else_branch=body)))
    assert {label for _, label in structure.static(outer, {}) if " from " in label} == {
        "position from Constant value tensor", "position from Constant value_int(s)",
        "split from Constant value_int(s)", "split from Constant value tensor"}


def test_value_features():
    found = features("Identity", [np.array(["", "ü"], dtype=object)], [None])
    assert {"empty string", "non-ASCII string", "empty optional out"} <= found
    floats = features("Identity", [np.array([np.nan, np.inf, -np.inf], np.float16)], [[]])
    assert {"nan", "inf", "-inf", "empty sequence out"} <= floats
    ints = features("Identity", [np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max])],
                    [np.array([np.iinfo(np.uint64).max], np.uint64)])
    assert {"int64 min", "int64 max", "uint64 max"} <= ints
    assert not features("Identity", [np.array([1.0, 2.0, 0.0])], [np.array([1, 2])]) & {
        "nan", "inf", "int64 max", "-0.0"}
    assert "-0.0" in features("Identity", [np.array([1.0, -0.0], np.float16)], [None])
    assert "-0.0" in features("Identity", [np.array([complex(0.0, -0.0)])], [None])


def test_map_optional_if_and_loop_features():
    assert {"several sequences", "tensor input", "several outputs"} <= features(
        "SequenceMap", [SEQ, SEQ, SEQ[0]], [SEQ, SEQ], outputs=("a", "b"))
    assert "one sequence" in features("SequenceMap", [SEQ], [SEQ])
    assert "no input, type attribute" in features("Optional", [], [None], type="tensor(float)")
    types = {"y": "optional(tensor(float))"}
    assert "optional from else branch" in features("If", [np.array(False)], [None], types=types)
    assert "optional from then branch" in features("If", [np.array(True)], [SEQ[0]],
                                                   types=types)
    loop = features("Loop", [i64(2), MISSING, SEQ], [SEQ, i64([0, 1])], outputs=("s", "k"))
    assert {"condition omitted", "scan output"} <= loop


# -- the project's suite ------------------------------------------------------------------------

def test_suite_covers_every_combination(ours):
    missing = [(op, v, t) for (op, v), types in ours.allowed.items() for t in types
               if (op, v, t) not in ours.combinations]
    assert missing == []
    assert ours.total_covered == ours.total == 782


def test_suite_has_every_edge_case(ours):
    assert [what for what, cases in ours.edge_cases() if not cases] == []


def test_suite_has_every_structural_feature_in_both_forms(suite_root, ours):
    """Each feature of structure.STRUCTURE is held by a case as written and by a case of the
    tensor-boundary form (each form counted from its own models and data sets), but those no
    valid case can hold (structure.IMPOSSIBLE, each with its reason); the constant form holds
    every one but those of a value that is a graph input (it has none)."""
    assert structure.IMPOSSIBLE and all(structure.IMPOSSIBLE.values())
    impossible = [what for what, _, _ in structure.STRUCTURE if what in structure.IMPOSSIBLE]
    assert [what for what, cases in ours.structure() if not cases] == impossible
    tensor_io = coverage.derived_form(suite_root, SuiteForm.TENSOR_BOUNDARY).structure
    assert [what for what, cases in tensor_io if not cases] == impossible
    constant = coverage.derived_form(suite_root, SuiteForm.CONSTANT).structure
    inputs = ("a position that is a graph input", "SplitToSequence: a split that is a graph input")
    assert [what for what, cases in constant if not cases] == [
        what for what, _, _ in structure.STRUCTURE if what in structure.IMPOSSIBLE or
        what in inputs]


def test_onnx_own_cases_cover_little(theirs):
    assert theirs.total_covered == 23
    assert 30 <= theirs.cases <= 40
    assert [what for what, cases in theirs.edge_cases() if not cases]  # some are absent


def test_committed_report_is_up_to_date(suite_root, ours, theirs, mutation_table):
    committed = (ROOT / "docs" / "coverage.md").read_text(encoding="utf-8")
    derived = coverage.derived_forms(suite_root)
    assert committed == coverage.report(ours, theirs, "generated", derived) + "\n".join(
        hidden.hidden_markdown(suite_root)) + "\n\n" + mutation_table, (
        "docs/coverage.md is stale: run `make coverage`")


# -- what the mutants target, and whether the suite's data tells them apart --------------------

def test_every_mutant_targets_features_the_suite_can_hold(ours):
    """Each mutant names at least one target, and each names a row of EDGE_CASES or STRUCTURE,
    a feature the oracle trace gives for an operator the mutant replaces, or a type."""
    rows = {*case_features.EDGE_CASES, *structure.STRUCTURE}
    traced = {(op, label) for op, _, label in ours.features}
    types = {type_string for _, _, type_string in ours.combinations}
    wrong = []
    for mutant in mutation.mutants():
        features = mutation.features_of(mutant)
        if not mutant.targets or not features:
            wrong.append((mutant.name, "no target"))
        for what, op_type, label in features:
            if label.startswith(mutation.TYPE_TARGET):
                known = any(label in t for t in types)
            else:
                known = (what, op_type, label) in rows or (op_type, label) in traced
            if not known:
                wrong.append((mutant.name, what))
    assert wrong == []


def test_a_feature_is_discriminated_only_by_a_kill_from_a_case_holding_it(
        suite_score, subjects, suite_cases):
    """single chunk is discriminated by the suite; with the label taken from every case that
    holds it (the cases still there, still killing the mutant), no kill counts for it."""
    def row(rows, label):
        return next(r for r in rows if r.feature[2] == label)

    chunk = "split_to_sequence_single_chunk_as_tensor"
    assert row(suite_score.discrimination, "single chunk").discriminated
    stripped = [case_features.CaseCoverage(c.name, c.combinations,
                                      {f for f in c.features if f[2] != "single chunk"})
                for c in suite_cases]
    assert chunk in suite_score.killed
    assert row(mutation.discrimination(suite_score, subjects, stripped),
               "single chunk").missed == (chunk,)


def test_a_form_cannot_show_a_mutant_needing_what_it_lacks(suite_score, suite_root):
    """A mutant whose `needs` a derived form lacks is left out of that form's score, and no case
    of the form kills it (else the claim is false); every other mutant counts there."""
    every = mutation.mutants()
    for result, form in zip(suite_score.forms, SuiteForm.derived(), strict=True):
        lacking = [m for m in every if set(m.needs) & set(form.lacks)]
        assert lacking and set(result.cannot_show) == {m.name for m in lacking}
        assert result.total == len(every) - len(lacking)
        shown = mutation.score(mutation.suite_subjects(suite_root, None, form), lacking, "x")
        assert shown.killed == {}, f"{form}: {shown.killed} can show there after all"


def test_each_derived_form_is_discriminated_on_its_own_folders(suite_score, mutation_table):
    """The report has a column per form; a feature a derived form does not discriminate names
    its missed mutants and, where the manifest says, why the cases holding it have no variant
    there."""
    titles = ["cases as written", *(f.title for f in SuiteForm.derived())]
    assert "| feature | mutants targeting it | " + " | ".join(titles) in mutation_table
    for result, form in zip(suite_score.forms, SuiteForm.derived(), strict=True):
        assert result.label == f"this suite, {form.title}"
        assert f"| {result.label} | {result.cases} |" in mutation_table
        rows = result.discrimination
        assert f"- {form.title}: {sum(r.discriminated for r in rows)} of {len(rows)}" in \
            mutation_table
        for row in rows:
            if row.why_not:
                assert row.why_not in mutation_table


def test_the_report_says_which_features_are_not_discriminated(suite_score, mutation_table):
    rows = suite_score.discrimination
    assert "## Discrimination" in mutation_table
    assert f"- cases as written: {sum(r.discriminated for r in rows)} of {len(rows)} targeted " \
        "features" in mutation_table
    for missed in (r for r in rows if not r.discriminated):
        assert f"| {missed.feature[0]} |" in mutation_table and "**no**" in mutation_table


# -- the command --------------------------------------------------------------------------------

def test_cli_writes_the_report(mini_suite, tmp_path, theirs):
    """`coverage ROOT --markdown FILE` writes what the report functions give for ROOT (here a
    few cases: the whole suite's report is test_committed_report_is_up_to_date's), and prints
    it without --markdown."""
    target = tmp_path / "docs" / "coverage.md"
    result = CliRunner().invoke(main, ["coverage", str(mini_suite), "--markdown", str(target)])
    assert result.exit_code == 0, result.output
    cases = coverage.suite_coverage(mini_suite)
    ours = coverage.summarize(cases)
    assert len(cases) == len(MINI_CASES)
    assert result.output == (f"wrote {target}: {ours.total_covered} of 782 combinations covered "
                             f"by {len(MINI_CASES)} case(s); onnx's node cases cover "
                             f"{theirs.total_covered}\n")
    table = mutation.markdown(*mutation.scores(mini_suite, [], cases), fuzz=mutant_score.read(
        ROOT / "docs" / "mutation-fuzz.json", mutation.FUZZ_LABEL))
    expected = coverage.report(ours, theirs, mini_suite.as_posix(),
                               coverage.derived_forms(mini_suite)) + "\n".join(
        hidden.hidden_markdown(mini_suite)) + "\n\n" + table
    assert target.read_text(encoding="utf-8") == expected
    printed = CliRunner().invoke(main, ["coverage", str(mini_suite)])
    assert printed.exit_code == 0 and printed.output == expected


@pytest.mark.parametrize("form", SuiteForm.derived())
def test_a_derived_form_is_reported_apart(suite_root, ours, form):
    """Its folders are copies of the same cases: not counted in the tables, listed below them
    with the cases that have no such form and why, the reasons counted."""
    derived = coverage.derived_form(suite_root, form)
    entries = json.loads((suite_root / "manifest.json").read_bytes())["cases"].values()
    assert ours.cases == sum(1 for e in entries if "form" not in e)
    assert derived.folders == sum(1 for e in entries if e.get("form") == form.manifest_form)
    without = sum(1 for e in entries if f"no_{form.manifest_form}_form" in e)
    assert len(derived.without) == without > 60
    assert sum(count for _, count in derived.reasons()) == without
    text = coverage.report(ours, ours, "generated", [derived])
    assert f"## The {form.title}" in text and "\n".join(coverage.reasons_table(derived)) in text
    assert "| `optional_v28_seq_int4` | SequenceConstruct-11 does not allow tensor(int4)" in text


def test_the_reasons_gather_the_element_types_of_one_refusal(suite_root):
    derived = coverage.derived_form(suite_root, SuiteForm.TENSOR_BOUNDARY)
    assert derived.without["split_to_sequence_v24_bfloat16"] == (
        "SequenceLength-11 does not allow seq(tensor(bfloat16)) (its only version)")
    reasons = dict(derived.reasons())
    assert reasons["SequenceLength-11 does not allow seq(tensor(T)) (its only version), "
                   "T one of bfloat16"] == sum(
        why.startswith("SequenceLength-11") for why in derived.without.values())


def test_cli_without_a_suite_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(main, ["coverage", str(tmp_path)])
    assert result.exit_code == 2
    assert "no case folders" in result.output and "gen-seq-tests build" in result.output


# -- the oracle and onnx's own node cases ---------------------------------------------------

#: onnx's node cases whose data the spec gives no result for, and why.
ONNX_CASES_WITHOUT_RESULT = {
    # Its position has shape [1]; the spec says "It must be a scalar (tensor of empty shape)".
    "test_sequence_insert_at_front": "SequenceInsert position has shape [1]",
}


def onnx_sequence_cases(tests):
    operators = set(oracle.SPEC_OPERATORS) - {"Identity", "If", "Loop"}
    return [test for test in tests if operators & {
        node.op_type for node in _nodes(oracle.graph_from_proto(test.model.graph))}]


def _nodes(graph):
    for node in graph.nodes:
        yield node
        for _, value in node.attributes:
            if isinstance(value, oracle.Graph):
                yield from _nodes(value)


def test_oracle_agrees_with_onnx_own_sequence_and_optional_cases(node_cases):
    tests = onnx_sequence_cases(node_cases)
    assert len(tests) >= 30
    no_result, disagree = {}, []
    for test in tests:
        for k, (inputs, outputs) in enumerate(test.data_sets):
            try:
                answers = oracle.run_model(test.model, inputs)
            except OracleError as error:
                no_result[test.name] = str(error)
                continue
            differences = compare_outputs(outputs, answers, atol=test.atol, rtol=test.rtol)
            if differences:
                disagree.append((test.name, k, differences))
    assert disagree == []
    assert set(no_result) == set(ONNX_CASES_WITHOUT_RESULT)
    for name, reason in ONNX_CASES_WITHOUT_RESULT.items():
        assert reason in no_result[name]


def test_oracle_agrees_with_onnx_own_cases_of_its_computing_operators(node_cases):
    """onnx's node cases of math_ops.py's operators (MatMul, Softmax, ArgMax, TopK, Scan, ...)
    that the oracle runs whole: each answer is onnx's, within the case's tolerance."""
    known = set(oracle.OPERATORS)
    tests = [test for test in node_cases if test.model is not None and (
        used := {n.op_type for n in _nodes(oracle.graph_from_proto(test.model.graph))})
        & set(MATH_OPERATORS) and used <= known]
    assert {"test_matmul_2d", "test_softmax_axis_0", "test_top_k", "test_scan9_sum"} <= {
        t.name for t in tests}
    disagree = []
    for test in tests:
        for k, (inputs, outputs) in enumerate(test.data_sets):
            answers = oracle.run_model(test.model, inputs)
            differences = compare_outputs(outputs, answers, atol=test.atol, rtol=test.rtol)
            if differences:
                disagree.append((test.name, k, differences))
    assert disagree == []


def test_onnx_sequence_cases_are_selected_once(onnx_cases, onnx_subjects):
    """The coverage report and the mutation score measure the same onnx node cases, selected by
    coverage.onnx_sequence_tests from onnx.defs (no hand list of operators elsewhere)."""
    selected = [t.name for t in coverage.onnx_sequence_tests()]
    assert "test_sequence_insert_at_back" in selected and "test_identity" not in selected
    assert [s.name for s in onnx_subjects] == selected
    assert [c.name for c in onnx_cases] == selected
    package = ROOT / "onnx_seq_tests"
    hand_lists = [path.name for room in (package / "_run", package / "_published")
                  for path in room.glob("*.py")
                  if re.search(r'"SequenceErase",\s*"SequenceLength"', path.read_text())]
    assert not hand_lists, f"select onnx's sequence cases with onnx_sequence_tests: {hand_lists}"


#: Rows of the extended structure table and a case made for each (as written); a row its case
#: must not hold (the labels tell classes apart).
NEW_ROWS = (("SequenceAt at position 0", "test_cc_sequence_at_pos0"),
            ("SequenceErase at position 1", "test_cc_sequence_erase_pos1"),
            ("SequenceInsert at position 1", "test_cc_sequence_insert_pos1"),
            ("SplitToSequence: size 0 along the axis", "test_split_to_sequence_zero_size_axis"),
            ("a position computed by another node (not a Constant)",
             "test_sequence_insert_erase_computed_position"),
            ("Loop with its trip count omitted", "test_loop_v16_while_sequence"),
            ("Loop with a trip count from a constant",
             "test_loop_constant_trip_count_appends_each_turn"))


def test_extended_structure_rows_are_held_by_the_cases_made_for_them(ours):
    held = dict(ours.structure())
    for what, case in NEW_ROWS:
        assert case in held[what], (what, case)
    assert "test_cc_sequence_at_pos0" not in held["SequenceAt at position -1"]
    assert "test_split_to_sequence_zero_size_axis" not in \
        held["SplitToSequence: size 0 off the axis"]


# -- hidden properties -------------------------------------------------------------------------

def test_every_hidden_property_has_its_case_in_the_tensor_boundary_form_too(suite_root):
    """Each property of HIDDEN names a case of the suite that has a tensor-boundary variant,
    and the report's section lists it."""
    manifest = read_manifest(suite_root)
    assert manifest is not None
    section = "\n".join(hidden.hidden_markdown(suite_root))
    for what, case in hidden.HIDDEN:
        entry = manifest.by_name[case]
        assert entry.variants(SuiteForm.TENSOR_BOUNDARY), f"{case}: {entry.no_tensor_io_form}"
        assert f"| {what} | `test_{case}` | yes | 1 variant(s) |" in section


def test_a_lost_empty_sequence_type_shows_in_both_forms(suite_root):
    """A runtime whose empty sequences keep no element type (empty_sequence_type_lost) fails
    every hidden-property case but SequenceEmpty's default (float32, what it falls back to),
    in the cases as written and in the tensor-boundary form."""
    lost = next(m for m in mutation.mutants() if m.name == "empty_sequence_type_lost")
    cases = {f"test_{case}" for _, case in hidden.HIDDEN
             if case != "hidden_empty_sequence_type_sequence_empty_default"}
    for form in (SuiteForm.AS_WRITTEN, SuiteForm.TENSOR_BOUNDARY):
        subjects = [s for s in mutation.suite_subjects(suite_root, None, form)
                    if s.name.split("__")[0] in cases]
        assert len({s.name.split("__")[0] for s in subjects}) == len(cases), form
        for subject in subjects:
            assert mutation.passes(subject, None), subject.name
            assert not mutation.passes(subject, lost), f"{form}: {subject.name}"
