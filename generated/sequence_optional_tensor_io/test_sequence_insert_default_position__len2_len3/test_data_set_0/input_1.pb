2ßB
sequence_1