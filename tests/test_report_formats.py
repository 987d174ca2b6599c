"""The table of report formats (`_reports/formats.py`): `verify` and `report` take their report
options from it and write through it, so adding a format is one module and one row."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from onnx_seq_tests._cli import main
from onnx_seq_tests._cli.reporting import Outputs, check_report_paths, report_options
from onnx_seq_tests._reports import formats
from onnx_seq_tests._reports.formats import FORMATS, ReportFormat, RunReport, write_reports
from onnx_seq_tests._reports.writers import json_bytes, write_json
from onnx_seq_tests._run.verifier import Result

COMMANDS = ("verify", "report")
RESULTS = [Result("s/test_a", "test_a", "rt", "pass", "", ("SequenceEmpty",), "float", 0.1, 17),
           Result("s/test_b", "test_b", "rt", "fail", "wrong", ("SequenceAt",), "float", 0.2,
                  17)]
SUITE = {"name": "s", "version": None, "manifest_sha256": None}


def written_options(command: click.Command) -> set[str]:
    """The options of `command` naming a file it writes: a path that need not exist and is
    not a folder (the inputs, --notes and the suites, must exist or be folders)."""
    return {name for param in command.params
            if isinstance(param, click.Option) and isinstance(param.type, click.Path)
            and not param.type.exists and not param.type.dir_okay for name in param.opts}


@pytest.mark.parametrize("name", COMMANDS)
def test_every_format_is_an_option_of_both_commands_and_no_report_is_outside_the_table(name):
    command = main.commands[name]
    options = {option: param for param in command.params for option in param.opts}
    for form in FORMATS:
        assert options[form.option].help == form.help
    assert written_options(command) == {form.option for form in FORMATS}


def test_the_option_check_sees_a_report_option_outside_the_table():
    probe = click.Command("probe", params=[
        *main.commands["report"].params,
        click.Option(["--csv"], type=click.Path(dir_okay=False, path_type=Path))])
    assert written_options(probe) - {form.option for form in FORMATS} == {"--csv"}


def test_every_renderer_is_a_function_of_its_module():
    for form in FORMATS:
        assert callable(form.render_function()), form.renderer


def test_report_writes_every_format_of_the_table(tmp_path):
    """`report` writes what `verify` writes, through the same rows: each file is the row's
    rendering of the merged run; the merged JSON holds the results it read."""
    write_json(RESULTS, ["rt"], SUITE, tmp_path / "in.json", described={"rt": "rt 1.0"})
    args = ["report", str(tmp_path / "in.json")]
    for form in FORMATS:
        args += [form.option, str(tmp_path / form.dest)]
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 0, done.output
    command = ("gen-seq-tests report in.json --markdown markdown_path "  # paths outside the
               "--html html_path")                                    # working folder: names
    run = RunReport(RESULTS, ["rt"], [SUITE], command, [], {}, {"rt": "rt 1.0"})
    for form in FORMATS:
        assert (tmp_path / form.dest).read_bytes() == form.render(run), form.option
    merged = json.loads((tmp_path / "json_path").read_text(encoding="utf-8"))
    assert merged["results"] == json.loads((tmp_path / "in.json").read_text())["results"]


def test_a_row_added_to_the_table_is_an_option_and_is_written(tmp_path, monkeypatch):
    """Adding a format is one row: a command made with the table's options offers it, checks
    its path, and write_reports writes it through its renderer, after the others."""
    row = ReportFormat("--json-copy", "JSON copy", "Write the JSON report again.",
                       "writers:json_report")
    monkeypatch.setattr(formats, "FORMATS", (*FORMATS, row))

    @click.command()
    @report_options
    def probe(outputs: Outputs) -> None:
        check_report_paths(outputs, [])
        write_reports(RunReport(RESULTS, ["rt"], SUITE, "", [], {}, {"rt": "rt 1.0"}), outputs)

    assert "--json-copy" in CliRunner().invoke(probe, ["--help"]).output
    done = CliRunner().invoke(probe, ["--json-copy", str(tmp_path / "copy.json")])
    assert done.exit_code == 0, done.output
    assert (tmp_path / "copy.json").read_bytes() == json_bytes(RESULTS, ["rt"], SUITE, {},
                                                              {"rt": "rt 1.0"})
    missing = CliRunner().invoke(probe, ["--json-copy", str(tmp_path / "no" / "copy.json")])
    assert missing.exit_code == 2 and "--json-copy" in missing.output
