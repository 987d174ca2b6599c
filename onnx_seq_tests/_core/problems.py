"""The mistakes in case files, each pinned to `file:line:col`, collected rather than raised
(the errors, SeqTestsError and the rest, live in errors.py), and the helpers of messages.

One line per problem, `path:line:col: message`, 1-based, sorted by path, line and column, each
distinct problem once (a for_each case may meet the same mistake once per type); at most
MAX_REPORTED lines are shown, then `... and N more problem(s)`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import ArgumentError, CaseFileError, ProblemsError, bounded

#: A message quotes at most this many characters of one value from the user (`quote`).
MAX_QUOTED = 60


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
