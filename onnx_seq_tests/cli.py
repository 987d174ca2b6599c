"""The `gen-seq-tests` command: parsing arguments and exit codes only.

Exit status: 0 success, 1 a check or verification failed, 2 bad usage or invalid case files.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from . import __version__
from .codec import EMPTY_OPTIONAL_FORMS
from .problems import CaseFileError

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
def build(paths: tuple[Path, ...], out_root: Path, empty_optional: str) -> None:
    """Compile case files (PATHS: files or folders, default: cases) into the backend-test layout."""
    from .build import build_suite
    from .casefile import load_cases

    try:
        cases = load_cases(paths or (Path(DEFAULT_CASES),))
        target = build_suite(cases, out_root, empty_optional)
    except CaseFileError as error:
        _fail_on_case_errors(error)
    click.echo(f"built {len(cases)} case(s) into {target}")


@main.command(name="list")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
def list_cases(paths: tuple[Path, ...]) -> None:
    """List cases: name, operators, opset, data sets."""
    from .casefile import load_cases

    try:
        cases = load_cases(paths or (Path(DEFAULT_CASES),))
    except CaseFileError as error:
        _fail_on_case_errors(error)
    for case in cases:
        click.echo(f"{case.name}\t{','.join(case.operators)}\topset {case.opset}\t"
                   f"{len(case.data_sets)} data set(s)")


if __name__ == "__main__":  # pragma: no cover
    main()
