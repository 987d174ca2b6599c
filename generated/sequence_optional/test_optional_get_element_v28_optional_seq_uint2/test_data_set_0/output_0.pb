
elementJJ	