"""Checks that a conformance note quotes the sentence that decides its cases.

A note of docs/conformance-notes.yaml says why a backend fails some cases (its witnesses) and
quotes what decides it. The decision is one of:

- `operator` + `spec` (and more pairs under `also: [{operator, spec}, ...]`): sentences of the
  ONNX operator documentation in onnx.defs (the doc text, or an input, output, attribute or
  type-constraint description), whitespace aside;
- `ir`: a sentence of the ONNX IR as onnx ships it (the comments of onnx/onnx.proto and
  onnx/onnx-data.proto; IR.md is not shipped), for what no operator decides (an omitted dim,
  tensors of one sequence that differ in shape);
- `no_spec`: why no ONNX sentence decides (an API limit of the runtime, an adapter limit, a
  crash, an operator the runtime lacks); then the note quotes nothing.

`decision_of(fields)` reads those keys of a note (InputError when they do not make one decision),
`quote_problems(decision)` checks each quote exists (in some version of its operator, or in
onnx.proto), and `witness_problems(decision, witnesses)` checks that it decides each witness:
some quote must belong to an operator the case uses, in the version its opset selects (or be
an IR sentence). `witnesses` maps a case to (its operator types, its ai.onnx opset).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import onnx
from onnx import defs

from .._core.errors import InputError
from .._core.operators import domain_of

#: Where an `ir` quote must be found: the IR definitions shipped with onnx (their comments).
IR_FILES = ("onnx.proto", "onnx-data.proto")
IR_SOURCE = "ONNX IR (onnx.proto, onnx-data.proto)"
DECISION_KEYS = ("operator", "spec", "also", "ir", "no_spec")


@dataclass(frozen=True)
class Quote:
    """A quoted sentence and where it must be found: an operator's name, or IR_SOURCE."""

    source: str
    text: str


@dataclass(frozen=True)
class Decision:
    """What decides a note's cases: the quotes, or (no quotes) why no sentence decides."""

    quotes: tuple[Quote, ...] = ()
    no_spec: str = ""


def _flat(text: object) -> str:
    return " ".join(str(text).split())


def decision_of(fields: Mapping[str, object]) -> Decision:
    """The decision a note's fields give: `operator`+`spec` with optional `also` pairs, or
    `ir`, or `no_spec` alone. InputError names the first problem."""
    given = {k for k in DECISION_KEYS if fields.get(k) not in (None, "", [])}
    if "no_spec" in given:
        if given != {"no_spec"}:
            raise InputError("no_spec says no ONNX sentence decides; drop "
                             + ", ".join(sorted(given - {"no_spec"})))
        return Decision(no_spec=_flat(fields["no_spec"]))
    quotes = []
    if {"operator", "spec"} & given:
        if not {"operator", "spec"} <= given:
            raise InputError("operator and spec go together: the sentence and the operator "
                             "whose documentation has it")
        quotes.append(Quote(_flat(fields["operator"]), _flat(fields["spec"])))
    elif "also" in given:
        raise InputError("also adds to operator and spec; give those first")
    also: Any = fields.get("also") or []
    for pair in also:
        if not isinstance(pair, Mapping) or set(pair) != {"operator", "spec"}:
            raise InputError("each entry of also is {operator: ..., spec: ...}")
        quotes.append(Quote(_flat(pair["operator"]), _flat(pair["spec"])))
    if "ir" in given:
        quotes.append(Quote(IR_SOURCE, _flat(fields["ir"])))
    if not quotes:
        raise InputError("say what decides: operator and spec (a sentence of its ONNX "
                         "documentation), ir (a sentence of onnx.proto), or no_spec (why no "
                         "ONNX sentence decides)")
    return Decision(tuple(quotes))


@functools.cache
def _schemas(operator: str) -> tuple:
    domain = domain_of(operator)
    return tuple(sorted((s for s in defs.get_all_schemas_with_history()
                         if s.name == operator and s.domain == domain),
                        key=lambda s: s.since_version))


def schema_texts(operator: str, opset: int | None = None) -> list[str]:
    """The texts of an operator's schema, whitespace collapsed: its doc and every input, output,
    attribute and type-constraint description, of the version `opset` selects (every version
    when opset is None, or for an operator of ai.onnx.ml, whose opset is another; none when
    the operator does not exist there)."""
    schemas = _schemas(operator)
    if opset is not None and not domain_of(operator):
        schemas = tuple(s for s in schemas if s.since_version <= opset)[-1:]
    texts = []
    for schema in schemas:
        texts.append(schema.doc or "")
        texts.extend(p.description for p in [*schema.inputs, *schema.outputs])
        texts.extend(a.description for a in schema.attributes.values())
        texts.extend(t.description for t in schema.type_constraints)
    return [_flat(t) for t in texts]


@functools.cache
def ir_text() -> str:
    """The comments of the IR definitions shipped with onnx (IR_FILES), joined and whitespace
    collapsed."""
    comments = []
    for name in IR_FILES:
        text = (Path(onnx.__file__).parent / name).read_text(encoding="utf-8")
        comments += re.findall(r"//(.*)", text)
    return _flat(" ".join(comments))


def _found(quote: Quote, opset: int | None) -> bool:
    if quote.source == IR_SOURCE:
        return quote.text in ir_text()
    return any(quote.text in text for text in schema_texts(quote.source, opset))


def quote_problems(decision: Decision) -> list[str]:
    """Each quote that is not where it says it is (any version of its operator; onnx.proto)."""
    problems = []
    for quote in decision.quotes:
        if quote.source != IR_SOURCE and not _schemas(quote.source):
            problems.append(f"{quote.source!r} is not an ONNX operator")
        elif not _found(quote, None):
            where = ("the comments of " + " or ".join(IR_FILES) if quote.source == IR_SOURCE
                     else f"the ONNX documentation of {quote.source}")
            problems.append(f"{quote.text!r} is not in {where}; quote it exactly")
    return problems


def witness_problems(decision: Decision,
                     witnesses: Mapping[str, tuple[Collection[str], int]]) -> list[str]:
    """Each witness case (case -> (operator types, opset)) that no quote decides: a quote
    decides a case when its operator is one the case uses and the sentence is in that
    operator's schema at the version the case's opset selects, or when it is an IR sentence.
    A `no_spec` decision decides every case."""
    if not decision.quotes:
        return []
    problems = []
    for case, (operators, opset) in sorted(witnesses.items()):
        if not any(q.source == IR_SOURCE or (q.source in operators and _found(q, opset))
                   for q in decision.quotes):
            used = ", ".join(sorted(set(operators)))
            problems.append(f"{case} (opset {opset}; {used}): no quote decides it; quote the "
                            "sentence of one of these operators at that version")
    return problems


def first_matches(notes: Iterable[Mapping], results: Iterable[tuple[str, str, str]]) -> dict:
    """Which results each note takes, as the report attaches them: a failed result
    (backend, case key, message) goes to the first note whose backend is its backend (or one
    of its list), whose `cases` regex matches the whole case name (the key's last part) and
    whose `message` regex, if any, is found in its message. Returns note index -> case keys."""
    compiled = [([n["backend"]] if isinstance(n["backend"], str) else list(n["backend"]),
                 re.compile(n["cases"]),
                 re.compile(n["message"]) if n.get("message") else None) for n in notes]
    taken: dict[int, list[str]] = {}
    for backend, case, message in results:
        name = case.rsplit("/", 1)[-1]
        for index, (wanted, cases, text) in enumerate(compiled):
            if backend in wanted and cases.fullmatch(name) and (
                    text is None or text.search(message)):
                taken.setdefault(index, []).append(case)
                break
    return taken
