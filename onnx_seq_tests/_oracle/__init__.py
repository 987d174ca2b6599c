"""The spec oracle (ONNX semantics written from the spec), the expected values it computes, and
the mutant catalogue: the oracle with one plausible runtime bug each."""
