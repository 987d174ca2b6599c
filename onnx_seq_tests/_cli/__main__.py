"""`python -m onnx_seq_tests._cli`: the same as `python -m onnx_seq_tests` (the working folder
taken off sys.path first, see onnx_seq_tests/__main__.py)."""

import runpy

if __name__ == "__main__":  # imported (the hygiene test imports every module): nothing runs
    runpy.run_module("onnx_seq_tests", run_name="__main__")
