
start