"""One reader of the suite manifest: `_suite/manifest.py` alone turns its bytes into records
(`decode`, `read`: a Manifest of CaseEntry and FileEntry); every other module asks it.

Checked on the package's source: no function outside manifest.py calls a JSON parser where it
handles a manifest (names the file, `MANIFEST`, or a value called `manifest`). Before, nine
functions in six modules did (build.py three, freshness.py two, coverage, discovery, diff,
refresh); the read cache of discovery.py hands out views no caller can change.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from onnx_seq_tests._published.discovery import read_manifest
from onnx_seq_tests._suite import manifest as manifests

PACKAGE = Path(manifests.__file__).resolve().parent.parent
#: The calls that parse JSON: the standard library's and the package's bounded parsers.
PARSERS = {"load", "loads", "load_json", "parse_json"}
#: What names a manifest in a function: its file name, the constant, a value so called.
MANIFEST_NAMES = {"MANIFEST", "manifest", "manifest_bytes"}


def _called(node: ast.Call) -> str | None:
    function = node.func
    if isinstance(function, ast.Attribute):
        return function.attr
    return function.id if isinstance(function, ast.Name) else None


def _names_a_manifest(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return node.id in MANIFEST_NAMES
    if isinstance(node, ast.Attribute):
        return node.attr in MANIFEST_NAMES
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value == "manifest" or node.value.endswith(manifests.MANIFEST)
    return False


def manifest_parsers(source: str, name: str) -> list[str]:
    """`name.function` for each function of `source` that parses JSON and handles a manifest."""
    found = []
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        inside = list(ast.walk(function))
        parses = any(isinstance(n, ast.Call) and _called(n) in PARSERS for n in inside)
        if parses and any(_names_a_manifest(n) for n in inside):
            found.append(f"{name}.{function.name}")
    return found


def test_no_module_but_manifest_py_parses_the_manifest():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path != Path(manifests.__file__).resolve():
            relative = path.relative_to(PACKAGE).as_posix()
            found += manifest_parsers(path.read_text(encoding="utf-8"), relative)
    assert found == [], "ask _suite/manifest.py (decode, read) instead"


def test_the_check_finds_a_parse_of_the_manifest_outside_manifest_py():
    """The probe: the shapes the package had before (refresh.py, coverage.py, build.py)."""
    probes = {
        "refresh": 'def case_digests(root):\n'
                   '    manifest = json.loads((Path(root) / "manifest.json").read_bytes())\n',
        "coverage": "def form(root):\n"
                    "    return case_entries(json.loads((root / MANIFEST).read_bytes()))\n",
        "build": "def _listed(root):\n"
                 "    return load_json((root / MANIFEST).read_bytes(), MANIFEST)['files']\n",
    }
    for name, source in probes.items():
        assert manifest_parsers(source, name), name
    assert manifest_parsers("def cache(data):\n    return load_json(data, 'cache.json')\n",
                            "build_cache") == []


def test_the_reader_gives_typed_records_that_round_trip(tmp_path):
    entry = {"folder": "s/test_x", "opset": 18}
    data = manifests.dumps({"format": 1, "suite": "s", "cases": {"x": entry, "bad": 3},
                            "files": {"s/test_x/a": {"sha256": "ab", "size": 2}}})
    manifest = manifests.decode(data, "m.json")
    assert manifest.cases == {"x": manifests.CaseEntry("s/test_x", opset=18)}
    assert manifest.files == {"s/test_x/a": manifests.FileEntry("ab", 2)}
    assert manifest.damaged == ("bad",) and not manifest.complete
    assert manifest.get("suite") == "s"
    whole = manifests.Manifest(manifest.header, manifest.cases, manifest.files)
    assert manifests.decode(whole.to_bytes(), "m.json") == whole


def test_the_read_cache_shares_nothing_a_caller_can_change(tmp_path):
    """Before, `read_manifest` handed every caller the cached dicts: one caller's change was
    what the next one read."""
    entry = {"folder": "s/test_x", "opset": 18}
    (tmp_path / manifests.MANIFEST).write_bytes(manifests.dumps(
        {"format": 1, "cases": {"x": entry}, "files": {}}))
    first = read_manifest(tmp_path)
    for mapping in (first.by_name, first.by_folder):
        with pytest.raises(TypeError):
            mapping["y"] = manifests.CaseEntry("s/test_y")  # type: ignore[index]
    again = read_manifest(tmp_path)
    assert again is first  # the cache is used...
    assert dict(again.by_name) == {"x": manifests.CaseEntry("s/test_x", opset=18)}  # unchanged
