B
inserted_0Jùÿøÿ