"""`gen-seq-tests fuzz --distil`: the fuzzer, on the spec oracle, writes the smallest programs
filling a suite's gaps (a structural feature per form, a mutant no case kills), reproducibly."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT, small_suite

from onnx_seq_tests._casefile.reader import load_file
from onnx_seq_tests._cli import main
from onnx_seq_tests._core.problems import Problems
from onnx_seq_tests._core.suite_forms import SuiteForm
from onnx_seq_tests._fuzz import distil, inprocess, judge

#: A feature the tiny suite loses when the case holding it is removed.
FEATURE = "ConcatFromSequence along the last axis"
#: A mutant the tiny suite's remaining case does not kill.
MUTANT = "concat_from_sequence_new_axis_ignored"


def _read_back(path: Path) -> judge.Built:
    problems = Problems()
    cases = load_file(path, problems)
    assert not problems.found and len(cases) == 1
    return judge.build(cases[0])


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    """Two committed cases; the one holding FEATURE is then removed."""
    folder = small_suite(tmp_path_factory.mktemp("tiny"),
                         ["cc_concat_from_sequence_axis_1", "cc_sequence_length"])
    holder = next(folder.rglob("test_cc_concat_from_sequence_axis_1"))
    shutil.rmtree(holder)
    return folder


def test_a_removed_feature_gets_the_smallest_case_holding_it(tiny, tmp_path):
    wanted = distil.Gap(FEATURE, SuiteForm.AS_WRITTEN)
    missing, _, _ = distil.gaps(tiny)
    assert wanted in missing
    result = distil.run(tiny, 0, lambda n: f"reproduce {n}", max_examples=300,
                        only=lambda gap: gap == wanted)
    assert result.left() == [] and len(result.distilled) == 1
    path, = distil.write(result, tmp_path)
    assert path.name == "distilled_concat_from_sequence_along_the_last_axis.yaml"
    assert distil.filled(_read_back(path), [wanted]) == [wanted]
    assert f"reproduce {result.generated}" in path.read_text(encoding="utf-8")


def test_a_mutant_no_case_kills_gets_a_case_killing_it(tiny, tmp_path):
    gap = distil.Gap(MUTANT)
    missing, _, (killed, total) = distil.gaps(tiny)
    assert gap in missing and killed < total
    result = distil.run(tiny, 0, str, max_examples=300, only=lambda g: g == gap)
    path, = distil.write(result, tmp_path)
    assert path.stem == f"distilled_kills_{MUTANT}"
    case = _read_back(path).case
    mutant = inprocess.mutant_of(inprocess.MUTANT_PREFIX + MUTANT)
    assert inprocess.judge_case(case, None).outcome == "pass"
    assert inprocess.judge_case(case, mutant).outcome != "pass"


def test_the_command_rewrites_the_committed_distilled_cases_byte_for_byte(
        committed_suite, tmp_path, monkeypatch):
    """The committed suite without its distilled cases has the gaps cases/distilled/ fills:
    the command each case names writes the same bytes (same seed, same files)."""
    committed = sorted((ROOT / "cases" / "distilled").glob("*.yaml"))
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(main, ["fuzz", "--distil", "--seed", "0", "--max-examples",
                                       "1000", "-o", str(tmp_path), "--no-progress"])
    assert result.exit_code == 0, result.output
    written = sorted(tmp_path.glob("*.yaml"))
    assert [p.name for p in written] == [p.name for p in committed]
    for mine, theirs in zip(written, committed, strict=True):
        assert mine.read_bytes() == theirs.read_bytes(), mine.name


def test_distil_refuses_a_backend_and_needs_a_folder(tmp_path):
    refused = CliRunner().invoke(main, ["fuzz", "--distil", "-b", "onnxruntime",
                                        "-o", str(tmp_path)])
    assert refused.exit_code == 2 and "spec oracle only" in refused.output
    unnamed = CliRunner().invoke(main, ["fuzz", "--distil"])
    assert unnamed.exit_code == 2 and "-o DIR" in unnamed.output
