
optionalJ