
sequenceJÅJ