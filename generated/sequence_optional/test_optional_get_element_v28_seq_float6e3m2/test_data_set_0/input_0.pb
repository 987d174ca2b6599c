
sequenceJ@J_