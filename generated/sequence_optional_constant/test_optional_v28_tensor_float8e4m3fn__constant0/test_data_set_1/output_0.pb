
optionalJ~