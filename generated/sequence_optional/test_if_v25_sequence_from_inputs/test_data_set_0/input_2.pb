
right