B
inserted_1J