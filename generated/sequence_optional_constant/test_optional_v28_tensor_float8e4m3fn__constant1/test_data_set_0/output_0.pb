
optionalJ€