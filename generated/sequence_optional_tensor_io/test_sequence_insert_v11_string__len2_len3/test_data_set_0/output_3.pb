2	日本語2a bB
inserted_2