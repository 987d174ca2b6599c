
optionalJ{ü