
elementJ	J