# Two commands set up everything on a fresh machine: `make build`, then `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: build test lint install clean

build: $(STAMP) browser
	$(BIN)/gen-seq-tests build

# Chromium and its driver from the distribution's packages, for the HTML scoreboard's browser
# test (tests/test_report_browser.py); a no-op when both are there; as root (CI) or with sudo.
.PHONY: browser
browser:
	@command -v chromium > /dev/null && command -v chromedriver > /dev/null || { \
		as_root=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$as_root apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$as_root apt-get \
			install -y -qq --no-install-recommends chromium chromium-driver > /dev/null; }

# The linter, then pytest in two worker processes, a test file per worker at a time
# (tests/README.md: the shared fixtures). PYTEST_WORKERS=0 runs pytest in one process. The drift
# check (generated/ against cases/, which reads and writes nothing the tests use) and the type
# checker ([tool.mypy] in pyproject.toml) run beside them, their reports printed after pytest's:
# the target fails when any fails, and takes no longer than the tests alone.
PYTEST_WORKERS ?= 2

test: $(STAMP) browser
	$(BIN)/ruff check onnx_seq_tests tests benchmarks scripts || exit 1; \
	$(BIN)/gen-seq-tests build --check > $(VENV)/drift.log 2>&1 & drift=$$!; \
	$(BIN)/mypy > $(VENV)/mypy.log 2>&1 & mypy=$$!; \
	$(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist loadfile; tests=$$?; \
	wait $$drift; fresh=$$?; cat $(VENV)/drift.log; \
	wait $$mypy; types=$$?; cat $(VENV)/mypy.log; \
	test $$tests = 0 && test $$fresh = 0 && test $$types = 0

lint: $(STAMP)
	$(BIN)/ruff check onnx_seq_tests tests benchmarks scripts

install: $(STAMP)

$(STAMP): pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

clean:
	rm -rf $(VENV) build *.egg-info dist

# docs/conformance.md and docs/conformance.html: the cross-runtime scoreboard, both suite forms
# of generated/ on every built-in backend, then each built-in transform judged on onnxruntime
# (`T>onnxruntime`, one verify --json each), with the findings of docs/conformance-notes.yaml
# (about 6 minutes on 2 cores for the backends: IREE compiles each case once, cached;
# docs/runtimes.md; about 4 more for the transforms). verify exits 1 when a subject fails a case
# (that is what the report is for), so only exit 2 (bad usage) or a crash stops make. The
# third-party runtimes' and the transforms' verdicts are recorded in
# docs/conformance-runtimes.json by `refresh --recorded`, which renders both pages from the
# reports: `make test` re-renders them from the recorded verdicts and a live run of onnxruntime
# and the reference evaluator, so a stale report fails the tests. (A CI matrix does the same
# with one `verify --json` per runtime or transform and job, then
# `gen-seq-tests report *.json --markdown ... --html ...`: docs/reports.md.)
# The built-in third-party runtimes, from their records (`gen-seq-tests runtimes`), and the
# built-in transforms; expanded where a target uses them, after the install.
RUNTIMES = $(shell $(BIN)/gen-seq-tests runtimes --names)
TRANSFORMS = $(shell $(BIN)/gen-seq-tests runtimes --transforms --names)
.PHONY: conformance
conformance: build
	mkdir -p dist
	$(BIN)/gen-seq-tests verify generated $(foreach b,$(RUNTIMES) onnxruntime reference,--backend $(b)) \
		--inference onnx --inference onnxruntime -j 2 --json dist/conformance.json > /dev/null; test $$? -le 1
	for t in $(TRANSFORMS); do \
		$(BIN)/gen-seq-tests verify generated --backend onnxruntime --transform $$t -j 2 \
			--json dist/transform-$$t.json > /dev/null; test $$? -le 1 || exit 1; \
	done
	$(BIN)/gen-seq-tests refresh --recorded dist/conformance.json \
		$(foreach t,$(TRANSFORMS),dist/transform-$(t).json)

# After adding or changing cases (docs/adding-a-case.md): everything derived and committed is
# brought up to date: generated/, docs/operators/, docs/coverage.md, the third-party runtimes'
# recorded verdicts (re-run on the case folders that are new or changed since they were
# recorded, see docs/conformance-runtimes.sha256), docs/conformance.md and the README's table.
.PHONY: refresh
refresh: build
	$(BIN)/gen-seq-tests docs generated -o docs/operators
	$(BIN)/gen-seq-tests coverage generated --markdown docs/coverage.md > /dev/null
	$(BIN)/gen-seq-tests refresh -j 2

# Each third-party runtime on the generated suite, green when it stands where xfail/<runtime>.txt
# says (refresh those files with `make xfail` after a runtime upgrade or a change of generated/).
# IREE compiles every case: its modules are cached by model hash (ONNX_SEQ_TESTS_CACHE, default
# ~/.cache/onnx-seq-tests; see docs/runtimes.md), so a second run takes a fraction of the first.
.PHONY: verify-runtimes
verify-runtimes: $(STAMP)
	mkdir -p dist
	set -e; for b in $(RUNTIMES); do \
		$(BIN)/gen-seq-tests verify generated --backend $$b -j 2 --xfail xfail/$$b.txt \
			--junit-xml dist/junit-$$b.xml > dist/verify-$$b.txt; tail -1 dist/verify-$$b.txt; \
	done

# Each built-in transform judged on onnxruntime (`T>onnxruntime`), green when both stand where
# their xfail files say (xfail/onnxruntime.txt and xfail/T+onnxruntime.txt, named by subject).
.PHONY: verify-transforms
verify-transforms: $(STAMP)
	mkdir -p dist
	set -e; for t in $(TRANSFORMS); do \
		$(BIN)/gen-seq-tests verify generated --backend onnxruntime --transform $$t -j 2 \
			--xfail onnxruntime --xfail "$$t>onnxruntime" --junit-xml dist/junit-transform-$$t.xml \
			> dist/verify-transform-$$t.txt; grep -F "$$t>onnxruntime: " dist/verify-transform-$$t.txt; \
	done

# xfail/<runtime>.txt of every third-party runtime and xfail/<T>+onnxruntime.txt of every
# built-in transform, from the scoreboard's run (dist/conformance.json, dist/transform-T.json):
# where each stands, one entry per case folder it does not pass, grouped by message.
.PHONY: xfail
xfail: conformance
	$(BIN)/gen-seq-tests xfail-update dist/conformance.json $(foreach b,$(RUNTIMES),-b $(b)) -o xfail
	for t in $(TRANSFORMS); do \
		$(BIN)/gen-seq-tests xfail-update dist/transform-$$t.json -b "$$t>onnxruntime" -o xfail || exit 1; \
	done

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

# docs/operators: one page per sequence/optional operator (schema from onnx.defs, every case of
# generated/ that uses it) and an index; `make test` fails when they are stale.
.PHONY: docs
docs: build
	$(BIN)/gen-seq-tests docs generated -o docs/operators

# The release: the wheel and the sdist (both carrying the suite as package data), the suite
# archive and SHA256SUMS, in dist/. Same sources, same bytes: every timestamp is
# SOURCE_DATE_EPOCH (default 1980-01-01, so the bytes depend on the sources only), the build
# runs without isolation with the setuptools pinned in .[dev] (offline), and the sdist is
# normalized. Then twine checks the metadata and scripts/dist.py proves that both carry
# generated/ byte for byte as its manifest lists it.
SOURCE_DATE_EPOCH ?= 315532800
export SOURCE_DATE_EPOCH
VERSION = $(shell $(BIN)/python -c 'import onnx_seq_tests; print(onnx_seq_tests.__version__)')
.PHONY: dist check-dist
dist: $(STAMP)
	$(BIN)/gen-seq-tests build --check
	rm -rf build onnx_seq_tests.egg-info dist/*.whl dist/*.tar.gz dist/SHA256SUMS
	umask 022 && $(BIN)/python -m build --no-isolation --sdist --wheel --outdir dist . \
		> $(VENV)/dist-build.log 2>&1 || { cat $(VENV)/dist-build.log; exit 1; }
	! grep -n -i -E 'warning|deprecat' $(VENV)/dist-build.log | grep -v 'byte-compiling is disabled'
	rm -rf build onnx_seq_tests.egg-info
	$(BIN)/python scripts/dist.py normalize-sdist dist/onnx_seq_tests-$(VERSION).tar.gz
	$(BIN)/gen-seq-tests pack generated -o dist/onnx-seq-tests-suite-$(VERSION).tar.gz
	$(BIN)/twine check --strict dist/*.whl dist/onnx_seq_tests-$(VERSION).tar.gz
	$(BIN)/python scripts/dist.py check dist
	cd dist && sha256sum onnx_seq_tests-$(VERSION)-py3-none-any.whl \
		onnx_seq_tests-$(VERSION).tar.gz onnx-seq-tests-suite-$(VERSION).tar.gz > SHA256SUMS
	cat dist/SHA256SUMS

# The proof of the release (slow: a fresh venv and an install, see tests_release/): the wheel
# installed alone into a fresh venv runs the packaged suite from another folder, through the CLI
# and the pytest drop-in; the sdist alone builds the same wheel offline. .ci/run calls it.
check-dist: dist
	$(BIN)/ruff check scripts tests_release setup.py
	$(BIN)/python -m pytest -q -p no:cacheprovider --durations=10 tests_release
