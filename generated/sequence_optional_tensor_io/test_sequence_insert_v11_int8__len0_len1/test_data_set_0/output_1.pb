B
inserted_0J