
sequenceJ	J