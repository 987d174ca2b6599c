"""The mutation score of the suite beside onnx's own sequence/optional node cases, and how long
scoring takes. Run: .venv/bin/python benchmarks/mutation_score.py [ROOT]  (default: generated)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from onnx_seq_tests._run import mutation


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "generated")
    every = mutation.mutants()
    start = time.perf_counter()
    subjects = mutation.suite_subjects(root)
    read = time.perf_counter() - start
    start = time.perf_counter()
    ours = mutation.score(subjects, every, "this suite")
    scored = time.perf_counter() - start
    start = time.perf_counter()
    theirs = mutation.score(mutation.onnx_subjects(), every, "onnx's node cases")
    onnx_seconds = time.perf_counter() - start
    print(f"{len(every)} mutants")
    print(f"{'suite':<20} {'cases':>6} {'killed':>7} {'score':>6}")
    for result in (ours, theirs):
        print(f"{result.label:<20} {result.cases:>6} {len(result.killed):>7} "
              f"{result.percent:>5.0f}%")
    print(f"read {len(subjects)} case folders in {read:.2f} s, scored in {scored:.2f} s; "
          f"onnx's node cases loaded and scored in {onnx_seconds:.2f} s")
    if ours.survivors:
        print("survivors: " + ", ".join(ours.survivors))


if __name__ == "__main__":
    main()
