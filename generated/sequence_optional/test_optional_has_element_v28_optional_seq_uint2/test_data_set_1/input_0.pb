
optional*