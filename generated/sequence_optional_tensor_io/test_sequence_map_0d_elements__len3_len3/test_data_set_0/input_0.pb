B
sequence_0Jÿÿÿÿÿÿÿÿ