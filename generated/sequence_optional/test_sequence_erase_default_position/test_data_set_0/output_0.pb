
erased
Jÿÿÿÿ