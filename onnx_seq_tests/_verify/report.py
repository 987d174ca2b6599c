"""Reports of a verify run: text summary, JUnit XML, JSON, and the Markdown conformance table.

Every report lists results sorted by case, then backend, and holds no timestamps, so the same
run gives the same Markdown. Findings notes (a YAML file) explain, for the Markdown report, why
a backend disagrees with a case, quoting the ONNX sentence that decides it; each quote is checked
against the operator's documentation in onnx.defs.
"""

from __future__ import annotations

import json
import re
import time
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

import yaml
from onnx import defs

from .._casefile.reader import compose_file
from .._core import operators
from .._core.problems import CaseFileError, Problem, Problems
from .._suite.tensor_io import TENSOR_IO_SUITE
from .backends import describe
from .verifier import OUTCOMES, UNEXPECTED, Result

_LABELS = {outcome: outcome.upper() for outcome in OUTCOMES}


def counts(results: list[Result]) -> dict[str, Counter]:
    """Outcome counts per backend."""
    table: dict[str, Counter] = defaultdict(Counter)
    for result in results:
        table[result.backend][result.outcome] += 1
    return table


def summary(results: list[Result]) -> dict[tuple[str, str, str], dict[str, Counter]]:
    """Outcome counts per (operator, opset, element type), then per backend; a case counts
    under each operator it uses; keys sorted."""
    table: dict[tuple[str, str, str], dict[str, Counter]] = defaultdict(
        lambda: defaultdict(Counter))
    for result in results:
        opset = "-" if result.opset is None else str(result.opset)
        for operator in result.operators or ["(no node)"]:
            table[(operator, opset, result.element)][result.backend][result.outcome] += 1
    return dict(sorted(table.items(), key=lambda item: (item[0][0], _opset_key(item[0][1]),
                                                         item[0][2])))


def _opset_key(opset: str) -> tuple[int, str]:
    return (int(opset), "") if opset.isdigit() else (-1, opset)


def cell(counter: Counter) -> str:
    """`passed/total`, then what did not pass: `2/3 (1 fail)`."""
    total = sum(counter.values())
    if not total:
        return "-"
    passed = counter["pass"] + counter["xpass"]
    rest = [f"{counter[o]} {o}" for o in OUTCOMES if o != "pass" and counter[o]]
    return f"{passed}/{total}" + (f" ({', '.join(rest)})" if rest else "")


def result_line(result: Result) -> str:
    """One line for a result that did not pass: label, backend, case, source, first line."""
    first, *more = result.message.splitlines() or [""]
    extra = f" (+{len(more)} more line(s))" if more else ""
    source = f" ({result.source})" if result.source else ""
    return f"{_LABELS[result.outcome]:5} [{result.backend}] {result.case}{source}: {first}{extra}"


def text_report(results: list[Result], specs: list[str]) -> str:
    """One line per case and backend that failed or erred, then unexpected passes, the count
    of expected failures in one line, a summary per operator and element type, and totals."""
    lines = [result_line(r) for r in results if r.outcome in UNEXPECTED]
    lines += [result_line(r) for r in results if r.outcome == "xpass"]
    xfails = Counter(r.backend for r in results if r.outcome == "xfail")
    if xfails:
        lines.append(f"XFAIL {sum(xfails.values())} expected failure(s) ("
                     + ", ".join(f"{spec}: {xfails[spec]}" for spec in specs if xfails[spec])
                     + "); --json or --junit-xml lists them")
    if lines:
        lines.append("")
    header = ["operator", "opset", "element", *specs]
    rows = [[operator, opset, element, *(cell(per_backend.get(s, Counter())) for s in specs)]
            for (operator, opset, element), per_backend in summary(results).items()]
    lines.extend(_columns([header, *rows]))
    lines.append("")
    totals = counts(results)
    for spec in specs:
        c = totals.get(spec, Counter())
        others = "".join(f"{c[o]} {o}, " for o in ("refused", "crash", "timeout") if c[o])
        lines.append(f"{spec}: {c['pass']} passed, {c['fail']} failed, {others}"
                     f"{c['error']} error(s), {c['xfail']} expected failure(s), "
                     f"{c['xpass']} unexpected pass(es) of {sum(c.values())} case(s)")
    return "\n".join(lines) + "\n"


def _columns(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(text.ljust(w) for text, w in zip(row, widths, strict=True)).rstrip()
            for row in rows]


def _suites(suite) -> list[dict]:
    """Suite descriptions (verifier.suite_info) from a name, one description or a list."""
    if isinstance(suite, dict):
        return [suite]
    if isinstance(suite, (list, tuple)):
        return [s if isinstance(s, dict) else {"name": str(s)} for s in suite]
    return [{"name": str(suite)}]


def suite_text(suite) -> str:
    """`generated` (version 0.1.0, manifest sha256 ab12...), for each suite."""
    texts = []
    for info in _suites(suite):
        details = []
        if info.get("version"):
            details.append(f"version {info['version']}")
        if info.get("manifest_sha256"):
            details.append(f"manifest.json sha256 {info['manifest_sha256']}")
        texts.append(f"`{info['name']}`" + (f" ({', '.join(details)})" if details else ""))
    return ", ".join(texts)


def write_json(results: list[Result], specs: list[str], suite, path: Path) -> None:
    """Every result with its message, plus totals per backend."""
    document = {
        "suite": _suites(suite),
        "backends": list(specs),
        "totals": {spec: {o: counts(results).get(spec, Counter())[o] for o in OUTCOMES}
                   for spec in specs},
        "results": [asdict(r) for r in results],
    }
    Path(path).write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n",
                          encoding="utf-8")


#: Characters XML 1.0 cannot hold, even escaped; written as #xNN like pytest's junitxml does.
_NOT_XML = re.compile("[^\u0009\u000A\u000D\u0020-\u007E\u0080-\uD7FF\uE000-\uFFFD"
                      "\U00010000-\U0010FFFF]")


def xml_text(text: str) -> str:
    """`text` with every character XML cannot hold replaced by #xNN (#xNNNN above 0xFF)."""
    return _NOT_XML.sub(lambda m: f"#x{ord(m.group()):02X}" if ord(m.group()) <= 0xFF
                        else f"#x{ord(m.group()):04X}", text)


def write_junit(results: list[Result], specs: list[str], path: Path) -> None:
    """JUnit XML: a testsuite per backend, a testcase per case; fail -> failure,
    error -> error, xfail -> skipped; the outcome is also a property of each testcase. Text a
    backend printed is escaped so the file is well-formed XML whatever it holds."""
    root = ET.Element("testsuites", name="gen-seq-tests verify")
    for spec in specs:
        mine = [r for r in results if r.backend == spec]
        c = Counter(r.outcome for r in mine)
        suite = ET.SubElement(root, "testsuite", name=xml_text(spec), tests=str(len(mine)),
                              failures=str(c["fail"]),
                              errors=str(sum(c[o] for o in UNEXPECTED if o != "fail")),
                              skipped=str(c["xfail"]),
                              time=f"{sum(r.seconds for r in mine):.3f}")
        for result in mine:
            attributes = {"classname": xml_text(spec), "name": xml_text(result.case),
                          "time": f"{result.seconds:.3f}"}
            if result.source:
                file, _, line = result.source.rpartition(":")
                attributes.update({"file": xml_text(file), "line": line} if line.isdigit()
                                  else {"file": xml_text(result.source)})
            case = ET.SubElement(suite, "testcase", attributes)
            properties = ET.SubElement(case, "properties")
            for key in ("outcome", "operator", "element", "opset", "source"):
                value = getattr(result, key)
                if value not in (None, ""):
                    ET.SubElement(properties, "property", name=key, value=xml_text(str(value)))
            message = xml_text(result.message)
            first = message.splitlines()[0] if message else ""
            if result.outcome == "fail":
                ET.SubElement(case, "failure", message=first).text = message
            elif result.outcome in UNEXPECTED:  # refused, error, crash, timeout
                ET.SubElement(case, "error", message=first).text = message
            elif result.outcome == "xfail":
                ET.SubElement(case, "skipped", type="xfail",
                              message=f"expected failure: {first}").text = message
            elif result.outcome == "xpass":
                ET.SubElement(case, "system-out").text = f"unexpected pass: {message}"
    ET.indent(root)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


class Progress:
    """Progress of a run on a stream: cases done of all (n/N), outcome counts so far, time
    spent and an estimate of the time left from the cases done, and each failure or error as it
    happens. On a terminal the status line is redrawn in place; elsewhere it is written as a
    line at every tenth of the run."""

    def __init__(self, total: int, stream, terminal: bool):
        self.total, self.stream, self.terminal = total, stream, terminal
        self.done = 0
        self.outcomes: Counter = Counter()
        self.start = time.monotonic()
        self._drawn = 0.0
        self._tenth = 0

    def update(self, results: list[Result]) -> None:
        self.done += 1
        self.outcomes.update(r.outcome for r in results)
        for result in results:
            if result.outcome in UNEXPECTED:
                self._write(result_line(result), final=True)
        now = time.monotonic()
        tenth = self.done * 10 // max(1, self.total)
        if self.terminal and (now - self._drawn > 0.1 or self.done == self.total):
            self._drawn = now
            self._write(self.status(), final=False)
        elif not self.terminal and tenth > self._tenth:
            self._tenth = tenth
            self._write(self.status(), final=True)

    def status(self) -> str:
        elapsed = time.monotonic() - self.start
        left = elapsed / self.done * (self.total - self.done) if self.done else 0.0
        c = self.outcomes
        others = "".join(f"{c[o]} {o}, " for o in ("refused", "crash", "timeout") if c[o])
        return (f"verifying {self.done}/{self.total} cases: {c['pass']} pass, {c['fail']} fail, "
                f"{others}{c['error']} error, {c['xfail']} xfail, {c['xpass']} xpass; "
                f"{_clock(elapsed)} spent, about {_clock(left)} left")

    def close(self) -> None:
        if self.terminal and self._drawn:
            self.stream.write("\n")
            self.stream.flush()

    def _write(self, text: str, final: bool) -> None:
        if self.terminal:
            text = "\r\x1b[K" + text  # over the status line
        self.stream.write(text + ("\n" if final else ""))
        if final and self.terminal and self._drawn:
            self.stream.write(self.status())
        self.stream.flush()


def _clock(seconds: float) -> str:
    minutes, seconds = divmod(int(round(seconds)), 60)
    return f"{minutes // 60}:{minutes % 60:02d}:{seconds:02d}" if minutes >= 60 else \
        f"{minutes}:{seconds:02d}"


# -- findings notes ---------------------------------------------------------------------------

@dataclass
class Note:
    """Why a backend disagrees with some cases, and the ONNX sentence that decides it."""

    backend: str
    cases: re.Pattern  # must match a whole case name
    message: re.Pattern | None  # if given, must be found in the result's message
    operator: str
    spec: str  # quoted from the operator's onnx.defs documentation
    finding: str
    title: str  # the note's heading in the report; the operator unless given
    where: str
    matched: list[Result] = field(default_factory=list)


_NOTE_KEYS = {"backend", "cases", "operator", "spec", "finding"}
_OPTIONAL_NOTE_KEYS = {"message", "title"}


def load_notes(path: Path) -> list[Note]:
    """Read a findings file: a YAML list of {backend, cases, operator, spec, finding}, with an
    optional `message` regex that the result's message must contain and an optional `title`.

    `spec` must be a sentence of the operator's ONNX documentation (its text or an input,
    output, attribute or type-constraint description, in any version), whitespace aside.
    Raises CaseFileError with every problem as file:line:col.
    """
    collected = Problems()
    ok, document = compose_file(Path(path), collected)
    if not ok:
        raise CaseFileError(collected.found)
    problems: list[Problem] = []

    def problem(node, message: str) -> None:
        mark = node.start_mark
        problems.append(Problem(str(path), mark.line + 1, mark.column + 1, message))

    if document is None:
        return []
    if not isinstance(document, yaml.SequenceNode):
        problem(document, "expected a list of notes, each {backend, cases, operator, spec, "
                          "finding}")
        raise CaseFileError(problems)
    notes = []
    for entry in document.value:
        if not isinstance(entry, yaml.MappingNode):
            problem(entry, "expected a mapping with backend, cases, operator, spec, finding")
            continue
        values = {}
        for key, value in entry.value:
            known = _NOTE_KEYS | _OPTIONAL_NOTE_KEYS
            if not isinstance(key, yaml.ScalarNode):
                problem(key, f"a key must be one of {', '.join(sorted(known))}, not a "
                             f"{'list' if isinstance(key, yaml.SequenceNode) else 'mapping'}")
            elif key.value not in known:
                problem(key, f"unknown key {key.value!r}; known: {', '.join(sorted(known))}")
            elif not isinstance(value, yaml.ScalarNode) or not value.value.strip():
                problem(value, f"{key.value} must be a non-empty string")
            else:
                values[key.value] = (value, " ".join(value.value.split()))
        missing = sorted(_NOTE_KEYS - values.keys())
        if missing:
            problem(entry, f"missing {', '.join(missing)}")
            continue
        patterns = {}
        for key in ("cases", "message"):
            if key in values:
                try:
                    patterns[key] = re.compile(values[key][1])
                except re.error as error:
                    problem(values[key][0], f"not a valid regex: {error}")
        if len(patterns) < len({"cases", "message"} & values.keys()):
            continue
        operator = values["operator"][1]
        if operator not in _documented_operators():
            problem(values["operator"][0], f"{operator!r} is not an ONNX operator")
            continue
        if values["spec"][1] not in _documentation(operator):
            problem(values["spec"][0], f"this sentence is not in the ONNX documentation of "
                                       f"{operator}; quote it exactly (onnx.defs)")
            continue
        mark = entry.start_mark
        notes.append(Note(values["backend"][1], patterns["cases"], patterns.get("message"),
                          operator, values["spec"][1], values["finding"][1],
                          values.get("title", (None, operator))[1], f"{path}:{mark.line + 1}"))
    if problems:
        raise CaseFileError(problems)
    return notes


def _documented_operators() -> set[str]:
    return {s.name for s in defs.get_all_schemas_with_history() if s.domain == ""}


def _documentation(operator: str) -> str:
    """Every text of every version of an operator's schema, whitespace collapsed."""
    texts = []
    for schema in defs.get_all_schemas_with_history():
        if schema.name != operator or schema.domain != "":
            continue
        texts.append(schema.doc or "")
        texts.extend(p.description for p in [*schema.inputs, *schema.outputs])
        texts.extend(a.description for a in schema.attributes.values())
        texts.extend(t.description for t in schema.type_constraints)
    return "\n".join(" ".join(t.split()) for t in texts)


def attach_notes(results: list[Result], notes: list[Note]) -> dict[int, Note]:
    """For each result that did not pass, the first note for its backend and case name."""
    found = {}
    for index, result in enumerate(results):
        if result.outcome == "pass":
            continue
        for note in notes:
            if (note.backend == result.backend and note.cases.fullmatch(result.name)
                    and (note.message is None or note.message.search(result.message))):
                note.matched.append(result)
                found[index] = note
                break
    return found


# -- Markdown conformance report --------------------------------------------------------------

def markdown_report(results: list[Result], specs: list[str], suite, command: str,
                    notes: list[Note] | None = None) -> str:
    """The conformance table, operator x opset x element type per backend, then the findings.

    `suite` names the suite: a name, or verifier.suite_info's description(s) (folder name,
    version, manifest sha256), never a local path."""
    notes = notes or []
    for note in notes:
        note.matched.clear()
    noted = attach_notes(results, notes)
    cases = sorted({r.case for r in results})
    out = [
        "# Conformance of ONNX sequence and optional operators",
        "",
        f"Every case of the suite {suite_text(suite)} ({len(cases)} cases) run on each backend "
        "and judged by the project's comparator (kind, sequence length, present or empty "
        "optional, dtype, shape, then values: exact for integers, bool and strings; floats "
        "within the case's tolerance). Generated by:",
        "",
        f"    {command}",
        "",
        "Backends:",
        "",
        *[f"- `{spec}`: {describe(spec)}" for spec in specs],
        "",
        "## Totals",
        "",
        "| backend | cases | " + " | ".join(OUTCOMES) + " |",
        "|---|---:|" + "---:|" * len(OUTCOMES),
    ]
    totals = counts(results)
    for spec in specs:
        c = totals.get(spec, Counter())
        out.append(f"| `{spec}` | {sum(c.values())} | " + " | ".join(str(c[o]) for o in OUTCOMES)
                   + " |")
    out += forms_table(results, specs)
    out += scoreboard_table(results, specs)
    out += ["", "## Where backends disagree with the suite", ""]
    for spec in specs:
        out += _findings(spec, results, noted, notes)
    return "\n".join(out).rstrip() + "\n"


def _findings(spec: str, results: list[Result], noted: dict[int, Note],
              notes: list[Note]) -> list[str]:
    out = [f"### `{spec}`", ""]
    failing = [(i, r) for i, r in enumerate(results) if r.backend == spec and r.outcome != "pass"]
    if not failing:
        return out + ["Every case passes.", ""]
    for note in notes:
        if note.backend != spec or not note.matched:
            continue
        out += [f"**{note.title}**: {note.finding}", "",
                f"> {note.spec}", ">", f"> -- ONNX operator documentation, {note.operator}", "",
                f"<details><summary>{len(note.matched)} case(s)</summary>", ""]
        out += grouped_messages(note.matched)
        out += ["", "</details>", ""]
    rest = [r for i, r in failing if i not in noted]
    if rest:
        explained = any(n.matched for n in notes if n.backend == spec)
        out += ["Other cases that did not pass, grouped by message:" if explained
                else "Cases that did not pass, grouped by message:", ""]
        out += grouped_messages(rest)
        out.append("")
    return out


def _one_line(message: str, limit: int = 240) -> str:
    text = "; ".join(" ".join(line.split()) for line in message.splitlines() if line.strip())
    text = xml_text(text).replace("|", "\\|")
    return text if len(text) <= limit else text[:limit - 3] + "..."


# -- the cross-runtime scoreboard: suite forms side by side -----------------------------------

def form_of(result: Result) -> str:
    """The suite form a result belongs to: `tensor-boundary` for a case under the
    tensor-boundary suite folder, else `original`."""
    return "tensor-boundary" if TENSOR_IO_SUITE in result.case.split("/") else "original"


def forms_table(results: list[Result], specs: list[str]) -> list[str]:
    """Outcome counts per backend and suite form: the scoreboard's headline."""
    forms = sorted({form_of(r) for r in results}, key=lambda f: f != "original")
    table: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for result in results:
        table[(result.backend, form_of(result))][result.outcome] += 1
    out = ["", "## Per backend and suite form", "",
           "Case folders of each form: `pass` matched, `fail` gave other values, `refused` would "
           "not prepare the model (or could not take or give a value of the case's kinds), "
           "`error` raised while running, `crash` ended its process, `timeout` overran the "
           "limit.", "",
           "| backend | form | case folders | " + " | ".join(OUTCOMES) + " |",
           "|---|---|---:|" + "---:|" * len(OUTCOMES)]
    for spec in specs:
        for form in forms:
            c = table.get((spec, form), Counter())
            out.append(f"| `{spec}` | {form} | {sum(c.values())} | "
                       + " | ".join(str(c[o]) for o in OUTCOMES) + " |")
    return out


def _short(counter: Counter) -> str:
    """`passed/total` then `Nf`, `Nr`, `Ne`, `Nc`, `Nt`, `Nx` (by outcome), for narrow cells."""
    total = sum(counter.values())
    if not total:
        return "-"
    passed = counter["pass"] + counter["xpass"]
    rest = "".join(f" {counter[o]}{o[0] if o != 'xfail' else 'x'}"
                   for o in (*UNEXPECTED, "xfail") if counter[o])
    return f"{passed}/{total}{rest}"


def _version(operator: str, opset: int | None) -> str:
    """The version of `operator`'s schema in force at `opset` (onnx.defs), or `-`."""
    op_schema = operators.schema(operator, opset) if opset is not None else None
    return str(op_schema.since_version) if op_schema is not None else "-"


def scoreboard_table(results: list[Result], specs: list[str]) -> list[str]:
    """Operator x version x element type, each backend's forms side by side, then totals; a
    case counts under each operator it uses."""
    forms = sorted({form_of(r) for r in results}, key=lambda f: f != "original")
    table: dict[tuple[str, str, str], dict[tuple[str, str], Counter]] = defaultdict(
        lambda: defaultdict(Counter))
    for r in results:
        for operator in r.operators or ["(no node)"]:
            table[(operator, _version(operator, r.opset), r.element)][(r.backend, form_of(r))][
                r.outcome] += 1
    columns = [(spec, form) for spec in specs for form in forms]
    names = {"original": "orig.", "tensor-boundary": "tensors"}
    out = ["", "## Operator × version × element type", "",
           "Each cell is passed/total case folders, then how many failed (f), raised (e) or were "
           "expected failures (x); `orig.`: the original form, `tensors`: the tensor-boundary "
           f"form (`{TENSOR_IO_SUITE}/`). A case using several operators counts under each.", "",
           "| operator | version | element type | "
           + " | ".join(f"`{s}` {names[f]}" for s, f in columns) + " |",
           "|---|---:|---|" + "---|" * len(columns)]
    for (operator, version, element), cells in sorted(
            table.items(), key=lambda kv: (kv[0][0], _as_int(kv[0][1]), kv[0][2])):
        out.append(f"| {operator} | {version} | {element} | "
                   + " | ".join(_short(cells.get(c, Counter())) for c in columns) + " |")
    totals: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for r in results:
        totals[(r.backend, form_of(r))][r.outcome] += 1
    out.append("| **total** | | | " + " | ".join(f"**{_short(totals.get(c, Counter()))}**"
                                                 for c in columns) + " |")
    return out


def _as_int(text: str) -> int:
    return int(text) if text.isdigit() else -1


_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")


def message_key(message: str) -> str:
    """A message's first meaningful line with quoted names and numbers blanked, so messages
    that differ only in a value name, index or count group together."""
    first = next((line.strip() for line in message.splitlines() if line.strip()), "")
    first = re.sub(r"^data set \d+: ", "", first)
    return re.sub(r"\d+", "N", _QUOTED.sub("'…'", first))


def grouped_messages(results: list[Result], shown: int = 6) -> list[str]:
    """One bullet per distinct message (see message_key), most frequent first, with an example
    message and the cases it covers (the first `shown`, then a count)."""
    groups: dict[str, list[Result]] = defaultdict(list)
    for result in results:
        groups[message_key(result.message)].append(result)
    out = []
    for _, members in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        names = [f"`{r.name}`" + (f" ({r.source})" if r.source else "") for r in members[:shown]]
        more = f" and {len(members) - shown} more" if len(members) > shown else ""
        outcomes = "/".join(sorted({r.outcome for r in members}))
        first = next((line.strip() for line in members[0].message.splitlines() if line.strip()),
                     "")
        out.append(f"- {len(members)} × {outcomes}: {_one_line(first)} -- "
                   f"{', '.join(names)}{more}")
    return out


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
    Path(path).write_text(json.dumps(verdicts, indent=1, ensure_ascii=False) + "\n",
                          encoding="utf-8")


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
                                     result.operator, result.element, 0.0, result.opset,
                                     result.source))
    cases = {c: i for i, c in enumerate(dict.fromkeys(r.case for r in like))}
    order = {s: i for i, s in enumerate(specs)}
    return sorted(merged, key=lambda r: (cases[r.case], order[r.backend]))
