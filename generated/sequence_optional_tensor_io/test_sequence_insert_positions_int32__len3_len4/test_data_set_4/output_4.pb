B
inserted_3Jùÿøÿ