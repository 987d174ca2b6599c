
optionalJ	