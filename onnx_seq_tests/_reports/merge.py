"""Results read back from files: several `verify --json` reports merged into one scoreboard
(`gen-seq-tests report`: one runtime per CI job, one page), and the recorded verdicts of the
third-party runtimes that docs/conformance.md is re-rendered from.

Reports merge only when they ran the same suite: the same manifest sha256 for every suite they
name (a report without a manifest merges only with reports of the same suite names).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, fields
from pathlib import Path

from .._core.atomic import write_atomic
from .._core.problems import SeqTestsError, one_line
from .._core.regular_files import read_regular
from .._run.verifier import OUTCOMES, Result

#: A JSON report larger than this is refused before it is read (a whole-suite run of the seven
#: built-in runtimes, both suite forms, is ~15 MB).
MAX_REPORT_BYTES = 32 * 1024 * 1024
#: More JSON values than this in one report are refused before it is parsed, counted from its
#: bytes as an upper bound (each ',', '[' and '{'): 32 MiB of `[],[],...` would otherwise be
#: 11 million lists. A real report has about 12 per result.
MAX_REPORT_VALUES = 4_000_000
#: More results than this in the reports read together are refused before any is converted (a
#: whole-suite run of the seven built-in runtimes has ~11,000).
MAX_REPORT_RESULTS = 100_000


class ReportError(SeqTestsError, ValueError):
    """A JSON report that cannot be read or merged; the message is `path: what is wrong`."""


@dataclass
class Merged:
    """Reports merged: their results (sorted by case, then backend in the order met), the
    backends, the suite descriptions, the `about` map and what each backend ran."""

    results: list[Result]
    specs: list[str]
    suite: list[dict]
    about: dict[str, tuple[str, ...]]
    described: dict[str, str]


#: The keys of a JSON result: Result's fields, with its `operators` under "operator" as the
#: '+'-joined text (writers.result_record); not those the report does not hold (`json` False).
_FIELDS = {f.name for f in fields(Result) if f.metadata.get("json", True)} - {"operators"} \
    | {"operator"}


def read_report(path: Path) -> dict:
    """A `verify --json` report as a dict, checked for the keys `merge_reports` uses."""
    shown = one_line(str(path))
    try:
        size = Path(path).stat().st_size  # checked before reading, and again while reading
        data = read_regular(Path(path), MAX_REPORT_BYTES + 1) if size <= MAX_REPORT_BYTES else b""
    except OSError as error:
        raise ReportError(f"{shown}: cannot read it: {error.strerror}") from None
    if max(size, len(data)) > MAX_REPORT_BYTES:
        raise ReportError(f"{shown}: larger than {MAX_REPORT_BYTES} bytes (MAX_REPORT_BYTES); "
                          "not a verify report of this suite")
    if data.count(b",") + data.count(b"[") + data.count(b"{") > MAX_REPORT_VALUES:
        raise ReportError(f"{shown}: more than {MAX_REPORT_VALUES} JSON values "
                          "(MAX_REPORT_VALUES); not a verify report of this suite")
    try:
        document = json.loads(data)
    except (ValueError, RecursionError) as error:
        raise ReportError(f"{shown}: not JSON ({one_line(str(error))}); write it with "
                          "`gen-seq-tests verify --json FILE`") from None
    ok = (isinstance(document, dict) and isinstance(document.get("results"), list)
          and isinstance(document.get("backends"), list)
          and isinstance(document.get("suite"), list))
    if not ok:
        raise ReportError(f"{shown}: not a verify --json report (needs suite, backends and "
                          "results)")
    return document


#: The outcomes a result may have (an empty raw_outcome: the xfail list did not change it).
_KNOWN = {"outcome": OUTCOMES, "raw_outcome": (*OUTCOMES, "")}


def _quoted(text: str, limit: int = 60) -> str:
    """`text` quoted for a message, at most `limit` characters of it, saying how much was cut."""
    shown = one_line(repr(text[:limit]))
    return shown if len(text) <= limit else f"{shown} (cut; {len(text)} characters)"


def _result(record, shown: str, index: int) -> Result:
    if not isinstance(record, dict):
        raise ReportError(f"{shown}: results[{index}] is not an object")
    for key, known in _KNOWN.items():
        value = record.get(key)
        if isinstance(value, str) and value not in known:
            raise ReportError(f"{shown}: results[{index}] has {key} {_quoted(value)}, not one "
                              f"of {', '.join(OUTCOMES)}; was it written by another version?")
    values = {k: v for k, v in record.items() if k in _FIELDS}
    try:
        if "operator" in values:
            if not isinstance(values["operator"], str):
                raise TypeError("operator must be a string")
            text = values.pop("operator")
            values["operators"] = tuple(text.split("+")) if text else ()
        result = Result(**values)
        if not all(isinstance(getattr(result, k), str) for k in ("case", "name", "backend",
                                                                   "outcome", "message")):
            raise TypeError("case, name, backend, outcome and message must be strings")
    except TypeError as error:
        raise ReportError(f"{shown}: results[{index}] is not a result: "
                          f"{one_line(str(error))}") from None
    return result


def _identity(document: dict) -> tuple:
    """What must agree between merged reports: each suite's manifest sha256 (else its name)."""
    return tuple(sorted(str(s.get("manifest_sha256") or f"name:{s.get('name')}")
                        for s in document["suite"] if isinstance(s, dict)))


def merge_reports(paths: list[Path]) -> Merged:
    """The results of several JSON reports as one run. Raises ReportError naming the file for
    an unreadable report, for reports of different suites (manifest sha256), and for a backend
    that two reports both ran on the same case."""
    results: list[Result] = []
    specs: list[str] = []
    suite: list[dict] = []
    about: dict[str, tuple[str, ...]] = {}
    described: dict[str, str] = {}
    first_identity, first_path = None, None
    seen: set[tuple[str, str]] = set()
    for path in paths:
        document = read_report(path)
        shown = one_line(str(path))
        if len(results) + len(document["results"]) > MAX_REPORT_RESULTS:
            raise ReportError(f"{shown}: more than {MAX_REPORT_RESULTS} results in the reports "
                              "read (MAX_REPORT_RESULTS); merge fewer reports at a time")
        identity = _identity(document)
        if first_identity is None:
            first_identity, first_path, suite = identity, shown, document["suite"]
        elif identity != first_identity:
            raise ReportError(f"{shown}: ran another suite than {first_path} (manifest sha256 "
                              f"{', '.join(identity) or 'none'} against "
                              f"{', '.join(first_identity) or 'none'}); merge reports of one "
                              "suite only")
        for spec in document["backends"]:
            if str(spec) not in specs:
                specs.append(str(spec))
        for index, record in enumerate(document["results"]):
            result = _result(record, shown, index)
            if (result.case, result.backend) in seen:
                raise ReportError(f"{shown}: {one_line(result.backend)} on "
                                  f"{one_line(result.case)} is in an earlier report too")
            seen.add((result.case, result.backend))
            results.append(result)
        known = document.get("described")
        if isinstance(known, dict):
            described.update({str(k): str(v) for k, v in known.items()})
        for name, operators in (document.get("about") or {}).items():
            if isinstance(operators, list):
                about[str(name)] = tuple(str(o) for o in operators)
    cases = {c: i for i, c in enumerate(dict.fromkeys(r.case for r in results))}
    order = {s: i for i, s in enumerate(specs)}
    results.sort(key=lambda r: (cases[r.case], order.get(r.backend, len(order))))
    return Merged(results, specs, suite, about, described)


# -- recorded verdicts: the third-party runtimes' part of docs/conformance.md -------------------

def record_verdicts(json_report: Path, specs: list[str], path: Path) -> None:
    """Write the outcome and message of every case on each of `specs`, read from a `verify
    --json` report, without times (the same verdicts give the same bytes): per backend, each
    distinct (outcome, message) once with the cases that gave it. docs/conformance.md's
    third-party columns come from this file, so the tests can re-render the report from it and
    a live run of onnxruntime and the reference evaluator."""
    results = json.loads(Path(json_report).read_text(encoding="utf-8"))["results"]
    verdicts = {}
    for spec in specs:
        groups: dict[tuple[str, str], list[str]] = defaultdict(list)
        for r in results:
            if r["backend"] == spec:
                groups[(r["outcome"], r["message"])].append(r["case"])
        verdicts[spec] = [{"outcome": o, "message": m, "cases": sorted(cases)}
                          for (o, m), cases in sorted(groups.items())]
    write_atomic(path, json.dumps(verdicts, indent=1, ensure_ascii=False) + "\n")


def recorded_results(path: Path, like: list[Result], specs: list[str]) -> list[Result]:
    """`like` (results of one backend run over the same suite) with the recorded verdicts of
    `specs` merged in, sorted by case then in the order of `specs` as `verify` sorts them."""
    verdicts = {spec: {case: (group["outcome"], group["message"]) for group in groups
                       for case in group["cases"]}
                for spec, groups in json.loads(Path(path).read_text(encoding="utf-8")).items()}
    merged = list(like)
    for result in {r.case: r for r in like}.values():
        for spec, by_case in verdicts.items():
            if result.case in by_case:
                outcome, message = by_case[result.case]
                merged.append(Result(result.case, result.name, spec, outcome, message,
                                     result.operators, result.element, 0.0, result.opset,
                                     result.source))
    cases = {c: i for i, c in enumerate(dict.fromkeys(r.case for r in like))}
    order = {s: i for i, s in enumerate(specs)}
    return sorted(merged, key=lambda r: (cases[r.case], order[r.backend]))
