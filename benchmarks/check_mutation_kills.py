"""Checks every kill of the stored fuzz-alone score (docs/mutation-fuzz.json): its program drawn
again from its seed and shrunk as `gen-seq-tests mutation --fuzz` shrinks it, the shrunk case
(a) has at most 3 nodes in its main graph, (b) builds from its case file, (c) fails that mutant
only (onnx_seq_tests/_fuzz/kill_check.py says how "only" is read). Prints a line per kill that
breaks one, the figures, and whether each shrunk signature is still the stored one; exit 1 when
a kill breaks one.

    python benchmarks/check_mutation_kills.py [--json docs/mutation-fuzz.json] [--budget 3]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

from onnx_seq_tests._fuzz.kill_check import MAX_NODES, check_kill

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, default=ROOT / "docs" / "mutation-fuzz.json")
    parser.add_argument("--budget", type=float, default=3.0, help="shrink budget per kill, s")
    parser.add_argument("mutants", nargs="*", help="only these mutants' kills")
    args = parser.parse_args()
    kills = json.loads(args.json.read_text(encoding="utf-8"))["kills"]
    names = args.mutants or list(kills)
    started = time.perf_counter()
    failed, stale, nodes, refusing, same = 0, 0, Counter(), Counter(), Counter()
    for name in names:
        result = check_kill(name, kills[name]["seed"], budget=args.budget)
        nodes[result.main_nodes] += 1
        refusing[len(result.refusing)] += 1
        same[len(result.same_bug)] += 1
        if result.signature != kills[name]["signature"]:
            stale += 1
            print(f"{name}: shrunk signature now {result.signature} (stored: "
                  f"{kills[name]['signature']})", flush=True)
        if result.problems():
            failed += 1
            print(f"{name} ({result.seed}): " + "; ".join(result.problems()), flush=True)
    print(f"{len(names)} kills checked in {time.perf_counter() - started:.0f} s: {failed} break a "
          f"rule; main-graph nodes {dict(sorted(nodes.items()))} (at most {MAX_NODES}); other "
          f"mutants of the same operators failing it {dict(sorted(same.items()))}; other "
          f"mutants refusing it {dict(sorted(refusing.items()))}; {stale} shrunk signatures "
          f"differ from the stored ones")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
