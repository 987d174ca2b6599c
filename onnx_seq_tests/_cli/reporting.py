"""The report options of `verify` and `report`, one per row of the table of formats
(`_reports/formats.FORMATS`): each command shows them, checks their paths and quotes them the
same way, so a format added to the table is an option of both."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import click

from .._core.outputs import check_outputs
from .._reports import formats
from .._reports.formats import ReportFormat, asked
from .conventions import as_shown

#: The report files a command was asked to write: each format, with its path or None.
Outputs = dict[ReportFormat, Path | None]


def report_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate a command with one option per report format (`--json FILE`, ...), in the order
    of the table; the command gets them as one argument, `outputs` (an Outputs)."""

    @functools.wraps(command)
    def with_outputs(*args: Any, **kwargs: Any) -> Any:
        outputs = {form: kwargs.pop(form.dest) for form in table}
        return command(*args, outputs=outputs, **kwargs)

    table = formats.FORMATS  # the table as it is when the command is made
    for form in reversed(table):
        with_outputs = click.option(form.option, form.dest, help=form.help,
                                    type=click.Path(dir_okay=False, path_type=Path))(with_outputs)
    return with_outputs


def check_report_paths(outputs: Outputs, inputs: Iterable[Path | None]) -> None:
    """Refuse (exit 2, nothing written) a report path whose folder does not exist, that is an
    input, inside a folder read, or another report's (check_outputs)."""
    for form, path in asked(outputs):
        if not path.absolute().parent.is_dir():
            raise click.BadParameter(f"the folder of {path} does not exist",
                                     param_hint=form.option)
    check_outputs({form.option: path for form, path in outputs.items()}, list(inputs))


def quoted(outputs: Outputs) -> list[str]:
    """`--markdown path` for each report given that a report's quoted command line names."""
    return [f"{form.option} {as_shown(path)}" for form, path in asked(outputs) if form.quoted]
