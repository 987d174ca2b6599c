
sequenceJÄJ€