
elementJðJx