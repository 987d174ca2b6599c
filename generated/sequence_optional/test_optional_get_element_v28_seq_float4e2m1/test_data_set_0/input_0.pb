
sequenceJ0J—