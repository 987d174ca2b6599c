"""The suite as package data: the repository's cases/, generated/ (every form of the suite, with
its manifest), schema/ and xfail/ are mapped at build time to onnx_seq_tests/_data/<folder>/ in
the wheel (and shipped at their own paths in the sdist), so they are never copied in the
repository. onnx_seq_tests._suite.resources finds them. Everything else is in pyproject.toml."""

from setuptools import find_packages, setup

#: Repository folder -> where it lands in the installed package (onnx_seq_tests/_data/<folder>).
DATA_FOLDERS = ("cases", "generated", "schema", "xfail")

setup(
    packages=find_packages(include=["onnx_seq_tests", "onnx_seq_tests.*"])
    + [f"onnx_seq_tests._data.{folder}" for folder in DATA_FOLDERS],
    package_dir={f"onnx_seq_tests._data.{folder}": folder for folder in DATA_FOLDERS},
    package_data={f"onnx_seq_tests._data.{folder}": ["**/*"] for folder in DATA_FOLDERS},
    include_package_data=False,
)
