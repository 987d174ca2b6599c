
sequenceJ~Jÿ‰