	B
inserted_2J