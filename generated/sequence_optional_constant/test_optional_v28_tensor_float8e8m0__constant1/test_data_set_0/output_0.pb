
optionalJÿ‰