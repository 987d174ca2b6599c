
elementJÅJ