"""The fuzz-alone mutation score (`gen-seq-tests mutation --fuzz`) and the in-process backends
of `fuzz` (`-b oracle`, `-b mutant:NAME`): real mutants of the catalogue, real programs, the
project's comparator; the committed score is rendered from docs/mutation-fuzz.json, never
recomputed by `coverage`."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from onnx_seq_tests._cli import main
from onnx_seq_tests._fuzz import inprocess, judge, mutant_score
from onnx_seq_tests._fuzz.campaign import program_seed
from onnx_seq_tests._fuzz.programs import generate
from onnx_seq_tests._fuzz.recipes import to_case
from onnx_seq_tests._oracle.mutants import by_name
from onnx_seq_tests._run import mutation

ROOT = Path(__file__).resolve().parent.parent
STORED = ROOT / "docs" / "mutation-fuzz.json"
#: Mutants the first programs of seed 0 kill, each a different kind of wrong answer:
#: a wrong shape, a wrong dtype, an error where the spec gives a result, a present optional.
EARLY = ("sequence_insert_default_front", "sequence_length_int32",
         "sequence_insert_mixed_shapes_refused", "optional_empty_is_present")


def test_the_scorer_kills_known_mutants_with_a_small_budget():
    mutants = [by_name(n) for n in EARLY] + [by_name("nan_signalling_quieted")]
    result = mutant_score.score(mutants, seed=0, time_budget=None, max_examples=40,
                                shrink_budget=0.5)
    assert set(EARLY) <= set(result.kills), result.kills
    for name in EARLY:
        kill = result.kills[name]
        assert kill.outcome in ("fail", "error")
        assert kill.signature.startswith(f"mutant:{name}:{kill.outcome}:")
        assert 1 <= kill.nodes_after <= kill.nodes_before
    data = result.as_json("cmd")
    assert data["killed"] == len(result.kills)
    assert data["survivors"] == [m.name for m in mutants if m.name not in result.kills]
    assert result.valid + result.no_result + result.invalid == result.generated <= 40


def test_the_same_programs_give_the_same_kills():
    mutants = [by_name(n) for n in EARLY]
    first = mutant_score.score(mutants, seed=3, time_budget=None, max_examples=30,
                               shrink_budget=0)
    again = mutant_score.score(mutants, seed=3, time_budget=None, max_examples=30,
                               shrink_budget=0)
    assert first.as_json("x")["kills"] == again.as_json("x")["kills"]


def test_the_plain_oracle_passes_what_the_mutant_fails():
    case = to_case(generate(program_seed(0, 0)), "p")  # the first program of seed 0
    built = judge.build(case)
    assert not built.problem
    mutant = by_name("sequence_insert_mixed_shapes_refused")
    verdicts = judge.run([built], ["oracle", "mutant:" + mutant.name], Path("unused"))
    outcomes = {(v.backend, v.form): v.outcome for v in verdicts[case.name]}
    assert {o for (b, _), o in outcomes.items() if b == "oracle"} == {"pass"}
    assert "pass" not in {o for (b, _), o in outcomes.items() if b != "oracle"}


def test_fuzz_takes_a_mutant_as_a_backend(tmp_path):
    result = CliRunner().invoke(main, [
        "fuzz", "-b", "mutant:sequence_length_int32", "--max-examples", "20",
        "--max-findings", "1", "--shrink-budget", "1", "-o", str(tmp_path / "found"),
        "--no-progress"])
    assert result.exit_code == 1, result.output
    assert "finding mutant:sequence_length_int32:fail:dtype:" in result.stdout
    assert list((tmp_path / "found").glob("*.yaml"))


def test_fuzz_refuses_an_unknown_mutant():
    result = CliRunner().invoke(main, ["fuzz", "-b", "mutant:no_such_bug"])
    assert result.exit_code == 2
    assert "mutant:no_such_bug: no such mutant" in result.stderr
    assert "Traceback" not in result.output


def test_the_stored_score_is_rendered_not_recomputed(tmp_path):
    """docs/coverage.md shows the figure of docs/mutation-fuzz.json (test_coverage checks the
    whole page); a stored file with other figures renders those figures."""
    stored = json.loads(STORED.read_text(encoding="utf-8"))
    assert stored["mutants"] == len(mutation.mutants())
    assert stored["percent"] >= mutant_score.TARGET_PERCENT
    committed = (ROOT / "docs" / "coverage.md").read_text(encoding="utf-8")
    row = (f"| {mutation.FUZZ_LABEL} | {stored['programs']['valid']} | {stored['killed']} of "
           f"{stored['mutants']} | {round(100 * stored['killed'] / stored['mutants'])}% |")
    assert row in committed, "docs/coverage.md is stale: run `make coverage`"
    made_up = dict(stored, killed=1, kills=dict(list(stored["kills"].items())[:1]),
                   survivors=[m.name for m in mutation.mutants()][1:],
                   programs=dict(stored["programs"], valid=7))
    path = tmp_path / "score.json"
    path.write_text(json.dumps(made_up), encoding="utf-8")
    fuzz = mutant_score.read(path, mutation.FUZZ_LABEL)
    empty = mutation.Score("x", 0, {}, [m.name for m in mutation.mutants()])
    text = mutation.markdown(empty, empty, fuzz)
    assert f"| {mutation.FUZZ_LABEL} | 7 | 1 of {stored['mutants']} | 1% |" in text
    first, kill = next(iter(stored["kills"].items()))
    assert f"program `{kill['seed']}`: `{kill['signature']}` |" in text.split(f"`{first}`")[1]


def test_inprocess_names():
    assert inprocess.handles("oracle") and inprocess.handles("mutant:x")
    assert not inprocess.handles("onnxruntime")
    assert inprocess.mutant_of("oracle") is None
