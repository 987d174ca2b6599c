
optionalJ0