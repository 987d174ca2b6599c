
sequenceJJÅ