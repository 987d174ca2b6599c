"""The findings notes: why a backend disagrees with some cases, and the ONNX sentence that
decides it (a YAML file, docs/conformance-notes.yaml), read with the YAML-node checks of case
files and attached to the results they explain.

Each quote is checked against the operator's documentation in onnx.defs. A note may name a
minimal model (`findings/NAME.onnx` in its finding, beside the notes file); `minimal_models`
finds it and the one-line reproduction written for it in that folder's README.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .._casefile.reader import compose_file
from .._core.problems import (
    MAX_REPORTED,
    Problem,
    Problems,
    SeqTestsError,
    problem_lines,
)
from . import note_check
from .verifier import Result


class NotesError(SeqTestsError, ValueError):
    """A bad findings file, carrying every problem found as `file:line:col: message`."""

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(set(problems))
        super().__init__(self.report())

    def report(self) -> str:
        lines = [str(p) for p in self.problems[:MAX_REPORTED]]
        hidden = len(self.problems) - len(lines)
        return "\n".join(lines + ([f"... and {hidden} more problem(s)"] if hidden else []))

    def lines(self) -> list[str]:
        """One line per problem, then the count: nothing was written."""
        return problem_lines(self.report(), len(self.problems))


@dataclass
class Note:
    """Why a backend disagrees with some cases, and the ONNX sentence that decides it."""

    backend: str
    cases: re.Pattern  # must match a whole case name
    message: re.Pattern | None  # if given, must be found in the result's message
    operator: str  # the first quote's operator ("" when no operator sentence decides)
    spec: str  # the first quote, from the operator's onnx.defs documentation
    finding: str
    title: str  # the note's heading in the report; the operator unless given
    where: str
    matched: list[Result] = field(default_factory=list)
    decision: note_check.Decision = note_check.Decision()  # every quote, or why none decides


@dataclass(frozen=True)
class MinimalModel:
    """A minimal model a note names: its file name, bytes and one-line reproduction."""

    name: str
    data: bytes
    command: str


_NOTE_KEYS = {"backend", "cases", "finding"}
_OPTIONAL_NOTE_KEYS = {"message", "title", *note_check.DECISION_KEYS}


def load_notes(path: Path) -> list[Note]:
    """Read a findings file: a YAML list of {backend, cases, operator, spec, finding}, with an
    optional `message` regex that the result's message must contain and an optional `title`.

    `spec` must be a sentence of the operator's ONNX documentation (its text or an input,
    output, attribute or type-constraint description, in any version), whitespace aside.
    Raises NotesError with every problem as file:line:col.
    """
    collected = Problems()
    ok, document = compose_file(Path(path), collected)
    if not ok:
        raise NotesError(collected.found)
    problems: list[Problem] = []

    def problem(node, message: str) -> None:
        mark = node.start_mark
        problems.append(Problem(str(path), mark.line + 1, mark.column + 1, message))

    if document is None:
        return []
    if not isinstance(document, yaml.SequenceNode):
        problem(document, "expected a list of notes, each {backend, cases, operator, spec, "
                          "finding}")
        raise NotesError(problems)
    notes = []
    for entry in document.value:
        note = _note(entry, path, problem)
        if note is not None:
            notes.append(note)
    if problems:
        raise NotesError(problems)
    return notes


def _note(entry, path: Path, problem) -> Note | None:
    """One entry as a Note, or None after reporting its problems."""
    if not isinstance(entry, yaml.MappingNode):
        problem(entry, "expected a mapping with backend, cases, operator, spec, finding")
        return None
    known = _NOTE_KEYS | _OPTIONAL_NOTE_KEYS
    values = {}
    for key, value in entry.value:
        if not isinstance(key, yaml.ScalarNode):
            problem(key, f"a key must be one of {', '.join(sorted(known))}, not a "
                         f"{'list' if isinstance(key, yaml.SequenceNode) else 'mapping'}")
        elif key.value not in known:
            problem(key, f"unknown key {key.value!r}; known: {', '.join(sorted(known))}")
        elif key.value == "also":
            values["also"] = (value, _also_pairs(value, problem))
        elif not isinstance(value, yaml.ScalarNode) or not value.value.strip():
            problem(value, f"{key.value} must be a non-empty string")
        else:
            values[key.value] = (value, " ".join(value.value.split()))
    missing = sorted(_NOTE_KEYS - values.keys())
    if missing:
        problem(entry, f"missing {', '.join(missing)}")
        return None
    patterns = {}
    for key in ("cases", "message"):
        if key in values:
            try:
                patterns[key] = re.compile(values[key][1])
            except re.error as error:
                problem(values[key][0], f"not a valid regex: {error}")
    if len(patterns) < len({"cases", "message"} & values.keys()):
        return None
    try:
        decision = note_check.decision_of({k: v[1] for k, v in values.items()})
    except note_check.NoteError as error:
        problem(entry, str(error))
        return None
    wrong = note_check.quote_problems(decision)
    if wrong:
        problem(values.get("spec", values.get("ir", (entry,)))[0], "; ".join(wrong))
        return None
    first = decision.quotes[0] if decision.quotes else note_check.Quote("", "")
    mark = entry.start_mark
    return Note(values["backend"][1], patterns["cases"], patterns.get("message"), first.source,
                first.text, values["finding"][1], values.get("title", (None, first.source))[1],
                f"{path}:{mark.line + 1}", decision=decision)


def _also_pairs(node, problem) -> list[dict]:
    """A note's `also`: a list of {operator, spec} mappings, as plain dicts."""
    pairs = []
    for item in node.value if isinstance(node, yaml.SequenceNode) else [node]:
        if not isinstance(item, yaml.MappingNode) or not all(
                isinstance(v, yaml.ScalarNode) for _, v in item.value):
            problem(item, "also is a list of {operator: ..., spec: ...}")
            continue
        pairs.append({k.value: " ".join(v.value.split()) for k, v in item.value})
    return pairs



def attach_notes(results: list[Result], notes: list[Note]) -> dict[int, Note]:
    """For each result that did not pass, the first note for its backend and case name; each
    note's `matched` is refilled."""
    for note in notes:
        note.matched.clear()
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


_MODEL = re.compile(r"findings/([A-Za-z0-9_.-]+\.onnx)")
#: A minimal model larger than this is linked by name only, not embedded.
MODEL_LIMIT = 1024 * 1024


def minimal_models(note: Note) -> list[MinimalModel]:
    """The minimal models a note's finding names (`findings/NAME.onnx`, looked up in the
    `findings/` folder beside the notes file), each with the one-line reproduction that
    folder's README.md gives for it ("" if none); models that are missing are left out."""
    folder = Path(note.where.rpartition(":")[0]).parent / "findings"
    commands = _commands(folder / "README.md")
    found = []
    for name in dict.fromkeys(_MODEL.findall(note.finding)):
        path = folder / name
        try:
            if not path.is_file() or path.stat().st_size > MODEL_LIMIT:
                continue
            data = path.read_bytes()
        except OSError:
            continue
        found.append(MinimalModel(name, data, commands.get(name, "")))
    return found


def _commands(readme: Path) -> dict[str, str]:
    """Model file name -> the indented command that follows its `Model:` line."""
    try:
        lines = readme.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return {}
    commands, model = {}, None
    for line in lines:
        named = re.match(r"Model: \[`([^`]+)`\]", line)
        if named:
            model = named.group(1)
        elif model and line.startswith("    ") and line.strip():
            commands[model] = line.strip()
            model = None
    return commands
