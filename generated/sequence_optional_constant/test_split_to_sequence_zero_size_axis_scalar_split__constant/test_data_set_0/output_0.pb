
parts