"""The `gen-seq-tests` command: parsing arguments, printing, and exit codes only.

Conventions of every command: `-o/--output` names what a command writes, `-j N` runs N
processes (0: one per CPU), `--markdown FILE` writes a Markdown report. Exit status: 0 success,
1 a check or verification failed, 2 bad usage or invalid input (case files, a folder that holds
no suite, an onnx that is not the pinned one where that matters). A command raises the
package's errors (`SeqTestsError`, which carries its `exit_code`: 2 bad input, 1 a failed
check); the command group prints each once, as `error: ...` on one line (case-file problems:
one line each, then the count), and exits with its code. Importing this module imports no
onnx: `--help`, `--version` and a no-op `build` never load it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .._core.errors import CheckFailed, one_line
from .._core.outputs import check_outputs, write_output
from .._fuzz.command import SECONDS, fuzz
from .._reports.formats import notes_formats
from .._runtimes.records import names as runtime_names
from .._suite.manifest import EMPTY_OPTIONAL_FORMS
from .checkout import refresh, runtimes
from .conventions import (
    Commands,
    SuiteRoot,
    as_shown,
    job_count,
    left_out,
    options,
    say,
    warn,
)
from .reporting import Outputs, check_report_paths, quoted, report_options

DEFAULT_CASES = "cases"
DEFAULT_OUT = "generated"


def _print_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    """--version: the package's version, read from its installed metadata only when asked."""
    if not value or ctx.resilient_parsing:
        return
    from .._core.versions import package_version

    click.echo(f"gen-seq-tests, version {package_version()}")
    ctx.exit()


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True,
              callback=_print_version, help="Show the version and exit.")
def main() -> None:
    """Build and check the ONNX sequence/optional conformance suite."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("-o", "--output", "out_root", default=DEFAULT_OUT, show_default=True,
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
@click.option("--adopt-onnx", is_flag=True,
              help="Rebuild an output root built with another onnx version although the "
                   "installed onnx is not the pinned one (trying an onnx release before "
                   "pinning it); without it such a build is refused (exit 2).")
def build(paths: tuple[Path, ...], out_root: Path, empty_optional: str, check: bool,
          jobs: int, adopt_onnx: bool) -> None:
    """Compile case files (PATHS: files or folders, default: cases) into the backend-test layout.

    The output root receives manifest.json (every file with its sha256) and sequence_optional/.
    Only cases whose source changed are rebuilt; when nothing changed, that is known from the
    file hashes and the manifest without loading onnx. The new tree is staged beside the output
    root and swapped in, so an interrupted build leaves the old suite or the new one.
    """
    from .._published.resources import cases_to_build
    from .._suite.build_command import build_or_check

    build_or_check(cases_to_build(paths, out_root, check), out_root, empty_optional,
                   check=check, jobs=job_count(jobs), adopt_onnx=adopt_onnx, say=say, warn=warn)


@main.command(name="list")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
def list_cases(paths: tuple[Path, ...]) -> None:
    """List cases: name, operators, opset, data sets.

    A case file with a mistake is left out, in one line (`skipped FILE: KIND: its first
    problem`). Exit status: 0 all listed, 1 a file left out, 2 no case file or a repeated name."""
    from .._read.load import case_file_each

    read = case_file_each(paths or (Path(DEFAULT_CASES),))  # CaseFileError: exit 2
    for case in sorted((c for cases in read.values for c in cases), key=lambda c: c.name):
        click.echo(f"{case.name}\t{','.join(case.operators)}\topset {case.opset}\t"
                   f"{len(case.data_sets)} data set(s)")
    left_out(read.skipped)


@main.command()
@click.argument("suite_dirs", nargs=-1, metavar="[SUITE_DIR]...",
                type=click.Path(file_okay=False, path_type=Path))
@click.option("-b", "--backend", "backends", multiple=True, required=True, metavar="SPEC",
              help="onnxruntime, reference (onnx's ReferenceEvaluator), "
                   f"{', '.join(runtime_names())} (`gen-seq-tests runtimes`), or `module`, "
                   "`module:attr`, `package.module:attr` naming an onnx backend on PYTHONPATH. "
                   "Repeat for a side-by-side table.")
@click.option("-k", "select", multiple=True, metavar="REGEX",
              help="Run only the cases whose name or path this regex finds (repeat: any).")
@click.option("-j", "--jobs", default=1, show_default=True, type=click.IntRange(min=0),
              metavar="N", help="Run cases in N worker processes (0: one per CPU).")
@click.option("--timeout", type=SECONDS, metavar="SECONDS",
              help="Give each backend at most SECONDS per case, counting for the first backend "
                   "of a case the reading of its folder (model.onnx and the .pb files), then "
                   "prepare and every data set; a backend that takes longer has its worker's "
                   "process group ended, and the case is its `timeout`.")
@click.option("--xfail", "xfail_paths", metavar="FILE|NAME", multiple=True,
              help="Known failures: per line `[BACKEND] PATTERN`, a case name (with or without "
                   "test_) or a regex matching the whole name; '#' starts a comment. A NAME "
                   "(onnxruntime, or a subject such as 'onnxsim>onnxruntime') picks its file "
                   "in xfail/ of the checkout, else of the installed package. Repeat: the "
                   "entries of every file count.")
@click.option("--strict-xfail", is_flag=True,
              help="An --xfail entry that matches no case or names a backend not being run is "
                   "an error (exit 2) instead of a warning.")
@click.option("--inference", "inferrers", multiple=True, metavar="NAME",
              type=click.Choice(["onnx", "onnxruntime"]),
              help="Also judge type inference on each case (NAME: onnx or onnxruntime): what "
                   "onnx's shape inference or an onnxruntime session says the outputs are, "
                   "from scratch, against the declared types and the expected values; reported "
                   "as the subject `NAME-inference` beside the backends (docs/verifying.md).")
@click.option("--transform", "transforms", multiple=True, metavar="SPEC",
              help="Also judge a transform on each backend B: a built-in name (onnxsim, "
                   "onnxoptimizer, ...: docs/verifying.md lists them) or `module:function` "
                   "(ModelProto -> ModelProto) on PYTHONPATH; repeat for one chain, run in the "
                   "order given. "
                   "Reported as the subject `T>B` (`T>T2>B`), judged only where B passes the "
                   "case untransformed.")
@report_options
@click.option("--notes", "notes_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="YAML findings for --markdown and --html: why a backend disagrees, with the "
                   "ONNX sentence that decides it.")
@click.option("--summary", "style", flag_value="summary",
              help="Print one screen: totals, the roll-up per operator, the failures, then "
                   "errors and refusals grouped by message.")
@click.option("--quiet", "style", flag_value="quiet",
              help="Print only the results that went wrong (or passed unexpectedly) and the "
                   "totals: for CI logs.")
@click.option("--progress/--no-progress", default=None,
              help="Show n/N, counts so far, time left and each failure as it happens on "
                   "stderr  [default: on a terminal only]")
def verify(suite_dirs: tuple[Path, ...], backends: tuple[str, ...], select: tuple[str, ...],
           jobs: int, timeout: float | None, xfail_paths: tuple[str, ...], strict_xfail: bool,
           inferrers: tuple[str, ...], transforms: tuple[str, ...], outputs: Outputs,
           notes_path: Path | None, style: str | None, progress: bool | None) -> None:
    """Run every case under each SUITE_DIR on each --backend and judge it.

    SUITE_DIR: a suite folder or a checkout; default: the checkout's generated/, or outside a
    checkout the suite installed with the package. The first lines name the suites run (path,
    version, manifest sha256).

    Outcomes: pass, fail (wrong values), refused (prepare raised, the adapter cannot take a
    value kind, or the case has one this tool cannot read: a sparse tensor), error (a run
    raised, or the adapter broke its output contract), crash, timeout; with --transform also
    transform-failed, invalid-model and unjudged (the backend does not pass the case
    untransformed: not counted); xfail and xpass with --xfail.

    Exit status: 0 when nothing failed unexpectedly (an unexpected pass of a --xfail entry is
    reported, not failed), 1 when a case failed, was refused, erred, crashed, timed out or a
    transform failed or made an invalid model, or a
    report could not be written (the old file is left whole), 2 for bad usage, a bad input file
    or a report path that is an input, inside a suite or another report's, 130 when
    interrupted (Ctrl-C; the workers are ended first).
    """
    from .._published.resources import default_suite, resolve_suite, xfail_file
    from . import session

    resolved = [resolve_suite(s) for s in suite_dirs] or [default_suite()]
    xfail_found = [xfail_file(path) for path in dict.fromkeys(xfail_paths)]
    arguments = session.checked(backends, jobs, timeout, select, transforms)  # the one check:
    suites = [r.root for r in resolved]  # it starts the workers' fork server
    check_report_paths(outputs, [*suites, *xfail_found, notes_path])
    with_notes = notes_formats()
    if notes_path and not any(outputs[form] for form in with_notes):
        raise click.BadParameter(
            f"the notes are for the {' or '.join(f.title for f in with_notes)} report; add "
            + " or ".join(f"{f.option} FILE" for f in with_notes), param_hint="--notes")
    plan = session.plan(suites, arguments, xfail_found, notes_path)
    inferrers = tuple(dict.fromkeys(inferrers))  # each once, in the order given
    session.check_entries(plan, session.subjects(arguments, inferrers), strict_xfail)
    for suite in resolved:
        click.echo(suite.describe())
    command = " ".join(["gen-seq-tests verify", *map(as_shown, suites),
                        *(f"--backend {s}" for s in backends), *(f"-k {p}" for p in select),
                        *(f"--inference {i}" for i in inferrers),
                        *(f"--transform {t}" for t in transforms),
                        *(f"--xfail {as_shown(path)}" for path in xfail_found),
                        *options(notes=notes_path), *quoted(outputs)])
    sys.exit(session.run(
        plan, arguments, suites, [as_shown(s) for s in suites], style=style,
        progress=progress, command=command, outputs=outputs, inferrers=inferrers,
        echo=lambda text: click.echo(text, nl=False), warn=lambda text: say(text, err=True)))


@main.command("report")
@click.argument("reports", nargs=-1, required=True, metavar="JSON...",
                type=click.Path(dir_okay=False, path_type=Path))
@report_options
@click.option("--notes", "notes_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="YAML findings: why a backend disagrees, with the ONNX sentence that decides "
                   "it.")
def report_command(reports: tuple[Path, ...], outputs: Outputs, notes_path: Path | None) -> None:
    """Merge `verify --json` reports (one per runtime, e.g. one per CI job) into one scoreboard;
    write any of the reports `verify` writes, of the merged results. Exit 2 for reports of
    different suites (manifest sha256) or one that cannot be read."""
    from .._reports.formats import RunReport, write_reports
    from .._reports.merge import merge_reports
    from .._reports.notes import load_notes
    from .._reports.text_report import text_report

    check_report_paths(outputs, [*reports, notes_path])
    merged = merge_reports(list(reports))  # InputError: exit 2
    notes = load_notes(notes_path) if notes_path else []  # NotesError: exit 2
    click.echo(text_report(merged.results, merged.specs, merged.about), nl=False)
    command = " ".join(["gen-seq-tests report", *(as_shown(p) for p in reports),
                        *options(notes=notes_path), *quoted(outputs)])
    write_reports(RunReport(merged.results, merged.specs, merged.suite, command, notes,
                            merged.about, merged.described), outputs)
    for note in notes:
        if not note.matched:
            warn(f"{note.where}: this note matched no case that did not pass")


@main.command()
@click.argument("root", required=False,
                type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("-o", "--output", "archive", type=click.Path(dir_okay=False, path_type=Path),
              help="Archive to write  [default: dist/onnx-seq-tests-suite-<version>.tar.gz]")
def pack(root: Path | None, archive: Path | None) -> None:
    """Write a reproducible .tar.gz of the suite at ROOT (default: the checkout's generated/, or
    outside a checkout the suite installed with the package).

    Entries are sorted under one top folder, with one fixed mtime, uid/gid 0 and a gzip header
    without a time. The uncompressed tar is the same bytes wherever the suite is packed: its
    sha256 is printed as the suite's identity (the .tar.gz's own sha256 also depends on the zlib
    that compressed it). ROOT must match its manifest.json: exit 1 when it does not, 2 when it
    holds no suite.
    """
    from .._published.pack import default_archive, pack_suite
    from .._published.resources import default_suite

    # no suite at root: ManifestError (exit 2); one not matching its manifest: PackError (1)
    root = root or default_suite().root
    archive = archive or default_archive()
    check_outputs({"-o": archive}, [root])
    packed = pack_suite(root, archive)
    say(f"wrote {packed.archive}: {packed.files} files, sha256 {packed.sha256}")
    say(f"suite sha256 {packed.identity} (the uncompressed tar, the same wherever it is "
         f"packed: gzip -dc {packed.archive} | sha256sum)")


@main.command()
@click.argument("old", type=click.Path(path_type=Path))
@click.argument("new", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True,
              help="Print the difference as JSON (to stdout, or to --output) instead of text.")
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the difference to this file instead of printing it.")
@click.option("--exit-code", is_flag=True,
              help="Exit 1 when the suites differ (default: 0 whenever both could be read).")
def diff(old: Path, new: Path, as_json: bool, output: Path | None, exit_code: bool) -> None:
    """What changed from suite OLD to suite NEW: cases added, removed and changed, and for a
    changed case what changed (model, which data set, tolerance, opset, operators).

    OLD and NEW are each a suite folder, a checkout (its generated/), a suite archive from
    `gen-seq-tests pack` (read in memory, never extracted) or a manifest.json. Folders and
    archives are first checked against their manifest. Exit 2 when a side is not a suite.
    """
    import json

    from .._published import diff as differ

    check_outputs({"-o": output}, [_suite_read(old), _suite_read(new)])
    result = differ.diff(differ.load(old), differ.load(new))  # DiffError: exit 2
    text = (json.dumps(result, indent=1, sort_keys=True) + "\n" if as_json
            else differ.text(result))
    if output is None:
        click.echo(text, nl=False)
    else:
        write_output(output, text, make_folder=True)
        click.echo(f"wrote {output}: {len(result['added'])} added, {len(result['removed'])} "
                   f"removed, {len(result['changed'])} changed")
    sys.exit(1 if exit_code and differ.differs(result) else 0)


def _suite_read(path: Path) -> Path:
    """What `diff` reads of a side: a checkout's generated/, else the path itself."""
    from .._published.resources import GENERATED, is_checkout

    return path / GENERATED if is_checkout(path) and (path / GENERATED).is_dir() else path


@main.command()
@click.argument("root", required=False, default=DEFAULT_OUT, type=SuiteRoot())
@click.option("--markdown", "markdown_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the report to this Markdown file (the committed one is "
                   "docs/coverage.md) instead of printing it.")
def coverage(root: Path, markdown_path: Path | None) -> None:
    """Report what the suite at ROOT (default: generated) covers: per operator and version, the
    allowed types (from onnx.defs) and the edge cases, beside onnx's own node cases.

    A case folder that cannot be read is left out, in one line (`skipped FOLDER: KIND: why`).
    Exit status: 0 all counted, 1 a folder left out, 2 bad usage or no suite at ROOT."""
    from .._fuzz.mutant_score import COMMITTED as COMMITTED_FUZZ
    from .._fuzz.mutant_score import committed as committed_fuzz_score
    from .._published import coverage as measure
    from .._published.hidden import hidden_markdown
    from .._run import mutation
    from .._suite.freshness import onnx_drift

    check_outputs({"--markdown": markdown_path}, [root, COMMITTED_FUZZ])
    drift = onnx_drift()
    if drift:
        warn(drift)
    skipped: list = []
    cases = measure.suite_coverage(root, skipped)
    ours = measure.summarize(cases)
    theirs = measure.summarize(measure.onnx_coverage())
    derived = measure.derived_forms(root)
    text = measure.report(ours, theirs, root.as_posix(), derived) + \
        "\n".join(hidden_markdown(root)) + "\n\n" + \
        mutation.markdown(*mutation.scores(root, [], cases, derived), fuzz=committed_fuzz_score())
    if markdown_path is None:
        click.echo(text, nl=False)
        left_out(skipped)
        return
    write_output(markdown_path, text, make_folder=True)
    say(f"wrote {markdown_path}: {ours.total_covered} of {ours.total} combinations covered by "
         f"{ours.cases} case(s); onnx's node cases cover {theirs.total_covered}")
    left_out(skipped)


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

    In a folder of folders, one that cannot be read is left out, in one line (`skipped FOLDER:
    KIND: why`). Exit status: 0 all shown, 1 a folder left out, 2 a CASE that cannot be read.
    """
    from .._read.load import resolve_each
    from .._read.show import render

    # what is named itself and cannot be read: ReadError, one line, exit 2
    shown = resolve_each(cases, cases_paths, suite_root, then=lambda s: render(s, full=full))
    click.echo("\n".join(shown.values), nl=False)
    left_out(shown.skipped)


@main.command()
@click.argument("root", required=False, default=DEFAULT_OUT, type=SuiteRoot())
@click.option("-o", "--output", "out_dir", default="docs/operators", show_default=True,
              type=click.Path(file_okay=False, path_type=Path),
              help="Folder for the pages (one per operator, and README.md, the index).")
@click.option("--check", is_flag=True,
              help="Write nothing; exit 1 naming every page that differs from what the suite "
                   "gives.")
@click.option("--force", is_flag=True,
              help="Write over a file in the output folder that has a page's name although "
                   "`docs` did not write it (without --force: exit 2, nothing written). Other "
                   "files are kept either way.")
def docs(root: Path, out_dir: Path, check: bool, force: bool) -> None:
    """Write one Markdown page per sequence/optional operator (schema from onnx.defs, then every
    case of the suite at ROOT (default: generated) that uses it, as `show` prints it) and an
    index with the cases and coverage per operator version.

    Only pages `docs` wrote (marked `Generated by gen-seq-tests docs`) are replaced or removed;
    other files are kept. A case folder that cannot be read is left out, in one line (`skipped
    FOLDER: KIND: why`). Exit status: 0 all done, 1 a folder left out or (--check) a stale
    page, 2 bad usage, no suite, or a page's name taken by a file `docs` did not write.
    """
    from .._read.operator_pages import stale_pages, write_pages

    skipped: list = []
    if check:
        stale = stale_pages(root, out_dir, skipped)
        for name in stale:
            click.echo(f"stale: {out_dir / name}")
        left_out(skipped)
        if stale:
            raise CheckFailed(f"{len(stale)} page(s) differ from the suite; run `make docs`")
        click.echo(f"{out_dir} is what the suite at {root} gives")
        return
    files = write_pages(root, out_dir, force=force, skipped=skipped)
    click.echo(f"wrote {len(files)} page(s) into {out_dir}")
    left_out(skipped)


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

    A case folder that cannot be read or expressed is left out, in one line (`skipped FOLDER:
    KIND: why`). Exit status: 0 all imported, 1 one left out (none imported: no file written),
    2 bad input (a case folder named itself that cannot be read, a SUITE_DIR with no case).
    """
    from .._core.errors import NothingRead, tally
    from .._read.importer import import_folders, refused_by_builder, to_yaml

    if not out_file.absolute().parent.is_dir():
        raise click.BadParameter(f"the folder of {out_file} does not exist", param_hint="-o")
    check_outputs({"-o": out_file}, suite_dirs)
    imported = import_folders(suite_dirs, prefix)  # ReadError: one line, exit 2
    if not no_check:
        imported = refused_by_builder(imported)
    if not imported.cases:
        raise NothingRead("no case folder could be imported", imported.skipped)
    header = ("# Imported by `gen-seq-tests import` from " + ", ".join(
        one_line(p.as_posix()) for p in suite_dirs) + ".\n")
    write_output(out_file, to_yaml(imported, header))
    note = f"; left out: {tally(imported.skipped)} (listed on stderr)" \
        if imported.skipped else ""
    say(f"wrote {len(imported.cases)} case(s) to {out_file}{note}")
    left_out(imported.skipped)


@main.command("mutation")
@click.argument("root", required=False, default=DEFAULT_OUT, type=SuiteRoot())
@click.option("--markdown", "markdown_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the table to this Markdown file instead of printing it.")
@click.option("--fuzz", "fuzz_alone", is_flag=True,
              help="Score the mutants with one `fuzz` campaign instead of the suite: programs "
                   "drawn once, every mutant judged on each in this process; a mutant is killed "
                   "by the first program it fails. Exit 1 under 90%.")
@click.option("--seed", default=0, show_default=True, type=int, help="With --fuzz: its seed.")
@click.option("--time-budget", default=300.0, show_default=True,
              type=SECONDS, metavar="SECONDS",
              help="With --fuzz: stop drawing programs after SECONDS.")
@click.option("--max-examples", type=click.IntRange(min=1), metavar="N",
              help="With --fuzz: stop after N programs (the exact campaign of a stored score).")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path),
              help="With --fuzz: write the score as JSON (the committed one is "
                   "docs/mutation-fuzz.json, which `coverage` renders).")
def mutation_score(root: Path, markdown_path: Path | None, fuzz_alone: bool, seed: int,
                   time_budget: float, max_examples: int | None,
                   json_path: Path | None) -> None:
    """Print the mutation score of the suite at ROOT (default: generated) beside that of onnx's
    own sequence/optional node cases: the share of the mutant backends (the spec oracle with
    one plausible runtime bug each) that some case catches. Exit 1 when a mutant survives the
    suite at ROOT. With --fuzz, score `gen-seq-tests fuzz` alone instead."""
    from .._fuzz.mutant_score import COMMITTED as COMMITTED_FUZZ
    from .._fuzz.mutant_score import committed as committed_fuzz_score
    from .._run import mutation

    check_outputs({"--markdown": markdown_path, "--json": json_path},
                  [] if fuzz_alone else [root, COMMITTED_FUZZ])
    if fuzz_alone:
        from .._fuzz import mutant_score

        if json_path and not json_path.absolute().parent.is_dir():
            raise click.BadParameter(f"the folder of {json_path} does not exist",
                                     param_hint="--json")
        mutant_score.campaign(seed, time_budget, max_examples, json_path, click.echo)
        return
    ours, theirs = mutation.scores(root)
    text = mutation.markdown(ours, theirs, committed_fuzz_score())
    if markdown_path is None:
        click.echo(text, nl=False)
    else:
        write_output(markdown_path, text, make_folder=True)
        for result in (ours, theirs):
            click.echo(f"{result.label}: {len(result.killed)} of {result.total} mutants killed "
                       f"({result.percent:.0f}%) by {result.cases} case(s)")
    if ours.survivors:
        raise CheckFailed("surviving mutants: " + ", ".join(ours.survivors))


main.add_command(fuzz)
main.add_command(runtimes)
main.add_command(refresh)


@main.command("xfail-update")
@click.argument("report_path", metavar="REPORT.json", type=click.Path(path_type=Path))
@click.option("-b", "--backend", "backends", multiple=True, required=True, metavar="NAME",
              help="The runtime whose xfail file to write (repeat for several).")
@click.option("-o", "--output", "out_dir", default="xfail", show_default=True,
              type=click.Path(file_okay=False, path_type=Path), help="Folder of the files.")
def xfail_update(report_path: Path, backends: tuple[str, ...], out_dir: Path) -> None:
    """Write OUTPUT/<NAME>.txt, the known failures of each runtime, from a `verify --json`
    report: every case folder it did not pass, grouped under the message that says why."""
    from .._reports.xfail_files import runtime_name, write_xfail_files

    written = write_xfail_files(report_path, list(backends), out_dir, runtime_name)  # exit 2
    say(f"wrote {', '.join(str(p) for p in written)}")
