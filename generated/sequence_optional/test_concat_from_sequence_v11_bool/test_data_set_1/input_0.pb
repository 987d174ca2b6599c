
sequence	J