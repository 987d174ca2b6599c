"""Write a runtime's xfail file (xfail/<backend>.txt) from a `gen-seq-tests verify --json`
report: every case folder the runtime did not pass, grouped under the message that says why
(`gen-seq-tests xfail-update`).

Each entry is a whole case folder name, so a case that starts to pass shows as xpass and a new
failure as fail: the file records where a runtime stands; it is not a judgement of the cases.
"""

from __future__ import annotations

import shlex
from collections import defaultdict
from pathlib import Path

from .._core.errors import InputError, one_line
from .._core.outputs import check_outputs, write_output
from .._published.resources import xfail_stem
from .._run.transformed import split
from .._run.verifier import Result
from .json_report import read_report
from .tally import message_key

#: Outcomes that are not a pass: each becomes an entry.
NOT_PASSED = ("fail", "refused", "error", "crash", "timeout", "transform-failed",
              "invalid-model", "xfail")


#: The longest backend name `xfail-update` makes a file name of (in bytes, `.txt` added).
MAX_NAME_BYTES = 200


#: Characters no file name may hold on Windows (besides `>` and `:`, which xfail_stem
#: replaces), nor the output folder's separators.
UNSAFE = set('<"/\\|?*\0')


def file_name(backend: str) -> str:
    """`<stem>.txt` of a subject (a backend, or `T>B`: `T+B.txt`; resources.xfail_stem),
    when the stem is one plain file name on every system (none of `<"/\\|?*`, no control
    character, not '.' or '..', not empty, at most MAX_NAME_BYTES bytes); InputError (exit 2)
    if not, so that no name writes outside the output folder."""
    stem = xfail_stem(backend)
    size = len(stem.encode("utf-8", "surrogatepass"))
    if (not stem or UNSAFE & set(stem) or not stem.isprintable() or stem in (".", "..")
            or size > MAX_NAME_BYTES):
        raise InputError(f"backend name {one_line(repr(backend[:80]))}: not a plain file "
                         "name (none of <\"/\\|?*, no control character, not '.' or '..', not "
                         f"empty, at most {MAX_NAME_BYTES} bytes); xfail-update writes "
                         "<NAME>.txt into the output folder")
    return f"{stem}.txt"


def xfail_text(results: list[Result], backend: str, describe: str) -> str:
    """The xfail file of `backend` for the results of a JSON report; `describe` names the
    runtime and its version in the file's first line."""
    groups: dict[str, list[str]] = defaultdict(list)
    for r in results:
        if r.backend == backend and r.outcome in NOT_PASSED:
            groups[message_key(r.message) or "(no message)"].append(r.name)
    total = sum(len(set(v)) for v in groups.values())
    lines = [f"# Case folders {describe} does not pass ({total}), for `gen-seq-tests verify "
             f"{_options(backend)}`.",
             "# Written by `gen-seq-tests xfail-update` from a verify --json report; why each "
             "group fails is in docs/conformance.md.",
             "# Format: `BACKEND PATTERN` per line, PATTERN a case folder name (a regex "
             "matching the whole name); `#` starts a comment.", ""]
    for key, names in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        lines.append(f"# {len(names)}: {' '.join(key.split())[:150]}")
        lines.extend(f"{backend} {name}" for name in sorted(set(names)))
        lines.append("")
    return "\n".join(lines)


def _options(subject: str) -> str:
    """The options of verify that run `subject` with its xfail file: `-b B`, with `--transform
    T` and B's own xfail file first for `T>B` (the baseline's failures are B's)."""
    chain, backend = split(subject)
    files = [backend, subject] if chain else [subject]
    return " ".join([f"-b {shlex.quote(backend)}",
                     *(f"--transform {shlex.quote(t)}" for t in chain),
                     *(f"--xfail {shlex.quote(f'xfail/{file_name(s)}')}" for s in files)])


def runtime_name(backend: str) -> str:
    """The runtime a backend spec runs, as `xfail-update` names it in a file's header: the
    first part of `backends.describe`, or the spec as given when it cannot be imported here."""
    from .._runtimes.backends import describe  # onnx and the backend: only when a file is written

    try:
        return describe(backend).split(",")[0]
    except Exception:  # a backend that cannot be imported here is named as given
        return backend


def write_xfail_files(report: Path, backends: list[str], folder: Path,
                      describe=None) -> list[Path]:
    """Write <folder>/<backend>.txt for each backend from the JSON report at `report`; the
    paths written. `describe(backend)` names the runtime (default: the backend as named).
    Each backend must be a plain file name (`file_name`); the files must not be the report
    (`check_outputs`)."""
    paths = [folder / file_name(backend) for backend in backends]
    check_outputs([("-o", path) for path in paths], [report])
    results = read_report(report).results  # InputError: `path: what is wrong`, exit 2
    found = {r.backend for r in results}
    missing = [b for b in backends if b not in found]
    if missing:
        raise InputError(f"{report}: no result of backend {', '.join(missing)} (it has "
                         f"{', '.join(sorted(found)) or 'none'}); run verify with "
                         f"-b {missing[0]}")
    for backend, path in zip(backends, paths, strict=True):
        name = describe(backend) if describe is not None else backend
        write_output(path, xfail_text(results, backend, name), make_folder=True)
    return paths
