"""The reports of a verify run, one module per job, re-exported here for callers of the
former single module:

- tally.py: outcomes in their order, messages made safe (`cap`), counts, forms, the operators a
  case is about, messages grouped;
- text_report.py: what verify prints (default, --summary, --quiet) and the progress line;
- writers.py: JSON and JUnit XML;
- scoreboard.py: the Markdown conformance report;
- html_report.py: the one-file HTML scoreboard;
- notes.py: the findings notes (docs/conformance-notes.yaml);
- merge.py: JSON reports merged (`gen-seq-tests report`) and recorded verdicts.
"""

from __future__ import annotations

from .._core.outputs import write_output
from .._run.verifier import UNEXPECTED, Result
from .html_report import html_report
from .merge import Merged, merge_reports, record_verdicts, recorded_results
from .notes import Note, attach_notes, load_notes
from .scoreboard import (
    forms_table,
    grouped_messages,
    markdown_report,
    md_text,
    scoreboard_table,
    suite_text,
)
from .tally import cap, counts, descriptions, form_of, load_about, message_key, rollup
from .text_report import Progress, quiet_text, result_line, summary_text, text_report
from .writers import json_bytes, json_document, junit_bytes, write_json, write_junit, xml_text

__all__ = ["Merged", "Note", "Progress", "Result",
           "attach_notes",
           "cap", "counts", "descriptions", "form_of", "forms_table", "grouped_messages",
           "html_report",
           "json_document", "load_about", "load_notes", "markdown_report", "md_text",
           "printed", "progress_shown", "write_reports",
           "merge_reports", "message_key", "quiet_text", "record_verdicts", "recorded_results",
           "result_line", "rollup", "scoreboard_table", "suite_text", "summary_text",
           "text_report", "write_json", "write_junit", "xml_text"]


def printed(style: str | None, results: list[Result], specs: list[str], about=None) -> str:
    """What verify and report print: `summary`, `quiet` or (None) the default text."""
    if style == "summary":
        return summary_text(results, specs, about)
    if style == "quiet":
        return quiet_text(results, specs)
    return text_report(results, specs, about)


def progress_shown(style: str | None) -> tuple[str, ...]:
    """The outcomes the progress line reports as they happen: with --summary only wrong
    values, crashes and hangs (the summary groups the rest), else every unexpected one."""
    return ("fail", "crash", "timeout") if style == "summary" else UNEXPECTED


def write_reports(results: list[Result], specs: list[str], suite, command: str, notes, about,
                  **paths) -> None:
    """Write each report whose path is given (UTF-8, each rendered whole, then written
    atomically; a lone surrogate left in a name is written as its `\\udXXX` escape);
    WriteFailed (`cannot write PATH: why`, exit 1) naming the first that cannot be
    written, its old file whole. `paths`: junit_path, json_path, markdown_path, html_path, and
    `described`, the backends' descriptions."""
    _write_each(results, specs, suite, command, notes, about, **paths)


def _write_each(results: list[Result], specs: list[str], suite, command: str, notes, about,
                *, junit_path=None, json_path=None, markdown_path=None, html_path=None,
                described: dict[str, str] | None = None) -> None:
    if not (junit_path or json_path or markdown_path or html_path):
        return  # describing a backend imports its runtime: not for nothing
    described = descriptions(specs, described)
    if junit_path:
        write_output(junit_path, junit_bytes(results, specs))
    if json_path:
        write_output(json_path, json_bytes(results, specs, suite, about, described))
    if markdown_path:
        write_output(markdown_path, markdown_report(
            results, specs, suite, command, notes, about, described).encode(
                "utf-8", "backslashreplace"))
    if html_path:
        write_output(html_path, html_report(
            results, specs, suite, command, notes, about, described).encode(
                "utf-8", "backslashreplace"))
