B
elements_0J€