
optional*JJ	