	B
sequence_2J