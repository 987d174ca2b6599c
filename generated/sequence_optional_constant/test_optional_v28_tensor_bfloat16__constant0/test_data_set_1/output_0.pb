
optional
JÀ€