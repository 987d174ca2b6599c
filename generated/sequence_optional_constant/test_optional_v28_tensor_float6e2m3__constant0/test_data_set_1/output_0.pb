
optionalJ_