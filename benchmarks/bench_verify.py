"""`gen-seq-tests verify` on runtimes that crash and hang, side by side with healthy runs, in one
run of this script:

  onnxruntime   the suite (or its first --cases cases) on onnxruntime
  crash         the same cases on a runtime that aborts its process on every case
  healthy       the same cases on onnxruntime with --timeout
  hang          the same cases on a runtime that hangs on 5 of them, with --timeout
  fork floor    what the operating system alone charges for the crashes: one fork of this
                process (onnx and onnxruntime loaded, like a worker) that aborts, per case,
                divided by --jobs

Targets: crash <= 3 x onnxruntime; hang <= healthy + 5 x timeout + 2 s. Every run is a
`verify(...)` call in this process (what the CLI does), after one warm-up call that starts the
worker fork server (reported apart: every CLI run pays it once). With --repeat N the pairs run
N times, alternating, and the medians are compared (the machine is shared: timings are noisy).

    python benchmarks/bench_verify.py [--suite generated] [--cases 0 (all)] [--jobs 2]
                                      [--timeout 2] [--repeat 1]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))  # faulty_runtime, for the workers too

from onnx_seq_tests._verify.verifier import find_cases, verify  # noqa: E402

HANGS = 5


def timed(label: str, specs: list[str], cases, jobs: int, timeout: float | None) -> float:
    start = time.perf_counter()
    results = verify(None, specs, cases=cases, jobs=jobs, timeout=timeout)
    seconds = time.perf_counter() - start
    outcomes = {o: sum(r.outcome == o for r in results) for o in ("pass", "fail", "error")}
    print(f"{label:12} {seconds:8.2f} s  {len(results)} results: {outcomes}", flush=True)
    return seconds


def fork_floor(count: int, jobs: int) -> float:
    """Seconds for `count` fork-and-abort of this process, divided by `jobs`."""
    import onnxruntime.backend  # noqa: F401  the size of a worker

    start = time.perf_counter()
    for _ in range(count):
        pid = os.fork()
        if pid == 0:
            os.abort()
        os.waitpid(pid, 0)
    return (time.perf_counter() - start) / jobs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", type=Path, default=ROOT / "generated")
    parser.add_argument("--cases", type=int, default=0, help="first N cases only (0: all)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=2.0)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    cases = find_cases(args.suite)
    cases = cases[:args.cases] if args.cases else cases
    hang = [c.name for c in cases[::max(1, len(cases) // HANGS)][:HANGS]]
    os.environ["BENCH_HANG_CASES"] = ",".join(hang)  # before the fork server starts
    print(f"{len(cases)} cases of {args.suite.name}, -j {args.jobs}; "
          f"{len(hang)} hang: {', '.join(hang)}")
    start = time.perf_counter()
    verify(None, ["onnxruntime"], cases=cases[:1], jobs=1)
    print(f"{'warm-up':12} {time.perf_counter() - start:8.2f} s  (fork server start, once)")
    runs: dict[str, list[float]] = {"onnxruntime": [], "crash": [], "healthy": [], "hang": [],
                                    "fork floor": []}
    for _ in range(args.repeat):
        runs["onnxruntime"].append(timed("onnxruntime", ["onnxruntime"], cases, args.jobs, None))
        runs["crash"].append(timed("crash", ["faulty_runtime:CrashEveryCase"], cases, args.jobs,
                                   None))
        runs["healthy"].append(timed("healthy", ["onnxruntime"], cases, args.jobs,
                                     args.timeout))
        runs["hang"].append(timed("hang", ["faulty_runtime:HangOnSome"], cases, args.jobs,
                                  args.timeout))
        runs["fork floor"].append(fork_floor(len(cases), args.jobs))
        print(f"{'fork floor':12} {runs['fork floor'][-1]:8.2f} s", flush=True)
    healthy, crash, timed_healthy, hung, floor = (statistics.median(runs[k]) for k in runs)
    if args.repeat > 1:
        print("medians: " + ", ".join(f"{k} {statistics.median(v):.2f} s"
                                      for k, v in runs.items()))
    limit = timed_healthy + HANGS * args.timeout + 2
    print(f"crash / onnxruntime = {crash / healthy:.2f} (target <= 3; the fork floor alone "
          f"is {floor / healthy:.2f}); "
          f"hang = {hung:.2f} s against healthy + {HANGS} x {args.timeout:g} s + 2 s = "
          f"{limit:.2f} s ({'met' if hung <= limit else 'MISSED'})")


if __name__ == "__main__":
    main()
