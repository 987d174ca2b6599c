"""The package's one error base (SeqTestsError, with the exit status of each error), and the
mistakes in case files, each pinned to `file:line:col`, collected rather than raised.

One line per problem, `path:line:col: message`, 1-based, sorted by path, line and column, each
distinct problem once (a for_each case may meet the same mistake once per type); at most
MAX_REPORTED lines are shown, then `... and N more problem(s)`.
"""

from __future__ import annotations

import os
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: At most this many problems are reported for one run; the rest are counted.
MAX_REPORTED = 50
#: A message quotes at most this many characters of one value from the user (`quote`).
MAX_QUOTED = 60
#: The longest line of a message (`bounded`): a last guard, for text that no `quote` cut.
MAX_LINE = 1_000


class SeqTestsError(Exception):
    """The base of every error this package raises on purpose.

    `exit_code` is the command line's exit status for it (click's `ClickException.exit_code`
    convention): 2 for bad input or usage (the default), 1 for a check that failed. The command
    line prints `lines()` on stderr, once, in one place (`_cli.py`).
    """

    exit_code = 2

    def lines(self) -> list[str]:
        """What the command line prints: `error: <message>` on one line."""
        return [bounded(f"error: {self}")]


class CheckFailed(SeqTestsError):
    """A check found what it looks for (a stale file, a surviving mutant, a suite that does not
    match its manifest, a write that failed): exit 1."""

    exit_code = 1


class ArgumentError(SeqTestsError, ValueError):
    """A bad argument to a function of the Python API (a wrong type, a value out of range);
    the message names the argument and what it takes."""


def path_argument(value: object, name: str) -> Path:
    """`value` as a Path when it is a str or os.PathLike; ArgumentError naming `name` if not."""
    if isinstance(value, (str, os.PathLike)):
        return Path(value)
    raise ArgumentError(f"{name} must be a path (str or os.PathLike), not {type(value).__name__}")


def quote(value: object, limit: int = MAX_QUOTED) -> str:
    """`value` quoted for a message, as repr quotes it, cut after `limit` characters, saying how
    much was cut: `'12345...' (100,000 characters, first 5 shown)`. Every message that quotes a
    value from the user (a key, a name, a type as written) quotes it with this."""
    if not isinstance(value, str):
        return shorten(_repr(value), limit)
    if len(value) <= limit:
        return repr(value)
    shown = repr(value[:limit])
    return f"{shown[:-1]}...{shown[-1]} ({len(value):,} characters, first {limit} shown)"


def shorten(text: str, limit: int = MAX_QUOTED) -> str:
    """`text` as it is when it is at most `limit` characters, else cut there, saying how much
    was cut: `12345... (100,000 characters, first 5 shown)`; for a number as written, which a
    message shows without quotes."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text):,} characters, first {limit} shown)"


def _repr(value: Any) -> str:
    try:
        return repr(value)
    except ValueError:  # an int of more digits than Python converts (sys.int_info)
        return f"<an int of {value.bit_length():,} bits>"


def bounded(text: str, limit: int = MAX_LINE) -> str:
    """`text` as one line (`one_line`) of at most about `limit` characters: a longer one keeps
    its start (`file:line:col:` and the message's first words) and says how much was cut."""
    text = one_line(text)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... (a line of {len(text):,} characters, first {limit} shown)"


def paths_argument(value: Any, name: str = "paths") -> list[Path]:
    """`value` as a list of Paths: one path (str or os.PathLike) or an iterable of them;
    ArgumentError naming `name` for anything else (bytes too: iterating them gives ints)."""
    if isinstance(value, (str, os.PathLike)):
        return [Path(value)]
    if isinstance(value, (bytes, bytearray)):
        raise ArgumentError(f"{name} must be a path or a list of paths (str or os.PathLike), "
                            f"not {type(value).__name__}")
    try:
        items = list(value)
    except TypeError:
        raise ArgumentError(f"{name} must be a path or a list of paths (str or os.PathLike), "
                            f"not {type(value).__name__}") from None
    return [path_argument(item, f"each of {name}") for item in items]


def one_line(text: str) -> str:
    """`text` with every control, format and line/paragraph separator character escaped.

    Messages quote user text (keys, names, values); escaping here keeps every message on one
    line and free of terminal escapes whatever the input holds (newlines, U+0085, U+2028, ANSI).
    """
    if text.isprintable():
        return text
    return "".join(
        ch if ch == " " or unicodedata.category(ch) not in ("Cc", "Cf", "Zl", "Zp", "Cs")
        else ch.encode("unicode_escape", "backslashreplace").decode("ascii")
        for ch in text
    )


@dataclass(frozen=True, order=True)
class Problem:
    """One mistake: where it is (1-based line and column) and what to do about it."""

    path: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return bounded(f"{self.path}:{self.line}:{self.column}: {self.message}")


@dataclass(frozen=True)
class Where:
    """A position in a case file, 1-based."""

    path: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


def _order(problem: Problem) -> tuple[str, int, int, str]:
    return problem.path, problem.line, problem.column, problem.message


class ProblemsError(SeqTestsError):
    """Every problem found in a file the user wrote, sorted, each `file:line:col: message`;
    the command line prints them, then their count."""

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(set(problems), key=_order)
        super().__init__(self.report())

    def report(self) -> str:
        shown = self.problems[:MAX_REPORTED]
        lines = [str(p) for p in shown]
        hidden = len(self.problems) - len(shown)
        if hidden:
            lines.append(f"... and {hidden} more problem(s)")
        return "\n".join(lines)

    def lines(self) -> list[str]:
        """One line per problem, then the count: nothing was written."""
        return problem_lines(self.report(), len(self.problems))


class CaseFileError(ProblemsError):
    """Raised once loading or building cases is done, carrying every problem found."""


def problem_lines(report: str, count: int) -> list[str]:
    """The lines the command line prints for a report of `count` problems."""
    return [report, f"{count} problem(s) found; nothing was written."]


@dataclass
class Problems:
    """A collector: `add` a problem at a place, `raise_if_any` at the end of a stage."""

    found: list[Problem] = field(default_factory=list)

    def add(self, where: Where, message: str) -> None:
        self.found.append(Problem(where.path, where.line, where.column, message))

    def raise_if_any(self, error: type[ProblemsError] = CaseFileError) -> None:
        """Raise `error` (a ProblemsError class) with every problem found, if any."""
        if self.found:
            raise error(self.found)
