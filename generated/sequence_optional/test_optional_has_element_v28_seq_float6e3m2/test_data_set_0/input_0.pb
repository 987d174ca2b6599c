
sequenceJ_J@