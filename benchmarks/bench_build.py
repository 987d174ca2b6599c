"""Build speed, side by side in one run:

  onnx      onnx's own in-memory construction of its node cases, `load_model_tests(kind="node")`
            (models and data built in memory, no files written)
  cold      `gen-seq-tests build` of the whole suite into an empty folder, files included
  cold -jN  the same in N processes
  no-op     the same build again, nothing changed
  floor     a plain loop writing the same files (makedirs, open, write): what the file system
            alone costs, to read the cold figure against

Each measurement runs in a fresh Python process, so no cache of an earlier run helps it; the
imports are done before the clock starts, for onnx and for us alike. The median of --repeat runs
is reported. Targets: cold per case <= onnx per case (ratio <= 1.0, aim 0.5); no-op <= 10% of
cold. `--phases` adds where a cold build's time goes, measured in one process.

`--versus-cp N` instead measures a cold `build` (a whole process, as a user types it) side by
side with `cp -a` of the tree it writes, in N alternating pairs (which goes first alternates),
and prints each pair and the median ratio. Target: cold build <= 1.15 x `cp -a` (the build
compiles in worker processes while it writes, so it costs about what writing costs).

Whole processes, imports included, as a user types them (`python -m onnx_seq_tests ...`):
cold `build`, no-op `build`, no-op `build --check`, `--help` and `--version`. Target: a no-op
`build` and `build --check` at most 15% of a cold build (they decide "nothing to do" from file
hashes and the manifest, without importing onnx).

    python benchmarks/bench_build.py [--cases cases] [--dir TMP] [--repeat 3] [--jobs 2]
    python benchmarks/bench_build.py --versus-cp 5
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

ONNX = """
import json, sys, time, warnings
warnings.simplefilter("ignore")
import numpy
numpy.seterr(all="ignore")
from onnx.backend.test.loader import load_model_tests
start = time.perf_counter()
cases = load_model_tests(kind="node")
print(json.dumps({"seconds": time.perf_counter() - start, "cases": len(cases)}))
"""

OURS = """
import json, sys, time
from pathlib import Path
from onnx_seq_tests._suite.build import build
cases, out, jobs = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
start = time.perf_counter()
report = build([cases], out, jobs=jobs)
print(json.dumps({"seconds": time.perf_counter() - start, "cases": report.cases,
                  "changed": report.changed}))
"""

FLOOR = """
import json, os, sys, time
source, out = sys.argv[1], sys.argv[2]
files = {}
for folder, _, names in os.walk(source):
    for name in names:
        path = os.path.join(folder, name)
        with open(path, "rb") as f:
            files[os.path.relpath(path, source)] = f.read()
cases = len(json.load(open(os.path.join(source, "manifest.json")))["cases"])
start = time.perf_counter()
for relative, data in sorted(files.items()):
    path = os.path.join(out, relative)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
print(json.dumps({"seconds": time.perf_counter() - start, "cases": cases}))
"""

PHASES = """
import json, sys, time
from pathlib import Path
from onnx_seq_tests._casefile import reader as casefile
from onnx_seq_tests._core import expectations
from onnx_seq_tests._suite.compiling import fingerprint
from onnx_seq_tests._suite.layout import case_files
from onnx_seq_tests._suite.publish import Stager
from onnx_seq_tests._suite.model import build_model
paths, out = casefile.case_files([Path(sys.argv[1])]), Path(sys.argv[2])
seconds = {}
def timed(name, work):
    start = time.perf_counter()
    result = work()
    seconds[name] = time.perf_counter() - start
    return result
cases = timed("load case files (YAML)",
              lambda: [c for p in paths for c in casefile.load_cases([p])])
timed("fingerprint", lambda: [fingerprint(c) for c in cases])
models = timed("build and validate models", lambda: [build_model(c) for c in cases])
timed("oracle check", lambda: [expectations.check_case(c) for c in cases])
files = timed("encode files", lambda: [case_files(c, m) for c, m in zip(cases, models)])
def write():
    stager = Stager(out)
    for case, mine in zip(cases, files):
        for relative, data in mine.items():
            stager.write(f"{case.folder}/{relative}", data)
timed("write files", write)
print(json.dumps({"cases": len(cases), "seconds": seconds}))
"""


def run(code: str, *args) -> dict:
    result = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True,
                            text=True, check=True, cwd=ROOT)
    return json.loads(result.stdout.strip().splitlines()[-1])


def wall(*args) -> dict:
    """The wall time of one whole `python -m onnx_seq_tests ARGS` process."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "onnx_seq_tests", *map(str, args)], check=True,
                   capture_output=True, cwd=ROOT)
    return {"seconds": time.perf_counter() - start, "cases": 1}


def versus_cp(cases: Path, base: Path, pairs: int) -> None:
    """Cold builds and `cp -a` of the built tree, alternating, in fresh processes.

    On a shared disk one run can take ten times another, so besides the median of the pairs'
    ratios it prints the best-of-N ratio (the least disturbed build against the least
    disturbed copy), the CPU-second ratio, and how much the copies alone varied."""
    reference = base / "reference"
    subprocess.run([sys.executable, "-m", "onnx_seq_tests", "build", cases, "-o", reference],
                   check=True, capture_output=True, cwd=ROOT)
    builds, copies = [], []
    print(f"{'pair':>4} {'cold build s':>13} {'cp -a s':>9} {'ratio':>7}   "
          f"{'CPU s: build (user+sys)':>24} {'cp -a (user+sys)':>17} {'ratio':>6}")
    for i in range(pairs):
        out, copy = base / f"cold-{i}", base / f"copy-{i}"

        def build_it(out=out):
            return timed([sys.executable, "-m", "onnx_seq_tests", "build", cases, "-o", out])

        def copy_it(copy=copy):
            return timed(["cp", "-a", reference, copy])

        if i % 2:
            copied, built = copy_it(), build_it()
        else:
            built, copied = build_it(), copy_it()
        builds.append(built)
        copies.append(copied)
        print(f"{i + 1:>4} {built[0]:>13.2f} {copied[0]:>9.2f} {built[0] / copied[0]:>7.2f}   "
              f"{built[1] + built[2]:>8.2f} ({built[1]:.2f}+{built[2]:.2f}){'':>5}"
              f"{copied[1] + copied[2]:>6.2f} ({copied[1]:.2f}+{copied[2]:.2f}) "
              f"{(built[1] + built[2]) / (copied[1] + copied[2]):>6.2f}")
        shutil.rmtree(out)
        shutil.rmtree(base / f".{out.name}.build", ignore_errors=True)
        shutil.rmtree(copy)
    ratios = [b[0] / c[0] for b, c in zip(builds, copies, strict=True)]
    cpu_ratios = [(b[1] + b[2]) / (c[1] + c[2]) for b, c in zip(builds, copies, strict=True)]
    ratio = statistics.median(ratios)
    best = min(b[0] for b in builds) / min(c[0] for c in copies)
    print(f"cold build / cp -a of its tree: median {ratio:.2f} of {pairs} alternating pairs "
          f"(range {min(ratios):.2f}-{max(ratios):.2f}; target <= 1.15) "
          f"{'met' if ratio <= 1.15 else 'MISSED'}")
    print(f"best of {pairs}: fastest cold build {min(b[0] for b in builds):.2f} s / fastest "
          f"cp -a {min(c[0] for c in copies):.2f} s = {best:.2f} "
          f"{'met' if best <= 1.15 else 'MISSED'}")
    print(f"CPU seconds (user + system, the processes and their children): median ratio "
          f"{statistics.median(cpu_ratios):.2f} (range {min(cpu_ratios):.2f}-"
          f"{max(cpu_ratios):.2f})")
    spread = max(c[0] for c in copies) / min(c[0] for c in copies)
    print(f"the disk's noise: the slowest cp -a took {spread:.1f} x the fastest "
          f"(above ~1.5 x, read the best-of and CPU figures, not the median)")


def timed(command: list) -> tuple[float, float, float]:
    """Wall seconds, user and system CPU seconds (of it and its children) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime


def median(runs: list[dict]) -> dict:
    middle = statistics.median(r["seconds"] for r in runs)
    return {**runs[0], "seconds": middle}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=Path, default=ROOT / "cases")
    parser.add_argument("--dir", type=Path, default=None,
                        help="build here (default: a new folder in the system's temp folder)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--phases", action="store_true")
    parser.add_argument("--versus-cp", type=int, default=0, metavar="PAIRS")
    options = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="bench-build-", dir=options.dir))
    if options.versus_cp:
        try:
            versus_cp(options.cases.resolve(), base, options.versus_cp)
        finally:
            shutil.rmtree(base, ignore_errors=True)
        return
    try:
        onnx_runs, cold, parallel, noop, floor = [], [], [], [], []
        whole: dict[str, list[dict]] = {}
        for i in range(options.repeat):
            out = base / f"whole-{i}"
            for label, args in (("cold build", ("build", options.cases.resolve(), "-o", out)),
                                ("no-op build", ("build", options.cases.resolve(), "-o", out)),
                                ("no-op build --check",
                                 ("build", "--check", options.cases.resolve(), "-o", out)),
                                ("--help", ("--help",)), ("--version", ("--version",))):
                whole.setdefault(label, []).append(wall(*args))
            onnx_runs.append(run(ONNX))
            out = base / f"cold-{i}"
            cold.append(run(OURS, options.cases.resolve(), out, 1))
            noop.append(run(OURS, options.cases.resolve(), out, 1))
            assert not noop[-1]["changed"], "the second build changed something"
            floor.append(run(FLOOR, out, base / f"floor-{i}"))
            parallel.append(run(OURS, options.cases.resolve(), base / f"parallel-{i}",
                                options.jobs))
        rows = [("onnx load_model_tests(kind='node'), in memory", median(onnx_runs)),
                ("gen-seq-tests build, cold, files written", median(cold)),
                (f"gen-seq-tests build -j {options.jobs}, cold", median(parallel)),
                ("gen-seq-tests build, no-op", median(noop)),
                ("floor: a plain loop writing the same files", median(floor))]
        print(f"{'':48} {'cases':>6} {'total ms':>10} {'ms/case':>9}")
        for label, row in rows:
            print(f"{label:48} {row['cases']:>6} {row['seconds'] * 1e3:>10.1f} "
                  f"{row['seconds'] / row['cases'] * 1e3:>9.3f}")
        per_case = {label: row["seconds"] / row["cases"] for label, row in rows}
        onnx_per_case, cold_per_case = per_case[rows[0][0]], per_case[rows[1][0]]
        ratio = cold_per_case / onnx_per_case
        share = median(noop)["seconds"] / median(cold)["seconds"]
        print(f"cold per case / onnx per case: {ratio:.2f} (target <= 1.0, aim 0.5)"
              f" {'met' if ratio <= 1.0 else 'MISSED'}")
        print(f"no-op / cold: {share:.1%} (target <= 10%) {'met' if share <= 0.10 else 'MISSED'}")
        print(f"(median of {options.repeat} runs, each in a fresh process; built in {base})")
        print("\nwhole processes, `python -m onnx_seq_tests ...`, imports included:")
        cold_process = median(whole["cold build"])["seconds"]
        for label, runs in whole.items():
            seconds = median(runs)["seconds"]
            target = ""
            if label.startswith("no-op"):
                target = (f"  {seconds / cold_process:6.1%} of cold (target <= 15%) "
                          f"{'met' if seconds <= 0.15 * cold_process else 'MISSED'}")
            print(f"  {label:24} {seconds * 1e3:8.0f} ms{target}")
        if options.phases:
            phases = run(PHASES, options.cases.resolve(), base / "phases")
            total = sum(phases["seconds"].values())
            print(f"\nwhere a cold build's time goes ({phases['cases']} cases, one process):")
            for name, seconds in phases["seconds"].items():
                print(f"  {name:28} {seconds * 1e3:8.1f} ms {seconds / phases['cases'] * 1e3:7.3f}"
                      f" ms/case {seconds / total:6.1%}")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
