
sequenceJ—J0