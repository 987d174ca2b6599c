"""What every `gen-seq-tests` command shares: the command group that turns the package's
errors and SIGINT/SIGTERM into one line and an exit status, the suite-root argument, printing
one line, `-j 0`, the exit status of a partial result, and how a report quotes the command."""

from __future__ import annotations

import os
from pathlib import Path
from typing import cast

import click

from .._core.errors import SeqTestsError, one_line
from .._core.interrupts import exit_status, signal_name, signals_interrupt


class Commands(click.Group):
    """The command group: the one place where a SeqTestsError raised by a command (or while
    its arguments are converted) is printed (its `lines()`, on stderr) and becomes the exit
    status (its `exit_code`), and where SIGINT and SIGTERM end a command: each raises
    KeyboardInterrupt (interrupts.py), so every cleanup on the way out runs, then the command
    exits with 130 or 143, one line, no traceback (never click's "Aborted!")."""

    def invoke(self, ctx: click.Context):
        with signals_interrupt() as received:
            try:
                return super().invoke(ctx)
            except SeqTestsError as error:
                for line in error.lines():
                    click.echo(line, err=True)
                ctx.exit(error.exit_code)
            except KeyboardInterrupt:  # cleaned up on the way here
                click.echo(f"error: interrupted by {signal_name(received)}", err=True)
                ctx.exit(exit_status(received))
            except SystemExit as done:  # verify says 130 itself after an interrupt
                if received and done.code == 130:
                    ctx.exit(exit_status(received))
                raise


class SuiteRoot(click.Path):
    """A built suite's root folder (a click.Path that is not a file, as a Path) holding case
    folders (test_*/model.onnx) at any depth; else NoCasesError naming it (one line, exit 2)."""

    def __init__(self):
        super().__init__(file_okay=False, path_type=Path)

    def convert(self, value, param, ctx) -> Path:
        from .._core.errors import NoCasesError
        from .._published.discovery import case_folders

        root = cast(Path, super().convert(value, param, ctx))  # path_type=Path
        if not root.is_dir() or not case_folders(root):  # a tree too deep: ReadError, exit 2
            raise NoCasesError(f"no case folders (test_*/model.onnx) under {root}; build the "
                               "suite first with `gen-seq-tests build`, or give its output root")
        return root


def job_count(jobs: int) -> int:
    """`-j 0`: one process per CPU."""
    return jobs or os.cpu_count() or 1


def say(text: str, err: bool = False) -> None:
    """Print one line; user text in it (paths, names) is escaped by `one_line`."""
    click.echo(one_line(text), err=err)


def left_out(skipped) -> None:
    """The one line of each folder a command left out (a discovery.Skipped: `skipped FOLDER:
    KIND: why`, on stderr), then exit 1 when there is one: a partial result never exits 0."""
    for item in skipped:
        say(item.line(), err=True)
    if skipped:
        click.get_current_context().exit(1)


def warn(message: str) -> None:
    say(f"warning: {message}", err=True)



def as_shown(path: Path) -> str:
    """A path as a report shows it: relative to the working folder, else its name."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix() or "."
    except ValueError:
        return path.resolve().name



def options(**paths) -> list[str]:
    """`--name path` for each path given, as a report quotes the command."""
    return [f"--{name} {as_shown(path)}" for name, path in paths.items() if path]
