
sequenceJJ	