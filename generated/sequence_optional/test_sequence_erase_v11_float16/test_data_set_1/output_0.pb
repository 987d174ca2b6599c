
erased