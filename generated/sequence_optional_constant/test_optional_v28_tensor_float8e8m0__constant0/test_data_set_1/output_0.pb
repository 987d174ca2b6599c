
optionalJ~