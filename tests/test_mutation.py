"""The suite kills every mutant backend of onnx_seq_tests/_verify/mutation.py: each is the spec
oracle with one plausible runtime bug, run in-process over the committed generated/ suite."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from onnx_seq_tests._verify import mutation

ROOT = Path(__file__).resolve().parent.parent
ZERO_ELEMENT_CASE = "test_optional_has_element_v18_zero_element_tensor"


@pytest.fixture(scope="module")
def subjects():
    return mutation.suite_subjects(ROOT / "generated")


def test_every_mutant_is_killed(subjects):
    every = mutation.mutants()
    assert len(every) >= 40
    assert len({m.name for m in every}) == len(every)
    result = mutation.score(subjects, every)
    assert result.left_out == []  # the plain oracle passes every case of the suite
    assert result.survivors == [], (
        "mutants no case catches (add a case that tells each from the spec): "
        + ", ".join(result.survivors))


def test_the_oracle_is_restored_after_a_mutant(subjects):
    subject = next(s for s in subjects if s.name == ZERO_ELEMENT_CASE)
    numel = next(m for m in mutation.mutants() if m.name == "optional_has_element_numel")
    assert not mutation.passes(subject, numel)
    assert mutation.passes(subject, None)


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
    a mutant whose bug shows on every use (a wrong output dtype) is exempt."""
    wrong_on_every_use = {"sequence_length_int32"}
    for mutant in mutation.mutants():
        touched = set(mutant.operators)
        agrees = any(mutation.passes(s, mutant, k) for s in subjects
                     if not touched or touched & s.operators for k in range(len(s.data_sets)))
        assert agrees != (mutant.name in wrong_on_every_use), mutant.name


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
