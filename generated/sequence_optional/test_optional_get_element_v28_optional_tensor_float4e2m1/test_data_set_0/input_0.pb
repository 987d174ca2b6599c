
optionalJ—