
optional*JJ