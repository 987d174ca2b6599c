
initialJÿÿÿÿÿÿÿÿ