"""Validity of the fuzzer's programs over a large run: every program drawn is compiled as the
builder compiles a case (both forms: onnx's full check, strict inference, the IR checks, the
oracle's check); an invalid one is a generator bug. Prints the figures and every invalid
program's seed and reason; exit 1 when there is one.

    python benchmarks/fuzz_validity.py [--seed 0] [--programs 20000]
"""

from __future__ import annotations

import argparse
import sys
import time

from onnx_seq_tests._core.errors import NoResult
from onnx_seq_tests._fuzz import judge
from onnx_seq_tests._fuzz.campaign import program_seed
from onnx_seq_tests._fuzz.programs import generate
from onnx_seq_tests._fuzz.recipes import to_case


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--programs", type=int, default=20000)
    args = parser.parse_args()
    valid = invalid = no_result = 0
    started = time.perf_counter()
    for index in range(args.programs):
        seed = program_seed(args.seed, index)
        try:
            case = to_case(generate(seed), f"p{index}")
        except NoResult:
            no_result += 1
            continue
        built = judge.build(case)
        if built.problem:
            invalid += 1
            print(f"invalid: program {seed}: {built.problem[:300]}", flush=True)
        else:
            valid += 1
    seconds = time.perf_counter() - started
    print(f"{args.programs} programs drawn (seed {args.seed}): {valid} valid, {invalid} invalid, "
          f"{no_result} without a spec result; validity "
          f"{100 * valid / max(1, valid + invalid):.3f}% ({seconds:.0f} s)")
    return 1 if invalid else 0


if __name__ == "__main__":
    sys.exit(main())
