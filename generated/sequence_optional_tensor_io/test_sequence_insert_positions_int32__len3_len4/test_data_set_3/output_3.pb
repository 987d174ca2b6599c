B
inserted_2Jùÿøÿ