"""The one reader of a `gen-seq-tests verify --json` report (writers.json_document): read
bounded (a regular file only, at most MAX_REPORT_BYTES, MAX_REPORT_VALUES JSON values and
MAX_REPORT_RESULTS results), checked, and turned into typed records, `JsonReport` holding
`Result`s. Every command that reads such a report reads it here: `report` (merge.py),
`xfail-update` (xfail_files.py), the recorded verdicts (merge.record_verdicts) and `refresh`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from pathlib import Path

from .._core.errors import InputError, one_line
from .._core.regular_files import read_regular
from .._core.suite_forms import SuiteForm
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


@dataclass(frozen=True)
class JsonReport:
    """A `verify --json` report read: the suite(s) it ran (as written), its backends in their
    order, what each ran, `about` (per tensor-boundary case folder, the operators of its
    original) and every result. `shown` is its path as messages name it."""

    shown: str
    suite: list[object]
    backends: list[str]
    described: dict[str, str]
    about: dict[str, tuple[str, ...]]
    results: list[Result]

    @property
    def identity(self) -> tuple[str, ...]:
        """What must agree between merged reports: each suite's manifest sha256 (else its
        name)."""
        return tuple(sorted(str(s.get("manifest_sha256") or f"name:{s.get('name')}")
                            for s in self.suite if isinstance(s, dict)))


#: The keys of a JSON result: Result's fields, with its `operators` under "operator" as the
#: '+'-joined text (writers.result_record).
_FIELDS = {f.name for f in fields(Result) if f.metadata.get("json", True)} - {"operators"} \
    | {"operator"}


#: The outcomes a result may have (an empty raw_outcome: the xfail list did not change it).
_KNOWN = {"outcome": OUTCOMES, "raw_outcome": (*OUTCOMES, "")}


def _quoted(text: str, limit: int = 60) -> str:
    """`text` quoted for a message, at most `limit` characters of it, saying how much was cut."""
    shown = one_line(repr(text[:limit]))
    return shown if len(text) <= limit else f"{shown} (cut; {len(text)} characters)"


def _form(value: object, case: object) -> SuiteForm:
    """A result's suite form: as the report says, or (a report written before results carried
    it) by the case's folder."""
    if value is None:
        return SuiteForm.of_case(case if isinstance(case, str) else "")
    try:
        return SuiteForm(value)
    except ValueError:
        raise TypeError(f"form must be one of {', '.join(f.value for f in SuiteForm)}, not "
                        f"{_quoted(str(value))}") from None


def _result(record: object, shown: str, index: int) -> Result:
    if not isinstance(record, dict):
        raise InputError(f"{shown}: results[{index}] is not an object")
    for key, known in _KNOWN.items():
        value = record.get(key)
        if isinstance(value, str) and value not in known:
            raise InputError(f"{shown}: results[{index}] has {key} {_quoted(value)}, not one "
                              f"of {', '.join(OUTCOMES)}; was it written by another version?")
    values = {k: v for k, v in record.items() if k in _FIELDS}
    try:
        if "operator" in values:
            if not isinstance(values["operator"], str):
                raise TypeError("operator must be a string")
            text = values.pop("operator")
            values["operators"] = tuple(text.split("+")) if text else ()
        values["form"] = _form(values.get("form"), values.get("case"))
        result = Result(**values)
        if not all(isinstance(getattr(result, k), str) for k in ("case", "name", "backend",
                                                                   "outcome", "message")):
            raise TypeError("case, name, backend, outcome and message must be strings")
    except TypeError as error:
        raise InputError(f"{shown}: results[{index}] is not a result: "
                          f"{one_line(str(error))}") from None
    return result


def read_report(path: Path, read_before: int = 0) -> JsonReport:
    """The `verify --json` report at `path`, its results typed; InputError (exit 2,
    `path: what is wrong`) for one that cannot be read, is too big, is not such a report, or
    would make more than MAX_REPORT_RESULTS results with the `read_before` results of the
    reports read before it."""
    shown = one_line(str(path))
    try:
        size = Path(path).stat().st_size  # checked before reading, and again while reading
        data = read_regular(Path(path), MAX_REPORT_BYTES + 1) if size <= MAX_REPORT_BYTES else b""
    except OSError as error:
        raise InputError(f"{shown}: cannot read it: {error.strerror}") from None
    if max(size, len(data)) > MAX_REPORT_BYTES:
        raise InputError(f"{shown}: larger than {MAX_REPORT_BYTES} bytes (MAX_REPORT_BYTES); "
                          "not a verify report of this suite")
    if data.count(b",") + data.count(b"[") + data.count(b"{") > MAX_REPORT_VALUES:
        raise InputError(f"{shown}: more than {MAX_REPORT_VALUES} JSON values "
                          "(MAX_REPORT_VALUES); not a verify report of this suite")
    try:
        document = json.loads(data)
    except (ValueError, RecursionError) as error:
        raise InputError(f"{shown}: not JSON ({one_line(str(error))}); write it with "
                          "`gen-seq-tests verify --json FILE`") from None
    ok = (isinstance(document, dict) and isinstance(document.get("results"), list)
          and isinstance(document.get("backends"), list)
          and isinstance(document.get("suite"), list))
    if not ok:
        raise InputError(f"{shown}: not a verify --json report (needs suite, backends and "
                          "results)")
    if read_before + len(document["results"]) > MAX_REPORT_RESULTS:
        raise InputError(f"{shown}: more than {MAX_REPORT_RESULTS} results in the reports "
                          "read (MAX_REPORT_RESULTS); merge fewer reports at a time")
    described, about = document.get("described"), document.get("about")
    return JsonReport(
        shown, document["suite"], [str(spec) for spec in document["backends"]],
        {str(k): str(v) for k, v in described.items()} if isinstance(described, dict) else {},
        {str(name): tuple(str(o) for o in operators)
         for name, operators in (about if isinstance(about, dict) else {}).items()
         if isinstance(operators, list)},
        [_result(record, shown, index) for index, record in enumerate(document["results"])])
