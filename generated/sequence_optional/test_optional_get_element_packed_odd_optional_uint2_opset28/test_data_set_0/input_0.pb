
optionalJ