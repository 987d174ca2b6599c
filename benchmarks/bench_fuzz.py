"""Fuzz speed, side by side in one run:

  generate    valid programs/s drawn and turned into cases (oracle expectations), no build
  build       valid programs/s drawn and compiled in both forms (full check, strict inference,
              IR checks, oracle check): what every judged program costs before it runs
  oracle      valid programs/s drawn, built and judged on the spec oracle (both forms), in
              this process (`-b oracle`: no worker, no file), by a campaign (campaign.run,
              --max-findings 0: nothing shrunk)
  oracle-workers the same through verify's worker processes (the oracle as a `module:attr`
              backend, files written), -j 1: what `-b oracle` cost before it ran in-process
  mutants     the same judged on every mutant of the catalogue in this process (121 operator
              tables per program, as `gen-seq-tests mutation --fuzz` does before kills thin them)
  onnxruntime the same, on onnxruntime (verify's worker processes), -j 1: drawing and building
              the next batch overlap the worker's runs of this one (the campaign's pipeline)
  overlap     the onnxruntime campaign with its pipeline and without (Options.pipeline=False:
              one batch after another, as before), in alternating pairs, medians
  cpu         CPU ms per valid program and stage (process time: the load changes it far less
              than wall time, though shared caches still do): the parent's generate, build,
              write, and the worker's read and prepare+run+compare on onnxruntime
              (worker_main's own functions); then the rates a CPU-bound run would reach
  three-way   the same on oracle + onnxruntime + reference, with every disagreement listed
              by backend and kind (the judge's proof at scale; see tests/test_fuzzer.py for the
              classification of each)
  refusal     (--refusal SECONDS -b SPEC ...) per backend, a campaign of SECONDS drawing freely
              and one drawing refusal-aware (--refusal-aware, a fresh profile), same seed (with
              --primed, a third starting from the profile the second learned, as --profile): valid
              programs/s, the share of verdicts not refused per form (as written / tensor form)
              and accepted programs/s; nothing shrunk; with --pack N, instead: the
              refusal-aware campaign, then from its profile one campaign with one program per
              compiled model and one with N (0: the runtime's default; packing.py; --pack
              again for more sizes), side by side, with what the packs cost (models, their
              outcomes, packs halved, refusals located at their node, fails told by their
              pack, folders run again alone, verify runs, the pairs of features learned to
              end packs); each
              line counts its timeouts (--timeout SECONDS per program, default 20 as fuzz's:
              a program that hangs costs a campaign that much)
  faults      per planted fault of tests/faulty_backends.py: seconds to the first finding and
              to its shrunk case (`fuzz -b faulty_backends:X --max-findings 1`)

Targets: >= 100 valid programs/s per core on the oracle, >= 50 on onnxruntime; a finding shrunk
in under 10 s. Programs per second are per core: the runs use one worker process (-j 1), and
the parent (drawing and building) and the worker share the machine's cores.

    python benchmarks/bench_fuzz.py [--programs 400] [--three-way 1000] [--seed 0] [--skip-faults]
    python benchmarks/bench_fuzz.py --refusal 90 -b onnxruntime -b tvm -b iree [--op OP] [--primed]
    python benchmarks/bench_fuzz.py --refusal 90 -b tvm -b iree --pack 0 [--pack 16] [-j 2]
        [--timeout 3] [--profile FILE]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # faulty_backends

from onnx_seq_tests._core.errors import NoResult  # noqa: E402
from onnx_seq_tests._fuzz import judge  # noqa: E402
from onnx_seq_tests._fuzz.campaign import BATCH, Options, program_seed, run  # noqa: E402
from onnx_seq_tests._fuzz.known_bugs import classify  # noqa: E402
from onnx_seq_tests._fuzz.programs import generate  # noqa: E402
from onnx_seq_tests._fuzz.recipes import to_case  # noqa: E402


def draw(count: int, seed: int, build: bool):
    cases, started = [], time.perf_counter()
    for i in range(count):
        try:
            case = to_case(generate(program_seed(seed, i)), f"p{i}")
        except NoResult:
            continue
        cases.append(judge.build(case) if build else case)
    return cases, time.perf_counter() - started


def judged(count: int, seed: int, specs: list[str]):
    """Draw, build and judge one batch after another (judge.run, no overlap)."""
    started = time.perf_counter()
    built, _ = draw(count, seed, True)
    work = Path(tempfile.mkdtemp(prefix="bench-fuzz-", dir=judge.scratch_root())) / "suite"
    verdicts = {}
    for k in range(0, len(built), BATCH):
        verdicts.update(judge.run(built[k:k + BATCH], specs, work, jobs=1, timeout=20.0))
    return built, verdicts, time.perf_counter() - started


def campaign(count: int, seed: int, specs: list[str], pipeline: bool = True):
    """A campaign of `count` programs (the same ones draw gives), nothing shrunk: valid
    programs per second, the outcomes, and valid programs per CPU-second of this process."""
    began = time.process_time()
    stats = run(Options(specs, seed=seed, max_examples=count, max_findings=0, timeout=20.0,
                        pipeline=pipeline))
    cpu_seconds = time.process_time() - began  # this process's threads (not the workers)
    outcomes = Counter()
    for forms in stats.runs.values():
        for counter in forms.values():
            outcomes.update(counter)
    return stats.valid / stats.seconds, outcomes, stats.valid / cpu_seconds


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def overlap(count: int, seed: int, rounds: int = 3) -> None:
    """The same onnxruntime campaign with and without the pipeline, in alternating pairs (the
    load of a shared machine drifts; a pair sees about the same)."""
    rates = {True: [], False: []}
    for k in range(rounds):
        for pipeline in (True, False) if k % 2 == 0 else (False, True):
            rates[pipeline].append(campaign(count, seed, ["onnxruntime"], pipeline)[0])
    ratios = sorted(a / b for a, b in zip(rates[True], rates[False], strict=True))
    print(f"overlap        onnxruntime pipelined {statistics.median(rates[True]):5.1f}, one batch "
          f"after another {statistics.median(rates[False]):5.1f} valid programs/s (medians of "
          f"{rounds} pairs; pipelined/serial {statistics.median(ratios):.2f}; {load()})")


def cpu(count: int, seed: int) -> None:
    """CPU milliseconds per valid program and stage (time.process_time, which the load changes
    far less than wall time): the parent's drawing, building and writing, and what verify's
    worker does per program on onnxruntime (its own functions, run in this process)."""
    from onnx_seq_tests._run import worker_main
    from onnx_seq_tests._runtimes.backends import load_backend

    clock = time.process_time
    began, cases = clock(), []
    for i in range(count):
        try:
            cases.append(to_case(generate(program_seed(seed, i)), f"p{i}"))
        except NoResult:
            continue
    generating, began = clock() - began, clock()
    built = [judge.build(case) for case in cases]
    building, began = clock() - began, clock()
    work = Path(tempfile.mkdtemp(prefix="bench-fuzz-", dir=judge.scratch_root()))
    paths = []
    for item in built:
        for folder, (form, files) in item.folders.items():
            for relative, data in files.items():
                (work / form / folder / relative).parent.mkdir(parents=True, exist_ok=True)
                (work / form / folder / relative).write_bytes(data)
            paths.append(work / form / folder)
    writing = clock() - began
    import onnxruntime

    onnxruntime.set_default_logger_severity(4)  # as the worker does: refusals are outcomes
    backend = load_backend("onnxruntime")
    for path in paths[:4]:  # warm
        worker_main.run_on(worker_main.read(path)[0], backend)
    reading = running = 0.0
    for path in paths:
        began = clock()
        folder, _ = worker_main.read(path)
        reading, began = reading + clock() - began, clock()
        worker_main.run_on(folder, backend)
        running += clock() - began
    shutil.rmtree(work)
    n = len(built)
    print(f"cpu ms/program generate {1000 * generating / n:.2f}, build {1000 * building / n:.2f}, "
          f"write {1000 * writing / n:.2f} (parent); onnxruntime worker: read "
          f"{1000 * reading / n:.2f}, prepare+run+compare {1000 * running / n:.2f} "
          f"({len(paths) / n:.2f} folders/program; {load()})")
    parent = generating + building + writing
    worker = reading + running
    print(f"cpu-bound      onnxruntime {n / (parent + worker):5.1f} valid programs per CPU-second "
          f"(parent and worker together), {n / max(parent, worker):5.1f}/s with the parent and "
          f"the worker on a core each (the pipeline: the slower decides); verify's per-batch "
          f"start and messages not counted")


def throughput(n: int, seed: int) -> None:
    """The per-stage lines: valid programs/s generated, built and judged, and the overlap."""
    cases, seconds = draw(n, seed, False)
    print(f"generate     {len(cases) / seconds:8.1f} valid programs/s  ({len(cases)} of {n} "
          f"drawn have a spec result; {load()})")
    built, seconds = draw(n, seed, True)
    invalid = sum(1 for b in built if b.problem)
    print(f"build        {len(built) / seconds:8.1f} valid programs/s  ({invalid} invalid, "
          f"validity {100 * (len(built) - invalid) / max(1, len(built)):.1f}%; {load()})")
    from onnx_seq_tests._fuzz.oracle_backend import SPEC as ORACLE_WORKERS
    from onnx_seq_tests._oracle.mutants import CATALOGUE

    every = [f"mutant:{m.name}" for m in CATALOGUE]
    for spec in ("oracle", ORACLE_WORKERS, "mutants", "onnxruntime"):
        label = {ORACLE_WORKERS: "oracle-workers"}.get(spec, spec)
        rate, outcomes, per_cpu = campaign(n, seed, every if spec == "mutants" else [spec])
        print(f"{label:14s} {rate:8.1f} valid programs/s  (both forms; "
              f"{dict(sorted(outcomes.items()))}; {load()}; {per_cpu:.0f} per CPU-second of "
              f"this process{'' if spec in ('oracle', 'mutants') else ', workers not counted'})")
    overlap(n, seed)
    cpu(n, seed)


def refusal(specs: list[str], seconds: float, seed: int, operators: tuple[str, ...],
            primed: bool = False, packs: list[int] = (), jobs: int = 1,
            timeout: float = 20.0, profile: Path | None = None) -> None:
    """Per backend, a free campaign and a refusal-aware one of `seconds` each, same seed; with
    `primed`, a third one starting from the profile the refusal-aware one learned; with
    `packs`, instead: the refusal-aware one, then from its profile one campaign with one
    program per model and one with N programs per model for each N of `packs` (0: the
    runtime's default); with `profile` (a file `fuzz --profile` wrote), no refusal-aware
    campaign: the others start from that profile (the same programs for any code)."""
    import json

    from onnx_seq_tests._fuzz.packing import pack_size
    from onnx_seq_tests._fuzz.profile import Profile

    runs = [(label, 1) for label in ["free", "aware", "primed"][:3 if primed else 2]]
    if packs:  # (label, --pack N: 0 is the runtime's default)
        runs = [("aware", 1), ("primed", 1), *(("packed", n) for n in packs)]
    given = json.loads(profile.read_text(encoding="utf-8")) if profile else None
    if given is not None:
        runs = [r for r in runs if r[0] not in ("free", "aware")]
    for spec in specs:
        learned, outcomes = given, {}
        for label, pack in runs:
            # primed, packed: refusal-aware from the profile the aware run learned (--profile)
            size = pack or pack_size(spec)
            options = Options([spec], seed=seed, max_examples=10**12, time_budget=seconds,
                              jobs=jobs, max_findings=0, operators=operators, timeout=timeout,
                              profile=Profile.from_json(learned) if learned else Profile(),
                              refusal_aware=label != "free", pack=size)
            stats = run(options)
            if label == "aware":
                learned = options.profile.as_json()
                print("    refused: " + ", ".join(options.profile.refused(spec)), flush=True)
            _refusal_line(spec, f"{label} x{size}" if packs else label, stats, options)
            outcomes[label, size] = stats.runs
        for label, size in outcomes if packs else ():  # the same programs: the same verdicts
            if label == "packed":
                same = outcomes["primed", 1] == outcomes[label, size]
                print(f"    one program per model and packed x{size}: "
                      f"{'the same' if same else 'OTHER'} outcomes per form", flush=True)


def _refusal_line(spec: str, label: str, stats, options: Options) -> None:
    """One campaign's line: valid programs/s, the share accepted per form and accepted
    programs/s; what its packs cost when it packed."""
    from onnx_seq_tests._suite.layout import SUITE

    rate = stats.valid / stats.seconds
    parts = []
    for form, counts in sorted(stats.runs.get(spec, {}).items()):
        total = sum(counts.values())
        share = (total - counts["refused"]) / total if total else 0.0
        parts.append(f"{'as written' if form == SUITE else 'tensor form'} "
                     f"{100 * share:5.1f}% ({rate * share:5.1f}/s)")
    refused = len(options.profile.refused(spec))
    timeouts = sum(c["timeout"] for c in stats.runs.get(spec, {}).values())
    print(f"refusal {spec:12s} {label:10s} {rate:6.1f} valid "
          f"programs/s, {stats.valid} in {stats.seconds:.0f} s ({stats.generated} drawn); "
          f"accepted: "
          f"{'; '.join(parts) or 'none judged'}; {stats.avoided} avoided, "
          f"{refused} refused feature(s); {timeouts} timeout(s) of {options.timeout:g} s; "
          f"{load()}", flush=True)
    if stats.packing:
        tally = stats.packing
        outcomes = ", ".join(f"{k.split()[1]} {v}" for k, v in sorted(tally.items())
                             if k.startswith("pack "))
        located = sum(v for k, v in tally.items() if k.endswith(" packed located"))
        print(f"    packs: {tally['packs']} models holding {tally['packed']} folders "
              f"({outcomes}); {tally['halved']} halved; {located} refusals located at their "
              f"node; {tally['told']} fails told by their pack; {tally['alone']} folders run "
              f"alone ({tally['again']} after their pack); {tally['rounds']} verify runs; "
              f"{len(options.profile.learned_pairs(spec))} pairs of features end packs",
              flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", type=int, default=400)
    parser.add_argument("--three-way", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-faults", action="store_true")
    parser.add_argument("--refusal", type=float, metavar="SECONDS",
                        help="only the refusal mode: SECONDS per campaign and backend")
    parser.add_argument("-b", "--backend", dest="backends", action="append", default=[])
    parser.add_argument("--op", dest="operators", action="append", default=[])
    parser.add_argument("--primed", action="store_true",
                        help="with --refusal: a third campaign from the learned profile")
    parser.add_argument("-j", "--jobs", type=int, default=1,
                        help="with --refusal: verify's worker processes per campaign")
    parser.add_argument("--pack", type=int, metavar="N", dest="packs", action="append",
                        default=[],
                        help="with --refusal: from the learned profile, one program per model "
                             "and N per model (0: the runtime's default), side by side; "
                             "repeat for several N")
    parser.add_argument("--timeout", type=float, default=20.0, metavar="SECONDS",
                        help="with --refusal: seconds per program (fuzz --timeout; default 20)")
    parser.add_argument("--profile", type=Path, metavar="FILE",
                        help="with --refusal: start from this refusal profile (fuzz --profile "
                             "wrote it) instead of learning one: the same programs for any "
                             "code, so runs of two versions compare")
    args = parser.parse_args()
    if args.refusal:
        # no compiled module cached between campaigns (IREE's cache): each pays its compiles
        os.environ.setdefault("ONNX_SEQ_TESTS_CACHE", "none")
        refusal(args.backends or ["onnxruntime"], args.refusal, args.seed,
                tuple(args.operators), args.primed, args.packs, args.jobs, args.timeout,
                args.profile)
        return
    if args.programs:
        throughput(args.programs, args.seed)

    if args.three_way:
        built, verdicts, seconds = judged(args.three_way, args.seed + 1,
                                          ["oracle", "onnxruntime", "reference"])
        outcomes = Counter((v.backend, v.outcome) for vs in verdicts.values() for v in vs)
        kinds = Counter((v.backend, v.outcome, v.kind()) for vs in verdicts.values() for v in vs
                        if v.outcome not in ("pass",))
        print(f"three-way    {len(built) / seconds:8.1f} valid programs/s  ({len(built)} "
              f"programs, both forms, 3 backends)")
        for key, count in sorted(outcomes.items()):
            print(f"    {key[0]:12s} {key[1]:8s} {count}")
        for key, count in sorted(kinds.items()):
            print(f"    not passed: {key[0]:12s} {key[1]:8s} {key[2]:20s} {count}")
        explained, unexplained = classify(built, verdicts)  # wrong answers and errors
        for (backend, title), count in sorted(explained.items()):
            print(f"    explained:  {backend:12s} {count:5d}  {title}")
        print(f"    unexplained: {len(unexplained)}")
        for line in unexplained:
            print(f"      {line}")

    if args.skip_faults:
        return
    from faulty_backends import FAULTS

    for fault in FAULTS:
        spec = f"faulty_backends:{fault.__name__}"
        stats = run(Options([spec], seed=2, max_examples=200, max_findings=1,
                            shrink_budget=30.0))
        if not stats.findings:
            print(f"fault {fault.__name__:18s} not found in 200 programs")
            continue
        f = stats.findings[0]
        print(f"fault {fault.__name__:18s} first finding {f.seconds_to_find:6.1f} s, shrunk in "
              f"{f.seconds_to_shrink:5.1f} s, nodes {f.nodes_before} -> {f.nodes_after} "
              f"({f.signature})")


if __name__ == "__main__":
    main()
