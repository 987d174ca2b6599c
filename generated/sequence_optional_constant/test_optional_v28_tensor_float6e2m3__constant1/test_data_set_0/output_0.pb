
optionalJÀ