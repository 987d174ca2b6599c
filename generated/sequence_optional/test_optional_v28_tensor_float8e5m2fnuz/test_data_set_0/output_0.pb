
optionalJ€