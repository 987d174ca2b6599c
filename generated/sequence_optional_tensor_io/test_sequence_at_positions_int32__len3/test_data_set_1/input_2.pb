B
sequence_2Jÿÿÿÿÿÿÿ