
element