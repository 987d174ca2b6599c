
elementJ—J0