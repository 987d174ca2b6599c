"""A fuzz campaign: programs drawn seed by seed, judged a batch at a time on every backend, each
new disagreement shrunk and written as a case file; statistics for --json.

Program i of a campaign with seed S is drawn from the seed text `S:i`, so the same seed gives
the same programs on any machine, and `--shard K/N` takes the programs with i % N == K - 1: N
jobs share no work. Refusal-aware (profile.py), a program holding a feature the backend refuses
is drawn again from `S:i~1`, `S:i~2`, ...; that text is its seed. A finding's signature is
`backend:outcome:kind:operators:elements`: the kind of wrong answer (judge.Verdict.kind),
the operators of the shrunk case and the element types of its graph inputs and outputs; one file
per signature. With an example database (a local folder in hypothesis's format, database.py),
the program seeds of earlier findings are judged first and the new ones saved.
"""

from __future__ import annotations

import itertools
import random
import re
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .._core.errors import FindingError, FuzzUsageError, NoResult
from .._core.suite_forms import SuiteForm
from .._core.value_kinds import innermost
from .._suite.layout import SUITE
from .._suite.tensor_io import derive
from . import inprocess, judge, packing, shrink
from .findings import case_text, file_stem, write
from .packing import pack_size
from .profile import AND, REDRAWS, Profile, Within, combinations, features, probed, reprobe
from .programs import OPERATORS, generate, preferring
from .recipes import Recipe, to_case
from .schemas import opsets as known_opsets

#: Programs judged per verify run (the first batch; see `batch_size`).
BATCH = 64
#: A batch grows, doubling, to this many times BATCH (or the largest pack a runtime's record
#: gives, where more): a verify run starts its worker and loads the runtime (IREE: about
#: 1.5 s), a program that hangs holds one worker for --timeout, and programs of one opset only
#: share a model, so small batches make small packs.
PACKS_PER_BATCH = 4
#: Programs of this many consecutive seeds prefer one opset on a runtime that packs
#: (`run_opset`): a batch's programs of one form and opset share a model, and drawn freely
#: a batch of 256 spread over 18 opsets (packs of about 14 where IREE's hold 32). As many as
#: IREE's record packs (64): runs of 128 made smaller packs of the programs whose operator's
#: version does not hold at the run's opset.
OPSET_RUN = 64
#: At most this many disagreements of one (backend, outcome, kind) are shrunk per campaign;
#: the others of that kind are counted.
SHRINKS_PER_KIND = 4
#: The key under which the example database holds program seeds.
DATABASE_KEY = b"gen-seq-tests fuzz: program seeds of findings"


@dataclass
class Options:
    specs: list[str]
    seed: int = 0
    max_examples: int = 1000
    time_budget: float | None = None
    output: Path | None = None
    jobs: int = 1
    operators: tuple[str, ...] = ()
    opsets: tuple[int, ...] = ()
    shard: tuple[int, int] = (1, 1)
    timeout: float | None = 20.0
    errors: bool = False
    shrink_budget: float = 10.0
    max_findings: int | None = None  # per backend: later disagreements are counted only
    database: Any = None  # a hypothesis ExampleDatabase, or None
    reproduce: str = ""  # the command line that reproduces the campaign
    pipeline: bool = True  # judge a batch while the next is drawn (False: one after another)
    profile: Profile | None = None  # what each backend refuses (profile.py); learned by run
    refusal_aware: bool = False  # draw around what the profile says is refused
    pack: int | None = None  # programs per compiled model (None: packing.pack_size's default)


@dataclass
class Finding:
    backend: str
    signature: str
    outcome: str
    kind: str
    form: str
    operators: list[str]
    nodes_before: int
    nodes_after: int
    seconds_to_find: float
    seconds_to_shrink: float
    seed: str
    message: str
    file: str | None = None
    note: str = ""


@dataclass
class Stats:
    generated: int = 0
    valid: int = 0
    no_result: int = 0
    invalid: int = 0
    invalid_examples: list = field(default_factory=list)
    runs: dict = field(default_factory=dict)  # backend -> Counter of outcomes per form
    findings: list = field(default_factory=list)
    seconds: float = 0.0
    unwritten: dict = field(default_factory=dict)  # file name -> case text -o could not take
    saved: list = field(default_factory=list)  # program seeds saved to the database
    avoided: int = 0  # programs dropped: every try held a refused feature (refusal-aware)
    reprobes: int = 0  # programs drawn freely although features were refused (re-probes)
    packing: Counter = field(default_factory=Counter)  # what packs cost (packing.judge_packed)

    def as_json(self, options: Options) -> dict:
        judged = self.valid + self.invalid
        return {
            "seed": options.seed, "shard": f"{options.shard[0]}/{options.shard[1]}",
            "backends": list(options.specs),
            "programs": {"generated": self.generated, "valid": self.valid,
                         "no_spec_result": self.no_result, "invalid": self.invalid,
                         "validity_rate": round(self.valid / judged, 6) if judged else None,
                         "invalid_examples": self.invalid_examples[:10]},
            "runs": {b: {form: dict(sorted(c.items())) for form, c in sorted(forms.items())}
                     for b, forms in self.runs.items()},
            "findings": [vars(f) for f in self.findings],
            "refusal_aware": {"on": options.refusal_aware, "avoided": self.avoided,
                              "reprobes": self.reprobes},
            "profile": options.profile.as_json() if options.profile is not None else None,
            "packing": {"sizes": {s: pack_size(s, options.pack) for s in options.specs},
                        **dict(sorted(self.packing.items()))},
            "seconds": round(self.seconds, 3),
        }


def check(options: Options) -> None:
    """FuzzUsageError for an --op, --opset or --shard that names nothing."""
    for op in options.operators:
        if op not in OPERATORS:
            raise FuzzUsageError(f"--op {op}: not a sequence or optional operator; use one of "
                                 + ", ".join(sorted(OPERATORS)))
    for opset in options.opsets:
        if opset not in known_opsets():
            raise FuzzUsageError(f"--opset {opset}: programs import a released opset from "
                                 f"{known_opsets()[0]} to {known_opsets()[-1]}")
    k, n = options.shard
    if not (n >= 1 and 1 <= k <= n):
        raise FuzzUsageError(f"--shard {k}/{n}: write K/N with 1 <= K <= N")


def program_seed(seed: int, index: int) -> str:
    return f"{seed}:{index}"


#: A campaign's own program seed (`program_seed`).
_PROGRAM_SEED = re.compile(r"(-?\d+):(\d+)")


def run_opset(seed_text: str) -> int | None:
    """The opset the program of a campaign's own seed `S:i` prefers (programs.preferring):
    one for each run of OPSET_RUN consecutive i, drawn from every opset by S and the run
    alone; None for any other seed text. A runtime that compiles packs programs of one opset
    into one model (packing.py): most programs of a run share one."""
    found = _PROGRAM_SEED.fullmatch(seed_text)
    if found is None:
        return None
    run = int(found[2]) // OPSET_RUN
    return random.Random(f"opset run {found[1]}:{run}").choice(known_opsets())


def _opset_runs(specs: list[str]) -> bool:
    """Whether a campaign on `specs` draws its programs in runs that prefer one opset
    (`run_opset`): when a runtime record among them packs programs (its `pack`, whatever
    --pack says, so campaigns packed and not draw the same programs)."""
    return any(pack_size(s) > 1 for s in specs)


def budgeted_seeds(seed: int, max_examples: int | None, time_budget: float | None, going):
    """(i, program seed `S:i`) for i = 0, 1, ... while `going()`, at most `max_examples` of
    them, until `time_budget` seconds have passed since the first (None: no bound)."""
    start = time.monotonic()
    index = 0
    while going() and (max_examples is None or index < max_examples) and (
            time_budget is None or time.monotonic() - start < time_budget):
        yield index, program_seed(seed, index)
        index += 1


class Replayed(str):
    """A program seed from the example database: judged as it is (never redrawn)."""


def campaign_seeds(options: Options):
    """The program seeds of this campaign (and shard): the database's first, then the
    campaign's own, up to --max-examples in all."""
    given = 0
    replayed: list[str] = []
    if options.database is not None:
        replayed = sorted(v.decode("utf-8", "replace")
                          for v in options.database.fetch(DATABASE_KEY))
    for text in replayed:
        if given >= options.max_examples:
            return
        given += 1
        yield Replayed(text)
    k, n = options.shard
    index = k - 1
    while given < options.max_examples:
        yield program_seed(options.seed, index)
        given += 1
        index += n


def run(options: Options, progress=None) -> Stats:
    """Run a campaign; `progress(stats, elapsed)` after each batch.

    A pipeline one batch deep: while verify's workers judge batch N (in a thread of its own,
    judge.start, once N's first folders are written and queued), this thread draws and builds
    batch N+1; then N's verdicts are taken in order and its disagreements shrunk (nothing
    else is being judged meanwhile), and N+1 is started. Nothing depends on the timing: the
    programs, their order and the findings are those of judging one batch after another,
    and every batch drawn is judged (--time-budget is checked before drawing, and while
    drawing: a refusal-aware draw whose profile leaves next to nothing to draw stops at the
    budget with what it has)."""
    check(options)
    if options.profile is None:
        options.profile = Profile()
    state = _State(options, time.monotonic())
    deadline = None if options.time_budget is None else state.start + options.time_budget
    seeds = campaign_seeds(options)
    with tempfile.TemporaryDirectory(prefix="seq-fuzz-", dir=judge.scratch_root(),
                                     ignore_cleanup_errors=True) as scratch:
        # (ignore_cleanup_errors: on Ctrl-C a batch may still be being written in its thread)
        state.work = Path(scratch) / "suite"  # where shrinking judges its candidates
        pending = None  # (batch, its draw's counts, judging) of the batch in flight
        for index in itertools.count():
            batch, drawn = None, Stats()  # counted once judged, so progress shows judged ones
            if options.time_budget is None or \
                    time.monotonic() - state.start < options.time_budget:
                batch = _draw(seeds, options, drawn, batch_size(options.specs, index),
                              deadline)
            if pending is not None:
                judged, counts, judging = pending
                _add_counts(state.stats, counts)
                _judge_batch(state, judged, judging.result())
                state.stats.seconds = time.monotonic() - state.start
                if progress:
                    progress(state.stats, state.stats.seconds)
            if batch is None:
                _add_counts(state.stats, drawn)  # the last programs drawn, none valid
                break
            pending = batch, drawn, packing.start(
                [b for _, _, b in batch], options.specs, Path(scratch) / "batch", options.jobs,
                options.timeout, options.pipeline,
                {s: pack_size(s, options.pack) for s in options.specs}, state.stats.packing,
                options.profile)
    state.stats.seconds = time.monotonic() - state.start
    return state.stats


@dataclass
class _State:
    """What a campaign keeps from batch to batch."""

    options: Options
    start: float
    stats: Stats = field(default_factory=Stats)
    work: Path | None = None
    seen_keys: set = field(default_factory=set)
    signatures: set = field(default_factory=set)
    shrunk_kinds: Counter = field(default_factory=Counter)
    per_backend: Counter = field(default_factory=Counter)


def _add_counts(stats: Stats, drawn: Stats) -> None:
    """Add one draw's program counts to the campaign's."""
    stats.generated += drawn.generated
    stats.valid += drawn.valid
    stats.no_result += drawn.no_result
    stats.invalid += drawn.invalid
    stats.invalid_examples.extend(drawn.invalid_examples)
    stats.avoided += drawn.avoided
    stats.reprobes += drawn.reprobes


def _judge_batch(state: _State, batch: list, verdicts: dict) -> None:
    """Count a judged batch's verdicts, in program order; shrink and write each new kind of
    disagreement."""
    options, stats = state.options, state.stats
    for seed, recipe, built in batch:
        found = verdicts.get(built.case.name, [])
        _count(stats, found)
        held = features(built.cases.values())
        for verdict in found:
            assert options.profile is not None, "run() sets it"
            options.profile.learn(verdict.backend, verdict.form, verdict.outcome, held)
        for verdict in judge.findings_of(found, options.errors):
            key = (verdict.backend, verdict.outcome, verdict.kind(), built.case.operators)
            if key in state.seen_keys or state.shrunk_kinds[key[:3]] >= SHRINKS_PER_KIND or (
                    options.max_findings is not None
                    and state.per_backend[verdict.backend] >= options.max_findings):
                continue
            if verdict.packed:  # told by its pack: judged alone before it is shrunk
                verdict = _alone(built, verdict, options, state.work)
                if verdict is None:
                    continue
            state.seen_keys.add(key)
            state.shrunk_kinds[key[:3]] += 1
            finding, case = _shrunk(seed, recipe, verdict, options, state.work, state.start)
            if finding.signature in state.signatures:
                continue
            _write(finding, case, options, stats)
            state.signatures.add(finding.signature)
            state.per_backend[verdict.backend] += 1
            stats.findings.append(finding)
            if options.database is not None:
                options.database.save(DATABASE_KEY, seed.encode())
                stats.saved.append(seed.encode())


def _alone(built, verdict: judge.Verdict, options: Options, work: Path | None):
    """The verdict of `verdict`'s folder judged alone (that folder only, in a model of its
    own), when it is still a finding; else None."""
    assert work is not None, "run() sets it"
    folder = verdict.folder
    one = replace(built, folders={folder: built.folders[folder]},
                  cases={folder: built.cases[folder]})
    again = judge.run([one], [verdict.backend], work / "alone", options.jobs, options.timeout)
    return next(iter(judge.findings_of(again.get(built.case.name, []), options.errors)), None)


def batch_size(specs: list[str], index: int) -> int:
    """Programs in batch `index` (from 0) of a campaign on `specs`: BATCH, doubling batch by
    batch, when a backend is judged by verify's workers, up to PACKS_PER_BATCH times BATCH or
    times the largest `pack` of their runtimes' records, whichever is more (whatever --pack
    says, so campaigns packed and not draw the same programs; a fresh refusal profile still
    learns from the small first batches). A verify run's fixed costs are paid once a batch:
    loading the runtime, and a program that hangs holding one worker while the others go on
    with the batch."""
    if all(inprocess.handles(s) for s in specs):
        return BATCH
    largest = PACKS_PER_BATCH * max(BATCH, *(pack_size(s) for s in specs))
    return max(BATCH, min(largest, BATCH << min(index, 16)))


def _draw(seeds, options: Options, stats: Stats, size: int = BATCH,
          deadline: float | None = None):
    """The next batch of valid programs: (seed, recipe, built); None when none are left. At
    `deadline` (time.monotonic) the batch ends with what it has: a profile that refuses
    nearly everything avoids nearly every seed, and seeds have no end under --time-budget."""
    batch: list[tuple[Any, Recipe, Any]] = []
    profile = options.profile if options.refusal_aware else None
    refused = profile.refused_set() if profile is not None else set()
    within = Within.of(refused)
    if profile is not None:  # refused pairs: checked (_holds), not left out of the draw
        refused |= profile.refused_pair_set()
    for seed in seeds:
        if deadline is not None and time.monotonic() >= deadline:
            break
        drawn = _drawn(seed, options, stats, refused, within, f"fuzz_{len(batch)}")
        if drawn is None:
            continue
        seed, recipe, case = drawn
        built = judge.build(case)
        if built.problem:
            stats.invalid += 1
            stats.invalid_examples.append(f"seed {seed}: {built.problem}")
            continue
        stats.valid += 1
        batch.append((seed, recipe, built))
        if len(batch) >= size:
            break
    return batch or None


def _drawn(seed: str, options: Options, stats: Stats, refused: set, within: Within,
           name: str):
    """(seed text, recipe, case) of the program of `seed`, or None (no spec result, or
    avoided). With refused features, the draw stays `within` what no backend refuses
    (programs.generate leaves out their choices; the seed text says the space:
    Within.seed_text), and a program still holding one is drawn again from `seed~1`,
    `seed~2`, ... (profile.REDRAWS tries in all), and dropped as avoided when every try holds
    one. A re-probe (profile.reprobe) is drawn within the space but for one refused feature
    (profile.probed) and kept whatever it holds; a seed replayed from the database is drawn
    as its text says."""
    replayed = isinstance(seed, Replayed)
    probe = bool(refused) and not replayed and options.profile is not None and reprobe(
        seed, options.profile.share)
    stats.reprobes += probe
    space = within.but(probed(seed, refused)) if probe else within
    free = not refused or replayed or probe
    prefer = run_opset(seed) if not replayed and _opset_runs(options.specs) else None
    for attempt in range(1 if free else REDRAWS):
        text = f"{seed}~{attempt}" if attempt else seed
        text = text if replayed else space.seed_text(preferring(text, prefer))
        stats.generated += 1
        try:
            recipe = generate(text, options.operators or None, options.opsets or None)
            case = to_case(recipe, name)
        except NoResult:
            stats.no_result += 1
            continue
        if free or not _holds(case, refused):
            return text, recipe, case
    if not free:
        stats.avoided += 1
    return None


def _holds(case, refused: set) -> bool:
    """Whether a form of `case` holds a refused feature or pair of features (`A & B`, of the
    features of that form, as the profile learns them): the case as written first, its
    tensor-boundary variants (derived: dearer) only when it holds none."""
    return _refused_in(features([(SUITE, case)]), refused) or _refused_in(
        features([(SuiteForm.TENSOR_BOUNDARY.folder, v) for v in derive(case).variants]),
        refused)


def _refused_in(held: set[str], refused: set) -> bool:
    """Whether the features `held` (one form's) hold one of `refused`, or a pair of it."""
    return bool(refused & held) or (any(AND in f for f in refused)
                                    and bool(refused & set(combinations(held))))


def _count(stats: Stats, verdicts: list) -> None:
    for verdict in verdicts:
        forms = stats.runs.setdefault(verdict.backend, {})
        forms.setdefault(verdict.form, Counter())[verdict.outcome] += 1


def _shrunk(seed: str, recipe, verdict: judge.Verdict, options: Options, work: Path | None,
            start: float):
    found_at = time.monotonic() - start
    before = shrink.size(recipe)[0]
    began = time.monotonic()
    small, small_verdict, _ = shrink.shrink(recipe, verdict, work, jobs=options.jobs,
                                            timeout=options.timeout,
                                            budget=options.shrink_budget, errors=options.errors)
    took = time.monotonic() - began
    case = to_case(small, "x")
    operators = list(case.operators)
    elements = sorted({innermost(d.type).element.name
                       for d in (*case.graph.inputs, *case.graph.outputs)})
    signature = (f"{verdict.backend}:{verdict.outcome}:{verdict.kind()}:{'+'.join(operators)}:"
                 f"{'+'.join(elements)}")
    name = "fuzz_" + file_stem(signature)
    first = small_verdict.message.split("\n", 1)[0]
    doc = (f"Found by gen-seq-tests fuzz: on backend {verdict.backend} "
           f"({small_verdict.form} form) the outcome was {small_verdict.outcome}: {first}. "
           f"Program seed {seed!r}; reproduce with: {options.reproduce}")
    finding = Finding(verdict.backend, signature, verdict.outcome, verdict.kind(),
                      small_verdict.form, operators, before, shrink.size(small)[0],
                      round(found_at, 3), round(took, 3), seed, first)
    return finding, to_case(small, name, doc)


def _write(finding: Finding, case, options: Options, stats: Stats) -> None:
    """Write a new finding's case file into --output, if given. When the disk refuses it, the
    case text is kept in `stats.unwritten` (the command writes it elsewhere at the end)."""
    if options.output is None:
        return
    try:
        finding.file = write(options.output, case, finding.signature, options.reproduce).name
    except FindingError as error:
        finding.note = str(error)
    except OSError as error:
        finding.note = f"not written to {options.output}: {error.strerror or error}"
        stats.unwritten[f"{file_stem(finding.signature)}.yaml"] = case_text(
            case, finding.signature, options.reproduce)
