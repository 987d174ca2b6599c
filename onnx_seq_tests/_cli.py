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
              help="onnxruntime, reference (onnx's ReferenceEvaluator), or module:attr naming an "
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
    from ._verify import mutation

    ours = measure.summarize(measure.suite_coverage(root))
    theirs = measure.summarize(measure.onnx_coverage())
    text = measure.report(ours, theirs, root.as_posix()) + "\n" + mutation.markdown(
        *_mutation_scores(root))
    if markdown_path is None:
        click.echo(text, nl=False)
        return
    markdown_path.parent.mkdir(parents=True, exist_ok=True)
    markdown_path.write_text(text, encoding="utf-8")
    click.echo(f"wrote {markdown_path}: {ours.total_covered} of {ours.total} combinations "
               f"covered by {ours.cases} case(s); onnx's node cases cover "
               f"{theirs.total_covered}")


@main.command()
@click.argument("cases", nargs=-1, required=True, metavar="CASE...")
@click.option("--full", is_flag=True,
              help="Print every value of long arrays (numpy summarises more than 1000 with ...).")
@click.option("--cases", "cases_paths", multiple=True, default=(DEFAULT_CASES,),
              show_default=True, type=click.Path(path_type=Path), metavar="PATH",
              help="Case files or folders where case names are looked up.")
@click.option("--suite", "suite_root", default=DEFAULT_OUT, show_default=True,
              type=click.Path(path_type=Path),
              help="Built suite whose manifest.json says which case file holds a name.")
def show(cases: tuple[str, ...], full: bool, cases_paths: tuple[Path, ...],
         suite_root: Path) -> None:
    """Print cases as text: nodes, attributes, subgraphs, and every data set's inputs and
    expected outputs as numpy prints them.

    CASE is a case name from the case files (plain or expanded, with or without test_), a case
    folder (test_<name>/ with model.onnx) of any suite in the standard layout, a folder of such
    folders, or a case file. A case from case files shows its file:line.
    """
    from ._read.load import ReadError, resolve
    from ._read.show import render

    try:
        shown = resolve(cases, cases_paths, suite_root)
        texts = [render(s, full=full) for s in shown]
    except ReadError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(2)
    click.echo("\n".join(texts), nl=False)


@main.command()
@click.argument("root", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("-o", "--output", "out_dir", default="docs/operators", show_default=True,
              type=click.Path(file_okay=False, path_type=Path),
              help="Folder for the pages (one per operator, and README.md, the index).")
@click.option("--check", is_flag=True,
              help="Write nothing; exit 1 naming every page that differs from what the suite "
                   "gives.")
def docs(root: Path | None, out_dir: Path, check: bool) -> None:
    """Write one Markdown page per sequence/optional operator (schema from onnx.defs, then every
    case of the suite at ROOT (default: generated) that uses it, as `show` prints it) and an
    index with the cases and coverage per operator version."""
    from ._read.load import ReadError
    from ._read.operator_pages import stale_pages, write_pages
    from ._suite.layout import case_folders

    root = root or Path(DEFAULT_OUT)
    if not root.is_dir() or not case_folders(root):
        click.echo(f"error: no case folders (test_*/model.onnx) under {root}; build the suite "
                   "first with `gen-seq-tests build`, or give its output root", err=True)
        sys.exit(2)
    try:
        if check:
            stale = stale_pages(root, out_dir)
        else:
            files = write_pages(root, out_dir)
    except ReadError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(2)
    if check:
        for name in stale:
            click.echo(f"stale: {out_dir / name}")
        if stale:
            click.echo(f"{len(stale)} page(s) differ from the suite; run `make docs`", err=True)
            sys.exit(1)
        click.echo(f"{out_dir} is what the suite at {root} gives")
        return
    click.echo(f"wrote {len(files)} page(s) into {out_dir}")


@main.command(name="import")
@click.argument("suite_dirs", nargs=-1, required=True, metavar="SUITE_DIR...",
                type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("-o", "--output", "out_file", required=True,
              type=click.Path(dir_okay=False, path_type=Path),
              help="Case file to write (YAML), e.g. cases/imported.yaml.")
@click.option("--prefix", default="", help="Put this before every imported case name.")
@click.option("--no-check", is_flag=True,
              help="Do not compile the imported cases (by default each is built in memory, and "
                   "one the builder refuses is left out and reported).")
def import_(suite_dirs: tuple[Path, ...], out_file: Path, prefix: str, no_check: bool) -> None:
    """Turn the case folders under SUITE_DIR (any suite in the standard layout, or single case
    folders) into a case file: nodes keyed by the schema's formal names, values as case files
    write them, the tolerance from data.json, a comment naming each case's folder.

    A case the format cannot express is left out and reported with the reason (one line per
    case on stderr). Exit 0 when the file is written, 2 for bad input.
    """
    from ._read.importer import import_folders, refused_by_builder, to_yaml
    from ._read.load import ReadError

    if not out_file.absolute().parent.is_dir():
        raise click.BadParameter(f"the folder of {out_file} does not exist", param_hint="-o")
    try:
        imported = import_folders(suite_dirs, prefix)
    except ReadError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(2)
    if not no_check:
        imported = refused_by_builder(imported)
    for folder, reason in imported.skipped:
        click.echo(f"not imported: {folder}: {reason}", err=True)
    header = ("# Imported by `gen-seq-tests import` from " + ", ".join(
        p.as_posix() for p in suite_dirs) + ".\n")
    out_file.write_text(to_yaml(imported, header), encoding="utf-8")
    click.echo(f"wrote {len(imported.cases)} case(s) to {out_file}; "
               f"{len(imported.skipped)} not expressible (listed above)")


def _mutation_scores(root: Path):
    from ._verify import mutation

    every = mutation.mutants()
    return (mutation.score(mutation.suite_subjects(root), every, "this suite"),
            mutation.score(mutation.onnx_subjects(), every, "onnx's node cases"))


@main.command("mutation")
@click.argument("root", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--markdown", "markdown_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the table to this Markdown file instead of printing it.")
def mutation_score(root: Path | None, markdown_path: Path | None) -> None:
    """Print the mutation score of the suite at ROOT (default: generated) beside that of onnx's
    own sequence/optional node cases: the share of the mutant backends (the spec oracle with
    one plausible runtime bug each) that some case catches. Exit 1 when a mutant survives the
    suite at ROOT."""
    from ._suite.layout import case_folders
    from ._verify import mutation

    root = root or Path(DEFAULT_OUT)
    if not root.is_dir() or not case_folders(root):
        click.echo(f"error: no case folders (test_*/model.onnx) under {root}; build the suite "
                   "first with `gen-seq-tests build`, or give its output root", err=True)
        sys.exit(2)
    ours, theirs = _mutation_scores(root)
    text = mutation.markdown(ours, theirs)
    if markdown_path is None:
        click.echo(text, nl=False)
    else:
        markdown_path.parent.mkdir(parents=True, exist_ok=True)
        markdown_path.write_text(text, encoding="utf-8")
        for result in (ours, theirs):
            click.echo(f"{result.label}: {len(result.killed)} of {result.total} mutants killed "
                       f"({result.percent:.0f}%) by {result.cases} case(s)")
    if ours.survivors:
        click.echo("surviving mutants: " + ", ".join(ours.survivors), err=True)
        sys.exit(1)


if __name__ == "__main__":  # pragma: no cover
    main()
