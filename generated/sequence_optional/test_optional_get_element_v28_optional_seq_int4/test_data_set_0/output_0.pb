
elementJxJð