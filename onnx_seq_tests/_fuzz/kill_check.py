"""Checking the kills of the fuzz-alone score (docs/mutation-fuzz.json): each kill's program is
drawn again from its seed, judged and shrunk as `gen-seq-tests mutation --fuzz` shrinks it, and
its shrunk case must be

(a) small: at most `MAX_NODES` nodes in the main graph (a body's nodes not counted);
(b) a case: written as a finding's case file, read back and compiled by the builder;
(c) failing that mutant only: in the form it was found in, it fails (or raises on) the
    mutant; it passes on the spec oracle and on onnxruntime in both forms (onnxruntime may
    refuse a model for a limit docs/conformance.md documents: it then answers nothing wrong);
    and no mutant of an operator the killed mutant does not touch gives a wrong answer on it.
    How "only" is read: a mutant of the same operator may fail it too (the same bug or its
    twin: Loop one turn short and one turn long); so may a mutant of the graph boundary (no
    operator: int64 cut to 32 bits, NaN canonicalised, ...) on a case whose inputs hold its
    element type, which no case of that type avoids; a mutant that raises on it (outcome
    error: a runtime lacking a feature) answers nothing wrong. The tensor-boundary form is
    judged apart: its own SequenceLength/SequenceAt/Optional* nodes are failed by those
    operators' mutants whatever the case, so only mutants of the case's own operators count.
    A mutant modelled on onnxruntime's own bug (`modelled_on`) fails there too: that runtime
    is not asked.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from .._casefile.reader import load_file
from .._core.problems import Problems
from .._oracle.mutants import CATALOGUE
from .._oracle.mutants.kit import Mutant
from .._suite.compiling import compile_case
from . import inprocess, judge, shrink
from .findings import case_text
from .programs import generate
from .recipes import to_case

#: Nodes a shrunk kill may keep in its main graph (issue 19: "at most 3 nodes").
MAX_NODES = 3
#: Outcomes of an honest runtime that answer nothing wrong.
HONEST = ("pass", "refused")


@dataclass
class KillCheck:
    mutant: str
    seed: str
    signature: str = ""
    main_nodes: int = 0
    builds: bool = False
    fails_mutant: bool = False
    honest: dict = field(default_factory=dict)  # backend -> outcomes of its forms
    same_bug: list = field(default_factory=list)  # other mutants of its operators failing it
    unrelated: list = field(default_factory=list)  # other mutants answering wrong on it
    refusing: list = field(default_factory=list)  # other mutants raising on it (no wrong answer)
    seconds: float = 0.0

    def problems(self) -> list[str]:
        """What is wrong with the kill's shrunk case, one phrase each (empty: all holds)."""
        found = []
        if self.main_nodes > MAX_NODES:
            found.append(f"{self.main_nodes} nodes in the main graph (at most {MAX_NODES})")
        if not self.builds:
            found.append("its case file does not build")
        if not self.fails_mutant:
            found.append("it does not fail the mutant")
        for backend, outcomes in self.honest.items():
            if set(outcomes) - set(HONEST):
                found.append(f"{backend} answers {'/'.join(outcomes)}")
        if self.unrelated:
            found.append("mutants of other operators answer wrong on it: "
                         + ", ".join(self.unrelated))
        return found


def related(mutant: Mutant, other: Mutant) -> bool:
    """Whether `other` failing a case that kills `mutant` leaves the case unambiguous: it is a
    mutant of one of the same operators, or of the graph boundary."""
    return not other.operators or bool(set(other.operators) & set(mutant.operators))


def rivals_for(mutant: Mutant):
    """`rivals(built, form)` for shrinking a kill of `mutant`: the mutants not related to it
    (see `related`) that answer wrong on the program's cases of that form."""
    others = [m for m in CATALOGUE if m.name != mutant.name and not related(mutant, m)]

    def rivals(built, form: str) -> frozenset:
        found = set()
        used = set(built.case.operators)  # not the tensor-boundary form's own nodes
        for case_form, case in built.cases.values():
            if case_form != form:
                continue
            for other in others:
                if other.name not in found and used & set(other.operators) and \
                        inprocess.judge_case(case, other).outcome == "fail":
                    found.add(other.name)
        return frozenset(found)
    return rivals


def mutant_named(name: str) -> Mutant:
    return next(m for m in CATALOGUE if m.name == name)


def killing_verdict(mutant: Mutant, seed: str):
    """(recipe, verdict) of the program `seed` on `mutant`, as the score's campaign judged it:
    the first form in which it fails or raises; None if it passes (the kill is stale)."""
    recipe = generate(seed)
    built = judge.build(to_case(recipe, "fuzz_0"))
    for folder, (form, case) in built.cases.items():
        judged = inprocess.judge_case(case, mutant)
        if judged.outcome != "pass":
            spec = inprocess.MUTANT_PREFIX + mutant.name
            return recipe, judge.Verdict.of(spec, form, folder, judged)
    return None


def check_kill(name: str, seed: str, budget: float = 3.0, honest=("onnxruntime",),
               work: Path | None = None) -> KillCheck:
    """Draw, judge and shrink the killing program `seed` of mutant `name`, then check its
    shrunk case (see the module docstring)."""
    started = time.monotonic()
    result = KillCheck(name, seed)
    mutant = mutant_named(name)
    found = killing_verdict(mutant, seed)
    if found is None:
        return result
    recipe, verdict = found
    with tempfile.TemporaryDirectory(prefix="seq-kill-check-") as scratch:
        work = Path(scratch) if work is None else work
        small, small_verdict, _ = shrink.shrink(recipe, verdict, work / "shrink",
                                                budget=budget, errors=True,
                                                rivals=rivals_for(mutant))
        case = to_case(small, f"fuzz_{name}")
        result.signature = shrink.signature(verdict.backend, small_verdict, case)
        result.main_nodes = len(small.nodes)
        result.builds = _builds(case, result.signature, Path(scratch))
        built = judge.build(case)
        verdicts = judge.run([built], ["oracle", *honest], work / "honest")[case.name]
    for backend in ("oracle", *honest):
        if not mutant.modelled_on.startswith(backend):  # a runtime's own bug fails it there
            result.honest[backend] = sorted({v.outcome for v in verdicts
                                             if v.backend == backend})
    form_cases = [c for f, c in built.cases.values() if f == small_verdict.form]
    for other in CATALOGUE:
        outcomes = {inprocess.judge_case(c, other).outcome for c in form_cases}
        outcome = next((o for o in ("fail", "error") if o in outcomes), "pass")
        if other.name == name:
            result.fails_mutant = outcome != "pass"
        elif outcome == "error":
            result.refusing.append(other.name)
        elif outcome != "fail":
            continue
        elif related(mutant, other):
            result.same_bug.append(other.name)
        elif set(other.operators) & set(case.operators):
            result.unrelated.append(other.name)
    result.seconds = round(time.monotonic() - started, 2)
    return result


def _builds(case, signature: str, folder: Path) -> bool:
    """Whether the case, written as a finding's case file and read back, compiles."""
    path = folder / "finding.yaml"
    path.write_text(case_text(case, signature, "check"), encoding="utf-8")
    problems = Problems()
    loaded = load_file(path, problems)
    compiled = [compile_case(c, "undefined", problems) for c in loaded]
    return bool(loaded) and not problems.found and all(c is not None for c in compiled)
