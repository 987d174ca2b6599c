"""`gen-seq-tests verify` on runtimes that crash and hang, side by side with healthy runs, in one
run of this script:

  onnxruntime   the suite (or its first --cases cases) on onnxruntime
  crash         the same cases on a runtime that aborts its process on every case
  healthy       the same cases on onnxruntime with --timeout
  hang          the same cases on a runtime that hangs on 5 of them, with --timeout
  fork floor    what the operating system alone charges for the crashes: one fork of this
                process (onnx and onnxruntime loaded, like a worker) that aborts, per case,
                divided by --jobs
  near floor    `gen-seq-tests verify SUITE -b onnxruntime -j 1` against a bare loop over the
                same folders in one process (open a session, decode the .pb files, run; no
                judging, no report), each a fresh process, in --pairs alternating pairs: the
                median of the ratios

Targets: crash <= 3 x onnxruntime; hang <= healthy + 5 x timeout + 2 s; near floor <= 1.3
(always on the whole --suite). Every other run is a `verify(...)` call in this process (what
the CLI does), after one warm-up call that starts the worker fork server (reported apart: every
CLI run pays it once). With --repeat N the pairs run N times, alternating, and the medians are
compared (the machine is shared: timings are noisy).

    python benchmarks/bench_verify.py [--suite generated] [--cases 0 (all)] [--jobs 2]
                                      [--timeout 2] [--repeat 1] [--pairs 5] [--floor-only]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
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


def bare_loop(suite: Path) -> None:
    """The floor: every case folder under `suite` on onnxruntime in this process, nothing
    judged: load the model, open a session, decode each data set's .pb files by the graph's
    types, run."""
    import onnx
    import onnxruntime

    onnxruntime.set_default_logger_severity(4)
    for model_path in sorted(suite.rglob("model.onnx")):
        _run_folder(model_path.parent, onnx.load(str(model_path)))


def _run_folder(folder: Path, model) -> None:
    """One case folder of the floor. Its session is released on return: a session kept alive
    while the next one is made (`rep` left over from the last loop turn) costs onnxruntime
    about twice the time."""
    import onnxruntime.backend

    try:
        rep = onnxruntime.backend.prepare(model, "CPU")
    except Exception:  # refused: nothing to run
        return
    for data_set in sorted(folder.glob("test_data_set_*")):
        inputs = [_decode((data_set / f"input_{j}.pb").read_bytes(), value.type)
                  for j, value in enumerate(model.graph.input)]
        for j, value in enumerate(model.graph.output):
            _decode((data_set / f"output_{j}.pb").read_bytes(), value.type)
        try:
            rep.run(inputs)
        except Exception:  # an error: the floor does not judge it
            pass


def _decode(data: bytes, type_proto):
    """A .pb file's value by its graph type, with onnx's own numpy_helper."""
    import onnx
    from onnx import numpy_helper

    kind = type_proto.WhichOneof("value")
    proto = {"tensor_type": onnx.TensorProto, "sequence_type": onnx.SequenceProto}.get(
        kind, onnx.OptionalProto)()
    proto.ParseFromString(data)
    if kind == "tensor_type":
        return numpy_helper.to_array(proto)
    if kind == "sequence_type":
        return numpy_helper.to_list(proto)
    return numpy_helper.to_optional(proto) if proto.elem_type else None


def near_floor(suite: Path, pairs: int) -> float:
    """The median ratio of `verify -j 1` on onnxruntime to the bare loop, each a fresh
    process, over `pairs` alternating pairs; prints each pair."""
    cli = Path(sys.executable).parent / "gen-seq-tests"
    commands = {"verify -j 1": [str(cli), "verify", str(suite), "-b", "onnxruntime", "-j", "1",
                                "--no-progress"],
                "bare loop": [sys.executable, __file__, "--bare-loop", "--suite", str(suite)]}
    ratios = []
    for k in range(pairs):
        seconds = {}
        for label in (list(commands) if k % 2 == 0 else list(commands)[::-1]):
            start = time.perf_counter()
            subprocess.run(commands[label], stdout=subprocess.DEVNULL, check=False)
            seconds[label] = time.perf_counter() - start
        ratios.append(seconds["verify -j 1"] / seconds["bare loop"])
        print(f"{'near floor':12} verify -j 1 {seconds['verify -j 1']:.2f} s, bare loop "
              f"{seconds['bare loop']:.2f} s: {ratios[-1]:.2f}", flush=True)
    ratio = statistics.median(ratios)
    print(f"near floor: verify -j 1 / bare loop = {ratio:.2f} (median of {pairs} alternating "
          f"pairs, {min(ratios):.2f}-{max(ratios):.2f}; target <= 1.3, "
          f"{'met' if ratio <= 1.3 else 'MISSED'})", flush=True)
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", type=Path, default=ROOT / "generated")
    parser.add_argument("--cases", type=int, default=0, help="first N cases only (0: all)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=2.0)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--pairs", type=int, default=5, help="alternating pairs, near floor")
    parser.add_argument("--floor-only", action="store_true", help="the near-floor line only")
    parser.add_argument("--bare-loop", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare_loop:
        return bare_loop(args.suite)
    if args.floor_only:
        near_floor(args.suite, args.pairs)
        return
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
    near_floor(args.suite, args.pairs)


if __name__ == "__main__":
    main()
