
elementJJÅ