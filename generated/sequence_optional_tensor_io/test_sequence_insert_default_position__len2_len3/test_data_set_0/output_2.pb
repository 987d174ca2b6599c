2ßB
inserted_1