
optionalJ_