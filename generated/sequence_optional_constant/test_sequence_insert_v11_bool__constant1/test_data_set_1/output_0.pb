
inserted	J