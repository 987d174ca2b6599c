"""The suite as package data: at build time the repository's cases/, generated/ (every form of
the suite, with its manifest), schema/ and xfail/ are copied into the built package as
onnx_seq_tests/_data/<folder>/ (MANIFEST.in ships them in the sdist at their own paths), so they
are never duplicated in the repository. onnx_seq_tests._published.resources finds them.

The extras: one per built-in runtime, named after it, with the pinned packages of its module's
RUNTIME record (onnx_seq_tests/_runtimes/records.py reads them, loaded here by its path: the
package and onnx are not imported), `runtimes` (all of them), and verify, fuzz and dev below.
Everything else is in pyproject.toml."""

import importlib.util
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

#: Repository folders shipped as onnx_seq_tests/_data/<folder>/.
DATA_FOLDERS = ("cases", "generated", "schema", "xfail")
HERE = Path(__file__).resolve().parent
ONNXRUNTIME = "onnxruntime==1.32.0"


def runtime_extras() -> dict:
    """The extras of the built-in runtimes, from their records."""
    path = HERE / "onnx_seq_tests" / "_runtimes" / "records.py"
    spec = importlib.util.spec_from_file_location("_onnx_seq_tests_runtime_records", path)
    records = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(records)
    return records.extras(path.parent)


#: The built-in transforms' tools (onnx_seq_tests/_transforms/), pinned: their findings are
#: what docs/findings/<tool>.md records.
TRANSFORMS = ["onnxsim==0.8.1", "onnxoptimizer==0.4.2", "onnxslim==0.1.98",
              "onnxscript==0.7.2", "onnx-ir==1.1.0"]


def extras() -> dict:
    runtimes = runtime_extras()
    return {
        "verify": [ONNXRUNTIME],
        # `gen-seq-tests fuzz --database`: hypothesis's example database (a directory, or
        # GitHub artifacts).
        "fuzz": ["hypothesis>=6.100"],
        **runtimes,
        # `verify --transform NAME`: the tools that rewrite models between exporter and runtime
        "transforms": TRANSFORMS,
        "dev": [
            ONNXRUNTIME,
            *runtimes["runtimes"],
            *TRANSFORMS,
            "pytest>=8",
            "pytest-xdist>=3.5",
            "hypothesis>=6.100",
            "ruff>=0.6",
            # `make test` type-checks the package (pyproject's [tool.mypy]); pinned, since a
            # new release may find new errors; types-pyyaml are yaml's stubs.
            "mypy==2.4.1",
            "types-pyyaml==6.0.12.20261113",
            "jsonschema>=4.20",
            # the HTML scoreboard's test drives the distribution's Chromium (`make build`
            # installs it)
            "selenium>=4.20",
            # `make dist`: the wheel and sdist are built without isolation with this
            # setuptools, so the same sources give the same bytes, offline.
            "setuptools==84.0.0",
            "build>=1.2",
            "twine>=6.1",
            # onnx imports ml_dtypes: 0.7.0 takes 0.5 s to import (0.6.0: 0.08 s), which every
            # process of `make test` that imports onnx pays (benchmarks/bench_startup.py); the
            # suite's bytes are the same with both (`gen-seq-tests build`, compared)
            "ml_dtypes>=0.5.4,<0.7",
        ],
    }


class build_py_with_suite(build_py):
    """build_py, then the data folders copied into the built package."""

    def run(self):
        super().run()
        if self.editable_mode:  # an editable install reads the source tree's folders
            return
        for folder in DATA_FOLDERS:
            target = Path(self.build_lib, "onnx_seq_tests", "_data", folder)
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(HERE / folder, target,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


if __name__ == "__main__":  # as setuptools runs it; tests import runtime_extras from it
    setup(cmdclass={"build_py": build_py_with_suite}, extras_require=extras())
