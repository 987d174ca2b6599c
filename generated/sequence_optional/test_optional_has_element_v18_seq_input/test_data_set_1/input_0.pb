
input