
optionalJð