"""The suite kills every mutant backend of the catalogue (onnx_seq_tests/_oracle/mutants/): each
is the spec oracle with one plausible runtime bug, run in-process over the committed suite."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from onnx_seq_tests._core.errors import MutantError, SeqTestsError
from onnx_seq_tests._oracle import oracle
from onnx_seq_tests._oracle.mutants import CATALOGUE, by_name, control, structural
from onnx_seq_tests._oracle.mutants.kit import operator_table
from onnx_seq_tests._run import mutation

ROOT = Path(__file__).resolve().parent.parent
ZERO_ELEMENT_CASE = "test_optional_has_element_v18_zero_element_tensor"


@pytest.fixture(scope="module")
def subjects():
    return mutation.suite_subjects(ROOT / "generated")


#: The catalogue as it stood before mutants were modelled on public bug threads (issue 19).
FIRST_71 = 71
CITATION = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+#[1-9][0-9]*")


def test_every_mutant_is_killed(subjects):
    every = mutation.mutants()
    assert len(every) >= 120
    assert len({m.name for m in every}) == len(every)
    result = mutation.score(subjects, every)
    assert result.left_out == []  # the plain oracle passes every case of the suite
    assert result.survivors == [], (
        "mutants no case catches (add a case that tells each from the spec): "
        + ", ".join(result.survivors))


def test_a_mutant_is_data_and_leaves_no_state(subjects):
    """A mutant swaps operators in a table of its own: the spec's table is untouched, and two
    mutants interleaved (as two threads would run them) each see only their own bug."""
    subject = next(s for s in subjects if s.name == ZERO_ELEMENT_CASE)
    numel = by_name("optional_has_element_numel")
    before = dict(oracle.OPERATORS)
    table = operator_table(numel)
    assert table["OptionalHasElement"] is numel.operators["OptionalHasElement"]
    assert oracle.OPERATORS["OptionalHasElement"] is not table["OptionalHasElement"]
    with pytest.raises(TypeError):
        oracle.OPERATORS["OptionalHasElement"] = table["OptionalHasElement"]  # read-only
    with pytest.raises(TypeError):
        numel.operators["Identity"] = None  # a mutant is frozen data
    other = by_name("sequence_length_int32")
    for _ in range(2):
        assert not mutation.passes(subject, numel)
        assert mutation.passes(subject, other)  # no SequenceLength in it: the spec's answer
        assert mutation.passes(subject, None)
    assert dict(oracle.OPERATORS) == before


def test_mutant_error_is_a_seq_tests_error():
    assert issubclass(MutantError, SeqTestsError)


def test_mutants_after_the_first_71_cite_the_public_threads_they_are_modelled_on():
    """Each mutant added from issue 19 on names its sources as owner/repo#number; every source
    of any mutant has that form, and no mutant cites one thread twice. The structural classes
    (structural.py, control.py) cite a thread where one exists and otherwise say in
    `modelled_on` what they are modelled on."""
    for mutant in CATALOGUE:
        assert all(CITATION.fullmatch(source) for source in mutant.sources), mutant.name
        assert len(set(mutant.sources)) == len(mutant.sources), mutant.name
    classes = {m.name for m in structural.MUTANTS + control.MUTANTS}
    assert all(m.sources or m.modelled_on for m in CATALOGUE if m.name in classes)
    rest = [m for m in CATALOGUE if m.name not in classes]
    assert len([m for m in rest if m.sources]) >= len(rest) - FIRST_71 + 10
    assert len(rest) - FIRST_71 >= 49


def test_the_tinygrad_bug_is_caught_by_a_zero_element_tensor(subjects):
    """OptionalHasElement as 'numel() > 0' is caught by a present zero-element tensor."""
    numel = next(m for m in mutation.mutants() if m.name == "optional_has_element_numel")
    subject = next(s for s in subjects if s.name == ZERO_ELEMENT_CASE)
    inputs, expected = subject.data_sets[0]
    assert np.asarray(inputs[0]).size == 0 and bool(expected[0]) is True
    assert not mutation.passes(subject, numel, data_set=0)


def test_markdown_lists_every_mutant(subjects):
    every = mutation.mutants()
    ours = mutation.score(subjects[:50], every, "this suite")
    text = mutation.markdown(ours, ours)
    assert "| this suite | 50 |" in text
    for mutant in every:
        assert f"`{mutant.name}`" in text


def test_every_mutant_runs_and_agrees_with_the_spec_somewhere(subjects):
    """A mutant that crashes on every case would be killed for nothing: each must give the
    spec's answer on some data set that runs its operator (any, for a boundary mutant); only
    a mutant whose bug shows wherever its output is seen (a wrong output dtype) is exempt: it
    agrees only where its output feeds another node that reads the value alone (a Loop's
    trip count)."""
    wrong_wherever_seen = {"sequence_length_int32"}
    for mutant in mutation.mutants():
        touched = set(mutant.operators)
        agrees = any(mutation.passes(s, mutant, k) for s in subjects
                     if not touched or touched & s.operators for k in range(len(s.data_sets)))
        assert agrees or mutant.name in wrong_wherever_seen, mutant.name


def test_cli_prints_the_score_and_fails_when_a_mutant_survives(tmp_path):
    import shutil

    from click.testing import CliRunner

    from onnx_seq_tests._cli import main

    small = tmp_path / "small"
    for name in ("test_sequence_at_every_position_input", "test_sequence_length_v11_bool"):
        shutil.copytree(ROOT / "generated" / "sequence_optional" / name, small / name)
    result = CliRunner().invoke(main, ["mutation", str(small)])
    assert result.exit_code == 1, result.output
    assert "| this suite | 2 |" in result.stdout
    assert "| onnx's node cases | 33 |" in result.stdout
    assert "surviving mutants: " in result.stderr
    usage = CliRunner().invoke(main, ["mutation", str(tmp_path / "none")])
    assert usage.exit_code == 2 and "no case folders" in usage.output


def _same(a, b) -> bool:
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    return a is b or a == b


def test_a_mutant_writing_into_its_inputs_leaves_the_data_sets_whole(subjects):
    """The in-place mutants write into the input sequence's own list (as a runtime reusing
    storage would); each mutant gets its own copy of the inputs, so the data sets every other
    mutant is judged on stay as the case files give them."""
    import copy

    touched = [s for s in subjects if {"SequenceInsert", "SequenceErase"} & s.operators]
    before = copy.deepcopy([s.data_sets for s in touched])
    for name in ("sequence_insert_in_place", "sequence_erase_in_place",
                 "if_branch_writes_outer_sequence_in_place", "loop_body_writes_sequences_in_place",
                 "sequence_map_body_writes_outer_sequence_in_place"):
        mutant = next(m for m in mutation.mutants() if m.name == name)
        for subject in touched:
            mutation.passes(subject, mutant)
    assert _same(before, [s.data_sets for s in touched])


def test_every_mutant_names_its_targets_and_a_table_must_name_every_mutant():
    """Each mutant of the catalogue names the features it targets (the test in
    test_coverage.py checks that the suite can hold each); `targeted` refuses a table that
    leaves a mutant out or names one the catalogue does not have."""
    from onnx_seq_tests._oracle.mutants.kit import targeted

    assert [m.name for m in CATALOGUE if not m.targets] == []
    assert all(isinstance(label, str) and label for m in CATALOGUE for label in m.targets)
    two = CATALOGUE[:2]
    with pytest.raises(KeyError):
        targeted(two, {two[0].name: ("nan",)})
    with pytest.raises(KeyError):
        targeted(two, {two[0].name: ("nan",), two[1].name: ("nan",), "no_such": ("nan",)})
    named = targeted(two, {two[0].name: ["nan"], two[1].name: ("inf",)})
    assert [m.targets for m in named] == [("nan",), ("inf",)]


def test_targets_resolve_to_table_rows_then_operator_features_then_types():
    """A target that is a table row's label is that row (for an operator the mutant
    replaces); a label of no row is the feature on each operator the mutant replaces; a type
    is itself."""
    rows = mutation.features_of(by_name("split_to_sequence_single_chunk_as_tensor"))
    assert [r[2] for r in rows] == ["single chunk"] and rows[0][1] == "SplitToSequence"
    assert mutation.features_of(by_name("sequence_at_negative_off_by_one")) == [
        ("SequenceAt at position -1", "SequenceAt", "position -1"),
        ("SequenceAt at position -len", "SequenceAt", "position -len")]
    assert mutation.features_of(by_name("strings_in_sequence_refused")) == [
        ("a value of type `seq(tensor(string))`", None, "seq(tensor(string))")]
    assert mutation.features_of(by_name("sequence_graph_inputs_refused"))[0][0] == \
        "a value of type `seq(…)`"
