
optionalJ~