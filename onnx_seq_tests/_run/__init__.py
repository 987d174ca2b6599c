"""The runner: verify plans the cases, starts the workers that run them on backends and judges
each data set; the drop-in for onnx harnesses; the mutation score of a suite."""
