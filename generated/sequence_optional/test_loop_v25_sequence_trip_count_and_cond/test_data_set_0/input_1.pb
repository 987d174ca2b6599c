	B
keep_goingJ