"""`python -m onnx_seq_tests` runs the `gen-seq-tests` command."""

from ._cli import main

main(prog_name="gen-seq-tests")
