2последнийB
inserted_2