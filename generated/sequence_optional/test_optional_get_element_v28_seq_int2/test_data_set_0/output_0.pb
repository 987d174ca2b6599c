
elementJJ