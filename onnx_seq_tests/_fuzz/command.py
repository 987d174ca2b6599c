"""`gen-seq-tests fuzz` and `gen-seq-tests fuzz merge`: parsing, output and exit codes only.

Exit status: 0 no disagreement, 1 findings, 2 bad usage. Nothing heavy is imported until the
command runs (the CLI's `--help` loads no onnx).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .._core.atomic import write_atomic
from .._core.errors import one_line
from .._runtimes.records import names as runtime_names
from .._runtimes.records import records as runtime_records
from .database import open_database
from .outputs import check_file, check_folder, keep_elsewhere

if TYPE_CHECKING:
    from .profile import Profile


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


def _reproduce(specs, seed, max_examples, time_budget, operators, opsets, shard,
               max_findings, refusal_aware=False, profile_path=None) -> str:
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
    if profile_path is not None:
        parts.append(f"--profile {profile_path} (as it was at the start)")
    elif refusal_aware:
        parts.append("--refusal-aware")
    return " ".join(parts)


@click.group(name="fuzz", invoke_without_command=True,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-b", "--backend", "backends", multiple=True, metavar="SPEC",
              help="A backend as verify names it (onnxruntime, reference, "
                   f"{', '.join(runtime_names())}, `module:attr`), or `oracle` (the spec "
                   "oracle itself) or "
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
@click.option("--max-findings", type=click.IntRange(min=0), metavar="N",
              help="Shrink and write at most N findings per backend; count the rest (0: "
                   "count every disagreement, shrink none: a campaign's time all judging).")
@click.option("--errors", is_flag=True,
              help="Count a backend's refusals and errors on valid programs as findings too.")
@click.option("--database", metavar="DIR",
              help="A local folder, hypothesis's example database format: replay the program "
                   "seeds of earlier findings first, save the new ones (made if missing; a "
                   "file, a folder that cannot be written or a remote spec is refused).")
@click.option("--refusal-aware", is_flag=True,
              help="Learn what each backend refuses outright (element types, boundary kinds, "
                   "operators, input and attribute forms, opsets) and draw around it, re-probing "
                   "5% of the programs freely (docs/fuzzing.md).")
@click.option("--profile", "profile_path", type=click.Path(dir_okay=False, path_type=Path),
              metavar="FILE",
              help="A refusal profile (JSON): loaded at the start if it exists, the learned one "
                   "saved there at the end. Implies --refusal-aware.")
@click.option("--distil", is_flag=True,
              help="On the spec oracle only: write the smallest programs that hold a "
                   "structural feature --suite lacks (per suite form) or kill a mutant no case "
                   "of it kills, one case file each, into -o (docs/fuzzing.md).")
@click.option("--suite", "suite", default="generated", show_default=True,
              type=click.Path(file_okay=False, path_type=Path), metavar="DIR",
              help="With --distil: the built suite whose gaps are filled.")
@click.option("--pack", type=click.IntRange(min=1), metavar="N",
              help="Programs per compiled model: up to N programs packed into one model, run "
                   "once, each judged by its own outputs (a fail by its own differences, judged "
                   "alone again before it is shrunk); the programs that make a pack refused or "
                   "in error are found and run alone (docs/fuzzing.md)  [default: the "
                   "runtime's record ("
                   + ", ".join(f"{r.name} {r.pack}" for r in runtime_records() if r.pack > 1)
                   + "), else 1; oracle and mutant:NAME never pack]")
@click.option("--progress/--no-progress", default=None,
              help="Show programs/s and findings so far on stderr  [default: on a terminal]")
@click.pass_context
def fuzz(ctx, backends, seed, max_examples, time_budget, output, json_path, jobs, operators,
         opsets, shard, timeout, shrink_budget, max_findings, errors, database,
         refusal_aware, profile_path, distil, suite, pack, progress) -> None:
    """Draw random valid sequence/optional programs from onnx.defs, run each (both suite forms)
    on every --backend, judge it against the spec oracle, and shrink each disagreement to a
    minimal case file.

    Exit status: 0 no disagreement, 1 findings (with --max-findings 0: disagreements),
    2 bad usage.
    """
    if ctx.invoked_subcommand is not None:
        return
    if distil:
        _distil(ctx, backends, seed, max_examples, time_budget, output, operators, opsets,
                suite, progress)
        return
    if not backends:
        raise click.UsageError("name at least one backend with -b SPEC", ctx=ctx)
    from . import campaign

    _check_backends(backends)
    profile = _check_outputs(output, json_path, profile_path)
    shard_pair = _shard(shard)
    options = campaign.Options(
        specs=list(backends), seed=seed,
        max_examples=max_examples or (10**12 if time_budget else 1000),
        time_budget=time_budget, output=output, jobs=jobs or 1,
        operators=tuple(operators), opsets=tuple(opsets), shard=shard_pair, timeout=timeout,
        errors=errors, shrink_budget=shrink_budget, max_findings=max_findings,
        database=None if database is None else open_database(database),
        reproduce=_reproduce(backends, seed, max_examples, time_budget, operators, opsets,
                             shard_pair, max_findings, refusal_aware or profile is not None,
                             profile_path),
        profile=profile, refusal_aware=refusal_aware or profile is not None, pack=pack)
    campaign.check(options)  # a FuzzUsageError is printed by the CLI: one line, exit 2
    show = sys.stderr.isatty() if progress is None else progress
    stats = campaign.run(options, _progress if show else None)  # BackendSpecError: exit 2
    if show:
        click.echo("", err=True)
    for line in summary(stats, options):
        click.echo(one_line(line))
    lost = _save(stats, options, json_path) + _save_profile(options, profile_path)
    for line in lost:
        click.echo(one_line(f"error: {line}"), err=True)
    counted_only = max_findings == 0 and disagreements(stats, errors)
    sys.exit(1 if stats.findings or counted_only or lost else 0)


def disagreements(stats, errors: bool) -> int:
    """How many verdicts of the campaign disagreed (judge.finding_outcomes), shrunk or not."""
    from .judge import finding_outcomes

    wanted = finding_outcomes(errors)
    return sum(count for forms in stats.runs.values() for outcomes in forms.values()
               for outcome, count in outcomes.items() if outcome in wanted)


def _distil(ctx, backends, seed, max_examples, time_budget, output, operators, opsets,
            suite: Path, progress) -> None:
    """`fuzz --distil`: the suite's gaps filled by the smallest programs (distil.py)."""
    if set(backends) - {"oracle"}:
        raise click.BadParameter("--distil runs on the spec oracle only: give no -b, or "
                                 "-b oracle", param_hint="--backend")
    if output is None:
        raise click.UsageError("--distil writes case files: name their folder with -o DIR",
                               ctx=ctx)
    if not suite.is_dir():
        raise click.BadParameter(f"{suite}: not a folder (a built suite: gen-seq-tests "
                                 "build writes one)", param_hint="--suite")
    check_folder(output, "-o")
    from . import distil

    def reproduce(count: int) -> str:
        parts = ["gen-seq-tests fuzz --distil", f"--seed {seed}", f"--max-examples {count}",
                 *(f"--op {o}" for o in operators), *(f"--opset {o}" for o in opsets),
                 f"--suite {suite.as_posix()}", "-o DIR"]
        return " ".join(parts)

    show = sys.stderr.isatty() if progress is None else progress
    result = distil.run(suite, seed, reproduce,
                        max_examples or (None if time_budget else 1000), time_budget,
                        tuple(operators), tuple(opsets),
                        (lambda r, elapsed: click.echo(
                            f"\rdistil: {r.generated} programs, {len(r.distilled)} case(s)",
                            err=True, nl=False)) if show else None)
    if show:
        click.echo("", err=True)
    distil.write(result, output)
    for line in distil.summary(result, suite):
        click.echo(one_line(line))


def _check_backends(backends: tuple[str, ...]) -> None:
    """Each --backend loads (a mutant's name is known); BadParameter naming the first that
    does not."""
    from .._runtimes.backends import BackendSpecError, load_backend
    from . import inprocess
    from .judge import ALIASES

    for spec in backends:
        try:
            if inprocess.handles(spec):
                inprocess.mutant_of(spec)
            else:
                load_backend(ALIASES.get(spec, spec))
        except (BackendSpecError, inprocess.UnknownMutant) as error:
            raise click.BadParameter(one_line(str(error)), param_hint="--backend") from None


def _check_outputs(output: Path | None, json_path: Path | None,
                   profile_path: Path | None) -> Profile | None:
    """Every output checked before the campaign (FuzzOutputError: one line, exit 2), no two of
    them one path; the --profile loaded when it exists (a ProfileError: one line, exit 2)."""
    if output is not None:
        check_folder(output, "-o")
    if json_path is not None:
        check_file(json_path, "--json")
        if output is not None and json_path.absolute() == output.absolute():
            raise click.BadParameter(f"{json_path} is also -o's folder", param_hint="--json")
    if profile_path is None:
        return None
    from .profile import Profile

    check_file(profile_path, "--profile")
    for other, option in ((json_path, "--json"), (output, "-o")):
        if other is not None and other.absolute() == profile_path.absolute():
            raise click.BadParameter(f"{profile_path} is also {option}'s path",
                                     param_hint="--profile")
    return Profile.load(profile_path)


def _save(stats, options, json_path: Path | None) -> list[str]:
    """Write what the campaign wrote nowhere yet: --json, and the findings -o could not take.
    Each write is atomic; one a disk refuses is written to a new folder of the system's
    temporary folder instead, or else printed on stdout, so nothing found is lost. The lines
    returned say what failed and where it went (none: all was written where asked)."""
    from .campaign import DATABASE_KEY
    from .database import unsaved

    lost = []
    if stats.unwritten:
        kept = keep_elsewhere(stats.unwritten, click.echo)
        lost.append(f"{len(stats.unwritten)} finding(s) could not be written to "
                    f"{options.output} (why: on each finding's line); they are in {kept}")
    if options.database is not None:
        seeds = unsaved(options.database, DATABASE_KEY, stats.saved)
        if seeds:
            lost.append(f"--database did not keep the program seed(s) of {len(seeds)} "
                        "finding(s): " + ", ".join(s.decode() for s in seeds))
    if json_path is not None:
        text = json.dumps(stats.as_json(options), indent=2) + "\n"
        try:
            write_atomic(json_path, text)
        except OSError as error:
            kept = keep_elsewhere({json_path.name: text}, click.echo)
            lost.append(f"--json {json_path}: {error.strerror or error}; the statistics "
                        f"are in {kept}")
    return lost


def _save_profile(options, path: Path | None) -> list[str]:
    """Save the learned profile to --profile (atomically); where it went when the disk
    refused it."""
    if path is None:
        return []
    try:
        options.profile.save(path)
    except OSError as error:
        text = json.dumps(options.profile.as_json(), indent=2) + "\n"
        kept = keep_elsewhere({path.name: text}, click.echo)
        return [f"--profile {path}: {error.strerror or error}; the profile is in {kept}"]
    return []


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
    if options.profile is not None:
        if options.refusal_aware:
            lines.append(f"refusal-aware: {stats.avoided} program(s) avoided, "
                         f"{stats.reprobes} re-probe(s)")
        lines += options.profile.summary()
    if options.max_findings == 0:
        lines.append(f"{disagreements(stats, options.errors)} disagreement(s) counted, none "
                     "shrunk (--max-findings 0)")
    lines.append(f"{len(stats.findings)} finding(s)")
    return lines


@fuzz.command(name="merge")
@click.argument("folders", nargs=-1, required=True,
                type=click.Path(file_okay=False, path_type=Path))
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="The folder to write one finding per signature into.")
def merge(folders, output) -> None:
    """Merge the findings of several campaigns (shards): one case file per signature.

    Only regular files are read (at most a case file's 4 MiB each): a FIFO, a device, a socket
    or a file that cannot be read is one line on stderr naming it and why, the other files
    are merged, and the exit status is 1 (a partial result). Exit status: 0 every file merged,
    1 some left out, 2 bad usage (an input that is not a folder, an -o that cannot be
    written: nothing is read or written).
    """
    from .._core.errors import CheckFailed
    from .findings import merge as merge_folders

    skipped: list[str] = []
    try:  # a FindingError or OutputError: one line, exit 2
        read, kept = merge_folders(folders, output, skipped)
    except OSError as error:  # the disk refused a write after the checks: the inputs are whole
        raise CheckFailed(f"fuzz merge: cannot write {error.filename or output}: "
                          f"{error.strerror or error}; the input folders are as they were"
                          ) from None
    for line in skipped:
        click.echo(one_line(f"fuzz merge: left out {line}"), err=True)
    click.echo(f"fuzz merge: {read} finding(s) read, {kept} distinct signature(s) in {output}"
               + (f"; {len(skipped)} file(s) left out (above)" if skipped else ""))
    sys.exit(1 if skipped else 0)
