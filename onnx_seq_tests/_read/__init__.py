"""Reading any suite or case file as a person or as case files: show, operator pages, import."""
