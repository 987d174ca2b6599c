
optionalJÄ