
sequence