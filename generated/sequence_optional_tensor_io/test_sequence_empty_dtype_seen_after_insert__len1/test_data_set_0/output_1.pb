B
sequence_0J€