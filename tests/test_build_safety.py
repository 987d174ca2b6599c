"""What a build promises on any input (docs/safety.md): nothing it did not write is lost, bad
input is one line and exit 2, the build key covers the build's own code only.

Small case files are built into tmp folders (test_publish.py's helpers), in this process.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from test_publish import run, write_cases

from onnx_seq_tests._suite import freshness

PACKAGE = Path(freshness.__file__).resolve().parent.parent


# -- the build key: the build's own code only -----------------------------------------------------

def test_the_build_key_covers_the_modules_a_build_runs_and_no_other():
    modules = freshness.build_modules()
    for needed in ("_suite/build.py", "_suite/publish.py", "_suite/tensor_io.py",
                   "_core/oracle.py", "_casefile/reader.py", "_core/versions.py"):
        assert needed in modules
    for reader in ("_suite/diff.py", "_suite/pack.py", "_suite/archive.py", "_suite/coverage.py",
                   "_suite/resources.py", "_verify/report.py", "_read/show.py"):
        assert reader not in modules


def test_editing_a_module_that_does_not_build_keeps_a_no_op_build_a_no_op(tmp_path,
                                                                           monkeypatch):
    """Appending a comment to `_suite/diff.py` once made a 0.3 s no-op build a full recompile."""
    package = tmp_path / "package"
    shutil.copytree(PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__", "_data"))
    monkeypatch.setattr(freshness, "_PACKAGE", package)
    cases_file = write_cases(tmp_path / "cases.yaml", range(2))
    out = tmp_path / "out"
    assert run("build", cases_file, "-o", out).returncode == 0
    assert freshness.unchanged([cases_file], out, "undefined") == 2
    for reader in ("_suite/diff.py", "_suite/pack.py", "_verify/report.py"):
        with open(package / reader, "a") as file:
            file.write("# a comment\n")
    assert freshness.unchanged([cases_file], out, "undefined") == 2  # still a no-op
    with open(package / "_core" / "oracle.py", "a") as file:
        file.write("# a comment\n")
    assert freshness.unchanged([cases_file], out, "undefined") is None  # the build's code
