"""Coverage of a suite beside onnx's own node cases: which suites are measured (a generated
suite's case folders, its derived forms, onnx's sequence node cases, selected here once),
their totals (`summarize`) and the Markdown report. What one case exercises is
case_features.py's.
"""

from __future__ import annotations

import functools
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import onnx

from .._core import operators
from .._core.cases import walk
from .._core.errors import NothingRead
from .._core.suite_forms import SuiteForm
from .._oracle import oracle
from .case_features import EDGE_CASES, CaseCoverage, case_coverage, matrix
from .case_folder import read_case_folder
from .discovery import case_folders, read_each, read_manifest
from .structure import STRUCTURE, structure_markdown

# -- suites -------------------------------------------------------------------------------------

def suite_coverage(root: Path, skipped: list | None = None,
                   form: SuiteForm = SuiteForm.AS_WRITTEN) -> list[CaseCoverage]:
    """The coverage of every case folder of `form` under `root` (default: the cases as
    written), read back as any consumer reads it; the derived forms' folders (copies of the
    same cases) are counted by `derived_form` instead. A folder that cannot be read raises
    ReadError; with `skipped` it is appended there (a discovery.Skipped: folder, kind, reason)
    and the others counted (NothingRead when no folder could be read)."""
    def read(path: Path) -> CaseCoverage:
        folder = read_case_folder(path)
        return case_coverage(folder.name, folder.model, folder.data_sets)

    outcomes = read_each([p for p in case_folders(Path(root))
                          if SuiteForm.of_folder(p) is form], read)
    if skipped is None:
        outcomes.raise_first()
    elif outcomes.skipped and not outcomes.done:  # a report of no case: say so instead
        raise NothingRead("no case folder could be read", outcomes.skipped)
    else:
        skipped.extend(outcomes.skipped)
    return outcomes.values


@functools.lru_cache(maxsize=1)
def onnx_node_tests() -> tuple:
    """onnx's own node cases, built in memory once per process (it takes seconds)."""
    from onnx.backend.test.loader import load_model_tests

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # onnx's case generators warn about overflow in casts
        return tuple(load_model_tests(kind="node"))


def onnx_sequence_tests() -> tuple[Any, ...]:
    """onnx's own node cases that are about sequences and optionals: those with a node of a
    sequence/optional operator (onnx.defs: `operators.sequence_operators()`), subgraphs
    included, or a sequence or optional among their graph inputs and outputs. The one
    selection the coverage report and the mutation score (onnx's column) both use."""
    wanted = set(operators.sequence_operators())
    found = []
    for test in onnx_node_tests():
        graph = oracle.graph_from_proto(test.model.graph)
        values = [*test.model.graph.input, *test.model.graph.output]
        if wanted.intersection(n.op_type for n in walk(graph)) or any(
                v.type.WhichOneof("value") in ("sequence_type", "optional_type")
                for v in values):
            found.append(test)
    return tuple(found)


def onnx_coverage() -> list[CaseCoverage]:
    """The coverage of onnx's sequence node cases (`onnx_sequence_tests`)."""
    return [case_coverage(test.name, test.model, test.data_sets)
            for test in onnx_sequence_tests()]


@dataclass
class DerivedForm:
    """A derived form under a root: its case folders, and the cases without one."""

    form: SuiteForm
    folders: int
    without: dict[str, str]  # case name -> why it has no variant of this form
    structure: list = field(default_factory=list)  # Summary.structure() of its folders
    coverages: list = field(default_factory=list)  # the CaseCoverage of each of its folders

    def reasons(self) -> list[tuple[str, int]]:
        """Why cases have no variant of this form, with how many cases each: a wrapping
        operator's refusal of an element type is one reason, its types gathered."""
        groups: dict[str, list[str]] = {}
        for why in self.without.values():
            groups.setdefault(_ELEMENT.sub("tensor(T)", why), []).append(why)
        found = []
        for reason, whys in sorted(groups.items(), key=lambda g: (-len(g[1]), g[0])):
            types = sorted({t for why in whys for t in _ELEMENT.findall(why)})
            found.append((reason + (f", T one of {', '.join(types)}" if types else ""),
                          len(whys)))
        return found


_ELEMENT = re.compile(r"tensor\((\w+)\)")


def derived_form(root: Path, form: SuiteForm, skipped: list | None = None) -> DerivedForm:
    """Count the folders of a derived `form` under `root` and the structural features they
    hold; the cases without the form come from the manifest at `root`, when there is one. A
    folder that cannot be read: as in suite_coverage."""
    root = Path(root)
    folders = sum(SuiteForm.of_folder(p) is form for p in case_folders(root))
    coverages = suite_coverage(root, skipped, form) if folders else []
    structure = summarize(coverages).structure() if folders else []
    manifest = read_manifest(root)
    cases = manifest.by_name if manifest is not None else {}
    without = {n: why for n, e in sorted(cases.items())
               if (why := e.no_form(form)) is not None}
    return DerivedForm(form, folders, without, structure, coverages)


def derived_forms(root: Path, skipped: list | None = None) -> list[DerivedForm]:
    """`derived_form` of each derived form, in order."""
    return [derived_form(root, form, skipped) for form in SuiteForm.derived()]


@dataclass
class Summary:
    """Coverage totals of a suite, and where each combination and feature is covered."""

    cases: int
    allowed: dict  # (op, version) -> allowed type strings
    combinations: dict  # (op, version, type) -> case names
    features: dict  # (op, version, label) -> case names

    def covered(self, op_type: str, version: int) -> list[str]:
        return [t for t in self.allowed[(op_type, version)]
                if (op_type, version, t) in self.combinations]

    @property
    def total(self) -> int:
        return sum(len(types) for types in self.allowed.values())

    @property
    def total_covered(self) -> int:
        return sum(len(self.covered(op, v)) for op, v in self.allowed)

    def edge_cases(self) -> list[tuple[str, list[str]]]:
        """Each edge case of EDGE_CASES with the cases that hold it, sorted."""
        return self._holders(EDGE_CASES)

    def structure(self) -> list[tuple[str, list[str]]]:
        """Each structural feature of STRUCTURE with the cases that hold it, sorted."""
        return self._holders(STRUCTURE)

    def _holders(self, table) -> list[tuple[str, list[str]]]:
        """(what, the cases holding its label) for each (what, op or None, label) of `table`."""
        rows = []
        for what, op_type, label in table:
            names = set()
            for (op, _, feature), cases in self.features.items():
                if feature == label and (op_type is None or op == op_type):
                    names.update(cases)
            rows.append((what, sorted(names)))
        return rows


def summarize(coverages: list[CaseCoverage]) -> Summary:
    combinations: dict = {}
    features: dict = {}
    for case in coverages:
        for key in case.combinations:
            combinations.setdefault(key, []).append(case.name)
        for key in case.features:
            features.setdefault(key, []).append(case.name)
    return Summary(len(coverages), matrix(), combinations, features)


# -- the report ---------------------------------------------------------------------------------

def report(ours: Summary, theirs: Summary, root_label: str,
           derived: list[DerivedForm] | None = None) -> str:
    """The coverage report as Markdown: totals, the matrix, edge cases, features, and the
    derived forms given."""
    derived = derived or []
    lines = _totals(ours, theirs, root_label) + _matrix_rows(ours, theirs) \
        + _edge_case_rows(ours, theirs)
    lines += structure_markdown(ours.structure(), [(d.form.title, d.structure) for d in derived],
                                theirs.structure())
    lines += _feature_rows(ours, theirs)
    for form in derived:
        lines += _derived_rows(form)
    lines += ["", "## Types onnx's own node cases cover", ""]
    for (op_type, version), allowed in sorted(theirs.allowed.items()):
        covered = theirs.covered(op_type, version)
        lines.append(f"- {op_type}-{version} ({len(covered)} of {len(allowed)}): "
                     + (", ".join(covered) or "none"))
    return "\n".join(lines) + "\n"


def _totals(ours: Summary, theirs: Summary, root_label: str) -> list[str]:
    """The report's title, what it counts, and its table of totals."""
    return [
        "# Coverage of the sequence and optional operators",
        "",
        f"Generated by `gen-seq-tests coverage` from the case folders under `{root_label}` and "
        f"from onnx {onnx.__version__}'s schemas (`onnx.defs`, newest released "
        f"opset {operators.newest_released_opset()}), beside onnx's own node cases "
        "(`onnx.backend.test.loader.load_model_tests(kind=\"node\")`).",
        "",
        "A combination (operator, version, type) counts as covered when a case has a node of "
        "that operator, at an opset that selects that version, with an input or output of "
        "exactly that type. The types that count are those of the type constraints that allow "
        "a sequence or optional type.",
        "",
        "## Totals",
        "",
        "| | this suite | onnx's node cases |",
        "|---|---:|---:|",
        f"| cases | {ours.cases} | {theirs.cases} |",
        f"| combinations covered (of {ours.total}) | {ours.total_covered} | "
        f"{theirs.total_covered} |",
        f"| edge cases present (of {len(EDGE_CASES)}) | "
        f"{sum(1 for _, n in ours.edge_cases() if n)} | "
        f"{sum(1 for _, n in theirs.edge_cases() if n)} |",
    ]


def _matrix_rows(ours: Summary, theirs: Summary) -> list[str]:
    """The table of (operator, version): allowed types, covered here and by onnx, missing."""
    lines = [
        "",
        "## Operators, versions and types",
        "",
        "| operator | version | allowed types | covered here | covered by onnx | "
        "not covered here |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for (op_type, version), allowed in sorted(ours.allowed.items()):
        mine = ours.covered(op_type, version)
        missing = [t for t in allowed if t not in mine]
        lines.append(f"| {op_type} | {version} | {len(allowed)} | {len(mine)} | "
                     f"{len(theirs.covered(op_type, version))} | "
                     f"{', '.join(missing) if missing else '-'} |")
    return lines


def _edge_case_rows(ours: Summary, theirs: Summary) -> list[str]:
    """The table of EDGE_CASES: how many cases hold each, here and in onnx's cases."""
    lines = ["", "## Edge cases", "", "| edge case | cases here | example | in onnx's cases |",
             "|---|---:|---|---:|"]
    for (what, names), (_, onnx_names) in zip(ours.edge_cases(), theirs.edge_cases(),
                                               strict=True):
        example = f"`{names[0]}`" if names else "**missing**"
        lines.append(f"| {what.replace('|', '/')} | {len(names)} | {example} | "
                     f"{len(onnx_names)} |")
    return lines


def _feature_rows(ours: Summary, theirs: Summary) -> list[str]:
    """The table of features per operator and version, here and in onnx's cases."""
    lines = ["", "## Features per operator and version", "",
             "Features seen by running every data set through the spec oracle; onnx's cases "
             "in the last column.", "",
             "| operator | version | features here | features in onnx's cases |",
             "|---|---:|---|---|"]
    keys = sorted({(op, v) for op, v, _ in ours.features} | {(op, v) for op, v, _ in
                                                                theirs.features})
    for op_type, version in keys:
        mine = sorted(f for op, v, f in ours.features if (op, v) == (op_type, version))
        them = sorted(f for op, v, f in theirs.features if (op, v) == (op_type, version))
        lines.append(f"| {op_type} | {version} | {_features_text(mine)} | "
                     f"{_features_text(them)} |")
    return lines


_WHAT = {SuiteForm.TENSOR_BOUNDARY: "the cases above with only tensors as graph inputs and "
                                    "outputs",
         SuiteForm.CONSTANT: "the cases above with no graph input, one per data set, its input "
                             "values in the model"}


def _derived_rows(derived: DerivedForm) -> list[str]:
    """A derived form: its folders, and the cases that have none, by reason, then each."""
    title = derived.form.title
    lines = ["", f"## The {title}", "",
             f"`{derived.form.folder}/` holds {derived.folders} case folder(s): "
             f"{_WHAT[derived.form]}. The tables above count the cases as written. "
             f"{len(derived.without)} case(s) have no {title}:", ""]
    if derived.without:
        lines += reasons_table(derived) + ["", "| case | why |", "|---|---|"]
        lines += [f"| `{n}` | {why.replace('|', '/')} |" for n, why in derived.without.items()]
    return lines


def reasons_table(derived: DerivedForm) -> list[str]:
    """The Markdown table of `derived.reasons()`: why, and how many cases."""
    return ["| why | cases |", "|---|---:|",
            *(f"| {why.replace('|', '/')} | {count} |" for why, count in derived.reasons())]


def _features_text(labels: list[str]) -> str:
    return ", ".join(label.replace("|", "/") for label in labels) or "-"


__all__ = ["DerivedForm", "Summary", "derived_form", "derived_forms", "onnx_coverage",
           "onnx_node_tests", "onnx_sequence_tests", "reasons_table", "report", "suite_coverage",
           "summarize"]
