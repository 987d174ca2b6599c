"""The fuzz-alone mutation score: how many mutants of the catalogue a fuzz campaign kills
without the fixed cases (`gen-seq-tests mutation --fuzz`).

One campaign judges every mutant: programs are drawn once, in the campaign's order
(`campaign.program_seed(seed, i)`, the programs `gen-seq-tests fuzz --seed S` draws), each
built as fuzz builds it (both forms; an invalid program is counted, never judged) with the
spec oracle's expectations computed once, then every mutant still alive whose operators the
program uses (every program for a mutant of the graph boundary) is run on it in this process
(`inprocess.judge_case`: the mutant's operator table, the project's comparator). A mutant is
killed by the first program, in seed order, on which it fails or raises in either form; that
program is then shrunk as `fuzz -b mutant:NAME` shrinks a finding (and kept no less specific
to its mutant: kill_check.rivals_for), and its seed, outcome, kind and shrunk signature are
recorded. The campaign stops when every mutant is killed, after
`max_examples` programs, or after `time_budget` seconds of drawing and judging (shrinking is
timed apart). Given the same number of programs, the kills are the same on any machine.

The result is JSON (`as_json`), committed as docs/mutation-fuzz.json; `read` turns it back into
the `mutation.Score` that docs/coverage.md renders, without recomputing it.
"""

from __future__ import annotations

import json
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from .._core.atomic import write_atomic
from .._core.errors import CheckFailed, NoResult
from .._run import mutation
from .._run.mutation import Score
from . import inprocess, judge, shrink
from .campaign import budgeted_seeds
from .kill_check import rivals_for
from .outputs import check_file, keep_elsewhere
from .programs import generate
from .recipes import to_case

#: The figure issue 19 asks the fuzzer alone to reach.
TARGET_PERCENT = 90.0


@dataclass
class Kill:
    """The first program that killed a mutant."""

    seed: str  # the program seed, `S:i`
    form: str
    outcome: str  # fail or error
    kind: str
    operators: list
    message: str
    signature: str = ""  # of the shrunk case, as `fuzz` names findings
    nodes_before: int = 0
    nodes_after: int = 0


@dataclass
class FuzzScore:
    seed: int
    mutants: list  # names, in catalogue order
    kills: dict = field(default_factory=dict)  # name -> Kill
    generated: int = 0
    valid: int = 0
    no_result: int = 0
    invalid: int = 0
    seconds: float = 0.0
    shrink_seconds: float = 0.0

    def as_json(self, command: str) -> dict:
        killed = len(self.kills)
        return {
            "command": command, "seed": self.seed,
            "programs": {"generated": self.generated, "valid": self.valid,
                         "no_spec_result": self.no_result, "invalid": self.invalid},
            "seconds": round(self.seconds, 1), "shrink_seconds": round(self.shrink_seconds, 1),
            "mutants": len(self.mutants), "killed": killed,
            "percent": round(100.0 * killed / len(self.mutants), 1) if self.mutants else 0.0,
            "kills": {name: vars(self.kills[name]) for name in self.mutants
                      if name in self.kills},
            "survivors": [name for name in self.mutants if name not in self.kills],
        }


def score(mutants, seed: int = 0, time_budget: float | None = 300.0,
          max_examples: int | None = None, shrink_budget: float = 3.0,
          progress=None) -> FuzzScore:
    """Run one campaign against every mutant (see the module docstring);
    `progress(result, elapsed)` every 200 programs."""
    result = FuzzScore(seed, [m.name for m in mutants])
    alive = list(mutants)
    found: list = []  # (mutant, recipe, verdict)
    start = time.monotonic()
    for _, program in budgeted_seeds(seed, max_examples, time_budget, lambda: alive):
        result.generated += 1
        if progress and result.generated % 200 == 0:
            progress(result, time.monotonic() - start)
        try:
            recipe = generate(program)
            built = judge.build(to_case(recipe, "fuzz_0"))
        except NoResult:
            result.no_result += 1
            continue
        if built.problem:
            result.invalid += 1
            continue
        result.valid += 1
        used = set(built.case.operators)
        for mutant in list(alive):
            if mutant.operators and not used & set(mutant.operators):
                continue
            for folder, (form, case) in built.cases.items():
                judged = inprocess.judge_case(case, mutant)
                if judged.outcome == "pass":
                    continue
                verdict = judge.Verdict.of(inprocess.MUTANT_PREFIX + mutant.name, form,
                                           folder, judged)
                result.kills[mutant.name] = Kill(program, form, judged.outcome, verdict.kind(),
                                                 list(case.operators),
                                                 judged.message.split("\n", 1)[0])
                found.append((mutant, recipe, verdict))
                alive.remove(mutant)
                break
    result.seconds = time.monotonic() - start
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="seq-fuzz-score-") as scratch:
        for mutant, recipe, verdict in found:
            _shrunk(result.kills[mutant.name], recipe, verdict, Path(scratch), shrink_budget,
                    rivals_for(mutant))
    result.shrink_seconds = time.monotonic() - began
    return result


def _shrunk(kill: Kill, recipe, verdict: judge.Verdict, work: Path, budget: float,
            rivals) -> None:
    """Shrink a killing program as `fuzz` shrinks a finding, keeping it no less specific to
    its mutant (kill_check.rivals_for); record its size and signature."""
    kill.nodes_before = shrink.size(recipe)[0]
    small, small_verdict, _ = (recipe, verdict, 0) if budget <= 0 else shrink.shrink(
        recipe, verdict, work, budget=budget, errors=True, rivals=rivals)
    kill.nodes_after = shrink.size(small)[0]
    kill.signature = shrink.signature(verdict.backend, small_verdict, to_case(small, "x"))


def read(path: Path, label: str) -> Score:
    """The score stored at `path` (docs/mutation-fuzz.json) as a `mutation.Score`: each killed
    mutant's entry names its program seed and shrunk signature."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    killed = {name: f"program `{kill['seed']}`: `{kill['signature']}`"
              for name, kill in data["kills"].items()}
    return Score(label, data["programs"]["valid"], killed, list(data["survivors"]))


#: Where `gen-seq-tests mutation --fuzz --json` stores the fuzz-alone score that `coverage` and
#: `mutation` render (never recomputed there).
COMMITTED = Path("docs/mutation-fuzz.json")


def committed(path: Path = COMMITTED) -> Score | None:
    """The committed fuzz-alone mutation score, or None where there is none."""
    return read(path, mutation.FUZZ_LABEL) if Path(path).is_file() else None


def campaign(seed: int, time_budget: float, max_examples: int | None,
             json_path: Path | None, say) -> None:
    """`gen-seq-tests mutation --fuzz`: score every mutant with one fuzz campaign, say the
    result, write it as JSON where asked; CheckFailed under TARGET_PERCENT."""
    command = f"gen-seq-tests mutation --fuzz --seed {seed} --time-budget {time_budget:g}"
    if max_examples is not None:
        command += f" --max-examples {max_examples}"
    if json_path:
        check_file(json_path, "--json")  # before the campaign: OutputError, exit 2
    result = score(mutation.mutants(), seed, time_budget, max_examples)
    data = result.as_json(command)
    data["replay"] = (f"gen-seq-tests mutation --fuzz --seed {seed} --time-budget 100000 "
                      f"--max-examples {result.generated}")
    lost = None
    if json_path:
        text = json.dumps(data, indent=2) + "\n"
        try:
            write_atomic(json_path, text)
        except OSError as error:  # the score is kept, and said where
            lost = (f"--json {json_path}: {error.strerror or error}; the score is in "
                    f"{keep_elsewhere({json_path.name: text}, say)}")
    say(f"fuzz alone (seed {seed}): {data['killed']} of {data['mutants']} mutants killed "
        f"({data['percent']:.1f}%) by {result.valid} valid programs of {result.generated} drawn "
        f"in {result.seconds:.1f} s (+ {result.shrink_seconds:.1f} s shrinking); exact replay: "
        f"--max-examples {result.generated}")
    for name in data["survivors"]:
        say(f"survives: {name}")
    if lost:
        raise CheckFailed(lost)
    if data["percent"] < TARGET_PERCENT:
        raise CheckFailed(f"fuzz alone kills {data['percent']:.1f}% of the mutants, under "
                          f"{TARGET_PERCENT:g}%")
