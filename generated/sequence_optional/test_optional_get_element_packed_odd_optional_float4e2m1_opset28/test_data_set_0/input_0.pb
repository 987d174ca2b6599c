
optionalJà