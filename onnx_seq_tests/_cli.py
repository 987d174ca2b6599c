"""The `gen-seq-tests` command: parsing arguments and exit codes only.

Exit status: 0 success, 1 a check or verification failed, 2 bad usage or invalid case files.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from . import __version__
from ._core.problems import CaseFileError
from ._suite.codec import EMPTY_OPTIONAL_FORMS

DEFAULT_CASES = "cases"
DEFAULT_OUT = "generated"


def _fail_on_case_errors(error: CaseFileError) -> None:
    click.echo(error.report(), err=True)
    click.echo(f"{len(error.problems)} problem(s) found; nothing was written.", err=True)
    sys.exit(2)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="gen-seq-tests")
def main() -> None:
    """Build and check the ONNX sequence/optional conformance suite."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("-o", "--out", "out_root", default=DEFAULT_OUT, show_default=True,
              type=click.Path(file_okay=False, path_type=Path), help="Output root folder.")
@click.option("--empty-optional", type=click.Choice(EMPTY_OPTIONAL_FORMS), default="undefined",
              show_default=True,
              help="How an empty optional is encoded: 'undefined' (elem_type UNDEFINED, read by "
                   "numpy_helper.to_optional) or 'typed' (elem_type TENSOR/SEQUENCE, read by "
                   "onnxruntime's onnx_test_runner).")
@click.option("--check", is_flag=True,
              help="Write nothing; exit 1 naming every case whose files would change or are "
                   "missing, and every stale folder (no case builds it); exit 0 when the output "
                   "root is exactly what the cases give.")
@click.option("-j", "--jobs", default=1, show_default=True, type=click.IntRange(min=0),
              metavar="N", help="Build in N processes (0: one per CPU).")
def build(paths: tuple[Path, ...], out_root: Path, empty_optional: str, check: bool,
          jobs: int) -> None:
    """Compile case files (PATHS: files or folders, default: cases) into the backend-test layout.

    The output root receives manifest.json (every file with its sha256) and sequence_optional/.
    Only cases whose source changed are rebuilt. The new tree is staged beside the output root
    and swapped in, so an interrupted build leaves the old suite or the new one.
    """
    from ._suite import build as builder

    paths = paths or (Path(DEFAULT_CASES),)
    jobs = jobs or os.cpu_count() or 1
    try:
        if check:
            drift = builder.check(paths, out_root, empty_optional, jobs)
        else:
            report = builder.build(paths, out_root, empty_optional, jobs)
    except CaseFileError as error:
        _fail_on_case_errors(error)
    except builder.OutputError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(2)
    except OSError as error:
        click.echo(f"error: cannot write {out_root}: {error}; it still holds the suite it held "
                   "before", err=True)
        sys.exit(1)
    if check:
        for line in drift:
            click.echo(line)
        if drift:
            click.echo(f"{len(drift)} difference(s) between {out_root} and the cases; run "
                       "`gen-seq-tests build` to update it", err=True)
            sys.exit(1)
        click.echo(f"{out_root} is exactly what the cases give")
    elif report.changed:
        click.echo(f"built {report.cases} case(s) into {out_root}: {len(report.rebuilt)} "
                   f"rebuilt, {len(report.removed)} removed")
    else:
        click.echo(f"{out_root} is up to date: {report.cases} case(s)")


@main.command(name="list")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
def list_cases(paths: tuple[Path, ...]) -> None:
    """List cases: name, operators, opset, data sets."""
    from ._casefile.reader import load_cases

    try:
        cases = load_cases(paths or (Path(DEFAULT_CASES),))
    except CaseFileError as error:
        _fail_on_case_errors(error)
    for case in cases:
        click.echo(f"{case.name}\t{','.join(case.operators)}\topset {case.opset}\t"
                   f"{len(case.data_sets)} data set(s)")


@main.command()
@click.argument("suite_dir", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("-b", "--backend", "backends", multiple=True, required=True, metavar="SPEC",
              help="onnxruntime, reference (onnx's ReferenceEvaluator), openvino, tinygrad, tract, "
                   "or module:attr naming an "
                   "onnx backend on PYTHONPATH. Repeat for a side-by-side table.")
@click.option("-j", "--jobs", default=1, show_default=True, type=click.IntRange(min=1), metavar="N",
              help="Run cases in N worker processes.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS",
              help="Give each backend at most SECONDS per case; a backend that takes longer has "
                   "its process ended, and the case is its error.")
@click.option("--xfail", "xfail_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Known failures: per line a case name or regex (whole name), optionally "
                   "preceded by a backend spec; '#' starts a comment.")
@click.option("--junit-xml", "junit_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write JUnit XML: one testcase per case and backend.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write every result as JSON.")
@click.option("--report", "report_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the Markdown conformance table (operator x element type per backend).")
@click.option("--notes", "notes_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="YAML findings for --report: why a backend disagrees, with the ONNX sentence "
                   "that decides it.")
def verify(suite_dir: Path | None, backends: tuple[str, ...], jobs: int, timeout: float | None,
           xfail_path: Path | None, junit_path: Path | None, json_path: Path | None,
           report_path: Path | None, notes_path: Path | None) -> None:
    """Run every case under SUITE_DIR (default: generated) on each --backend and judge it.

    Exit status: 0 when nothing failed unexpectedly (an unexpected pass of a --xfail entry is
    reported, not failed), 1 when a case failed or a backend raised, 2 for bad usage.
    """
    from ._suite.layout import case_folders
    from ._verify import report
    from ._verify.backends import BackendSpecError, load_backend
    from ._verify.verifier import UNEXPECTED, XfailError, load_xfail
    from ._verify.verifier import verify as run_verify

    suite = suite_dir or Path(DEFAULT_OUT)
    repeated = sorted({b for b in backends if backends.count(b) > 1})
    if repeated:
        raise click.BadParameter(f"{', '.join(repeated)} given more than once",
                                 param_hint="--backend")
    for spec in backends:
        try:
            load_backend(spec)
        except BackendSpecError as error:
            raise click.BadParameter(str(error), param_hint="--backend") from None
    if not suite.is_dir():
        raise click.BadParameter(f"{suite} is not a folder; build the suite with "
                                 "`gen-seq-tests build` or name a suite folder",
                                 param_hint="SUITE_DIR")
    for option, path in (("--junit-xml", junit_path), ("--json", json_path),
                         ("--report", report_path)):
        if path and not path.absolute().parent.is_dir():
            raise click.BadParameter(f"the folder of {path} does not exist", param_hint=option)
    total = len(case_folders(suite))
    if not total:
        raise click.BadParameter(f"no case folders (test_*/model.onnx) under {suite}",
                                 param_hint="SUITE_DIR")
    try:
        xfail = load_xfail(xfail_path) if xfail_path else []
        notes = report.load_notes(notes_path) if notes_path else []
    except XfailError as error:
        click.echo(str(error), err=True)
        sys.exit(2)
    except CaseFileError as error:
        _fail_on_case_errors(error)
    specs = list(backends)
    if sys.stderr.isatty():
        with click.progressbar(length=total, label="verifying", file=sys.stderr) as bar:
            results = run_verify(suite, specs, xfail=xfail, jobs=jobs, timeout=timeout,
                                 on_case=lambda _: bar.update(1))
    else:
        results = run_verify(suite, specs, xfail=xfail, jobs=jobs, timeout=timeout)
    for entry in xfail:
        if not entry.used:
            click.echo(f"{entry.where}: warning: {entry.pattern.pattern!r} matched no case",
                       err=True)
    click.echo(report.text_report(results, specs), nl=False)
    if junit_path:
        report.write_junit(results, specs, junit_path)
    if json_path:
        report.write_json(results, specs, str(suite), json_path)
    if report_path:
        command = " ".join(["gen-seq-tests verify", str(suite),
                            *(f"--backend {s}" for s in specs),
                            *([f"--xfail {xfail_path}"] if xfail_path else []),
                            *([f"--notes {notes_path}"] if notes_path else []),
                            f"--report {report_path}"])
        report_path.write_text(report.markdown_report(results, specs, str(suite), command,
                                                      notes), encoding="utf-8")
        for note in notes:
            if not note.matched:
                click.echo(f"{note.where}: warning: this note matched no case that did not pass",
                           err=True)
    sys.exit(1 if any(r.outcome in UNEXPECTED for r in results) else 0)


@main.command()
@click.argument("root", required=False,
                type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("-o", "--output", "archive", type=click.Path(dir_okay=False, path_type=Path),
              help="Archive to write  [default: dist/onnx-seq-tests-suite-<version>.tar.gz]")
def pack(root: Path | None, archive: Path | None) -> None:
    """Write a reproducible .tar.gz of the suite at ROOT (default: generated).

    Entries are sorted under one top folder, with one fixed mtime, uid/gid 0 and a gzip header
    without a time, so the same suite gives the same sha256 wherever it is packed. ROOT must
    match its manifest.json; exit 1 when it does not.
    """
    from ._suite.pack import PackError, default_archive
    from ._suite.pack import pack as write_archive

    root = root or Path(DEFAULT_OUT)
    archive = archive or default_archive()
    try:
        digest, count = write_archive(root, archive)
    except PackError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(1)
    click.echo(f"wrote {archive}: {count} files, sha256 {digest}")


@main.command()
@click.argument("root", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--markdown", "markdown_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the report to this Markdown file (the committed one is "
                   "docs/coverage.md) instead of printing it.")
def coverage(root: Path | None, markdown_path: Path | None) -> None:
    """Report what the suite at ROOT (default: generated) covers: per operator and version, the
    allowed types (from onnx.defs) and the edge cases, beside onnx's own node cases."""
    from ._suite import coverage as measure
    from ._suite.layout import case_folders

    root = root or Path(DEFAULT_OUT)
    if not root.is_dir() or not case_folders(root):
        click.echo(f"error: no case folders (test_*/model.onnx) under {root}; build the suite "
                   "first with `gen-seq-tests build`, or give its output root", err=True)
        sys.exit(2)
    ours = measure.summarize(measure.suite_coverage(root))
    theirs = measure.summarize(measure.onnx_coverage())
    text = measure.report(ours, theirs, root.as_posix(), measure.tensor_io_form(root))
    if markdown_path is None:
        click.echo(text, nl=False)
        return
    markdown_path.parent.mkdir(parents=True, exist_ok=True)
    markdown_path.write_text(text, encoding="utf-8")
    click.echo(f"wrote {markdown_path}: {ours.total_covered} of {ours.total} combinations "
               f"covered by {ours.cases} case(s); onnx's node cases cover "
               f"{theirs.total_covered}")


if __name__ == "__main__":  # pragma: no cover
    main()
