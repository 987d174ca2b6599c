
sequenceJJ