"""Release helpers for `make dist`: normalize the sdist's bytes, and prove the artifacts.

    python scripts/dist.py normalize-sdist dist/onnx_seq_tests-<v>.tar.gz
        Rewrite the sdist so the same sources give the same bytes: entries sorted, every mtime
        SOURCE_DATE_EPOCH, uid/gid 0 with no names, modes 0755/0644, a gzip header without a
        name or time. (setuptools stamps the sdist with the files' times and the build time.)

    python scripts/dist.py check dist/
        Check the wheel and the sdist in dist/: each carries the suite byte for byte as in
        generated/ and as its manifest lists it (no file missing, changed or extra), plus the
        case files, the JSON Schema and the xfail files; the suite archive matches the manifest.
        Exit 1 naming every difference.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA_FOLDERS = ("cases", "generated", "schema", "xfail")
#: In the wheel, repository folder X is at onnx_seq_tests/_data/X/.
WHEEL_DATA = "onnx_seq_tests/_data/"


def normalize_sdist(path: Path) -> None:
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))
    with tarfile.open(path, "r:gz") as source:
        members = sorted(source.getmembers(), key=lambda m: m.name)
        contents = {m.name: source.extractfile(m).read() for m in members if m.isfile()}
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for member in members:
            if not (member.isfile() or member.isdir()):
                raise SystemExit(f"{path}: unexpected entry {member.name}")
            info = tarfile.TarInfo(member.name)
            info.mtime, info.uid, info.gid, info.uname, info.gname = epoch, 0, 0, "", ""
            if member.isdir():
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            else:
                data = contents[member.name]
                info.mode = 0o755 if member.mode & 0o111 else 0o644
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    packed = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=packed, compresslevel=9, mtime=0) as gz:
        gz.write(out.getvalue())
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_bytes(packed.getvalue())
    os.replace(temporary, path)


def repository_files() -> dict[str, bytes]:
    """Every file of the data folders in the checkout, by '/'-separated path."""
    found = {}
    for folder in DATA_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                found[path.relative_to(ROOT).as_posix()] = path.read_bytes()
    return found


def compare(what: str, shipped: dict[str, bytes], expected: dict[str, bytes]) -> list[str]:
    """Differences between the data files an artifact ships and the checkout's, and between its
    generated/ and the manifest it ships."""
    problems = [f"{what}: {name}: missing" for name in sorted(set(expected) - set(shipped))]
    problems += [f"{what}: {name}: not in the checkout" for name in
                 sorted(set(shipped) - set(expected))]
    problems += [f"{what}: {name}: differs from the checkout" for name in
                 sorted(set(shipped) & set(expected)) if shipped[name] != expected[name]]
    problems += manifest_problems(what, {name[len("generated/"):]: data
                                         for name, data in shipped.items()
                                         if name.startswith("generated/")})
    return problems


def manifest_problems(what: str, suite: dict[str, bytes]) -> list[str]:
    """Differences between the files of a suite (relative to its root) and its manifest."""
    if "manifest.json" not in suite:
        return [f"{what}: no manifest.json"]
    listed = json.loads(suite["manifest.json"])["files"]
    problems = []
    for name, entry in sorted(listed.items()):
        data = suite.get(name)
        if data is None:
            problems.append(f"{what}: {name}: in the manifest, not shipped")
        elif {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)} != entry:
            problems.append(f"{what}: {name}: sha256 or size differs from the manifest")
    extra = set(suite) - set(listed) - {"manifest.json"}
    # Forms of the suite in sub-folders with their own manifest are checked against it.
    nested = {name.rsplit("/", 1)[0] for name in extra if name.endswith("/manifest.json")}
    for root in sorted(nested):
        problems += manifest_problems(f"{what} {root}/", {
            name[len(root) + 1:]: data for name, data in suite.items()
            if name.startswith(root + "/")})
    problems += [f"{what}: {name}: shipped, not in the manifest" for name in sorted(extra)
                 if not any(name.startswith(root + "/") for root in nested)]
    return problems


def check(dist: Path) -> int:
    expected = repository_files()
    problems = []
    (wheel,) = sorted(dist.glob("*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        shipped = {name[len(WHEEL_DATA):]: archive.read(name) for name in archive.namelist()
                   if name.startswith(WHEEL_DATA)}
    problems += compare(wheel.name, shipped, expected)
    (sdist,) = [p for p in dist.glob("onnx_seq_tests-*.tar.gz")]
    with tarfile.open(sdist, "r:gz") as archive:
        shipped = {}
        for member in archive.getmembers():
            name = member.name.split("/", 1)[1] if "/" in member.name else ""
            if member.isfile() and name.split("/", 1)[0] in DATA_FOLDERS:
                shipped[name] = archive.extractfile(member).read()
    problems += compare(sdist.name, shipped, expected)
    (suite,) = [p for p in dist.glob("onnx-seq-tests-suite-*.tar.gz")]
    with tarfile.open(suite, "r:gz") as archive:
        shipped = {m.name.split("/", 1)[1]: archive.extractfile(m).read()
                   for m in archive.getmembers() if m.isfile()}
    problems += manifest_problems(suite.name, shipped)
    for line in problems:
        print(line)
    if problems:
        print(f"{len(problems)} problem(s) in {dist}", file=sys.stderr)
        return 1
    count = sum(1 for name in expected if name.startswith("generated/"))
    print(f"{wheel.name} and {sdist.name} carry generated/ byte for byte ({count} files, as "
          f"its manifest lists them), cases/, schema/ and xfail/; {suite.name} matches its "
          "manifest")
    return 0


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "normalize-sdist":
        normalize_sdist(Path(argv[1]))
        return 0
    if len(argv) == 2 and argv[0] == "check":
        return check(Path(argv[1]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
