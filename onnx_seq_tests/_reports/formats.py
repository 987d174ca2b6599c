"""The report formats: one row per report file that `gen-seq-tests verify` and `gen-seq-tests
report` can write. Both commands take their options from this table and write through it.

A row names the option (`--json FILE`), its help, whether it reads --notes, whether the command
line a report quotes names it, and its renderer, `module:function` in this package: a function
of one `RunReport` returning the file's bytes. Every format is written the same way: rendered
whole, then written atomically (`_core/outputs.write_output`: the old file whole on a failed
write, `cannot write PATH: why`, exit 1), in the order of the table.

Adding a format: a module in `_reports/` with `def render(run: RunReport) -> bytes`, and one row
in FORMATS. Nothing else: both commands show the option, check its path (an input, another
output, a missing folder) and write it.

Importing this module imports no onnx (the command line builds its options from it): the
renderer's module is imported when a report is written.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from .._run.verifier import Result
    from .notes import Note


@dataclass(frozen=True)
class RunReport:
    """What every format renders: the results of one run (or of merged runs), the backends in
    their order, the suite (a name, a description or a list of them, see
    writers.suite_descriptions), the command line a page quotes, the findings notes, `about`
    (per tensor-boundary case folder, the operators of its original) and what each backend
    runs (`described`; filled in by write_reports before any renderer runs)."""

    results: list[Result]
    specs: list[str]
    suite: Any
    command: str = ""
    notes: list[Note] = field(default_factory=list)
    about: dict[str, tuple[str, ...]] = field(default_factory=dict)
    described: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ReportFormat:
    """One report format: its option (`--json`), its name in messages (`JSON`), the option's
    help, its renderer (`module:function` of this package, RunReport -> bytes), whether it
    reads --notes, and whether the command line a report quotes names it."""

    option: str
    title: str
    help: str
    renderer: str
    notes: bool = False
    quoted: bool = False

    @property
    def dest(self) -> str:
        """The option's parameter name in a command: `--junit-xml` -> `junit_xml_path`."""
        return self.option.lstrip("-").replace("-", "_") + "_path"

    def render_function(self) -> Callable[[RunReport], bytes]:
        """The renderer, its module imported now."""
        module, _, function = self.renderer.partition(":")
        return getattr(importlib.import_module(f"{__package__}.{module}"), function)

    def render(self, run: RunReport) -> bytes:
        return self.render_function()(run)


#: Every report format, in the order the options are shown and the files written.
FORMATS: tuple[ReportFormat, ...] = (
    ReportFormat("--junit-xml", "JUnit XML",
                 "Write JUnit XML: one testcase per case and backend.",
                 "writers:junit_report"),
    ReportFormat("--json", "JSON",
                 "Write every result as JSON (what `gen-seq-tests report` and `xfail-update` "
                 "read).",
                 "writers:json_report"),
    ReportFormat("--markdown", "Markdown",
                 "Write the Markdown conformance report (operator x opset x element type per "
                 "backend, then the findings).",
                 "scoreboard:markdown_bytes", notes=True, quoted=True),
    ReportFormat("--html", "HTML",
                 "Write the HTML scoreboard: one self-contained page with a glance table, "
                 "filters and the findings.",
                 "html_report:html_bytes", notes=True, quoted=True),
)


def asked(paths: Mapping[ReportFormat, Path | None]) -> list[tuple[ReportFormat, Path]]:
    """The formats given a path, in the order of the table."""
    return [(form, path) for form in FORMATS if (path := paths.get(form)) is not None]


def notes_formats() -> list[ReportFormat]:
    """The formats that show the findings notes."""
    return [form for form in FORMATS if form.notes]


def write_reports(run: RunReport, paths: Mapping[ReportFormat, Path | None]) -> None:
    """Write each report whose path is given, in the order of the table (UTF-8, each rendered
    whole, then written atomically; a lone surrogate left in a name is written as its `\\udXXX`
    escape); WriteFailed (`cannot write PATH: why`, exit 1) naming the first that cannot be
    written, its old file whole."""
    wanted = asked(paths)
    if not wanted:
        return  # describing a backend imports its runtime: not for nothing
    from .._core.outputs import write_output
    from .tally import descriptions

    run = replace(run, described=descriptions(run.specs, run.described))
    for form, path in wanted:
        write_output(path, form.render(run))
