B
sequence_1Jüÿÿÿ