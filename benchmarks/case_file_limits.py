"""How fast, and in how much memory, hostile case files are refused.

    .venv/bin/python benchmarks/case_file_limits.py

Each input is written to a temporary folder and loaded in a fresh process (so the peak resident
memory is that input's own); the table gives wall time and peak RSS of the load, the first
problem reported, and the same for a valid file of similar size as a reference.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from onnx_seq_tests._core import budgets as casefile

VALID = Path(__file__).resolve().parent.parent / "tests" / "invalid_cases" / "valid.yaml"

PROBE = """
import resource, sys, time
from onnx_seq_tests._casefile.reader import load_cases
from onnx_seq_tests._core.problems import CaseFileError
start = time.perf_counter()
try:
    load_cases([sys.argv[1]])
    first = "loaded"
except CaseFileError as error:
    first = str(error.problems[0]).split(": ", 1)[1]
elapsed = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{elapsed:.3f}\\t{peak:.0f}\\t{first[:70]}")
"""


def alias_bomb(levels: int) -> str:
    lines = ["- name: bomb", "  opset: 11", "  doc:", "    - &l0 [" + ", ".join(["lol"] * 10) + "]"]
    for i in range(1, levels):
        lines.append(f"    - &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]")
    return "\n".join(lines) + "\n"


def flat_list(count: int) -> str:
    return "[" + ", ".join(["1"] * count) + "]\n"


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels + "\n"


def big_tensor(rows: int) -> str:
    row = "[" + ", ".join(["1"] * 100) + "]"
    text = VALID.read_text().replace("shape: []}", "shape: [~, 100]}")
    return text.replace("i: 1}", "i: [&r " + row + ", " + ", ".join(["*r"] * (rows - 1)) + "]}")


INPUTS = {
    "valid case file": VALID.read_text(),
    "alias bomb, 10**10 nodes": alias_bomb(10),
    "alias bomb, 10**30 nodes": alias_bomb(30),
    "recursive alias": "- &a [*a]\n",
    "flat list, 240k nodes": flat_list(240_000),
    "flat list, 1M nodes": flat_list(1_000_000),
    "nesting 10000 deep": deep(10_000),
    "tensor 1M elements (aliases)": big_tensor(10_000),
    "file of MAX_FILE_BYTES + 1": "#" * casefile.MAX_FILE_BYTES + "\n",
}


def main() -> None:
    print("input\tseconds\tpeak RSS MiB\tfirst problem")
    with tempfile.TemporaryDirectory() as folder:
        for label, text in INPUTS.items():
            path = Path(folder) / "input.yaml"
            path.write_text(text)
            result = subprocess.run([sys.executable, "-c", PROBE, str(path)],
                                    capture_output=True, text=True, check=True)
            print(f"{label}\t{result.stdout.strip()}")


if __name__ == "__main__":
    main()
