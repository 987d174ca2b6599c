B
sequence_2Jÿÿ