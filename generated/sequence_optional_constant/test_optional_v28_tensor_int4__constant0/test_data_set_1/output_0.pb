
optionalJx