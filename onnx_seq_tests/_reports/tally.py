"""What every report of a verify run shares: the outcomes in their order, messages made safe and
bounded, counts, the suite form of a case, the operators a case is about, and messages grouped.

Pure functions of a list of `Result`s; no writing. A backend's message is untrusted text: every
writer takes it through `cap` (any string in, valid Unicode of bounded length out).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from .._core.operators import sequence_operators
from .._core.suite_forms import SuiteForm
from .._published.discovery import CaseRef
from .._run.transformed import RULE, UNJUDGED, is_transformed
from .._run.verifier import OUTCOMES, Result
from .._runtimes.backends import describe

#: The outcomes in the order reports show them.
SHOWN = OUTCOMES
#: The outcomes that make a run fail (verifier.UNEXPECTED), worst first: wrong values, then the
#: process died or hung, then raised while running, then would not take the model.
WORST_FIRST = ("fail", "crash", "timeout", "transform-failed", "invalid-model", "error",
               "refused")
#: What each outcome means, for legends.
MEANING = {
    "pass": "every data set matched",
    "fail": "gave other values than the spec's",
    "refused": ("would not prepare the model, or a value kind could not be taken (by its API, "
                "or read by this tool: a sparse tensor)"),
    "error": "raised while running a data set after preparing the model",
    "crash": "its worker process died",
    "timeout": "overran --timeout",
    "transform-failed": "a transform (--transform) raised or returned no model",
    "invalid-model": "a transform made a model onnx's full check refuses",
    "unjudged": "the backend does not pass the case untransformed: the transform is not judged",
    "xfail": "a known failure (--xfail)",
    "xpass": "listed as a known failure but passed",
}

#: A message longer than this many characters is cut in JSON, JUnit and HTML, with a note.
MESSAGE_LIMIT = 20_000


def descriptions(specs: list[str], known: dict[str, str] | None = None) -> dict[str, str]:
    """What each spec runs, with versions: from `known` (a merged report's record) where it
    says, else backends.describe; a spec that cannot be described here (its runtime is not
    installed on this machine) is described as itself."""
    found = {}
    for spec in specs:
        if known and spec in known:
            found[spec] = known[spec]
            continue
        try:
            found[spec] = describe(spec)
        except Exception:  # noqa: BLE001 - any import failure of a foreign runtime
            found[spec] = spec
    return found


def raw_outcome(result: Result) -> str:
    """The outcome before the xfail list was applied (the contract's `raw_outcome`, "" meaning
    the same as `outcome`)."""
    return getattr(result, "raw_outcome", "") or result.outcome


def cap(text, limit: int = MESSAGE_LIMIT) -> str:
    """`text` as valid Unicode of at most about `limit` characters: lone surrogates written as
    `\\udXXX`, and a longer text cut with a note of how much was cut."""
    text = text if isinstance(text, str) else str(text)
    cut = len(text) - limit
    if cut > 0:
        text = text[:limit]
    if not _is_utf8(text):
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text + (f" [... {cut:,} more character(s) cut]" if cut > 0 else "")


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def first_line(message: str, limit: int = 300) -> str:
    """The first non-blank line of a message, cut to `limit` characters (ending in `…`)."""
    head = message[:limit * 4]
    line = next((part.strip() for part in head.splitlines() if part.strip()), "")
    return cap(line if len(line) <= limit else line[:limit - 1] + "…", limit)


def counts(results: list[Result]) -> dict[str, Counter]:
    """Outcome counts per backend."""
    table: dict[str, Counter] = defaultdict(Counter)
    for result in results:
        table[result.backend][result.outcome] += 1
    return table


def passed(counter: Counter) -> int:
    return counter["pass"] + counter["xpass"]


def judged(counter: Counter) -> int:
    """How many results count: all but the unjudged ones (the baseline rule, transformed.py)."""
    return sum(counter.values()) - counter["unjudged"]


def all_passed(results: list[Result], spec: str) -> str:
    """What a report says of a subject with nothing to explain: every case passes, or every
    case it is judged on (the baseline rule left some unjudged)."""
    unjudged = any(r.backend == spec and r.outcome == UNJUDGED for r in results)
    return "Every case it is judged on passes." if unjudged else "Every case passes."


def baseline_rule(specs: list[str]) -> str | None:
    """The baseline rule, for a report of a run with a transformed subject (else None)."""
    return f"Transforms: {RULE}." if any(is_transformed(s) for s in specs) else None


def percent(counter: Counter) -> str:
    """`97%` of the cases judged passed (pass or xpass); `-` for none. Never rounds up to 100%
    or down to 0% unless all or none passed."""
    total = judged(counter)
    if not total:
        return "-"
    share = 100 * passed(counter) / total
    shown = int(share + 0.5)
    if shown == 100 and passed(counter) < total:
        shown = 99
    if shown == 0 and passed(counter):
        shown = 1
    return f"{shown}%"


def forms(results: list[Result]) -> list[SuiteForm]:
    """The suite forms of the results, the cases as written first."""
    return sorted({r.form for r in results}, key=list(SuiteForm).index)


# -- what a case is about -----------------------------------------------------------------------

def about_of(refs: list[CaseRef]) -> dict[str, tuple[str, ...]]:
    """Per case folder name, the operators of the case it is derived from, for the
    tensor-boundary variants among `refs` (CaseRef.about, from the manifest read when the
    cases were found); a case not listed is about the operators its result names."""
    return {ref.name: ref.about for ref in refs if ref.about is not None}


def operators_about(result: Result, about: dict[str, tuple[str, ...]] | None) -> list[str]:
    """The operators a result counts under: those of the case it is derived from (`about`, see
    about_of: a tensor-boundary variant's wrapping operators left out), else those it uses."""
    found = (about or {}).get(result.name)
    return list(found or result.operators or ["(no node)"])


def operator_order(names) -> list[str]:
    """The sequence and optional operators first (alphabetically), then the others."""
    main = set(sequence_operators())
    return sorted(set(names), key=lambda n: (n not in main, n))


def rollup(results: list[Result], about=None) -> dict[str, dict[tuple[str, str], Counter]]:
    """Per operator (see operators_about; sequence/optional operators first), per (backend,
    form): outcome counts."""
    table: dict[str, dict[tuple[str, str], Counter]] = defaultdict(lambda: defaultdict(Counter))
    for result in results:
        for operator in operators_about(result, about):
            table[operator][(result.backend, result.form)][result.outcome] += 1
    return {name: table[name] for name in operator_order(table)}


# -- messages grouped ---------------------------------------------------------------------------

_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")


def message_key(message: str) -> str:
    """A message's first meaningful line with quoted names and numbers blanked, so messages
    that differ only in a value name, index or count group together."""
    first = first_line(message, 1000)
    first = re.sub(r"^data set \d+: ", "", first)
    return re.sub(r"\d+", "N", _QUOTED.sub("'…'", first))


def groups(results: list[Result]) -> list[tuple[str, list[Result]]]:
    """The results grouped by message_key, most frequent first."""
    found: dict[str, list[Result]] = defaultdict(list)
    for result in results:
        found[message_key(result.message)].append(result)
    return sorted(found.items(), key=lambda kv: (-len(kv[1]), kv[0]))


def by_severity(results: list[Result]) -> list[Result]:
    """The results that did not go as expected, worst outcome first (WORST_FIRST), in run
    order within an outcome."""
    rank = {o: i for i, o in enumerate(WORST_FIRST)}
    return sorted((r for r in results if r.outcome in rank), key=lambda r: rank[r.outcome])
