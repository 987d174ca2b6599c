"""The `build` command's policy in one call: the onnx policy, the no-op answer from the cache,
then a build or a check, and what to say about it.

Not imported by a build (`build.py`), so it is outside the build key. Importing it imports no
onnx: a no-op build never loads it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .._core.errors import CheckFailed
from . import freshness


def build_or_check(paths, out_root: Path, empty_optional: str, *, check: bool, jobs: int,
                   adopt_onnx: bool, say: Callable[[str], None],
                   warn: Callable[[str], None]) -> None:
    """Build `paths` into `out_root` (or with `check`, compare without writing), calling `warn`
    with the onnx drift warning first, then `say` with each line to print: the difference
    lines of a check, then the outcome.

    Raises RestampError (exit 2) under the onnx policy (`freshness.onnx_policy`), CheckFailed
    (exit 1) for a check that finds differences (naming their count and what to do) or an
    output root that cannot be written, and the build's errors (bad case files: exit 2)."""
    drift = freshness.onnx_policy(out_root, check, adopt_onnx)
    if drift:
        warn(drift)
    known = freshness.look(paths, out_root, empty_optional, compare_bytes=check)
    if known.count is not None:
        say(f"{out_root} is exactly what the cases give" if check
            else f"{out_root} is up to date: {known.count} case(s)")
        return
    from . import build as builder  # onnx: only when something is compiled
    from . import build_check

    try:
        if check:
            differences = build_check.check_known(known, paths, out_root, empty_optional, jobs)
        else:
            report = builder.build_known(known, paths, out_root, empty_optional, jobs)
    except OSError as error:
        raise CheckFailed(f"cannot write {out_root}: {error}; it still holds the suite it "
                          "held before") from None
    if check:
        for line in differences:
            say(line)
        if differences:
            advice = ("the installed onnx is not the pinned one (see the warning above), which "
                      "alone can explain them" if drift else
                      "run `gen-seq-tests build` to update it")
            if any(line.startswith("foreign:") for line in differences):
                advice = f"move the foreign paths out of {out_root} first; then {advice}"
            raise CheckFailed(f"{len(differences)} difference(s) between {out_root} and the "
                              f"cases; {advice}")
        say(f"{out_root} is exactly what the cases give")
    elif report.changed:
        say(f"built {report.cases} case(s) into {out_root}: {len(report.rebuilt)} rebuilt, "
            f"{len(report.removed)} removed")
    else:
        say(f"{out_root} is up to date: {report.cases} case(s)")
