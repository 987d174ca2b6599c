
elementJ@J_