"""What `verify` prints: one line per result that went wrong, the roll-up per operator and the
totals (`text_report`); a screenful for a person (`summary_text`, `--summary`); only what went
wrong and the totals (`quiet_text`, `--quiet`); and the progress line while it runs.

Lines are for a terminal: a backend's text is escaped (no control characters, no terminal
escapes) and cut, so one result is one line.
"""

from __future__ import annotations

import os
import shutil
import time
from collections import Counter

from .._core.errors import one_line
from .._core.operators import CARRIERS, sequence_operators
from .._core.suite_forms import SuiteForm
from .._run.transformed import OWN_OUTCOMES
from .._run.verifier import UNEXPECTED, Result
from .tally import (
    SHOWN,
    baseline_rule,
    by_severity,
    counts,
    first_line,
    forms,
    groups,
    judged,
    passed,
    percent,
    raw_outcome,
    rollup,
)

#: How many failures and message groups `--summary` shows before it counts the rest.
SUMMARY_FAILURES = 10
SUMMARY_GROUPS = 10


def result_line(result: Result, limit: int = 300) -> str:
    """One line for a result that did not pass: label, backend, case, source, the message's
    first line (cut to `limit`) and how many lines follow."""
    message = result.message
    lines = len(message.splitlines()) if len(message) <= 100_000 else message.count("\n") + 1
    extra = f" (+{lines - 1} more line(s))" if lines > 1 else ""
    source = f" ({result.source})" if result.source else ""
    return one_line(f"{result.outcome.upper():5} [{result.backend}] {result.case}{source}: "
                    f"{first_line(message, limit)}{extra}")


def totals_line(spec: str, c: Counter) -> str:
    """`spec: P passed, F failed, ... of N case(s)`; refused, crash and timeout when any."""
    parts = [f"{c['pass']} passed", f"{c['fail']} failed"]
    parts += [f"{c['refused']} refused"] if c["refused"] else []
    parts += [f"{c['error']} error(s)"]
    parts += [f"{c['crash']} crash(es)"] if c["crash"] else []
    parts += [f"{c['timeout']} timeout(s)"] if c["timeout"] else []
    parts += [f"{c[o]} {o}" for o in OWN_OUTCOMES if c[o]]
    parts += [f"{c['xfail']} expected failure(s)", f"{c['xpass']} unexpected pass(es)"]
    return one_line(f"{spec}: {', '.join(parts)} of {sum(c.values())} case(s)")


def _xfail_line(results: list[Result], specs: list[str]) -> list[str]:
    xfails = Counter(r.backend for r in results if r.outcome == "xfail")
    if not xfails:
        return []
    return [one_line(f"XFAIL {sum(xfails.values())} expected failure(s) ("
                     + ", ".join(f"{spec}: {xfails[spec]}" for spec in specs if xfails[spec])
                     + "); --json or --junit-xml lists them")]


def _totals(results: list[Result], specs: list[str]) -> list[str]:
    table = counts(results)
    rule = baseline_rule(specs)
    return [totals_line(spec, table.get(spec, Counter())) for spec in specs] + (
        [rule] if rule else [])


def rollup_lines(results: list[Result], specs: list[str], about=None,
                 subjects_only: bool = False) -> list[str]:
    """The roll-up per operator as aligned columns: per backend and form, % passed and
    passed/total (a tensor-boundary variant counts under the operators of its case). With
    `subjects_only`, the rows of the sequence and optional operators and the carriers, and one
    line naming the other operators the cases use (Add, Gather, ...)."""
    shown = forms(results)
    columns = [(spec, form) for spec in specs for form in shown]
    header = ["operator", *(one_line(s + _suffix(f)) for s, f in columns)]
    table = rollup(results, about)
    subjects = set(sequence_operators()) | set(CARRIERS)
    others = [name for name in table if subjects_only and name not in subjects]
    rows = [[operator, *(_cell(cells.get(c, Counter())) for c in columns)]
            for operator, cells in table.items() if operator not in others]
    tail = [f"(and {len(others)} other operator(s) the cases use, in the full report: "
            + one_line(", ".join(others)) + ")"] if others else []
    return _columns([header, *rows]) + tail


def _suffix(form: SuiteForm) -> str:
    """What follows a backend's name in a column of `form`: nothing for the cases as written."""
    return "" if form is SuiteForm.AS_WRITTEN else f" {form.short}"


def _cell(counter: Counter) -> str:
    total = judged(counter)
    return f"{percent(counter)} {passed(counter)}/{total}" if total else "-"


def _columns(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(text.ljust(w) for text, w in zip(row, widths, strict=True)).rstrip()
            for row in rows]


def text_report(results: list[Result], specs: list[str], about=None) -> str:
    """What verify prints by default: one line per result that went wrong (fail first, then
    crash, timeout, error, refused), the unexpected passes, the expected failures counted in
    one line, the roll-up per operator, and the totals."""
    lines = [result_line(r) for r in by_severity(results)]
    lines += [result_line(r) for r in results if r.outcome == "xpass"]
    lines += _xfail_line(results, specs)
    if lines:
        lines.append("")
    lines += rollup_lines(results, specs, about)
    lines.append("")
    lines += _totals(results, specs)
    return "\n".join(lines) + "\n"


def printed(style: str | None, results: list[Result], specs: list[str],
            about: dict[str, tuple[str, ...]] | None = None) -> str:
    """What verify prints on stdout (a style, not a report file): `summary`, `quiet` or (None)
    the default text."""
    if style == "summary":
        return summary_text(results, specs, about)
    if style == "quiet":
        return quiet_text(results, specs)
    return text_report(results, specs, about)


def progress_shown(style: str | None) -> tuple[str, ...]:
    """The outcomes the progress line reports as they happen: with --summary only wrong
    values, crashes and hangs (the summary groups the rest), else every unexpected one."""
    return ("fail", "crash", "timeout") if style == "summary" else UNEXPECTED


def quiet_text(results: list[Result], specs: list[str]) -> str:
    """`--quiet`: one line per result that went wrong or passed unexpectedly, then the totals."""
    lines = [result_line(r) for r in by_severity(results)]
    lines += [result_line(r) for r in results if r.outcome == "xpass"]
    return "\n".join(lines + _totals(results, specs)) + "\n"


def summary_text(results: list[Result], specs: list[str], about=None) -> str:
    """`--summary`, one screen: the totals, the roll-up per sequence/optional operator and
    carrier (the other operators named in one line), the failures (wrong values, crashes,
    timeouts: at most SUMMARY_FAILURES, then a count), then errors and refusals grouped by
    message with counts and one example (at most SUMMARY_GROUPS)."""
    lines = _totals(results, specs) + [""] + rollup_lines(results, specs, about,
                                                           subjects_only=True)
    worst = [r for r in by_severity(results) if r.outcome in ("fail", "crash", "timeout")]
    worst += [r for r in results if r.outcome == "xpass"]
    if worst:
        lines += ["", f"Failures ({len(worst)}):"]
        lines += [result_line(r, 160) for r in worst[:SUMMARY_FAILURES]]
        if len(worst) > SUMMARY_FAILURES:
            lines.append(f"... and {len(worst) - SUMMARY_FAILURES} more (--quiet lists them)")
    raised = [r for r in results if r.outcome in ("error", "refused")
              or (r.outcome == "xfail" and raw_outcome(r) in ("error", "refused"))]
    if raised:
        found = groups(raised)
        lines += ["", f"Errors and refusals by message ({len(raised)} result(s), "
                      f"{len(found)} distinct message(s)):"]
        for _key, members in found[:SUMMARY_GROUPS]:
            lines.append(one_line(_group_line(members)))
        if len(found) > SUMMARY_GROUPS:
            rest = sum(len(m) for _, m in found[SUMMARY_GROUPS:])
            lines.append(f"... and {len(found) - SUMMARY_GROUPS} more message(s) covering "
                         f"{rest} result(s) (--json lists every result)")
    xfails = _xfail_line(results, specs)
    return "\n".join(lines + ([""] + xfails if xfails else [])) + "\n"


def _group_line(members: list[Result]) -> str:
    outcomes = "/".join(o for o in SHOWN if any(raw_outcome(r) == o for r in members))
    backends = sorted({r.backend for r in members})
    where = ", ".join(backends) if len(backends) <= 2 else f"{len(backends)} backends"
    example = members[0]
    form = _suffix(example.form)
    return (f"{len(members):5} x {outcomes} [{where}]: {first_line(example.message, 110)} "
            f"(e.g. {example.name}{form})")


class Progress:
    """Progress of a run on a stream: cases done of all (n/N), outcome counts so far, time
    spent and an estimate of the time left, and each result whose outcome is in `shown` as it
    happens (by default each that went wrong; --summary: wrong values, crashes, hangs). On
    a terminal the status line is cut to the terminal's width and redrawn in place (it never
    wraps); elsewhere it is written as a line at every tenth of the run."""

    def __init__(self, total: int, stream, terminal: bool, width: int | None = None,
                 shown: tuple[str, ...] = UNEXPECTED):
        self.total, self.stream, self.terminal = total, stream, terminal
        self.width, self.shown = width, shown
        self.done = 0
        self.outcomes: Counter = Counter()
        self.start = time.monotonic()
        self._drawn = 0.0
        self._tenth = 0

    def update(self, results: list[Result]) -> None:
        self.done += 1
        self.outcomes.update(r.outcome for r in results)
        for result in results:
            if result.outcome in self.shown:
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
        shown = ["pass", "fail", *(o for o in ("refused",) if c[o]), "error",
                 *(o for o in ("crash", "timeout", *OWN_OUTCOMES) if c[o]), "xfail", "xpass"]
        return (f"verifying {self.done}/{self.total} cases: "
                + ", ".join(f"{c[o]} {o}" for o in shown)
                + f"; {_clock(elapsed)} spent, about {_clock(left)} left")

    def close(self) -> None:
        if self.terminal and self._drawn:
            self.stream.write("\n")
            self.stream.flush()

    def _columns(self) -> int:
        """The width given, else that of the stream's terminal now (it may have been resized),
        else $COLUMNS or 80."""
        if self.width:
            return self.width
        try:
            return os.get_terminal_size(self.stream.fileno()).columns
        except (AttributeError, OSError, ValueError):
            return shutil.get_terminal_size((80, 24)).columns

    def _fit(self, text: str) -> str:
        """The status cut to one terminal line (the last column left free: no wrap)."""
        room = max(10, self._columns() - 1)
        return text if len(text) <= room else text[:room - 1] + "…"

    def _write(self, text: str, final: bool) -> None:
        if self.terminal:
            text = "\r\x1b[K" + (text if final else self._fit(text))  # over the status line
        self.stream.write(text + ("\n" if final else ""))
        if final and self.terminal and self._drawn:
            self.stream.write(self._fit(self.status()))
        self.stream.flush()


def _clock(seconds: float) -> str:
    minutes, seconds = divmod(int(round(seconds)), 60)
    return f"{minutes // 60}:{minutes % 60:02d}:{seconds:02d}" if minutes >= 60 else \
        f"{minutes}:{seconds:02d}"
