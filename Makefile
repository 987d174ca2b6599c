# Two commands set up everything on a fresh machine: `make build`, then `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: build test lint install clean

build: $(STAMP)
	$(BIN)/gen-seq-tests build

# The drift check once, then pytest in two worker processes, a test file per worker at a time
# (tests/README.md: the shared fixtures). PYTEST_WORKERS=0 runs pytest in one process.
PYTEST_WORKERS ?= 2

test: $(STAMP)
	$(BIN)/ruff check onnx_seq_tests tests benchmarks
	$(BIN)/gen-seq-tests build --check
	$(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist loadfile

lint: $(STAMP)
	$(BIN)/ruff check onnx_seq_tests tests benchmarks

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

clean:
	rm -rf $(VENV) build *.egg-info

# docs/conformance.md: the generated suite on onnxruntime and onnx's reference evaluator, with the
# findings of docs/conformance-notes.yaml. verify exits 1 when a backend fails a case (that is
# what the report is for), so only exit 2 (bad usage) or a crash stops make.
.PHONY: conformance
conformance: build
	$(BIN)/gen-seq-tests verify generated --backend onnxruntime --backend reference -j 2 \
		--notes docs/conformance-notes.yaml --report docs/conformance.md > /dev/null; \
		test $$? -le 1

# docs/coverage.md: which (operator, version, type) combinations and edge cases the generated suite
# covers, beside onnx's own node cases.
.PHONY: coverage
coverage: build
	$(BIN)/gen-seq-tests coverage generated --markdown docs/coverage.md

# The drift check: exit 1 naming every case whose files in generated/ differ from what cases/
# gives, are missing, or are stale; writes nothing.
.PHONY: check verify pack
check: $(STAMP)
	$(BIN)/gen-seq-tests build --check

# The generated suite on onnxruntime, with a JUnit report; exit 1 when a case fails that is not
# one of its known failures (xfail/onnxruntime.txt).
verify: $(STAMP)
	mkdir -p dist
	$(BIN)/gen-seq-tests verify --backend onnxruntime -j 2 --xfail xfail/onnxruntime.txt \
		--junit-xml dist/junit-onnxruntime.xml

# A reproducible archive of generated/ in dist/; prints its sha256.
pack: $(STAMP)
	$(BIN)/gen-seq-tests pack
