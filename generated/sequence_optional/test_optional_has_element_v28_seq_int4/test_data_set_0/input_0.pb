
sequenceJxJð