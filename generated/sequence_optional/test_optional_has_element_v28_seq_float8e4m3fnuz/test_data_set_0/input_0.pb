
sequenceJ€JÄ