B
sequence_1Jüÿÿÿÿÿÿÿ