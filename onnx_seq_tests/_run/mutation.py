"""Mutation testing of a suite: the score of a suite = the share of the catalogue's mutant
backends (`mutants/`: each the spec oracle with one plausible runtime bug) that some case of it
catches.

Mutants run in-process on a suite read once, so scoring the catalogue over the whole suite takes
seconds. A case kills a mutant when the unmutated oracle passes it and the mutant does not (a
wrong value, a wrong kind, dtype or shape, or an error where the spec gives a result). Nothing
here keeps state: each run passes the mutant's operator table to `oracle.run_graph`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import onnx

from .._core.cases import Graph, walk
from .._core.compare import compare_outputs
from .._core.operators import domain_key, model_ml_opset, model_opset
from .._core.suite_forms import SuiteForm
from .._core.value_kinds import TYPE_PREFIXES, ValueType, from_type_proto
from .._oracle import oracle
from .._oracle.mutants import CATALOGUE
from .._oracle.mutants.kit import Mutant, operator_table
from .._published.case_features import EDGE_CASES, CaseCoverage
from .._published.case_folder import read_case_folder
from .._published.coverage import DerivedForm, derived_forms, onnx_sequence_tests
from .._published.discovery import case_folders, read_each, read_manifest
from .._published.structure import STRUCTURE

__all__ = ["FUZZ_LABEL", "Discrimination", "Score", "Subject",
           "discrimination", "features_of", "holds", "markdown", "mutants", "onnx_subjects",
           "passes", "run_mutant", "score", "suite_subjects"]


def mutants() -> list[Mutant]:
    """Every mutant of the catalogue, each one plausible runtime bug in one behaviour."""
    return list(CATALOGUE)


@dataclass
class Subject:
    """One case, ready to run: its graph read back from the model, and its data sets."""

    name: str
    graph: Graph
    opset: int
    data_sets: list
    input_types: list
    output_types: list
    atol: float | None
    rtol: float | None
    operators: frozenset = frozenset()
    ml_opset: int | None = None


# -- the run ------------------------------------------------------------------------------------

def run_mutant(mutant: Mutant | None, graph: Graph, opset: int, inputs: list,
               input_types: list, output_types: list, ml_opset: int | None = None) -> list:
    """The outputs a mutant backend (None: the plain oracle) gives for `inputs`: its input
    transform, the oracle with its operators, its output transform. Raises where it fails.
    A mutant gets its own copy of the inputs, as a runtime does across its API, so one that
    writes into a value's storage (sequence_insert_in_place) cannot change the data sets."""
    if mutant is not None:
        inputs = [_own_copy(v) for v in inputs]
    if mutant is not None and mutant.inputs is not None:
        inputs = [mutant.inputs(v, t) for v, t in zip(inputs, input_types, strict=True)]
    actual = oracle.run_graph(graph, opset, list(inputs), operators=operator_table(mutant),
                              ml_opset=ml_opset)
    if mutant is not None and mutant.outputs is not None:
        actual = [mutant.outputs(v, t) for v, t in zip(actual, output_types, strict=True)]
    return actual


def _own_copy(value):
    """`value` with fresh sequence lists and tensor arrays (None stays None)."""
    if isinstance(value, list):
        return [_own_copy(v) for v in value]
    return value.copy() if isinstance(value, np.ndarray) else value


def passes(subject: Subject, mutant: Mutant | None, data_set: int | None = None) -> bool:
    """Whether `mutant` (None: the plain oracle) gives every expected output of `subject`."""
    chosen = subject.data_sets if data_set is None else [subject.data_sets[data_set]]
    for inputs, expected in chosen:
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                actual = run_mutant(mutant, subject.graph, subject.opset, list(inputs),
                                    subject.input_types, subject.output_types, subject.ml_opset)
        except Exception:  # noqa: BLE001 - a runtime failing is what a mutant may do
            return False
        if compare_outputs(list(expected), actual, atol=subject.atol, rtol=subject.rtol,
                           types=subject.output_types):
            return False
    return True


@dataclass
class Score:
    """Which case killed each mutant, and the mutants no case killed."""

    label: str
    cases: int
    killed: dict  # mutant name -> the first case that killed it
    survivors: list
    left_out: list = field(default_factory=list)  # cases the plain oracle does not pass
    discrimination: list | None = None  # Discrimination rows, when measured (see scores)
    forms: list = field(default_factory=list)  # the derived forms' Scores, when measured
    cannot_show: dict = field(default_factory=dict)  # mutant -> what the form lacks for it

    @property
    def total(self) -> int:
        return len(self.killed) + len(self.survivors)

    @property
    def percent(self) -> float:
        return 100.0 * len(self.killed) / self.total if self.total else 0.0


def score(subjects: list[Subject], mutants, label: str = "suite") -> Score:
    """Run every mutant over the subjects the plain oracle passes, stopping at its first kill."""
    usable = [s for s in subjects if passes(s, None)]
    killed, survivors = {}, []
    for mutant in mutants:
        touched = set(mutant.operators)
        killer = next((s.name for s in usable if (not touched or touched & s.operators)
                       and not passes(s, mutant)), None)
        if killer is None:
            survivors.append(mutant.name)
        else:
            killed[mutant.name] = killer
    left_out = [f"{s.name} ({_why(s)})" for s in subjects if s not in usable]
    return Score(label, len(usable), killed, survivors, left_out)


def scores(root: Path, skipped: list | None = None,
           coverages: list[CaseCoverage] | None = None,
           derived: list[DerivedForm] | None = None) -> tuple[Score, Score]:
    """The mutation scores of the suite at `root` and of onnx's own sequence/optional node
    cases, over every mutant: what `gen-seq-tests mutation` and `coverage` report (with
    `skipped`, over the folders that can be read; see suite_subjects). With `coverages` (the
    suite's, from coverage.suite_coverage) the suite's score carries its discrimination, and
    `forms` the score and discrimination of each derived form the suite holds (from
    `derived`, coverage.derived_forms of `root`, when the caller has it already)."""
    every = mutants()
    subjects = suite_subjects(root, skipped)
    ours = score(subjects, every, "this suite")
    if coverages is not None:
        ours.discrimination = discrimination(ours, subjects, coverages)
        forms = derived_forms(root, skipped) if derived is None else derived
        ours.forms = [form_score(root, d.form, every, coverages, d.coverages, skipped)
                      for d in forms if d.folders]
    return ours, score(onnx_subjects(), every, "onnx's node cases")


def form_score(root: Path, form: SuiteForm, every: list[Mutant], originals: list[CaseCoverage],
               form_coverages: list[CaseCoverage], skipped: list | None = None) -> Score:
    """The score and discrimination of one derived form of the suite at `root`: its own
    folders, run as they are (the form's models, not the cases as written; `form_coverages`
    their coverage), over the mutants the form can show. A feature it does not discriminate
    says why the cases as written (`originals`) holding it have no variant of the form, where
    the manifest says so."""
    subjects = suite_subjects(root, skipped, form)
    cannot_show = {m.name: lacked for m in every
                   if (lacked := [n for n in m.needs if n in form.lacks])}
    shown = [m for m in every if m.name not in cannot_show]
    result = score(subjects, shown, f"this suite, {form.title}")
    result.cannot_show = cannot_show
    rows = discrimination(result, subjects, form_coverages, shown)
    manifest = read_manifest(Path(root))
    entries = manifest.by_name if manifest is not None else {}
    result.discrimination = [row if row.discriminated else replace(row, why_not="; ".join(sorted({
        why for case in originals if holds(case, row.feature)
        and (entry := entries.get(case.name.removeprefix("test_"))) is not None
        and (why := entry.no_form(form))}))) for row in rows]
    return result


# -- discrimination -----------------------------------------------------------------------------

#: A target starting so is a type: held by a case with a node that sees a value whose type
#: string contains it (`tensor(float16)`, `seq(`); any other target is a feature label.
TYPE_TARGET = TYPE_PREFIXES


@dataclass(frozen=True)
class Discrimination:
    """One targeted feature (what, operator or None, label): the mutants targeting it, and those
    no case holding the feature kills (none: the feature is discriminated)."""

    feature: tuple
    mutants: tuple
    missed: tuple
    held: bool = True  # some case of the form holds the feature
    why_not: str = ""  # in a derived form: why the cases holding it have no variant there

    @property
    def discriminated(self) -> bool:
        return not self.missed


def features_of(mutant: Mutant) -> list[tuple]:
    """The features (what, operator or None, label) a mutant's targets name: the rows of
    EDGE_CASES and STRUCTURE with that label whose operator is one the mutant replaces (any for
    a boundary mutant); else the label on each operator it replaces; a type as itself."""
    found: list[tuple[str, str | None, str]] = []
    for label in mutant.targets:
        if label.startswith(TYPE_TARGET):
            shown = label + ("…" + ")" * (label.count("(") - label.count(")"))
                             if label.endswith("(") else "")
            found.append((f"a value of type `{shown}`", None, label))
            continue
        rows = [row for row in (*EDGE_CASES, *STRUCTURE) if row[2] == label and (
            row[1] is None or not mutant.operators or row[1] in mutant.operators)]
        found += rows or [(f"{op}: {label}", op, label) for op in sorted(mutant.operators)]
    return found


def holds(case: CaseCoverage, feature: tuple) -> bool:
    """Whether a case holds a feature (what, operator or None, label) of features_of."""
    _, op_type, label = feature
    if label.startswith(TYPE_TARGET):
        return any(label in type_string for _, _, type_string in case.combinations)
    return any(found == label and op_type in (None, op) for op, _, found in case.features)


def discrimination(result: Score, subjects: list[Subject], coverages: list[CaseCoverage],
                   catalogue: list[Mutant] | None = None) -> list[Discrimination]:
    """Each feature some mutant of `catalogue` (default: every mutant) targets, with the
    mutants no case holding it kills: the first killer `result` found counts when it holds the
    feature, else the holders are run (each (mutant, case) once). The tables' rows come
    first, in their order."""
    cases = {c.name: c for c in coverages}
    every = {m.name: m for m in (mutants() if catalogue is None else catalogue)}
    usable = [s for s in subjects if s.name in cases and s.name not in {
        n.split(" ", 1)[0] for n in result.left_out}]
    targeted: dict[tuple, list[str]] = {}
    for mutant in every.values():
        for feature in features_of(mutant):
            targeted.setdefault(feature, []).append(mutant.name)
    table = [*EDGE_CASES, *STRUCTURE]
    order = sorted(targeted, key=lambda f: (table.index(f) if f in table else len(table), f))
    runs: dict[tuple[str, str], bool] = {}

    def kills(mutant: Mutant, subject: Subject) -> bool:
        touched = set(mutant.operators)
        if touched and not touched & subject.operators:
            return False
        key = (mutant.name, subject.name)
        if key not in runs:
            runs[key] = not passes(subject, mutant)
        return runs[key]

    rows = []
    for feature in order:
        holders = [s for s in usable if holds(cases[s.name], feature)]
        names = {s.name for s in holders}
        missed = tuple(n for n in targeted[feature] if result.killed.get(n) not in names
                       and not any(kills(every[n], s) for s in holders))
        rows.append(Discrimination(feature, tuple(targeted[feature]), missed, bool(holders)))
    return rows


def discrimination_markdown(ours: Score) -> list[str]:
    """The report's "Discrimination" section: each targeted feature in the cases as written
    and in each derived form of `ours.forms`."""
    scores = [ours, *ours.forms]
    titles = ["cases as written", *(s.label.removeprefix("this suite, ") for s in ours.forms)]
    lines = ["", "## Discrimination", "",
             "Each mutant names the features it targets (`targets` in the catalogue): rows of "
             "the edge-case and structure tables above, a feature the oracle trace gives for "
             "one operator (`SequenceAt: position -1`), or a type. A feature is *discriminated* "
             "in a form when every mutant targeting it is killed by a case of that form that "
             "holds the feature, so that the case's data tells the mutant's reading from the "
             "spec's there. A type is held by a case with a node that sees a value of that "
             "type. Each form is measured on its own folders (its models and data sets).", ""]
    for title, result in zip(titles, scores, strict=True):
        rows = result.discrimination or []
        unheld = [r.feature[0] for r in rows if not r.held]
        lines.append(f"- {title}: {sum(r.discriminated for r in rows)} of {len(rows)} "
                     "targeted features discriminated"
                     + (f"; held by no case of the form: {'; '.join(unheld)}" if unheld else "")
                     + ".")
    for result in ours.forms:
        lacked: dict[str, list[str]] = {}
        for name, needs in result.cannot_show.items():
            lacked.setdefault(" and ".join(needs), []).append(f"`{name}`")
        for needs, names in lacked.items():
            lines.append(f"- The {result.label.removeprefix('this suite, ')} lacks {needs}, "
                         f"so it cannot show {', '.join(names)} (their features count there "
                         "without them; *n/a*: no other mutant targets the feature).")
    lines += ["", "| feature | mutants targeting it | " + " | ".join(titles)
              + " | not killed by a case holding it |",
              "| --- | --- | " + "--- | " * len(titles) + "--- |"]
    by_form = [{r.feature: r for r in (s.discrimination or [])} for s in scores]
    for row in ours.discrimination or []:
        cells, missed = [], []
        for title, found in zip(titles, by_form, strict=True):
            mine = found.get(row.feature)
            cells.append("*n/a*" if mine is None else "yes" if mine.discriminated
                         else "**no**" if mine.held else "not held")
            if mine is not None and mine.missed:
                missed.append(f"{title}: " + (", ".join(f"`{n}`" for n in mine.missed)
                                              if mine.held else "no case holds it")
                              + (f" (the cases as written holding it have no variant there: "
                                 f"{mine.why_not})" if mine.why_not else ""))
        lines.append(f"| {row.feature[0].replace('|', '/')} | "
                     f"{', '.join(f'`{n}`' for n in row.mutants)} | {' | '.join(cells)} | "
                     f"{'; '.join(missed) or '-'} |")
    return lines


def _why(subject: Subject) -> str:
    """Why the plain oracle does not pass a subject: the spec's refusal or the difference."""
    for k, (inputs, expected) in enumerate(subject.data_sets):
        try:
            actual = oracle.run_graph(subject.graph, subject.opset, list(inputs),
                                      ml_opset=subject.ml_opset)
        except Exception as error:  # noqa: BLE001 - reported, not raised
            return f"data set {k}: {error}"
        found = compare_outputs(list(expected), actual, atol=subject.atol, rtol=subject.rtol,
                                types=subject.output_types)
        if found:
            return f"data set {k}: {found[0]}"
    return "passes"


# -- subjects -----------------------------------------------------------------------------------

def _subject(name, model: onnx.ModelProto, data_sets, atol, rtol) -> Subject:
    graph = oracle.graph_from_proto(model.graph)
    operators = {domain_key(n.op_type, n.domain) for n in walk(graph)}  # as mutants key them
    types = []
    for side in (model.graph.input, model.graph.output):
        found: list[ValueType | None] = []
        for info in side:
            try:
                found.append(from_type_proto(info.type))
            except (TypeError, KeyError):
                found.append(None)
        types.append(found)
    opset = model_opset(model)
    if opset is None:
        raise ValueError(f"{name}: the model imports no ai.onnx opset")
    return Subject(name, graph, opset, [(list(i), list(o)) for i, o in data_sets],
                   types[0], types[1], atol, rtol, frozenset(operators), model_ml_opset(model))


def suite_subjects(root: Path, skipped: list | None = None,
                   form: SuiteForm = SuiteForm.AS_WRITTEN) -> list[Subject]:
    """Every case folder of `form` under `root` (default: the cases as written; the derived
    forms' folders are copies of the same cases), read once as a consumer reads it. A
    folder that cannot be read raises ReadError; with `skipped` it is appended there."""
    def read(path: Path) -> Subject:
        folder = read_case_folder(path)
        return _subject(folder.name, folder.model, folder.data_sets, folder.atol, folder.rtol)

    outcomes = read_each([p for p in case_folders(Path(root))
                          if SuiteForm.of_folder(p) is form], read)
    if skipped is None:
        outcomes.raise_first()
    else:
        skipped.extend(outcomes.skipped)
    return outcomes.values


def onnx_subjects() -> list[Subject]:
    """onnx's own node cases that use a sequence or optional operator or value."""
    subjects = []
    for test in onnx_sequence_tests():
        rtol = getattr(test, "rtol", None)
        atol = getattr(test, "atol", None)
        subjects.append(_subject(test.name, test.model, test.data_sets, atol, rtol))
    return subjects


# -- the report ---------------------------------------------------------------------------------

#: The row the fuzzer's own score goes in (fixed seed, 5 minutes on 2 cores, no fixed cases).
FUZZ_LABEL = "`gen-seq-tests fuzz` alone (fixed seed, 5 min, no fixed cases)"

def markdown(ours: Score, theirs: Score, fuzz: Score | None = None) -> str:
    """The mutation score table, ours beside onnx's node cases (and `gen-seq-tests fuzz` alone
    when `fuzz` is given; a marked placeholder row otherwise), and every mutant's line with the
    public threads it is modelled on."""
    every = {m.name: m for m in mutants()}
    lines = [
        "## Mutation score",
        "",
        f"{ours.total} mutant backends (`onnx_seq_tests/_oracle/mutants/`), each the spec "
        "oracle with one plausible runtime bug; a case kills a mutant when the plain oracle "
        "passes it and the mutant does not. Reproduce with `gen-seq-tests mutation`.",
        "",
        "| suite | cases run | mutants killed | score |",
        "| --- | ---: | ---: | ---: |",
    ]
    for result in (ours, *ours.forms, theirs, *([fuzz] if fuzz else [])):
        lines.append(f"| {result.label} | {result.cases} | {len(result.killed)} of "
                     f"{result.total} | {result.percent:.0f}% |")
    if fuzz is None:
        lines.append(f"| {FUZZ_LABEL} | - | (not measured yet) | - |")
    for result in (ours, theirs):
        if result.left_out:
            lines += ["", f"Not run for {result.label} (the plain spec oracle does not pass "
                          "them, so they cannot tell a mutant from the spec): "
                      + "; ".join(f"`{n.split(' ', 1)[0]}` {n.split(' ', 1)[1]}"
                                   for n in result.left_out) + "."]
    if fuzz:
        lines += ["", f"Fuzz alone: one campaign (`gen-seq-tests mutation --fuzz`, stored in "
                  f"docs/mutation-fuzz.json) drew {fuzz.cases} valid programs and judged on "
                  "each every mutant still alive that uses one of its operators; a mutant is "
                  "killed by the first program it fails or raises on (its program seed, and "
                  "the signature of that program shrunk)."]
    head = "| mutant | the bug | modelled on | killed by (this suite) | killed by (onnx) |"
    lines += ["", head + (" killed by (fuzz alone) |" if fuzz else ""),
              "| --- | --- | --- | --- | --- |" + (" --- |" if fuzz else "")]
    for name, mutant in every.items():
        mine = ours.killed.get(name, "**survives**")
        other = theirs.killed.get(name, "survives")
        origin = "; ".join([*mutant.sources, *filter(None, [mutant.modelled_on])]) or "-"
        row = f"| `{name}` | {mutant.behaviour} | {origin} | {mine} | {other} |"
        lines.append(row + (f" {fuzz.killed.get(name, 'survives')} |" if fuzz else ""))
    if ours.discrimination is not None:
        lines += discrimination_markdown(ours)
    return "\n".join(lines) + "\n"
