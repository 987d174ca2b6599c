"""`gen-seq-tests fuzz`: random valid programs from onnx.defs, judged on backends, shrunk,
written as case files."""
