
optional_input*