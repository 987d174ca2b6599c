
sequenceJÀJ_