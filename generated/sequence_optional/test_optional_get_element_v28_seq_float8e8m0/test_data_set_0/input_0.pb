
sequenceJÿ‰J~