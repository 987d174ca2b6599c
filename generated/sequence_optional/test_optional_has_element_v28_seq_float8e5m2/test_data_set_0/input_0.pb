
sequenceJ{üJ~