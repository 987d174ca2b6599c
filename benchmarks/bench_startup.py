"""What a process pays before it does anything: the start-up of the imports and commands that
`make test` and users start again and again (seconds of wall time, median of --repeat runs,
each in a new process):

  ml_dtypes   `import ml_dtypes` (onnx imports it)
  onnx        `import onnx`
  version     `gen-seq-tests --version` (imports no onnx)
  verify      `gen-seq-tests verify` of one case folder on onnxruntime (onnx in the command's
              process and in its fork server)

The installed ml_dtypes version is printed first: 0.7.0 takes about 0.5 s to import where 0.6.0
takes 0.08 s, so the dev extra keeps it below 0.7 (setup.py).

    python benchmarks/bench_startup.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASE = ROOT / "generated" / "sequence_optional" / "test_sequence_construct_v11_float"


def seconds(argv: list[str], repeat: int) -> float:
    """The median wall time of `argv`, run `repeat` times (each must exit 0)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    cli = [sys.executable, "-m", "onnx_seq_tests"]
    print(f"ml_dtypes {version('ml_dtypes')}, onnx {version('onnx')}, "
          f"python {sys.version.split()[0]}; median of {args.repeat} runs")
    with tempfile.TemporaryDirectory() as folder:
        suite = Path(folder)
        (suite / CASE.name).symlink_to(CASE)
        commands = {
            "ml_dtypes": [sys.executable, "-c", "import ml_dtypes"],
            "onnx": [sys.executable, "-c", "import onnx"],
            "version": [*cli, "--version"],
            "verify": [*cli, "verify", str(suite), "-b", "onnxruntime"],
        }
        for name, argv in commands.items():
            print(f"{name:10} {seconds(argv, args.repeat):6.3f} s")


if __name__ == "__main__":
    main()
