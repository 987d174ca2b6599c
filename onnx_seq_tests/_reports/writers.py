"""The machine-readable reports of a verify run: JSON (every result, totals, the suite) and
JUnit XML (a testsuite per backend, a testcase per case).

Both survive any string a backend can produce: messages go through tally.cap (lone surrogates
escaped, long messages cut with a note), and XML gets only characters XML can hold. Each file is
rendered whole, then written atomically (`_core/atomic.py`): a failed write leaves the old
file whole and no half-written one.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import fields
from pathlib import Path

from .._core.atomic import write_atomic
from .._run.transformed import RULE
from .._run.verifier import Result
from .formats import RunReport
from .tally import SHOWN, baseline_rule, cap, counts, descriptions, first_line, raw_outcome

#: The version of the JSON report's layout; `gen-seq-tests report` reads this one.
JSON_FORMAT = 1


def suite_descriptions(suite) -> list[dict]:
    """Suite descriptions (discovery.suite_info) from a name, one description or a list."""
    if isinstance(suite, dict):
        return [suite]
    if isinstance(suite, (list, tuple)):
        return [s if isinstance(s, dict) else {"name": str(s)} for s in suite]
    return [{"name": str(suite)}]


def result_record(result: Result) -> dict:
    """One result as JSON: every field of Result in its order (strings capped; but those whose
    metadata says `json: False`: the comparator's records, the exception's type), its operators
    under "operator" as the '+'-joined text (Result.operator, the key since format 1), and
    `raw_outcome` always present ("" when the xfail list did not change the outcome)."""
    record = {}
    for field in fields(result):
        if field.metadata.get("json") is False:  # what the run knows beyond the format
            continue
        key, value = field.name, getattr(result, field.name)
        if key == "operators":
            key, value = "operator", result.operator
        record[key] = cap(value) if isinstance(value, str) else value
    record["raw_outcome"] = "" if raw_outcome(result) == result.outcome else raw_outcome(result)
    return record


def json_document(results: list[Result], specs: list[str], suite,
                  about: dict[str, tuple[str, ...]] | None = None,
                  described: dict[str, str] | None = None) -> dict:
    """The JSON report as a dict: format, suite(s), backends, what each runs (`described`,
    with versions), totals per backend over every outcome, `about` (per tensor-boundary case
    folder name, the operators of the case it is derived from) and every result."""
    totals = counts(results)
    return {
        "format": JSON_FORMAT,
        "suite": [{k: cap(v) if isinstance(v, str) else v for k, v in s.items()}
                  for s in suite_descriptions(suite)],
        "backends": [cap(s) for s in specs],
        "described": {cap(s): cap(d) for s, d in descriptions(specs, described).items()},
        "totals": {cap(spec): {o: totals.get(spec, Counter())[o] for o in SHOWN}
                   for spec in specs},
        "about": {cap(name): list(ops) for name, ops in sorted((about or {}).items())
                  if name in {r.name for r in results}},
        **({"baseline_rule": rule} if (rule := baseline_rule(specs)) else {}),
        "results": [result_record(r) for r in results],
    }


def json_bytes(results: list[Result], specs: list[str], suite,
               about: dict[str, tuple[str, ...]] | None = None,
               described: dict[str, str] | None = None) -> bytes:
    """The JSON report (json_document) as the file holds it, UTF-8."""
    return (json.dumps(json_document(results, specs, suite, about, described), indent=2,
                       ensure_ascii=False) + "\n").encode("utf-8")


def json_report(run: RunReport) -> bytes:
    """The --json row of formats.FORMATS: json_bytes of the run."""
    return json_bytes(run.results, run.specs, run.suite, run.about, run.described)


def write_json(results: list[Result], specs: list[str], suite, path: Path,
               about: dict[str, tuple[str, ...]] | None = None,
               described: dict[str, str] | None = None) -> None:
    """Every result with its message, plus totals per backend (json_document), UTF-8, written
    atomically."""
    write_atomic(path, json_bytes(results, specs, suite, about, described))


#: Characters XML 1.0 cannot hold, even escaped; written as #xNN like pytest's junitxml does.
_NOT_XML = re.compile("[^\u0009\u000A\u000D\u0020-\u007E\u0080-\uD7FF\uE000-\uFFFD"
                      "\U00010000-\U0010FFFF]")


def xml_text(text: str) -> str:
    """`text` with every character XML cannot hold replaced by #xNN (#xNNNN above 0xFF)."""
    return _NOT_XML.sub(lambda m: f"#x{ord(m.group()):02X}" if ord(m.group()) <= 0xFF
                        else f"#x{ord(m.group()):04X}", text)


def _safe(text: str, limit: int | None = None) -> str:
    return xml_text(cap(text) if limit is None else cap(text, limit))


def write_junit(results: list[Result], specs: list[str], path: Path) -> None:
    """junit_bytes, written atomically."""
    write_atomic(path, junit_bytes(results, specs))


def junit_report(run: RunReport) -> bytes:
    """The --junit-xml row of formats.FORMATS: junit_bytes of the run."""
    return junit_bytes(run.results, run.specs)


#: The outcomes JUnit reports as an <error>: the subject raised, died, hung, or its transform
#: failed.
_ERRORS = ("refused", "error", "crash", "timeout", "transform-failed", "invalid-model")


def junit_bytes(results: list[Result], specs: list[str]) -> bytes:
    """JUnit XML: a testsuite per backend, a testcase per case; fail -> <failure>, refused,
    error, crash, timeout, transform-failed and invalid-model -> <error type="OUTCOME">, xfail
    -> <skipped type="xfail">, unjudged -> <skipped type="unjudged"> (its message states the
    baseline rule), xpass -> system-out; the outcome (and raw_outcome when the xfail list or
    the baseline rule changed it) is also a property of each testcase."""
    root = ET.Element("testsuites", name="gen-seq-tests verify")
    for spec in specs:
        mine = [r for r in results if r.backend == spec]
        c = Counter(r.outcome for r in mine)
        suite = ET.SubElement(root, "testsuite", name=_safe(spec), tests=str(len(mine)),
                              failures=str(c["fail"]),
                              errors=str(sum(c[o] for o in _ERRORS)),
                              skipped=str(c["xfail"] + c["unjudged"]),
                              time=f"{sum(r.seconds for r in mine):.3f}")
        for result in mine:
            _testcase(suite, spec, result)
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return ("<?xml version='1.0' encoding='utf-8'?>\n" + body + "\n").encode("utf-8")


def _testcase(suite: ET.Element, spec: str, result: Result) -> None:
    attributes = {"classname": _safe(spec), "name": _safe(result.case),
                  "time": f"{result.seconds:.3f}"}
    if result.source:
        file, _, line = result.source.rpartition(":")
        attributes.update({"file": _safe(file), "line": line} if line.isdigit()
                          else {"file": _safe(result.source)})
    case = ET.SubElement(suite, "testcase", attributes)
    properties = ET.SubElement(case, "properties")
    values = {key: getattr(result, key) for key in ("outcome", "operator", "element", "opset",
                                                    "source")}
    if raw_outcome(result) != result.outcome:
        values["raw_outcome"] = raw_outcome(result)
    for key, value in values.items():
        if value not in (None, ""):
            ET.SubElement(properties, "property", name=key, value=_safe(str(value), 1000))
    message = _safe(result.message)
    first = xml_text(first_line(result.message))
    if result.outcome == "fail":
        ET.SubElement(case, "failure", message=first).text = message
    elif result.outcome in _ERRORS:
        ET.SubElement(case, "error", type=result.outcome, message=first).text = message
    elif result.outcome == "unjudged":  # the baseline rule (transformed.RULE) in its message
        ET.SubElement(case, "skipped", type="unjudged",
                      message=f"{first} ({RULE})").text = message
    elif result.outcome == "xfail":
        raw = raw_outcome(result)
        why = "expected failure" + (f" ({raw})" if raw != "xfail" else "")
        ET.SubElement(case, "skipped", type="xfail", message=f"{why}: {first}").text = message
    elif result.outcome == "xpass":
        ET.SubElement(case, "system-out").text = f"unexpected pass: {message}"
