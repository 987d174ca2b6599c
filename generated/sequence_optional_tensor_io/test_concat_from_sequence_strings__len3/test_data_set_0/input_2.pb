2中文B
sequence_2