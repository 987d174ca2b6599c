"""Every error class of the package, under one base, `SeqTestsError`.

Each class says what the user must do about it and carries the command line's exit status for
it as `exit_code` (click's `ClickException.exit_code` convention); the command group prints
`lines()` on stderr once and exits with that code, in one place (`_cli/conventions.py`):

    exit 2, the input or the usage is wrong: fix it and run again
        ArgumentError      a bad argument of a function or option of a command
        BackendSpecError   a backend (spec, mutant name) that cannot be used or started
        InputError         a file or folder given is wrong or cannot be used (one line)
          ModelError         onnx refuses a case's model (`where`: the place in the case file)
          NoCasesError       a folder given as a suite holds no case folder
        OutputError        an output path that must not or cannot be written (nothing written)
        ProblemsError      mistakes in a file the user wrote, each `file:line:col: message`
          CaseFileError      in case files
          EntriesError       in the verifier's xfail or notes file
        ReadError          a file or folder that cannot be read as a case; `kind` is the word
                           a command's per-folder line uses (discovery.read_each): corrupt,
                           unreadable (Unreadable), unsupported (Unsupported), a missing file
                           (MissingFile), not expressible (NotExpressible: a value or a
                           folder the case format cannot hold; import leaves it out)
    told apart while the code works (users see them inside a report; exit 2 should one
    reach the command line)
        OracleError        the spec oracle cannot evaluate a model; BudgetError: over budget
        MutantError        a mutant of the oracle fails where the runtime it models fails
        NoResult           a fuzz recipe that gives no program
        CannotTake         a backend's API refuses a value kind: a refusal, by type
        CompileError       a compiler refused the model (IREE), kept as its verdict
        TransformFailed    a transform raised; InvalidModel: the model it made is invalid
        NotJudged          an inferrer refuses the case's own model (inference judged)
    exit 1, a check failed, a result is partial or a write failed
        CheckFailed        (PackError, WriteFailed are its names at their raise sites)
          NothingRead        every folder was left out, so nothing was written
          OutputMismatch     outputs differ from the expected ones (an AssertionError)

The names modules raised before the errors lived here are kept at the end, each the class of its
group (an `except` of such a name catches its group). The names that reach users inside a
report (a refusal's `CannotTake`, a fuzz signature's `MutantError` or `OracleError`) are the
classes' own. The rules every message follows (one line: `one_line`, `bounded`) live here too, so
that this module imports nothing of the package (problems.py imports them from here).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import Any, ClassVar

#: At most this many problems are reported for one run; the rest are counted.
MAX_REPORTED = 50
#: The longest line of a message (`bounded`): a last guard, for text that no `quote` cut.
MAX_LINE = 1_000


class SeqTestsError(Exception):
    """The base of every error this package raises on purpose: bad input or usage, exit 2,
    unless a class says otherwise."""

    exit_code: ClassVar[int] = 2

    def lines(self) -> list[str]:
        """What the command line prints: `error: <message>` on one line."""
        return [bounded(f"error: {self}")]


# -- exit 2: the input or the usage is wrong --------------------------------------------------

class ArgumentError(SeqTestsError, ValueError):
    """A bad argument to a function of the Python API or option of a command (a wrong type, a
    value out of range, options that do not go together); the message names it and what it
    takes."""


class BackendSpecError(SeqTestsError, ValueError):
    """A backend that cannot be used: a spec that does not load, an unknown mutant name, a
    worker that cannot start it; the message names the spec (not a parameter, as an
    ArgumentError's does)."""


class InputError(SeqTestsError, ValueError):
    """A file or folder given is wrong or cannot be used (a manifest, an archive, a report, a
    profile, a value as written): one line, `path: message`."""


class ModelError(InputError):
    """A case whose model onnx refuses; the message says which node or check and why, `where`
    the place in the case file when one is known."""

    def __init__(self, message: str, where: Any = None) -> None:
        super().__init__(message)
        self.where = where


class NoCasesError(InputError):
    """A suite folder that holds no case, or a selection that leaves none; the message names
    the path."""


class OutputError(SeqTestsError):
    """An output path a command must not or cannot write (an input, inside a folder it reads,
    another output of the same run, an existing folder, an unusable output root): nothing was
    written."""


class ProblemsError(SeqTestsError):
    """Every problem found in a file the user wrote, sorted, each `file:line:col: message`;
    the command line prints them, then their count."""

    def __init__(self, problems: Iterable[Any]) -> None:
        self.problems = sorted(set(problems), key=lambda p: (p.path, p.line, p.column, p.message))
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


class EntriesError(ProblemsError, ValueError):
    """Problems in a file of entries the verifier reads: its xfail file or its notes."""


class ReadError(SeqTestsError):
    """Input that cannot be read as a case; the message is one line saying what and why.

    `kind` is the word a command's per-folder line uses for it: `corrupt` (what a file holds
    is wrong: it does not parse, is truncated, holds another kind of value, is over an element
    or nesting bound), `unreadable` (the file cannot or may not be read: a FIFO, a device, a
    folder, no permission, over its size bound, external data) or `unsupported` (a value kind
    this tool cannot read yet, a sparse tensor)."""

    kind: ClassVar[str] = "corrupt"


class Unreadable(ReadError):
    """A file that cannot or may not be read (see ReadError)."""

    kind = "unreadable"


class Unsupported(ReadError):
    """A value kind this tool cannot read yet (see ReadError): `what` says which value and
    which kind, without the path (what verify's `refused` says), `model` is the model read."""

    kind = "unsupported"

    def __init__(self, message: str, what: str = "", model: Any = None) -> None:
        super().__init__(message)
        self.what = what or message
        self.model = model


class MissingFile(ReadError):
    """A file that does not exist (read_bytes), for a reader that says what needed it."""


class NotExpressible(ReadError):
    """A value or a case folder the case format cannot hold (the message says which detail):
    the writer of case files raises it, `import` leaves such a folder out as `not
    expressible`."""

    kind = "not expressible"


# -- told apart while working ----------------------------------------------------------------

class OracleError(SeqTestsError):
    """The spec gives no result for these inputs; the message says why."""


class BudgetError(OracleError):
    """Running the graph would go over one of the oracle's budgets (budgets.py)."""


class MutantError(SeqTestsError):
    """What a mutant raises where the runtime it models fails."""


class NoResult(SeqTestsError):
    """The spec gives no result for the drawn program (the oracle's reason is the message)."""


class CannotTake(SeqTestsError, RuntimeError):
    """The runtime's API cannot take (or give) a value of this kind or element type: the
    verifier's `refused` outcome, recognised by this type (worker_main.refusal)."""


class CompileError(SeqTestsError, RuntimeError):
    """A compiler refused the model (IREE's importer or iree-compile; not a timeout)."""


class TransformFailed(SeqTestsError):
    """A transform (verify --transform) raised, or returned something else than a model; the
    message starts with the transform's name."""

    def __init__(self, transform: str, message: str) -> None:
        super().__init__(f"{transform}: {message}")
        self.transform = transform


class InvalidModel(SeqTestsError):
    """onnx's checker (full check) refused the model a transform made."""

    def __init__(self, transform: str, message: str) -> None:
        super().__init__(f"{transform} made an invalid model: {message}")
        self.transform = transform


class NotJudged(SeqTestsError):
    """An inferrer refuses the case's own model too (an operator or type it does not
    implement): a refusal, nothing to judge."""


# -- exit 1: a check failed, a partial result, a failed write ---------------------------------

class CheckFailed(SeqTestsError):
    """A check found what it looks for (a stale file, a surviving mutant, a suite that does not
    match its manifest, a write that failed): exit 1."""

    exit_code = 1


class NothingRead(CheckFailed):
    """Every folder was left out, so nothing is written (exit 1): the command line prints each
    folder's line, then `error: <message>`."""

    def __init__(self, message: str, skipped: list[Any]) -> None:
        super().__init__(f"{message} ({tally(skipped)}); nothing was written")
        self.skipped = list(skipped)

    def lines(self) -> list[str]:
        return [item.line() for item in self.skipped] + super().lines()


def tally(skipped: Iterable[Any]) -> str:
    """How many folders were left out of each kind: `1 unreadable, 2 not expressible`."""
    counts: dict[str, int] = {}
    for item in skipped:
        counts[item.kind] = counts.get(item.kind, 0) + 1
    return ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items())) or "none"


class OutputMismatch(CheckFailed, AssertionError):
    """Raised by `assert_outputs_match`; one line per difference."""


# The names modules raised before their errors lived here, each the class of its group.
WorkerStartError = UnknownMutant = BackendSpecError
FuzzUsageError = ArgumentError
ManifestError = CacheError = ArchiveError = DiffError = SuiteError = InputError
RestampError = RefreshError = NotOurPage = ProfileError = FindingError = InputError
ScalarError = TypeTextError = InputError
XfailError = NotesError = EntriesError
PackError = WriteFailed = CheckFailed


# -- what the command line prints for an error ----------------------------------------------

def problem_lines(report: str, count: int) -> list[str]:
    """The lines the command line prints for a report of `count` problems."""
    return [report, f"{count} problem(s) found; nothing was written."]


def bounded(text: str, limit: int = MAX_LINE) -> str:
    """`text` as one line (`one_line`) of at most about `limit` characters: a longer one keeps
    its start (`file:line:col:` and the message's first words) and says how much was cut."""
    text = one_line(text)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... (a line of {len(text):,} characters, first {limit} shown)"


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
