2	日本語2a bB
sequence_1