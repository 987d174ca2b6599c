
optionalJÅ