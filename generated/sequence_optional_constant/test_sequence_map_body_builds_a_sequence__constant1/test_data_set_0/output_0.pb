
doubled