
sequenceJ