
optionalJ8