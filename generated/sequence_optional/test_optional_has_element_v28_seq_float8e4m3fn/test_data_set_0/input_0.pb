
sequenceJ~J€