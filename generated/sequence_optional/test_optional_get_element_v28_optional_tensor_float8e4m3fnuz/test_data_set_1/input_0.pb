
optionalJÄ