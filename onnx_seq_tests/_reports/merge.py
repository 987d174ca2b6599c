"""Results read back from files: several `verify --json` reports merged into one scoreboard
(`gen-seq-tests report`: one runtime per CI job, one page), and the recorded verdicts of the
third-party runtimes that docs/conformance.md is re-rendered from.

Reports merge only when they ran the same suite: the same manifest sha256 for every suite they
name (a report without a manifest merges only with reports of the same suite names).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .._core.atomic import write_atomic
from .._core.errors import InputError, one_line
from .._run.verifier import Result
from .json_report import JsonReport, read_report


@dataclass
class Merged:
    """Reports merged: their results (sorted by case, then backend in the order met), the
    backends, the suite descriptions, the `about` map and what each backend ran."""

    results: list[Result]
    specs: list[str]
    suite: list[object]
    about: dict[str, tuple[str, ...]]
    described: dict[str, str]


def merge_reports(paths: list[Path]) -> Merged:
    """The results of several JSON reports as one run. A backend that two reports both ran on
    the same case (onnxruntime beside each `--transform T` run of a matrix) is kept once when
    both say the same outcome and message. Raises InputError naming the file for an unreadable
    report, for reports of different suites (manifest sha256), and for such a backend whose
    results disagree."""
    results: list[Result] = []
    specs: list[str] = []
    suite: list[object] = []
    about: dict[str, tuple[str, ...]] = {}
    described: dict[str, str] = {}
    first: JsonReport | None = None
    seen: dict[tuple[str, str], tuple[str, str]] = {}
    for path in paths:
        read = read_report(path, len(results))
        if first is None:
            first, suite = read, read.suite
        elif read.identity != first.identity:
            raise InputError(f"{read.shown}: ran another suite than {first.shown} (manifest "
                              f"sha256 {', '.join(read.identity) or 'none'} against "
                              f"{', '.join(first.identity) or 'none'}); merge reports of one "
                              "suite only")
        specs += [spec for spec in read.backends if spec not in specs]
        for result in read.results:
            key, said = (result.case, result.backend), (result.outcome, result.message)
            if key in seen and seen[key] != said:
                raise InputError(f"{read.shown}: {one_line(result.backend)} on "
                                  f"{one_line(result.case)} is in an earlier report too, with "
                                  f"another outcome ({one_line(result.outcome)} against "
                                  f"{one_line(seen[key][0])}); merge runs that agree only")
            if key not in seen:
                seen[key] = said
                results.append(result)
        described.update(read.described)
        about.update(read.about)
    cases = {c: i for i, c in enumerate(dict.fromkeys(r.case for r in results))}
    order = {s: i for i, s in enumerate(specs)}
    results.sort(key=lambda r: (cases[r.case], order.get(r.backend, len(order))))
    return Merged(results, specs, suite, about, described)


# -- recorded verdicts: the third-party runtimes' part of docs/conformance.md -------------------

#: One verdict: (backend, case, outcome, message).
Verdict = tuple[str, str, str, str]


def verdicts(rows: Iterable[Verdict], specs: list[str]) -> dict[str, list[dict]]:
    """Per backend of `specs`, each distinct (outcome, message) of its verdicts once, with the
    cases that gave it (sorted): what record_verdicts writes."""
    found = {}
    for spec in specs:
        groups: dict[tuple[str, str], list[str]] = defaultdict(list)
        for backend, case, outcome, message in rows:
            if backend == spec:
                groups[(outcome, message)].append(case)
        found[spec] = [{"outcome": o, "message": m, "cases": sorted(cases)}
                       for (o, m), cases in sorted(groups.items())]
    return found


def write_verdicts(path: Path, recorded: dict[str, list[dict]]) -> None:
    """Write recorded verdicts (`verdicts`) atomically, as docs/conformance-runtimes.json holds
    them."""
    write_atomic(path, json.dumps(recorded, indent=1, ensure_ascii=False) + "\n")


def read_verdicts(path: Path) -> dict[str, list[dict]]:
    """The recorded verdicts at `path` as written by write_verdicts: per backend, its groups
    (`outcome`, `message`, `cases`). OSError, ValueError for a file that is not JSON."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def record_verdicts(json_report: Path, specs: list[str], path: Path) -> None:
    """Write the outcome and message of every case on each of `specs`, read from a `verify
    --json` report, without times (the same verdicts give the same bytes): per backend, each
    distinct (outcome, message) once with the cases that gave it. docs/conformance.md's
    third-party columns come from this file, so the tests can re-render the report from it and
    a live run of onnxruntime and the reference evaluator."""
    results = read_report(json_report).results
    write_verdicts(path, verdicts([(r.backend, r.case, r.outcome, r.message) for r in results],
                                  specs))


def recorded_results(path: Path, like: list[Result], specs: list[str]) -> list[Result]:
    """`like` (results of one backend run over the same suite) with the recorded verdicts of
    `specs` merged in (those of other subjects in the file left out), sorted by case then in
    the order of `specs` as `verify` sorts them."""
    by_spec = {spec: {case: (group["outcome"], group["message"]) for group in groups
                      for case in group["cases"]}
               for spec, groups in read_verdicts(path).items()}
    merged = list(like)
    for result in {r.case: r for r in like}.values():
        for spec, by_case in by_spec.items():
            if spec not in specs:  # recorded, but not asked for (the README's table)
                continue
            if result.case in by_case:
                outcome, message = by_case[result.case]
                merged.append(Result(result.case, result.name, spec, outcome, message,
                                     result.operators, result.element, 0.0, result.opset,
                                     result.source, form=result.form))
    cases = {c: i for i, c in enumerate(dict.fromkeys(r.case for r in like))}
    order = {s: i for i, s in enumerate(specs)}
    return sorted(merged, key=lambda r: (cases[r.case], order[r.backend]))
