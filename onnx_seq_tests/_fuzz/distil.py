"""Distillation (`gen-seq-tests fuzz --distil`): the fuzzer, on the spec oracle only, writes the
cases a suite is missing.

The suite's gaps are measured first: each structural feature of STRUCTURE
(`_published/structure.py`) that no case holds, per suite form (the cases as written, the
tensor-boundary form), and each mutant of the catalogue that no case kills (as
`gen-seq-tests mutation` scores it). Cases named `distilled_*` are left out of that measure,
so a run against a suite that already holds its output writes the same files again. Programs
are then drawn seed by seed (program i of seed S from `S:i`, as `fuzz` draws them), each built
in both forms with the oracle's expectations; a program that holds a missing feature or kills a
surviving mutant is shrunk (shrink.py's proposals, keeping every gap it fills, a fixed number
of proposals: no clock) and written as a case file named after the first gap it fills. A
program filling several gaps is one case; each gap gets one case. The run stops when no gap is
left, after `max_examples` programs or after `time_budget` seconds; the files depend only on the
seed, the suite and the programs drawn, so `--max-examples` given in each case's `doc`
reproduces them byte for byte.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import onnx

from .._casefile.writer import case_data, cases_text
from .._core.atomic import write_atomic
from .._core.cases import Case
from .._core.errors import NoResult
from .._core.suite_forms import SuiteForm
from .._published.case_features import case_coverage
from .._published.coverage import suite_coverage
from .._published.structure import IMPOSSIBLE, STRUCTURE
from .._run import mutation
from . import inprocess, judge, shrink
from .campaign import budgeted_seeds
from .programs import generate
from .recipes import Recipe, to_case

#: The prefix of every distilled case's name (left out when the suite's gaps are measured).
PREFIX = "distilled_"
#: The suite forms whose structural gaps are filled.
FORMS = (SuiteForm.AS_WRITTEN, SuiteForm.TENSOR_BOUNDARY)
#: Proposals judged while shrinking one distilled program (a count, not a time: reproducible).
SHRINK_TRIES = 400


@dataclass(frozen=True)
class Gap:
    """What the suite lacks: a feature (STRUCTURE's `what`) in a form, or a mutant no case
    kills (`form` None)."""

    what: str
    form: SuiteForm | None = None

    @property
    def name(self) -> str:
        """The stable name of the case that fills it."""
        if self.form is None:
            return f"{PREFIX}kills_{_slug(self.what)}"
        tail = "" if self.form is SuiteForm.AS_WRITTEN else f"_{_slug(self.form.value)}"
        return f"{PREFIX}{_slug(self.what)}{tail}"



def _slug(text: str) -> str:
    """`text` as a case name's part: operators in snake case, the rest lowercase words."""
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", text).lower()
    return re.sub(r"_+", "_", re.sub(r"[^a-z0-9]+", "_", snake)).strip("_")


@dataclass
class Distilled:
    """One case written: the gaps it fills, its program seed and sizes."""

    name: str
    gaps: list
    seed: str
    nodes_before: int
    nodes_after: int
    text: str


@dataclass
class Distillation:
    features: dict  # form -> (held before, of how many)
    missing: list  # the gaps to fill at the start, in order
    mutants: tuple  # (killed before, of how many)
    distilled: list = field(default_factory=list)
    generated: int = 0
    valid: int = 0
    seconds: float = 0.0

    def left(self) -> list[Gap]:
        filled = {g for d in self.distilled for g in d.gaps}
        return [g for g in self.missing if g not in filled]


def gaps(root: Path) -> tuple[list[Gap], dict, tuple]:
    """The gaps of the suite at `root` (distilled cases left out), in STRUCTURE's order per form
    then the catalogue's; with the features held per form and the mutants killed."""
    missing, held = [], {}
    for form in FORMS:
        coverages = [c for c in suite_coverage(root, form=form)
                     if not c.name.startswith(f"test_{PREFIX}")]
        have = holders(c.features for c in coverages)
        held[form] = (len(have), len(STRUCTURE))
        missing += [Gap(what, form) for what, _, _ in STRUCTURE
                    if what not in have and what not in IMPOSSIBLE]
    subjects = [s for s in mutation.suite_subjects(root)
                if not s.name.startswith(f"test_{PREFIX}")]
    score = mutation.score(subjects, mutation.mutants())
    missing += [Gap(name) for name in score.survivors]
    return missing, held, (len(score.killed), score.total)


def holders(feature_sets) -> set[str]:
    """The `what` of every STRUCTURE row some set of (op, version, label) features holds."""
    labels: dict[str, set] = {}
    for features in feature_sets:
        for op_type, _, label in features:
            labels.setdefault(label, set()).add(op_type)
    return {what for what, op_type, label in STRUCTURE
            if label in labels and (op_type is None or op_type in labels[label])}


def filled(built: judge.Built, wanted: list[Gap]) -> list[Gap]:
    """The gaps of `wanted` a built program fills."""
    if not wanted or built.problem:
        return []
    found: list[Gap] = []
    per_form: dict[SuiteForm, list] = {}
    for folder, (form, files) in built.folders.items():
        suite_form = SuiteForm.TENSOR_BOUNDARY if form == SuiteForm.TENSOR_BOUNDARY.folder \
            else SuiteForm.AS_WRITTEN
        case = built.cases[folder][1]
        model = onnx.load_from_string(files["model.onnx"])
        data_sets = [(d.inputs, d.outputs) for d in case.data_sets]
        per_form.setdefault(suite_form, []).append(
            case_coverage(folder, model, data_sets).features)
    held = {form: holders(sets) for form, sets in per_form.items()}
    written = built.cases[built.case.folder][1]
    for gap in wanted:
        if gap.form is not None:
            if gap.what in held.get(gap.form, ()):
                found.append(gap)
        elif inprocess.judge_case(written, inprocess.mutant_of(
                inprocess.MUTANT_PREFIX + gap.what)).outcome != "pass":
            found.append(gap)
    return found


def _built(recipe: Recipe, name: str = "distil_0") -> judge.Built | None:
    try:
        built = judge.build(to_case(recipe, name))
    except NoResult:
        return None
    return None if built.problem else built


def shrunk(recipe: Recipe, keep: list[Gap], tries: int = SHRINK_TRIES) -> Recipe:
    """The smallest recipe found, by shrink.py's proposals in order, that still builds and
    fills every gap of `keep`; at most `tries` proposals judged (each once)."""
    best, seen = recipe, set[str]()
    while len(seen) < tries:
        best_size = shrink.size(best)
        for candidate in shrink.proposals(best):
            key = repr(shrink.content_key(candidate))
            if key in seen or shrink.size(candidate) >= best_size:
                continue
            seen.add(key)
            built = _built(candidate)
            if built is not None and len(filled(built, keep)) == len(keep):
                best = candidate
                break
            if len(seen) >= tries:
                return best
        else:
            return best
    return best


def run(root: Path, seed: int, reproduce, max_examples: int | None = None,
        time_budget: float | None = None, operators=(), opsets=(), progress=None,
        only=None) -> Distillation:
    """Distil the gaps of the suite at `root` (see the module docstring). `reproduce(count)`
    is the command that draws the first `count` programs, named in each case's doc; `only`
    (a predicate on Gap), where given, picks the gaps to fill."""
    missing, held, killed = gaps(root)
    wanted = [g for g in missing if only is None or only(g)]
    result = Distillation(held, list(wanted), killed)
    start = time.monotonic()
    for index, program in budgeted_seeds(seed, max_examples, time_budget, lambda: wanted):
        result.generated = index + 1
        if progress and result.generated % 100 == 0:
            progress(result, time.monotonic() - start)
        try:
            recipe = generate(program, operators or None, opsets or None, wider=True)
        except NoResult:
            continue
        built = _built(recipe)
        if built is None:
            continue
        result.valid += 1
        found = filled(built, wanted)
        if not found:
            continue
        small = shrunk(recipe, found)
        fills = filled(_built(small) or built, wanted) or found
        case = _case(small, fills, program, reproduce(index + 1))
        result.distilled.append(Distilled(case.name, fills, program, shrink.size(recipe)[0],
                                          shrink.size(small)[0], _text(case, fills)))
        wanted[:] = [g for g in wanted if g not in fills]
    result.seconds = time.monotonic() - start
    return result


def phrases(fills: list[Gap]) -> list[str]:
    """What a distilled case fills, one phrase per feature (its forms together) or mutant."""
    forms: dict[str, list[str]] = {}
    for gap in fills:
        forms.setdefault(gap.what, []).append(gap.form.title if gap.form else "")
    return [f"kills the mutant `{what}`, which no case of the suite killed" if titles == [""]
            else f"holds \"{what}\" ({' and '.join(titles)}), which no case of the suite held"
            for what, titles in forms.items()]


def _case(recipe: Recipe, fills: list[Gap], program: str, command: str) -> Case:
    doc = ("Distilled by the fuzzer: the smallest program found that "
           + "; it also ".join(phrases(fills))
           + f". Program seed `{program}`, shrunk; reproduce with `{command}`.")
    return to_case(recipe, fills[0].name, doc)


def _text(case: Case, fills: list[Gap]) -> str:
    header = "".join(f"# gen-seq-tests fuzz --distil: {p}\n" for p in phrases(fills))
    return cases_text([([], case_data(case))], header)


def write(result: Distillation, folder: Path) -> list[Path]:
    """Write each distilled case to `folder/<name>.yaml` (atomically); their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for distilled in result.distilled:
        path = folder / f"{distilled.name}.yaml"
        write_atomic(path, distilled.text)
        paths.append(path)
    return paths


def summary(result: Distillation, root: Path) -> list[str]:
    """The lines `fuzz --distil` prints."""
    lines = [f"distil: {result.generated} programs drawn, {result.valid} valid, "
             f"{result.seconds:.1f} s, against {root}"]
    for form, (have, total) in result.features.items():
        gained = sum(1 for d in result.distilled for g in d.gaps if g.form is form)
        lines.append(f"{form.title}: {have} of {total} structural features held before, "
                     f"{have + gained} after")
    killed, total = result.mutants
    gained = sum(1 for d in result.distilled for g in d.gaps if g.form is None)
    lines.append(f"mutants killed by a case: {killed} of {total} before, {killed + gained} "
                 "after")
    for distilled in result.distilled:
        lines.append(f"case {distilled.name}: {len(distilled.gaps)} gap(s), nodes "
                     f"{distilled.nodes_before} -> {distilled.nodes_after}, seed "
                     f"{distilled.seed}")
    for gap in result.left():
        lines.append(f"still missing: {gap.what}" + (f" ({gap.form.title})" if gap.form
                                                       else " (a mutant)"))
    for what, why in IMPOSSIBLE.items():
        lines.append(f"impossible: {what}: {why}")
    return lines
