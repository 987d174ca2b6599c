"""The commands about the built-in runtimes and a checkout's derived files: `runtimes` (the list
the Makefile, CI and the docs read) and `refresh` (what `make refresh` runs)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from .._runtimes.records import records
from .._runtimes.specs import REGISTRY
from .conventions import job_count, say


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--json", "as_json", is_flag=True,
              help="Print the names as one JSON list (a CI matrix reads it).")
@click.option("--names", "names_only", is_flag=True,
              help="Print the names only, one a line (the Makefile reads them).")
@click.option("--all", "with_builtin", is_flag=True,
              help="List onnxruntime and reference first, beside the third-party runtimes.")
@click.option("--transforms", "transforms_only", is_flag=True,
              help="List the built-in transforms (`verify --transform`) instead, in the "
                   "scoreboard's order (the Makefile and the scoreboard's CI read them).")
def runtimes(as_json: bool, names_only: bool, with_builtin: bool,
             transforms_only: bool) -> None:
    """List the built-in third-party runtimes `verify --backend` runs by name.

    Each is one module of onnx_seq_tests/_runtimes/ with its RUNTIME record (name, pip extra
    and its pinned packages, what runs); by default one line each: name, what runs, how to
    install it. Reads the records only: no runtime, and no onnx, is imported. Exit status 0."""
    found = records()
    listed = [*(REGISTRY if with_builtin else ()), *(r.name for r in found)]
    if transforms_only:
        from .._transforms import TRANSFORMS  # onnx: only for this list

        listed = list(TRANSFORMS)
        if not (as_json or names_only):
            width = max(map(len, listed))
            for transform in TRANSFORMS.values():
                say(f"{transform.name:<{width}}  {' '.join(transform.summary.split())}")
            return
    if as_json:
        click.echo(json.dumps(listed))
        return
    if names_only:
        for name in listed:
            click.echo(name)
        return
    width = max(map(len, listed), default=0)
    if with_builtin:
        for name in REGISTRY:
            say(f"{name:<{width}}  built in: {REGISTRY[name]}")
    for record in found:
        say(f"{record.name:<{width}}  {record.summary}; {record.install}")


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-j", "--jobs", default=2, show_default=True, type=click.IntRange(min=0),
              metavar="N", help="Run cases in N worker processes (0: one per CPU).")
@click.option("--recorded", is_flag=True,
              help="Record the verdicts of the JSON reports of a full run (`make "
                   "conformance`: the backends', one per transform), mark every case recorded "
                   "and render the scoreboard and the tables from them; nothing is run.")
@click.option("--root", default=Path("."), show_default=True,
              type=click.Path(file_okay=False, path_type=Path), help="The checkout.")
@click.argument("reports", nargs=-1, metavar="[JSON]...",
                type=click.Path(dir_okay=False, path_type=Path))
def refresh(jobs: int, recorded: bool, root: Path, reports: tuple[Path, ...]) -> None:
    """Bring a checkout's derived conformance files up to date after cases changed.

    The third-party runtimes (`gen-seq-tests runtimes`) and the built-in transforms on
    onnxruntime (`T>onnxruntime`) re-run only on the case folders of generated/ that are new or
    changed since their verdicts were recorded (docs/conformance-runtimes.json and .sha256);
    onnxruntime, the reference evaluator and type inference run on the whole suite;
    docs/conformance.md, docs/conformance.html and the README's table of runtimes are
    rewritten from both, and docs/runtimes.md's table from the runtimes' records.

    `--recorded JSON...` (what `make conformance` ends with): every verdict is taken from the
    reports of a full run instead, nothing is run.

    Exit status: 0 when the files are written, 2 with one line when a runtime cannot be
    loaded or a file is not what it should be, 130 when interrupted."""
    from .._reports.refresh import mark_recorded
    from .._reports.refresh import refresh as refresh_checkout

    if recorded != bool(reports):
        raise click.UsageError("--recorded takes the JSON reports of a full run, and JSON "
                               "reports are only for --recorded")
    if recorded:
        mark_recorded(root, list(reports), say=say)
    else:
        refresh_checkout(root, job_count(jobs), say=say)
