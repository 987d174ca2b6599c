
sequenceJÄJ€