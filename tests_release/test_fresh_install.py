"""The release, tried as a runtime's CI uses it: the wheel from `make dist` installed into a fresh
virtual environment (no access to the checkout), used from an unrelated folder.

Slow by nature (a venv and an install: about a minute), so it is not part of `make test`;
`make check-dist` builds the release and runs it, and .ci/run calls `make check-dist`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "dist"
EPOCH = os.environ.get("SOURCE_DATE_EPOCH", "315532800")

def drop_in() -> str:
    """The README's pytest file (the snippet marked `<!-- runnable: pytest -->`), as a user
    copies it."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (code,) = re.findall(r"<!-- runnable: pytest -->\n```python\n(.*?)^```", readme, re.S | re.M)
    return code


def artifact(pattern: str) -> Path:
    found = sorted(DIST.glob(pattern))
    assert len(found) == 1, f"expected one {pattern} in {DIST}; run `make dist` first"
    return found[0]


class Env:
    """A fresh venv with the wheel installed, and a folder outside the checkout to work in."""

    def __init__(self, base: Path):
        self.base = base
        self.venv = base / "venv"
        self.work = base / "elsewhere"
        self.work.mkdir()
        self.environ = {key: value for key, value in os.environ.items()
                        if key not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
        self.environ["PATH"] = f"{self.venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"

    def run(self, *argv: str, cwd: Path | None = None, check: bool = False):
        done = subprocess.run(argv, cwd=cwd or self.work, env=self.environ, text=True,
                              capture_output=True, timeout=600)
        if check:
            assert done.returncode == 0, done.stdout + done.stderr
        return done

    def tool(self, *args: str, **kwargs):
        return self.run(str(self.venv / "bin" / "gen-seq-tests"), *args, **kwargs)

    def python(self, *args: str, **kwargs):
        return self.run(str(self.venv / "bin" / "python"), *args, **kwargs)


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    base = tmp_path_factory.mktemp("fresh")
    assert not base.is_relative_to(ROOT)
    wheel = shutil.copy(artifact("onnx_seq_tests-*.whl"), base)
    env = Env(base)
    env.run(sys.executable, "-m", "venv", str(env.venv), check=True)
    # The wheel alone, from a copy outside the checkout; its dependencies from the registry
    # (or pip's cache). pytest for the drop-in.
    install = env.run(str(env.venv / "bin" / "python"), "-m", "pip", "install",
                      f"{wheel}[verify]", "pytest", check=True)
    env.install_log = install.stdout + install.stderr
    yield env
    shutil.rmtree(base, ignore_errors=True)  # a venv is large; pytest keeps old temp folders


@pytest.fixture(scope="module")
def packaged(env) -> Path:
    done = env.python("-c", "import onnx_seq_tests; print(onnx_seq_tests.suite_dir())",
                      check=True)
    root = Path(done.stdout.strip())
    assert root.is_relative_to(env.venv) and (root / "manifest.json").is_file()
    return root


def test_install_is_the_wheel_alone_without_setuptools_warnings(env, packaged):
    assert "setuptools" not in env.install_log.lower()
    assert "deprecat" not in env.install_log.lower()
    done = env.python("-c", "import onnx_seq_tests; print(onnx_seq_tests.__file__)", check=True)
    assert Path(done.stdout.strip()).is_relative_to(env.venv)
    for folder in ("cases", "generated", "schema", "xfail"):
        assert (packaged.parent / folder).is_dir(), folder


def test_cli_runs_the_packaged_suite_with_the_packaged_xfail_file(env, packaged):
    done = env.tool("verify", "-b", "onnxruntime", "--xfail", "onnxruntime", "-j", "2",
                    "--json", "results.json")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    manifest_bytes = (packaged / "manifest.json").read_bytes()
    manifest = json.loads(manifest_bytes)
    first = done.stdout.splitlines()[0]
    assert first == (f"suite: {packaged} (packaged, onnx-seq-tests "
                     f"{manifest['generator_version']}, manifest sha256 "
                     f"{hashlib.sha256(manifest_bytes).hexdigest()})")
    cases = manifest["cases"]
    results = json.loads((env.work / "results.json").read_text())["results"]
    assert len(results) == len(cases) > 700
    assert {r["outcome"] for r in results} <= {"pass", "xfail"}
    assert sum(r["outcome"] == "pass" for r in results) > 300
    assert "Traceback" not in done.stderr


def test_pytest_drop_in_collects_every_packaged_case(env, packaged):
    (env.work / "test_onnxruntime_seq.py").write_text(drop_in())
    done = env.python("-m", "pytest", "-q", "-p", "no:cacheprovider", "--collect-only",
                      "-k", "_cpu", "test_onnxruntime_seq.py", check=True)
    collected = [line for line in done.stdout.splitlines() if line.endswith("_cpu")]
    cases = json.loads((packaged / "manifest.json").read_bytes())["cases"]
    assert sorted(line.rsplit("::", 1)[1] for line in collected) == sorted(
        f"test_{name}_cpu" for name in cases)
    # The whole packaged suite, run for real: green, onnxruntime's known failures xfailed.
    done = env.python("-m", "pytest", "-q", "-p", "no:cacheprovider", "test_onnxruntime_seq.py")
    assert done.returncode == 0, done.stdout[-3000:]
    summary = done.stdout.strip().splitlines()[-1]
    assert re.match(r"\d+ passed, \d+ skipped, \d+ xfailed", summary), summary
    assert "failed" not in summary.replace("xfailed", "")


def test_build_rebuilds_the_packaged_cases_byte_for_byte(env, packaged):
    env.tool("build", "-o", "rebuilt", "-j", "2", check=True)
    done = env.tool("diff", str(packaged), "rebuilt", "--exit-code", check=True)
    assert done.stdout.splitlines()[-1].startswith("0 added, 0 removed, 0 changed")
    built = sorted(p.relative_to(env.work / "rebuilt") for p in
                   (env.work / "rebuilt").rglob("*") if p.is_file())
    shipped = sorted(p.relative_to(packaged) for p in packaged.rglob("*") if p.is_file())
    assert built == shipped
    assert all((env.work / "rebuilt" / p).read_bytes() == (packaged / p).read_bytes()
               for p in built)


def test_bad_input_is_one_line(env, packaged):
    (env.work / "not-a-suite").mkdir()
    done = env.tool("verify", "not-a-suite", "-b", "onnxruntime")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().count("\n") == 0 and "neither a suite" in done.stderr
    for name in ("a.tar.gz", "b.tar.gz"):
        (env.work / name).write_bytes(b"not an archive")
    done = env.tool("diff", "a.tar.gz", "b.tar.gz")
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "not a readable tar archive" in done.stderr


def test_a_damaged_packaged_file_stops_the_run(env, packaged):
    victim = sorted(packaged.rglob("model.onnx"))[0]
    original = victim.read_bytes()
    victim.write_bytes(original + b"\0")
    try:
        done = env.tool("verify", "-b", "onnxruntime")
    finally:
        victim.write_bytes(original)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "does not match its manifest" in done.stderr and "reinstall" in done.stderr


def test_the_sdist_alone_builds_the_same_wheel_offline(tmp_path):
    sdist, wheel = artifact("onnx_seq_tests-*.tar.gz"), artifact("onnx_seq_tests-*.whl")
    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path / "src", filter="data")
    (source,) = (tmp_path / "src").iterdir()
    environ = {**os.environ, "SOURCE_DATE_EPOCH": EPOCH, "PIP_NO_INDEX": "1"}
    # No isolation: the setuptools pinned in .[dev], nothing fetched.
    subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir",
                    str(tmp_path / "out"), str(source)], env=environ, check=True,
                   capture_output=True, timeout=600)
    (rebuilt,) = (tmp_path / "out").glob("*.whl")
    assert rebuilt.read_bytes() == wheel.read_bytes()
