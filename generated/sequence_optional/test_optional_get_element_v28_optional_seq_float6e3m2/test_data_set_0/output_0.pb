
elementJ_J@