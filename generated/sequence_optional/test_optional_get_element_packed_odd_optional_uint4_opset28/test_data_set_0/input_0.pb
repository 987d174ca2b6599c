
optionalJ€