2	日本語2a bB
repeated_2