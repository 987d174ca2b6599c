
optionalJ