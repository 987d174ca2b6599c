B
sequence_1J€