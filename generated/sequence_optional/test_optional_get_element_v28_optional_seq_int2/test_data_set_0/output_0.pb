
elementJJ