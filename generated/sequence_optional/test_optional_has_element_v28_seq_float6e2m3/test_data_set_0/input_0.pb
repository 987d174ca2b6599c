
sequenceJ_JÀ