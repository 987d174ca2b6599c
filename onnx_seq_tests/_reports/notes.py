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

from .._casefile.nodes import INVALID, NodeReader, compose_file
from .._core.errors import InputError, NotesError
from .._core.problems import Problems
from .._run.transformed import SETTLED
from .._run.verifier import Result
from . import note_check


@dataclass
class Note:
    """Why a backend disagrees with some cases, and the ONNX sentence that decides it."""

    backends: tuple[str, ...]  # the subjects it is about (a backend, `onnxruntime-inference`)
    cases: re.Pattern  # must match a whole case name
    message: re.Pattern | None  # if given, must be found in the result's message
    operator: str  # the first quote's operator ("" when no operator sentence decides)
    spec: str  # the first quote, from the operator's onnx.defs documentation
    finding: str
    title: str  # the note's heading in the report; the operator unless given
    where: str
    matched: list[Result] = field(default_factory=list)
    decision: note_check.Decision = note_check.Decision()  # every quote, or why none decides

    def matched_on(self, subject: str) -> list[Result]:
        """The results it explains of one subject (a note may be about several)."""
        return [r for r in self.matched if r.backend == subject]


@dataclass(frozen=True)
class MinimalModel:
    """A minimal model a note names: its file name, bytes and one-line reproduction."""

    name: str
    data: bytes
    command: str


_REQUIRED = ("backend", "cases", "finding")
#: Every key of a note, sorted (the order an unknown key's message lists them in).
_NOTE_KEYS = tuple(sorted({*_REQUIRED, "message", "title", *note_check.DECISION_KEYS}))
_ALSO_KEYS = ("operator", "spec")


def load_notes(path: Path) -> list[Note]:
    """Read a findings file: a YAML list of {backend, cases, operator, spec, finding}, with an
    optional `message` regex that the result's message must contain and an optional `title`.

    `spec` must be a sentence of the operator's ONNX documentation (its text or an input,
    output, attribute or type-constraint description, in any version), whitespace aside.
    The file is read with the case files' YAML-node checks (`_casefile/nodes.py`): limits,
    unknown keys with a did-you-mean. Raises NotesError with every problem as file:line:col.
    """
    problems = Problems()
    document = compose_file(Path(path), problems)
    notes: list[Note] = []
    if document is not INVALID and document is not None:
        reader = NodeReader(str(path), problems)
        entries = reader.sequence(document, "the notes file (a list of notes, each {backend, "
                                            "cases, operator, spec, finding})")
        for entry in [] if entries is INVALID else entries:
            note = _note(reader, entry)
            if note is not INVALID:
                notes.append(note)
    problems.raise_if_any(NotesError)
    return notes


def _note(reader: NodeReader, entry):
    """One entry as a Note, or INVALID after reporting its problems."""
    fields = reader.mapping(entry, "a note", _NOTE_KEYS, required=_REQUIRED)
    if fields is INVALID:
        return INVALID
    values = {key: (node, _also_pairs(reader, node) if key == "also" else
                    _subjects(reader, node) if key == "backend" else
                    _words(reader, node, key)) for key, node in fields.items()}
    if any(value is INVALID for _, value in values.values()) or not set(_REQUIRED) <= values.keys():
        return INVALID
    patterns = {}
    for key in ("cases", "message"):
        if key in values:
            try:
                patterns[key] = re.compile(values[key][1])
            except re.error as error:
                reader.fail(values[key][0], f"not a valid regex: {error}")
    if len(patterns) < len({"cases", "message"} & values.keys()):
        return INVALID
    try:
        decision = note_check.decision_of({k: v[1] for k, v in values.items()})
    except InputError as error:
        return reader.fail(entry, str(error))
    wrong = note_check.quote_problems(decision)
    if wrong:
        return reader.fail(values.get("spec", values.get("ir", (entry,)))[0], "; ".join(wrong))
    first = decision.quotes[0] if decision.quotes else note_check.Quote("", "")
    where = reader.where(entry)
    return Note(values["backend"][1], patterns["cases"], patterns.get("message"), first.source,
                first.text, values["finding"][1], values.get("title", (None, first.source))[1],
                f"{where.path}:{where.line}", decision=decision)


def _words(reader: NodeReader, node, key: str):
    """A non-empty text with its whitespace runs made single spaces."""
    text = reader.text(node, key)
    if text is INVALID:
        return INVALID
    if not text.strip():
        return reader.fail(node, f"{key} must be a non-empty string")
    return " ".join(text.split())


def _subjects(reader: NodeReader, node):
    """A note's `backend`: one subject's name, or a list of them (a backend and the subjects
    that share its causes, such as its inference: `[onnxruntime, onnxruntime-inference]`)."""
    if not isinstance(node, yaml.SequenceNode):
        name = _words(reader, node, "backend")
        return INVALID if name is INVALID else (name,)
    names = [_words(reader, item, "an entry of backend") for item in node.value]
    if not names:
        return reader.fail(node, "backend must name at least one backend")
    return INVALID if INVALID in names else tuple(dict.fromkeys(names))


def _also_pairs(reader: NodeReader, node):
    """A note's `also`: a list of {operator, spec} mappings, as plain dicts."""
    items = reader.sequence(node, "also (a list of {operator: ..., spec: ...})")
    if items is INVALID:
        return INVALID
    pairs = []
    for item in items:
        fields = reader.mapping(item, "an entry of also", _ALSO_KEYS, required=_ALSO_KEYS)
        if fields is INVALID or len(fields) < len(_ALSO_KEYS):
            return INVALID
        pair = {key: _words(reader, value, key) for key, value in fields.items()}
        if INVALID in pair.values():
            return INVALID
        pairs.append(pair)
    return pairs


def attach_notes(results: list[Result], notes: list[Note]) -> dict[int, Note]:
    """For each result that did not pass, the first note for its backend and case name; each
    note's `matched` is refilled."""
    for note in notes:
        note.matched.clear()
    found = {}
    for index, result in enumerate(results):
        if result.outcome in SETTLED:
            continue
        for note in notes:
            if (result.backend in note.backends and note.cases.fullmatch(result.name)
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
    commands = _commands(folder)
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


def _commands(folder: Path) -> dict[str, str]:
    """Model file name -> the indented command that follows its `Model:` line, in the
    folder's README.md and its pages per tool (`<tool>.md`)."""
    lines = []
    for page in sorted(folder.glob("*.md")):
        try:
            lines += page.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            continue
    commands, model = {}, None
    for line in lines:
        named = re.match(r"Model: \[`([^`]+)`\]", line)
        if named:
            model = named.group(1)
        elif model and line.startswith("    ") and line.strip():
            commands[model] = line.strip()
            model = None
    return commands
