"""`build --check`: compile every case and compare with the output root byte for byte,
writing nothing; one line per difference.
"""

from __future__ import annotations

from pathlib import Path

from .build import SUITES, arguments, raise_problems, sources
from .compiling import CaseResult, compile_files
from .freshness import Known, Paths
from .layout import SUITE
from .manifest import MANIFEST, FileEntry, Manifest, unlisted
from .old_tree import case_folder
from .publish import scan_tree


def check(paths: Paths, out_root: Path, empty_optional: str = "undefined",
          jobs: int = 1) -> list[str]:
    """Compile every case and compare with `out_root` byte for byte, writing nothing.

    Raises ArgumentError and CaseFileError as `build` does.
    Returns one line per difference, [] when the root is exactly what the cases give:
    `foreign: path (...)` for what no build wrote (its manifest does not list it; a build
    refuses to run over it), then `changed: test_x (model.onnx, ...)`, `missing: test_x`,
    `stale: test_x (...)` for a build's products no case gives any more, `changed:
    manifest.json (...)`."""
    return check_known(None, paths, out_root, empty_optional, jobs)


def check_known(known: Known | None, paths: Paths, out_root: Path, empty_optional: str,
                jobs: int) -> list[str]:
    """`check`, with `known` as for build.build_known."""
    paths, root, jobs = arguments(paths, out_root, empty_optional, jobs)
    known = known or Known.of(paths, empty_optional)
    found = sources(known, paths)
    results = compile_files(found, empty_optional, {}, jobs)
    raise_problems(found, [r.cases for r in results], results)
    cases = sorted((c for r in results for c in r.cases), key=lambda c: c.name)
    on_disk, folders = scan_tree(root) if root.is_dir() else ({}, {})
    written = _written(known, root) if on_disk or folders else None
    foreign = unlisted(written.files if written is not None else {}, on_disk, folders)
    drift = [f"foreign: {f} (no build wrote it; `gen-seq-tests build` refuses to run until it "
             "is moved out)" for f in foreign]
    tops = set(foreign)
    on_disk = {r: v for r, v in on_disk.items() if not _within(r, tops)}
    folders = {r: v for r, v in folders.items() if not _within(f"{r}/", tops)}
    files = _compare_cases(root, cases, on_disk, drift)
    known_folders = {c.entry.folder for c in cases}
    drift += [f"stale: {r.split('/')[1]} (no case builds it)" for r in sorted(folders)
              if len(r.split("/")) == 2 and r.split("/")[0] in SUITES
              and r not in known_folders]
    for relative in sorted(on_disk):
        folder = case_folder(relative)
        if relative != MANIFEST and (folder is None or folder.split("/")[0] not in SUITES):
            drift.append(f"stale: {relative} (no case builds it)")
    manifest = Manifest.make({c.name: c.entry for c in cases}, files, SUITE, empty_optional)
    drift += _manifest_drift(known, root, manifest)
    return drift


def _compare_cases(root: Path, cases: list[CaseResult], on_disk: dict, drift: list[str]
                   ) -> dict[str, FileEntry]:
    """Add to `drift` each case whose folder is missing or differs from what it compiles to;
    the file entries of every case."""
    by_folder: dict[str | None, set[str]] = {}
    for relative in on_disk:
        by_folder.setdefault(case_folder(relative), set()).add(relative)
    files: dict[str, FileEntry] = {}
    for case in cases:
        folder = case.entry.folder
        expected = {f"{folder}/{r}": d for r, d in (case.files or {}).items()}
        files.update((r, FileEntry.of(d)) for r, d in expected.items())
        present = by_folder.get(folder, set())
        if not present:
            drift.append(f"missing: {folder.rpartition('/')[2]}")
            continue
        differ = sorted(r for r, d in expected.items()
                        if r not in present or (root / r).read_bytes() != d)
        differ += sorted(present - set(expected))
        if differ:
            shown = ", ".join(r[len(folder) + 1:] for r in differ[:4])
            more = f" and {len(differ) - 4} more" if len(differ) > 4 else ""
            drift.append(f"changed: {folder.rpartition('/')[2]} ({shown}{more})")
    return files


def _within(relative: str, tops: set[str]) -> bool:
    """Whether `relative` (a folder ends in '/') is one of `tops` or inside one that is a
    folder."""
    parts = relative.rstrip("/").split("/")
    return relative in tops or any("/".join(parts[:i]) + "/" in tops
                                   for i in range(1, len(parts)))


def _written(known: Known, root: Path) -> Manifest | None:
    """The manifest at `root`; None when there is no readable manifest."""
    try:
        return known.manifest_at(root / MANIFEST).value
    except (OSError, ValueError):  # a ManifestError is a ValueError
        return None


def _manifest_drift(known: Known, root: Path, manifest: Manifest) -> list[str]:
    """The line saying how the manifest at `root` differs from `manifest`, if it does."""
    try:
        written = known.manifest_at(root / MANIFEST)
    except OSError:
        return [f"missing: {MANIFEST}"]
    except ValueError:  # not JSON, or not an object with "cases" and "files" objects
        return [f"changed: {MANIFEST} (not a manifest)"]
    if written.data == manifest.to_bytes():
        return []
    for key in ("format", "generator_version", "onnx_version", "empty_optional"):
        if written.value.get(key) != manifest.get(key):
            return [f"changed: {MANIFEST} ({key} is {written.value.get(key)!r}, this build "
                    f"gives {manifest.get(key)!r})"]
    return [f"changed: {MANIFEST} (its entries differ)"]
