"""Write xfail/<backend>.txt for the third-party runtimes from a `gen-seq-tests verify --json`
report: every case folder the runtime did not pass, grouped under the message that says why.

    gen-seq-tests verify generated -b openvino -b tinygrad -b tract -j 2 --json dist/runtimes.json
    python xfail/update.py dist/runtimes.json openvino tinygrad tract

Each entry is a whole case folder name, so a case that starts to pass shows as xpass and a new
failure as fail: the file records where each runtime stands; it is not a judgement of the cases.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

from onnx_seq_tests._verify.report import message_key

HERE = Path(__file__).resolve().parent


def xfail_text(results: list[dict], backend: str, describe: str) -> str:
    groups: dict[str, list[str]] = defaultdict(list)
    for r in results:
        if r["backend"] == backend and r["outcome"] not in ("pass", "xpass"):
            groups[message_key(r["message"]) or "(no message)"].append(r["name"])
    total = sum(len(v) for v in groups.values())
    lines = [f"# Case folders {describe} does not pass ({total}), for `gen-seq-tests verify "
             f"-b {backend} --xfail xfail/{backend}.txt`.",
             "# Written by xfail/update.py from a verify --json report; why each group fails is "
             "in docs/conformance.md.",
             "# Format: `BACKEND PATTERN` per line, PATTERN a case folder name (a regex "
             "matching the whole name); `#` starts a comment.", ""]
    for key, names in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        lines.append(f"# {len(names)}: {' '.join(key.split())[:150]}")
        lines.extend(f"{backend} {name}" for name in sorted(set(names)))
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    report = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    for backend in argv[1:]:
        from onnx_seq_tests._verify.backends import describe

        text = xfail_text(report["results"], backend, describe(backend).split(",")[0])
        (HERE / f"{backend}.txt").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
