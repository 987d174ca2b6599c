	B
elements_2J