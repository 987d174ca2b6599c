"""The suite as package data: at build time the repository's cases/, generated/ (every form of
the suite, with its manifest), schema/ and xfail/ are copied into the built package as
onnx_seq_tests/_data/<folder>/ (MANIFEST.in ships them in the sdist at their own paths), so they
are never duplicated in the repository. onnx_seq_tests._published.resources finds them. Everything
else is in pyproject.toml."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

#: Repository folders shipped as onnx_seq_tests/_data/<folder>/.
DATA_FOLDERS = ("cases", "generated", "schema", "xfail")
HERE = Path(__file__).resolve().parent


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


setup(cmdclass={"build_py": build_py_with_suite})
