"""`python -m onnx_seq_tests` runs the `gen-seq-tests` command.

`python -m` puts the working folder first on sys.path; it is taken off (unless PYTHONPATH names
it), as the `gen-seq-tests` script never has it: backends and `module:attr` specs are imported
from the installed packages and PYTHONPATH, never from a folder that happens to be the working
one (a subfolder named `numpy` there must not replace numpy)."""

import os
import sys


def _without_working_folder(path: list[str]) -> list[str]:
    """`path` without the working folder ('' or its absolute name), unless PYTHONPATH names
    it."""
    here = os.getcwd()
    asked = {os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
    return [p for p in path if not ((p == "" or os.path.abspath(p) == here) and here not in asked)]


sys.path[:] = _without_working_folder(sys.path)

from onnx_seq_tests._cli import main  # noqa: E402 - after sys.path is cleaned

main(prog_name="gen-seq-tests")
