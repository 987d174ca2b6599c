
sequence	J	J