"""One `verify` run as the command line makes it: what to run (the cases, the known failures,
the notes, the warnings about them), then the run with its progress line, what it prints and
the reports it writes, and the exit status."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import click

from .._core.errors import NoCasesError, SeqTestsError
from .._published.discovery import CaseRef, find_cases, select_cases, suite_info
from .._reports.formats import RunReport, write_reports
from .._reports.notes import Note, load_notes
from .._reports.tally import about_of
from .._reports.text_report import Progress, printed, progress_shown
from .._run import inference, transformed
from .._run.verifier import (
    UNEXPECTED,
    Arguments,
    XfailEntry,
    apply_xfail,
    check_arguments,
    check_xfail,
    load_xfail,
)
from .._run.verifier import run as run_cases
from .reporting import Outputs

#: The option of each argument of verify, for the messages of the one check (checked).
_OPTIONS = {"specs": "--backend", "jobs": "--jobs", "timeout": "--timeout", "select": "-k",
            "transforms": "--transform"}


def checked(backends: tuple[str, ...], jobs: int, timeout: float | None,
            select: tuple[str, ...], transforms: tuple[str, ...] = ()) -> Arguments:
    """The options checked by verifier.check_arguments, the check the API makes (once per
    run: nothing checks them again); a bad one is a click.BadParameter naming its option."""

    def refuse(argument: str, text: str, error: Exception | None) -> Exception:
        return click.BadParameter(text, param_hint=_OPTIONS[argument])

    return check_arguments(list(backends), jobs, timeout, select, refuse=refuse,
                           transforms=transforms)


@dataclass
class Plan:
    """What one `verify` runs: every case of the suites (`everything`), those selected
    (`cases`), the --xfail entries, the notes, and the warnings about the entries."""

    everything: list[CaseRef]
    cases: list[CaseRef]
    xfail: list[XfailEntry]
    notes: list[Note]
    warnings: list[str]


def plan(suites: list[Path], arguments: Arguments, xfail_paths: list[Path],
         notes_path: Path | None) -> Plan:
    """The cases under `suites` (those a regex of `arguments.select` finds), the entries of
    every --xfail file and the notes read. click.BadParameter for a suite without cases or no
    case selected, XfailError or NotesError for a bad file."""
    try:
        everything = find_cases(suites)
    except NoCasesError as error:
        raise click.BadParameter(str(error), param_hint="SUITE_DIR") from None
    cases = select_cases(everything, arguments.select)
    xfail = [entry for path in xfail_paths for entry in load_xfail(path)]
    notes = load_notes(notes_path) if notes_path else []
    if not cases:
        raise click.BadParameter(f"no case under {', '.join(map(str, suites))} matches "
                                 + " or ".join(p.pattern for p in arguments.select),
                                 param_hint="-k")
    return Plan(everything, cases, xfail, notes, [])


def check_entries(plan: Plan, specs: list[str], strict: bool) -> None:
    """Collect in `plan.warnings` every --xfail entry that matches no case or names a backend
    not run; with `strict`, raise them instead as one SeqTestsError (exit 2)."""
    plan.warnings = check_xfail(plan.xfail, specs, plan.everything)
    if plan.warnings and strict:
        raise SeqTestsError("\n".join(plan.warnings).replace(": warning: ", ": "))


def subjects(arguments: Arguments, inferrers: tuple[str, ...]) -> list[str]:
    """What a run judges, as its results name them: each backend, the --transform chain on it
    (`T>B`), then the `--inference` subjects."""
    return [*arguments.subjects, *(inference.subject_of(i) for i in inferrers)]


def run(plan: Plan, arguments: Arguments, suites: list[Path], names: list[str], *,
        style: str | None, progress: bool | None, command: str, outputs: Outputs,
        echo: Callable[[str], None], warn: Callable[[str], None],
        inferrers: tuple[str, ...] = ()) -> int:
    """Run `plan` on the backends of `arguments` (checked), with a progress line on stderr
    (`progress`; None: on a terminal only), `echo` what `style` prints, write the reports of
    `outputs` (each format of the table, with its path or None) quoting `command`, `warn` each
    warning, and return the exit status: 1 when an outcome is unexpected, else 0; 130 after
    Ctrl-C (the workers ended, no report written). `names` are the suites as reports show
    them. Each of `inferrers` judges type inference on the cases, in this process, after the
    backends: its results are the subject `<inferrer>-inference` (inference.run_inference)."""
    specs = subjects(arguments, inferrers)
    shown = sys.stderr.isatty() if progress is None else progress
    bar = Progress(len(plan.cases), sys.stderr, sys.stderr.isatty(),
                   shown=progress_shown(style)) if shown else None
    try:
        try:
            results = run_cases(arguments, plan.cases, xfail=plan.xfail,
                                on_case=bar.update if bar else None)
        finally:
            if bar:
                bar.close()
        results += [apply_xfail(r, plan.xfail)
                    for r in inference.run_inference(plan.cases, inferrers)]
    except KeyboardInterrupt:  # Ctrl-C: the workers and their process groups are ended by now
        warn("verify: interrupted; no report written")
        return 130
    about = about_of(plan.cases)
    echo(printed(style, results, specs, about))
    infos = [{**suite_info(s), "name": name} for s, name in zip(suites, names, strict=True)]
    described = {inference.subject_of(i): inference.described(i) for i in inferrers}
    described.update({s: transformed.described(s) for s in arguments.subjects
                      if transformed.is_transformed(s)})
    write_reports(RunReport(results, specs, infos, command, plan.notes, about,
                            described=described), outputs)
    warnings = list(plan.warnings)
    for note in plan.notes:
        if not note.matched:
            warnings.append(f"{note.where}: warning: this note matched no case that did not "
                            "pass")
    for line in warnings:
        warn(line)
    return 1 if any(r.outcome in UNEXPECTED for r in results) else 0
