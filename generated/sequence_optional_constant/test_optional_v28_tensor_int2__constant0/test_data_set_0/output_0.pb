
optionalJ