# Two commands set up everything on a fresh machine: `make build`, then `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: build test lint install clean

build: $(STAMP)
	$(BIN)/gen-seq-tests build

test: $(STAMP)
	$(BIN)/ruff check onnx_seq_tests tests
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check onnx_seq_tests tests

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

clean:
	rm -rf $(VENV) build *.egg-info
