
sequenceJ€