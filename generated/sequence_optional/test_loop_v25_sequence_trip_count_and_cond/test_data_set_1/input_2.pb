
initial