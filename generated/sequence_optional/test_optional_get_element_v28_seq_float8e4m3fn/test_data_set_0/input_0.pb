
sequenceJ€J~