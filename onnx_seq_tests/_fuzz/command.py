"""`gen-seq-tests fuzz` and `gen-seq-tests fuzz merge`: parsing, output and exit codes only.

Exit status: 0 no disagreement, 1 findings, 2 bad usage. Nothing heavy is imported until the
command runs (the CLI's `--help` loads no onnx).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import click

from .._core.problems import one_line


class Seconds(click.ParamType):
    """A number of seconds, finite and > 0 (or >= 0 with `zero`): NaN, inf and the rest are a
    usage error (exit 2, one line), never a ValueError further on. Every command's --timeout
    and --time-budget take it."""

    name = "seconds"

    def __init__(self, zero: bool = False):
        self.zero = zero

    def convert(self, value, param, ctx) -> float:
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not math.isfinite(number) or number < 0 or (number == 0 and not self.zero):
            self.fail(f"{value!r}: give a finite number of seconds "
                      f"{'>= 0' if self.zero else '> 0'}", param, ctx)
        return number


#: The type of every --timeout and --time-budget: finite, > 0.
SECONDS = Seconds()


def _shard(text: str | None) -> tuple[int, int]:
    if text is None:
        return (1, 1)
    k, slash, n = text.partition("/")
    if not slash or not k.isdigit() or not n.isdigit() or not 1 <= int(k) <= int(n):
        raise click.BadParameter(f"{text!r}: write K/N with 1 <= K <= N, e.g. 2/8",
                                 param_hint="--shard")
    return (int(k), int(n))


def _database(text: str | None):
    """hypothesis's example database: a directory, or `github:OWNER/REPO` (its GitHub-artifact
    database, read-only)."""
    if text is None:
        return None
    try:
        from hypothesis.database import (
            DirectoryBasedExampleDatabase,
            GitHubArtifactDatabase,
            ReadOnlyDatabase,
        )
    except ImportError:
        from .campaign import FuzzUsageError

        raise FuzzUsageError("--database needs hypothesis; install onnx-seq-tests[fuzz]") \
            from None
    if text.startswith("github:"):
        owner, slash, repo = text[len("github:"):].partition("/")
        if not slash or not owner or not repo:
            raise click.BadParameter(f"{text!r}: write github:OWNER/REPO",
                                     param_hint="--database")
        return ReadOnlyDatabase(GitHubArtifactDatabase(owner, repo))
    return DirectoryBasedExampleDatabase(text)


def _reproduce(specs, seed, max_examples, time_budget, operators, opsets, shard,
               max_findings) -> str:
    parts = ["gen-seq-tests fuzz", *(f"-b {s}" for s in specs), f"--seed {seed}"]
    if max_findings is not None:
        parts.append(f"--max-findings {max_findings}")
    if max_examples is not None:
        parts.append(f"--max-examples {max_examples}")
    if time_budget is not None:
        parts.append(f"--time-budget {time_budget:g}")
    parts += [f"--op {o}" for o in operators] + [f"--opset {o}" for o in opsets]
    if shard != (1, 1):
        parts.append(f"--shard {shard[0]}/{shard[1]}")
    return " ".join(parts)


@click.group(name="fuzz", invoke_without_command=True,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-b", "--backend", "backends", multiple=True, metavar="SPEC",
              help="A backend as verify names it (onnxruntime, reference, openvino, tinygrad, "
                   "tract, `module:attr`), or `oracle` (the spec oracle itself) or "
                   "`mutant:NAME` (a mutant of `gen-seq-tests mutation`), both judged in "
                   "this process. Repeat for several.")
@click.option("--seed", default=0, show_default=True, type=int,
              help="The campaign's seed: the same seed gives the same programs and findings.")
@click.option("--max-examples", type=click.IntRange(min=1), metavar="N",
              help="Programs to draw  [default: 1000, or no limit with --time-budget]")
@click.option("--time-budget", type=SECONDS, metavar="SECONDS",
              help="Stop drawing programs after SECONDS.")
@click.option("-o", "--output", type=click.Path(file_okay=False, path_type=Path),
              help="Write each finding here as a case file (`gen-seq-tests build DIR` compiles "
                   "them).")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the campaign's statistics and findings as JSON.")
@click.option("-j", "--jobs", default=1, show_default=True, type=click.IntRange(min=0),
              metavar="N", help="Run programs in N worker processes (0: one per CPU).")
@click.option("--op", "operators", multiple=True, metavar="OP",
              help="Start programs only from this operator (repeat for several).")
@click.option("--opset", "opsets", multiple=True, type=int, metavar="N",
              help="Draw programs only at this opset (repeat for several).")
@click.option("--shard", metavar="K/N",
              help="Run the K-th of N disjoint parts of the campaign (a CI matrix).")
@click.option("--timeout", default=20.0, show_default=True,
              type=SECONDS, metavar="SECONDS",
              help="Give each backend at most SECONDS per program; longer is a finding.")
@click.option("--shrink-budget", default=10.0, show_default=True,
              type=Seconds(zero=True), metavar="SECONDS",
              help="Time spent shrinking each finding.")
@click.option("--max-findings", type=click.IntRange(min=1), metavar="N",
              help="Shrink and write at most N findings per backend; count the rest.")
@click.option("--errors", is_flag=True,
              help="Count a backend's refusals and errors on valid programs as findings too.")
@click.option("--database", metavar="DIR|github:OWNER/REPO",
              help="hypothesis's example database: replay the program seeds of earlier "
                   "findings first, save the new ones.")
@click.option("--progress/--no-progress", default=None,
              help="Show programs/s and findings so far on stderr  [default: on a terminal]")
@click.pass_context
def fuzz(ctx, backends, seed, max_examples, time_budget, output, json_path, jobs, operators,
         opsets, shard, timeout, shrink_budget, max_findings, errors, database,
         progress) -> None:
    """Draw random valid sequence/optional programs from onnx.defs, run each (both suite forms)
    on every --backend, judge it against the spec oracle, and shrink each disagreement to a
    minimal case file.

    Exit status: 0 no disagreement, 1 findings, 2 bad usage.
    """
    if ctx.invoked_subcommand is not None:
        return
    if not backends:
        raise click.UsageError("name at least one backend with -b SPEC", ctx=ctx)
    from .._verify.backends import BackendSpecError, load_backend
    from . import campaign, inprocess
    from .judge import ALIASES

    for spec in backends:
        try:
            if inprocess.handles(spec):
                inprocess.mutant_of(spec)
            else:
                load_backend(ALIASES.get(spec, spec))
        except (BackendSpecError, inprocess.UnknownMutant) as error:
            raise click.BadParameter(one_line(str(error)), param_hint="--backend") from None
    if json_path and not json_path.absolute().parent.is_dir():
        raise click.BadParameter(f"the folder of {json_path} does not exist", param_hint="--json")
    shard_pair = _shard(shard)
    options = campaign.Options(
        specs=list(backends), seed=seed,
        max_examples=max_examples or (10**12 if time_budget else 1000),
        time_budget=time_budget, output=output, jobs=jobs or 1,
        operators=tuple(operators), opsets=tuple(opsets), shard=shard_pair, timeout=timeout,
        errors=errors, shrink_budget=shrink_budget, max_findings=max_findings,
        database=_database(database),
        reproduce=_reproduce(backends, seed, max_examples, time_budget, operators, opsets,
                             shard_pair, max_findings))
    campaign.check(options)  # a FuzzUsageError is printed by the CLI: one line, exit 2
    show = sys.stderr.isatty() if progress is None else progress
    stats = campaign.run(options, _progress if show else None)  # BackendSpecError: exit 2
    if show:
        click.echo("", err=True)
    for line in summary(stats, options):
        click.echo(one_line(line))
    if json_path:
        json_path.write_text(json.dumps(stats.as_json(options), indent=2) + "\n",
                             encoding="utf-8")
    sys.exit(1 if stats.findings else 0)


def _progress(stats, elapsed: float) -> None:
    rate = stats.generated / elapsed if elapsed else 0.0
    click.echo(f"\rfuzz: {stats.generated} programs ({rate:.1f}/s), {stats.valid} valid, "
               f"{len(stats.findings)} finding(s)", err=True, nl=False)


def summary(stats, options) -> list[str]:
    """The lines fuzz prints: programs, per backend outcomes, one line per finding."""
    built = stats.valid + stats.invalid
    rate = f"{100 * stats.valid / built:.1f}%" if built else "n/a"
    lines = [f"fuzz: {stats.generated} programs drawn, {stats.valid} valid ({rate} of those "
             f"built), {stats.no_result} without a spec result (dropped), {stats.invalid} "
             f"invalid (generator bugs), {stats.seconds:.1f} s"]
    for example in stats.invalid_examples[:3]:
        lines.append(f"invalid program: {example}")
    for backend, forms in stats.runs.items():
        parts = [f"{form}: " + ", ".join(f"{k} {v}" for k, v in sorted(c.items()))
                 for form, c in sorted(forms.items())]
        lines.append(f"{backend}: " + "; ".join(parts))
    for f in stats.findings:
        where = f" -> {options.output / f.file}" if f.file else (f" ({f.note})" if f.note else "")
        lines.append(f"finding {f.signature}: {f.message} (nodes {f.nodes_before} -> "
                     f"{f.nodes_after}, seed {f.seed}){where}")
    lines.append(f"{len(stats.findings)} finding(s)")
    return lines


@fuzz.command(name="merge")
@click.argument("folders", nargs=-1, required=True,
                type=click.Path(file_okay=False, path_type=Path))
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="The folder to write one finding per signature into.")
def merge(folders, output) -> None:
    """Merge the findings of several campaigns (shards): one case file per signature."""
    from .findings import merge as merge_folders

    read, kept = merge_folders(folders, output)  # a FindingError: one line, exit 2
    click.echo(f"fuzz merge: {read} finding(s) read, {kept} distinct signature(s) in {output}")
