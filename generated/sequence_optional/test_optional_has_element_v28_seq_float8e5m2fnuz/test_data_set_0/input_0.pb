
sequenceJ€JÄ