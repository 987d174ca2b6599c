
optionalJƒ