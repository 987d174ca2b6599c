"""The two scripts of docs/findings/ (make_findings.py for runtimes, make_tool_findings.py for
tools), loaded as modules, and the check that the committed pages are what they write."""

import importlib.util
import sys

from conftest import ROOT

FINDINGS = ROOT / "docs" / "findings"


def load(name: str):
    """docs/findings/<name>.py as a module."""
    spec = importlib.util.spec_from_file_location(name, FINDINGS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def assert_committed(name: str, found: list, tmp_path, monkeypatch) -> None:
    """Every file the script writes for `found` is committed in docs/findings/ as written."""
    script = load(name)
    monkeypatch.setattr(script, "HERE", tmp_path)
    script.write(found)
    for written in sorted(tmp_path.iterdir()):
        committed = FINDINGS / written.name
        assert committed.is_file() and committed.read_bytes() == written.read_bytes(), (
            f"docs/findings/{written.name} is stale: run python docs/findings/{name}.py")
