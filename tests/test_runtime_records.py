"""One record per built-in runtime (onnx_seq_tests/_runtimes/records.py): the list of runtimes is
derived from the adapter modules, written nowhere else (Makefile, workflows, pyproject, setup.py,
help texts, refresh, backends); a new module appears in `verify --help`, the extras setup.py
computes, `gen-seq-tests runtimes` and the Makefile, and goes when it is removed. The verifying
process checks and describes a runtime without importing it; the adapters keep no module-level
mutable state, and tract leaves the environment as it was."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from onnx import TensorProto, helper

from onnx_seq_tests._reports import refresh
from onnx_seq_tests._runtimes import backends, records

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "onnx_seq_tests"
#: Every file that wrote the runtime list before the records (issue 30), and the room's own
#: shared modules: none may name a runtime.
READERS = [ROOT / "Makefile", ROOT / "pyproject.toml", ROOT / "setup.py",
           *sorted((ROOT / ".github" / "workflows").glob("*.yml")),
           *sorted((PACKAGE / "_cli").glob("*.py")), PACKAGE / "_fuzz" / "command.py",
           PACKAGE / "_reports" / "refresh.py",
           *(PACKAGE / "_runtimes" / f"{m}.py" for m in ("__init__", "adapter", "backends",
                                                         "records", "specs", "outputs"))]
FAKE = "fakeruntime"
FAKE_MODULE = f'''"""A runtime of a test (tests/test_runtime_records.py), never installed."""
from typing import Any

RUNTIME: dict[str, Any] = {{
    "name": "{FAKE}",
    "label": "Fake runtime",
    "summary": "a runtime of a test, never installed",
    "requires": ["{FAKE}-package==1.0"],
    "imports": ["{FAKE}_package_not_installed"],
    "version": "{{{FAKE}-package}}",
}}


def load():
    import {FAKE}_package_not_installed  # noqa: F401
'''


def adapter_modules() -> list[Path]:
    """The modules of _runtimes/ that hold a RUNTIME record, found by reading their code."""
    found = []
    for path in sorted((PACKAGE / "_runtimes").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(isinstance(node, (ast.Assign, ast.AnnAssign))
               and "RUNTIME" in {getattr(t, "id", None) for t in getattr(node, "targets", [])}
               | {getattr(getattr(node, "target", None), "id", None)} for node in tree.body):
            found.append(path)
    return found


def test_the_runtimes_are_the_modules_with_a_record_each_with_its_xfail_file():
    modules = adapter_modules()
    assert len(modules) >= 5  # openvino, tinygrad, tract, tvm, iree at least
    assert records.names() == tuple(p.stem for p in modules)
    for record in records.records():
        assert (ROOT / "xfail" / f"{record.name}.txt").is_file(), record.name
        assert record.requires and record.imports and record.summary and record.label
    extras = records.extras()
    assert extras["runtimes"] == [r for record in records.records() for r in record.requires]


def test_the_runtimes_page_table_is_rendered_from_the_records():
    """docs/runtimes.md's table of the runtimes (name, pinned packages, what runs) is what
    `gen-seq-tests refresh` renders from the records: nobody writes a row by hand."""
    page = (ROOT / refresh.RUNTIMES_PAGE).read_text(encoding="utf-8")
    table = refresh.runtimes_page_table()
    assert page == refresh.with_table(page, table, refresh.RUNTIMES_PAGE,
                                      (refresh.PAGE_START, refresh.PAGE_END)), (
        f"the table in {refresh.RUNTIMES_PAGE} is stale: run `make refresh`")
    for record in records.records():
        assert f"| `{record.name}` | `{record.requires[0]}`" in table


def test_no_file_writes_the_runtime_list():
    """Each of these files read the list from the records; a runtime's name in one of them
    (the list, or one runtime singled out) is a second place to edit when adding one."""
    names = records.names()
    for path in READERS:
        text = path.read_text(encoding="utf-8")
        named = [n for n in names if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", text)]
        assert not named, f"{path.relative_to(ROOT)} names {', '.join(named)}"
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert not re.search(r"^\[project\.optional-dependencies\]", pyproject, re.MULTILINE)
    assert re.search(r'^dynamic = \["optional-dependencies"\]', pyproject, re.MULTILINE)


def _setup_extras(root: Path = ROOT) -> dict[str, list[str]]:
    """The extras as the setup.py of `root` computes them (loaded by its path; setup() is not
    run)."""
    spec = importlib.util.spec_from_file_location("setup_under_test", root / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.extras()


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess:
    """`gen-seq-tests ARGS` in a fresh process on the package of `root` (help texts are made
    when the CLI is imported)."""
    return subprocess.run([sys.executable, "-m", "onnx_seq_tests._cli", *args],
                          capture_output=True, text=True, cwd=root,
                          env={**os.environ, "PYTHONPATH": str(root)})


def _make_runtimes(root: Path) -> str:
    """What `make -n verify-runtimes` would run in `root` (the Makefile's RUNTIMES expanded,
    with this Python's gen-seq-tests on the package of `root`)."""
    done = subprocess.run(["make", "-n", "--no-print-directory", "verify-runtimes",
                           f"BIN={Path(sys.executable).parent}"], capture_output=True,
                          text=True, cwd=root, env={**os.environ, "PYTHONPATH": str(root)},
                          check=True)
    return done.stdout


def _seen(name: str, root: Path) -> dict[str, bool]:
    """Where `name` shows as a built-in runtime, in the checkout copy `root`."""
    extras = _setup_extras(root)
    listed = _cli(root, "runtimes", "--all", "--json")
    assert listed.returncode == 0, listed.stderr
    return {
        "verify --help": name in " ".join(_cli(root, "verify", "--help").stdout.split()),
        "fuzz --help": name in " ".join(_cli(root, "fuzz", "--help").stdout.split()),
        "extra": extras.get(name) == [f"{name}-package==1.0"],
        "runtimes extra": f"{name}-package==1.0" in extras["runtimes"],
        "dev extra": f"{name}-package==1.0" in extras["dev"],
        "runtimes --json": name in json.loads(listed.stdout),
        "Makefile": bool(re.search(rf"for b in [^;]*\b{name}\b", _make_runtimes(root))),
    }


def test_a_new_runtime_module_shows_everywhere_and_goes_when_removed(tmp_path):
    """One module with its record is a runtime: verify's and fuzz's help, the extras setup.py
    computes, `gen-seq-tests runtimes`, the Makefile; `verify -b` names its extra when its
    package is missing. Removing the module removes it from all of them. (On a copy of the
    checkout's package, setup.py, pyproject.toml and Makefile: tests running beside this one
    see the package as it is.)"""
    root = tmp_path / "checkout"
    shutil.copytree(PACKAGE, root / PACKAGE.name,
                    ignore=shutil.ignore_patterns("__pycache__", "_data"))
    for name in ("setup.py", "pyproject.toml", "Makefile"):
        shutil.copy(ROOT / name, root / name)
    assert not any(_seen(FAKE, root).values())
    module = root / PACKAGE.name / "_runtimes" / f"{FAKE}.py"
    module.write_text(FAKE_MODULE, encoding="utf-8")
    seen = _seen(FAKE, root)
    assert seen == dict.fromkeys(seen, True)
    done = _cli(root, "verify", str(ROOT / "generated"), "-b", FAKE)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert (f"--backend {FAKE}: cannot import {FAKE}_package_not_installed" in done.stderr
            and f"install it with `pip install 'onnx-seq-tests[{FAKE}]'`" in done.stderr)
    module.unlink()
    assert not any(_seen(FAKE, root).values())


def test_the_verifying_process_imports_no_runtime_to_check_or_describe_it(tmp_path):
    """verify checks a built-in runtime's spec (is its package installed?) and describes it
    (its version, from package metadata) without importing it: its workers import it."""
    out = tmp_path / "report.json"
    script = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from onnx_seq_tests._cli import main\n"
        f"done = CliRunner().invoke(main, ['verify', 'generated', '-b', 'tinygrad', '-b', "
        f"'tract', '-k', '^test_cc_sequence_at_pos0$', '--json', {str(out)!r}])\n"
        "assert done.exit_code in (0, 1), done.output\n"
        "print(sorted(m for m in ('tinygrad', 'tract', 'openvino', 'tvm', 'iree') "
        "if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    described = json.loads(out.read_text())["described"]
    assert described["tinygrad"] == (f"tinygrad {records.record('tinygrad').installed_version()}"
                                      ", CPU (onnx_seq_tests/_runtimes/tinygrad.py)")
    assert re.fullmatch(r"tract \d+\.\d+\.\d+, CPU \(onnx_seq_tests/_runtimes/tract\.py\)",
                        described["tract"])


def _mutated_globals(path: Path) -> list[str]:
    """Module-level names of `path` that a function changes: declared `global`, or changed in
    place (`NAME.append(...)`, `NAME[key] = ...`, ...)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = {t.id for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
           for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
           if isinstance(t, ast.Name)}
    changing = {"append", "extend", "insert", "pop", "clear", "update", "add", "setdefault",
                "remove", "discard", "popitem"}
    found = set()
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Global):
                found.update(node.names)
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id in top and node.attr in changing:
                found.add(node.value.id)
            elif isinstance(node, (ast.Assign, ast.AugAssign)):
                for target in getattr(node, "targets", [getattr(node, "target", None)]):
                    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                            and target.value.id in top:
                        found.add(target.value.id)
    return sorted(found)


def test_the_adapters_keep_no_module_level_mutable_state():
    """What a runtime keeps for the process (OpenVINO's Core and kept requests, IREE's
    driver configuration) lives on the backend object load() makes, which
    backends.load_backend caches: never in a module global."""
    for path in adapter_modules():
        assert _mutated_globals(path) == [], path.name


def _neg_model():
    graph = helper.make_graph([helper.make_node("Neg", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


@pytest.mark.parametrize("given", [None, "full"])
def test_tract_leaves_rust_backtrace_as_it_was(monkeypatch, given):
    """RUST_BACKTRACE is 0 only while tract loads, prepares and runs (a backtrace per error
    costs ~0.2 s); the environment is as the caller had it after each."""
    if given is None:
        monkeypatch.delenv("RUST_BACKTRACE", raising=False)
    else:
        monkeypatch.setenv("RUST_BACKTRACE", given)
    backends.load_backend.cache_clear()
    try:
        rep = backends.prepare("tract", _neg_model())
        assert rep.run([np.array([1.5, -2.0, 0.0], np.float32)])[0].tolist() == [-1.5, 2.0, -0.0]
        with pytest.raises(RuntimeError):
            rep.run([np.ones(5, np.float32)])  # not the declared shape: tract's own error
    finally:
        backends.load_backend.cache_clear()
    assert os.environ.get("RUST_BACKTRACE") == given
