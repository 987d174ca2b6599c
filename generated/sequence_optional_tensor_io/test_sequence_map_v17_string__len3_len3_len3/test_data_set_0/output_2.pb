2	日本語2a bB
elements_1