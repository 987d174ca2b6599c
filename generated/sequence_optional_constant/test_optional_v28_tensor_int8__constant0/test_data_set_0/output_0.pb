
optionalJ€