
optionalJ@