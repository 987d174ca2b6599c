B
sequence_0Jÿÿÿÿ