
sequenceJ~J{ü