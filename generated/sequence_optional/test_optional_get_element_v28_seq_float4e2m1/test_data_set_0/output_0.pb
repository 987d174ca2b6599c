
elementJ0J—