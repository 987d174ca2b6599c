
sequenceJðJx