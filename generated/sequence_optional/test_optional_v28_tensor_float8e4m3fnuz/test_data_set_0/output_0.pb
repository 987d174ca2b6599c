
optionalJ€