"""Reading the suite, in one process, one figure per step (seconds, median of --repeat runs):

  read      read every case folder with the one bounded reader, as verify's workers do
            (case_folder.read_case_folder, strict=False)
  strict    the same, strict (as show and import read: unknown fields, value types checked)
  show      read every case folder of the suite and render it as `gen-seq-tests show` does
  docs      the operator pages of the suite, in memory (what the staleness test computes)
  import    every case folder to case-file YAML (what the round-trip test does first)
  build     that YAML built into a temporary folder with -j 2 (the rest of the round trip)

    python benchmarks/bench_read.py [--suite generated] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from onnx_seq_tests._published.case_folder import read_case_folder
from onnx_seq_tests._published.discovery import case_folders
from onnx_seq_tests._read.importer import import_folders, to_yaml
from onnx_seq_tests._read.load import read_folder
from onnx_seq_tests._read.operator_pages import pages
from onnx_seq_tests._read.show import render
from onnx_seq_tests._suite.build import build

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--suite", type=Path, default=ROOT / "generated")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    folders = case_folders(args.suite)
    figures: dict[str, list[float]] = {"read": [], "strict": [], "show": [], "docs": [],
                                       "import": [], "build": []}
    for _ in range(args.repeat):
        for step, strict in (("read", False), ("strict", True)):
            started = time.perf_counter()
            for folder in folders:
                read_case_folder(folder, strict=strict)
            figures[step].append(time.perf_counter() - started)
        started = time.perf_counter()
        for folder in folders:
            render(read_folder(folder))
        figures["show"].append(time.perf_counter() - started)
        started = time.perf_counter()
        pages(args.suite, ROOT / "docs" / "operators")
        figures["docs"].append(time.perf_counter() - started)
        with tempfile.TemporaryDirectory() as tmp:
            started = time.perf_counter()
            (Path(tmp) / "imported.yaml").write_text(to_yaml(import_folders([args.suite])),
                                                     encoding="utf-8")
            figures["import"].append(time.perf_counter() - started)
            started = time.perf_counter()
            build([Path(tmp) / "imported.yaml"], Path(tmp) / "out", jobs=2)
            figures["build"].append(time.perf_counter() - started)
    print(f"{len(folders)} cases, median of {args.repeat} run(s):")
    for step, times in figures.items():
        print(f"  {step:<7} {statistics.median(times):6.2f} s")


if __name__ == "__main__":
    main()
