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
                judging, no report), each a fresh process, in --pairs alternating rounds: the
                median of the ratios, against two loops: onnxruntime's default sessions (the
                floor as first defined) and sessions on one intra-op thread, as verify's
                onnxruntime backend opens them (the same work: only verify's own costs differ)
  phases        where verify's time goes beyond the floor (printed with the near-floor line):
                start-up and ending, as whole processes on one case folder (verify -j 1 and the
                bare loop, medians of --pairs alternating runs), and the work per case over the
                whole suite in this process, in CPU seconds, stage by stage: the floor's load,
                decode (reading the .pb files included), prepare, run beside verify's read,
                case summary, prepare, run, judging; the rest (hand-offs to the worker, the
                parent's results) is the difference

Targets: crash <= 3 x onnxruntime; hang <= healthy + 5 x timeout + 2 s; near floor <= 1.3
(always on the whole --suite). Every other run is a `verify(...)` call in this process (what
the CLI does), after one warm-up call that starts the worker fork server (reported apart: every
CLI run pays it once). With --repeat N the pairs run N times, alternating, and the medians are
compared (the machine is shared: timings are noisy).

    python benchmarks/bench_verify.py [--suite generated] [--cases 0 (all)] [--jobs 2]
                                      [--timeout 2] [--repeat 1] [--pairs 5] [--floor-only]
                                      [--no-phases]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))  # faulty_runtime, for the workers too

from onnx_seq_tests._published.discovery import find_cases  # noqa: E402
from onnx_seq_tests._run.verifier import verify  # noqa: E402

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


def bare_loop(suite: Path, one_thread: bool = False) -> None:
    """The floor: every case folder under `suite` on onnxruntime in this process, nothing
    judged: load the model, open a session (`one_thread`: on one intra-op thread), decode each
    data set's .pb files by the graph's types, run."""
    import onnx
    import onnxruntime

    onnxruntime.set_default_logger_severity(4)
    options = {"intra_op_num_threads": 1} if one_thread else {}
    for model_path in sorted(suite.rglob("model.onnx")):
        _run_folder(model_path.parent, onnx.load(str(model_path)), options)


def _run_folder(folder: Path, model, options: dict) -> None:
    """One case folder of the floor. Its session is released on return: a session kept alive
    while the next one is made (`rep` left over from the last loop turn) costs onnxruntime
    about twice the time."""
    import onnxruntime.backend

    try:
        rep = onnxruntime.backend.prepare(model, "CPU", **options)
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


def _read_decode(path: Path, type_proto):
    """A .pb file read and decoded, as the floor does (the read counted with the decoding)."""
    return _decode(path.read_bytes(), type_proto)


def _load() -> str:
    """The machine's 1-minute load average: timings on a shared machine are read beside it."""
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "unknown"


def near_floor(suite: Path, pairs: int) -> float:
    """The median ratios of `verify -j 1` on onnxruntime to each bare loop (onnxruntime's
    default sessions; sessions on one thread, as verify opens them), each a fresh process,
    over `pairs` rounds in alternating order; prints each round. Returns the ratio to the
    one-thread loop (the same work as verify's)."""
    loop = [sys.executable, __file__, "--bare-loop", "--suite", str(suite)]
    commands = {"verify -j 1": _verify_command(suite), "bare loop": loop,
                "one thread": [*loop, "--one-thread"]}
    ratios: dict[str, list[float]] = {"bare loop": [], "one thread": []}
    for k in range(pairs):
        seconds = {}
        for label in (list(commands) if k % 2 == 0 else list(commands)[::-1]):
            seconds[label] = _wall(commands[label])
        for floor in ratios:
            ratios[floor].append(seconds["verify -j 1"] / seconds[floor])
        print(f"{'near floor':12} verify -j 1 {seconds['verify -j 1']:.2f} s, bare loop "
              f"{seconds['bare loop']:.2f} s ({ratios['bare loop'][-1]:.2f}), one thread "
              f"{seconds['one thread']:.2f} s ({ratios['one thread'][-1]:.2f}) "
              f"(load {_load()})", flush=True)
    medians = {floor: statistics.median(found) for floor, found in ratios.items()}
    for floor, about in (("bare loop", "onnxruntime's default sessions"),
                         ("one thread", "sessions on one thread, as verify's")):
        found = ratios[floor]
        print(f"near floor: verify -j 1 / {floor} ({about}) = {medians[floor]:.3f} (median of "
              f"{pairs} alternating rounds, {min(found):.2f}-{max(found):.2f}; target <= 1.3, "
              f"{'met' if medians[floor] <= 1.3 else 'MISSED'})", flush=True)
    return medians["one thread"]


def _verify_command(suite: Path, *select: str) -> list[str]:
    cli = Path(sys.executable).parent / "gen-seq-tests"
    return [str(cli), "verify", str(suite), "-b", "onnxruntime", "-j", "1", "--no-progress",
            *(x for pattern in select for x in ("-k", pattern))]


def _wall(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def phases(suite: Path, runs: int) -> None:
    """Print where verify's time goes beyond the floor (see the module's docstring)."""
    first = find_cases(suite)[0]
    one = {"verify -j 1": _verify_command(suite, f"^{re.escape(first.name)}$"),
           "bare loop": [sys.executable, __file__, "--bare-loop", "--one-thread", "--suite",
                         str(first.path)]}
    seconds: dict[str, list[float]] = {label: [] for label in one}
    for k in range(runs):
        for label in (list(one) if k % 2 == 0 else list(one)[::-1]):
            seconds[label].append(_wall(one[label]))
    verify_one, bare_one = (statistics.median(seconds[label]) for label in one)
    print(f"{'phases':12} start-up and ending (one case folder, whole process, median of {runs}):"
          f" verify -j 1 {verify_one:.2f} s, bare loop {bare_one:.2f} s: "
          f"+{verify_one - bare_one:.2f} s", flush=True)
    floor, work = stage_seconds(suite)
    print(f"{'phases':12} per case, whole suite, CPU s in one process: floor "
          + ", ".join(f"{k} {v:.2f}" for k, v in floor.items())
          + f" = {sum(floor.values()):.2f}; verify's worker "
          + ", ".join(f"{k} {v:.2f}" for k, v in work.items())
          + f" = {sum(work.values()):.2f}: +{sum(work.values()) - sum(floor.values()):.2f} s",
          flush=True)


def stage_seconds(suite: Path) -> tuple[dict[str, float], dict[str, float]]:
    """CPU seconds per stage over every case folder of `suite`, in this process: the floor's
    (as bare_loop with one thread) and verify's worker's (as worker_main.read and run_on,
    stage by stage)."""
    import onnx
    import onnxruntime
    import onnxruntime.backend

    from onnx_seq_tests._core.compare import compare_outputs
    from onnx_seq_tests._core.errors import ReadError
    from onnx_seq_tests._published.case_folder import read_case_folder
    from onnx_seq_tests._run.worker_main import case_elements, model_operators, model_opset
    from onnx_seq_tests._runtimes.backends import load_backend, prepare, run_prepared
    from onnx_seq_tests._runtimes.outputs import contract_problem

    onnxruntime.set_default_logger_severity(4)
    backend = load_backend("onnxruntime")
    floor = dict.fromkeys(("load", "decode", "prepare", "run"), 0.0)
    work = dict.fromkeys(("read", "summary", "prepare", "run", "judge"), 0.0)
    clock = time.process_time

    def timed(table: dict, stage: str, call, *args, **kwargs):
        start = clock()
        try:
            return call(*args, **kwargs)
        finally:
            table[stage] += clock() - start

    folders = [model.parent for model in sorted(suite.rglob("model.onnx"))]
    for folder in folders:  # the floor, as bare_loop
        model = timed(floor, "load", onnx.load, str(folder / "model.onnx"))
        try:
            rep = timed(floor, "prepare", onnxruntime.backend.prepare, model, "CPU",
                        intra_op_num_threads=1)
        except Exception:  # refused: nothing to run
            continue
        for data_set in timed(floor, "decode", sorted, folder.glob("test_data_set_*")):
            inputs = [timed(floor, "decode", _read_decode, data_set / f"input_{j}.pb", value.type)
                      for j, value in enumerate(model.graph.input)]
            for j, value in enumerate(model.graph.output):
                timed(floor, "decode", _read_decode, data_set / f"output_{j}.pb", value.type)
            try:
                timed(floor, "run", rep.run, inputs)
            except Exception:  # an error: the floor does not judge it
                pass
        del rep
    for folder in folders:  # verify's worker, as worker_main.read and run_on
        try:
            case = timed(work, "read", read_case_folder, folder, strict=False)
        except ReadError:
            continue
        timed(work, "summary", lambda m: (case_elements(m), model_operators(m), model_opset(m)),
              case.model)
        try:
            rep = timed(work, "prepare", prepare, backend, case.model)
        except Exception:  # refused
            continue
        names = [o.name for o in case.model.graph.output]
        try:
            for inputs, expected in case.data_sets:
                actual = timed(work, "run", run_prepared, rep, inputs)
                timed(work, "judge", contract_problem, actual, case.output_types)
                timed(work, "judge", compare_outputs, expected, actual, atol=case.atol,
                      rtol=case.rtol, names=names, types=case.output_types)
        except Exception:  # an error: its message is the verdict
            pass
        del rep
    return floor, work


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", type=Path, default=ROOT / "generated")
    parser.add_argument("--cases", type=int, default=0, help="first N cases only (0: all)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=2.0)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--pairs", type=int, default=5, help="alternating pairs, near floor")
    parser.add_argument("--floor-only", action="store_true", help="the near-floor lines only")
    parser.add_argument("--no-phases", action="store_true", help="no phase split")
    parser.add_argument("--bare-loop", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--one-thread", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare_loop:
        return bare_loop(args.suite, args.one_thread)
    if args.floor_only:
        near_floor(args.suite, args.pairs)
        if not args.no_phases:
            phases(args.suite, args.pairs)
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
    if not args.no_phases:
        phases(args.suite, args.pairs)


if __name__ == "__main__":
    main()
