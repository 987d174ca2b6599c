
optionalJ