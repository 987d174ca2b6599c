B
sequence_1J Èë…óÌá