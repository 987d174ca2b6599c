
sequenceJJ