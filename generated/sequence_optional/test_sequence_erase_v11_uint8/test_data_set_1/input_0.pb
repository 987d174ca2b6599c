
sequenceJ