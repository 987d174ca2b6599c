"""What every report of a verify run shares: the outcomes in their order, messages made safe and
bounded, counts, the suite form of a case, the operators a case is about, and messages grouped.

Pure functions of a list of `Result`s; no writing. A backend's message is untrusted text: every
writer takes it through `cap` (any string in, valid Unicode of bounded length out).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from pathlib import Path

from .._core.operators import sequence_operators
from .._published.discovery import nearest_manifest
from .._run.verifier import OUTCOMES, Result
from .._runtimes.backends import describe
from .._suite.tensor_io import TENSOR_IO_SUITE

#: The outcomes in the order reports show them.
SHOWN = OUTCOMES
#: The outcomes that make a run fail (verifier.UNEXPECTED), worst first: wrong values, then the
#: process died or hung, then raised while running, then would not take the model.
WORST_FIRST = ("fail", "crash", "timeout", "error", "refused")
#: What each outcome means, for legends.
MEANING = {
    "pass": "every data set matched",
    "fail": "gave other values than the spec's",
    "refused": "would not prepare the model, or its API cannot take a value kind",
    "error": "raised while running a data set after preparing the model",
    "crash": "its worker process died",
    "timeout": "overran --timeout",
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


def percent(counter: Counter) -> str:
    """`97%` of the cases passed (pass or xpass); `-` for none. Never rounds up to 100% or down
    to 0% unless all or none passed."""
    total = sum(counter.values())
    if not total:
        return "-"
    share = 100 * passed(counter) / total
    shown = int(share + 0.5)
    if shown == 100 and passed(counter) < total:
        shown = 99
    if shown == 0 and passed(counter):
        shown = 1
    return f"{shown}%"


def form_of(result: Result) -> str:
    """The suite form a result belongs to: `tensor-boundary` for a case under the
    tensor-boundary suite folder (or named as one of its variants), else `original`."""
    return "tensor-boundary" if TENSOR_IO_SUITE in result.case.split("/") else "original"


def forms(results: list[Result]) -> list[str]:
    return sorted({form_of(r) for r in results}, key=lambda f: f != "original")


# -- what a case is about -----------------------------------------------------------------------

def load_about(roots) -> dict[str, tuple[str, ...]]:
    """Per case folder name, the operators of the case it is derived from, for the
    tensor-boundary variants listed in the suite manifest of each root (the nearest one at or
    above it, read once per command by discovery.nearest_manifest); a case not listed is about
    the operators its result names. Unreadable manifests give nothing."""
    about: dict[str, tuple[str, ...]] = {}
    for root in roots:
        manifest = nearest_manifest(Path(root))
        entries = manifest.by_name if manifest is not None else {}
        for entry in entries.values():
            origin = entries.get(entry.derived_from) if entry.derived_from is not None else None
            if origin is not None and origin.operators is not None:
                about[entry.folder.rpartition("/")[2]] = origin.operators
    return about


def about_map(results: list[Result], about=None) -> dict[str, tuple[str, ...]]:
    """Per case folder name, the operators the case is about: `about` (from load_about) where
    it says, else for a tensor-boundary variant `test_X__suffix` whose original `test_X` is
    among the results, the original's operators."""
    originals = {r.name: tuple(r.operators) for r in results if form_of(r) == "original"}
    found = {}
    for result in results:
        if form_of(result) == "tensor-boundary" and "__" in result.name:
            origin = originals.get(result.name.rpartition("__")[0])
            if origin is not None:
                found[result.name] = origin
    found.update(about or {})
    return found


def operators_about(result: Result, about: dict[str, tuple[str, ...]]) -> list[str]:
    """The operators a result counts under: those of the case it is derived from (`about`, see
    about_map: a tensor-boundary variant's wrapping operators left out), else those it uses."""
    found = about.get(result.name)
    return list(found or result.operators or ["(no node)"])


def operator_order(names) -> list[str]:
    """The sequence and optional operators first (alphabetically), then the others."""
    main = set(sequence_operators())
    return sorted(set(names), key=lambda n: (n not in main, n))


def rollup(results: list[Result], about=None) -> dict[str, dict[tuple[str, str], Counter]]:
    """Per operator (see operators_about; sequence/optional operators first), per (backend,
    form): outcome counts."""
    table: dict[str, dict[tuple[str, str], Counter]] = defaultdict(lambda: defaultdict(Counter))
    about = about_map(results, about)
    for result in results:
        for operator in operators_about(result, about):
            table[operator][(result.backend, form_of(result))][result.outcome] += 1
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
