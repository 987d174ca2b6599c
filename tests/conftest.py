"""Shared fixtures: the project's paths, the committed suite, its one verification on
onnxruntime and the reference evaluator, onnx's node cases, a mini-suite; hypothesis profiles.

Each expensive thing is done once per session here; see tests/README.md for which to use.
"""

from __future__ import annotations

import fcntl
import os
import pickle
import shutil
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ROOT / "generated"
# -- hypothesis profiles ---------------------------------------------------------------------------
# ci: the same examples every run (a failure there reproduces), the full budget;
# dev: fewer examples, new ones each run, so mutations no earlier run has seen keep being tried;
# fuzz: a long random search, by hand (HYPOTHESIS_PROFILE=fuzz).
# HYPOTHESIS_PROFILE picks one; otherwise CI=true (or any non-empty CI but 0/false) means ci.
_QUIET = [HealthCheck.too_slow]
settings.register_profile("ci", derandomize=True, deadline=None, suppress_health_check=_QUIET,
                          print_blob=True)
settings.register_profile("dev", max_examples=25, deadline=None, suppress_health_check=_QUIET)
settings.register_profile("fuzz", max_examples=5000, deadline=None,
                          suppress_health_check=_QUIET)


def hypothesis_profile(environ=os.environ) -> str:
    chosen = environ.get("HYPOTHESIS_PROFILE")
    if chosen:
        return chosen
    in_ci = environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
    return "ci" if in_ci else "dev"


settings.load_profile(hypothesis_profile())


def examples(full: int) -> int:
    """The number of examples for a test whose full budget is `full`: all of it in the ci
    profile, scaled for dev (small) and fuzz (large)."""
    current = settings.default.max_examples
    return max(1, full * current // settings.get_profile("ci").max_examples)


# -- paths -----------------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def onnx_node_suite(tmp_path_factory) -> Path:
    """onnx's own sequence/optional node cases written to disk (`<root>/node/test_*`), once per
    run (generating them takes seconds); read-only."""
    from onnx_node_cases import write_onnx_node_cases

    def write() -> Path:
        root = shared_folder(tmp_path_factory) / "onnx_node_cases"
        write_onnx_node_cases(root)
        return root

    return once_per_run(tmp_path_factory, "onnx_node_suite", write)


@pytest.fixture(scope="session")
def committed_suite() -> Path:
    """The committed generated/, read-only, its files exactly those its manifest lists.

    `make test` checks it against cases/ once (`gen-seq-tests build --check`); a test that needs
    the built suite reads this instead of building it again. Never write into it: copy what you
    change (see `mini_suite`)."""
    from onnx_seq_tests._suite.manifest import verify

    assert verify(GENERATED) == [], "generated/ does not match its manifest: run `make build`"
    return GENERATED


def shared_folder(tmp_path_factory) -> Path:
    """The run's temporary folder that every pytest-xdist worker of it sees (the session's own
    without xdist)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return tmp_path_factory.getbasetemp()
    return tmp_path_factory.getbasetemp().parent


def once_per_run(tmp_path_factory, name: str, compute):
    """compute(), once per test run: with pytest-xdist the first worker to ask computes it and
    the others wait for it and read it back (a pickle in the run's shared temporary folder)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return compute()
    shared = shared_folder(tmp_path_factory)
    stored = shared / f"{name}.pickle"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stored.exists():
            return pickle.loads(stored.read_bytes())
        value = compute()
        stored.write_bytes(pickle.dumps(value))
        return value


@pytest.fixture(scope="session")
def suite_verification(tmp_path_factory) -> list:
    """Every case of the committed suite on onnxruntime and the reference evaluator, once per
    run (about 1500 results, sorted by case then backend; no --xfail applied)."""
    from onnx_seq_tests._run.verifier import verify

    return once_per_run(tmp_path_factory, "suite_verification", lambda: verify(
        ROOT / "generated", ["onnxruntime", "reference"], jobs=2))


@pytest.fixture(scope="session")
def suite_inference(tmp_path_factory, committed_suite) -> list:
    """Type inference judged on every case of the committed suite, once per run, as
    docs/conformance.md shows it (refresh.INFERRERS: onnx's shape inference, onnxruntime's
    session types; sorted as run_inference gives them)."""
    from onnx_seq_tests._published.discovery import find_cases
    from onnx_seq_tests._reports.refresh import INFERRERS
    from onnx_seq_tests._run.inference import run_inference

    return once_per_run(tmp_path_factory, "suite_inference", lambda: run_inference(
        find_cases(committed_suite), INFERRERS))


@pytest.fixture(scope="session")
def node_cases() -> list:
    """onnx's own node cases (`load_model_tests(kind="node")`), loaded once; do not mutate."""
    from onnx.backend.test.loader import load_model_tests

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # onnx's case generators warn about overflow in casts
        return load_model_tests(kind="node")


#: The case folders of the mini-suite: a few small, varied cases of the committed suite.
MINI_CASES = ("test_sequence_construct_v11_float", "test_sequence_insert_at_length_append",
              "test_optional_v15_no_input_tensor_type", "test_split_to_sequence_uneven_sizes",
              "test_loop_v16_produces_empty_optional",
              "test_sequence_empty_default_dtype")  # the one with SequenceEmpty: faulty_backends


@pytest.fixture(scope="session")
def mini_suite_source(committed_suite, tmp_path_factory) -> Path:
    """A suite of a few cases copied from the committed one (folders only, no manifest)."""
    from onnx_seq_tests._suite.layout import SUITE
    target = tmp_path_factory.mktemp("mini") / "suite"
    for name in MINI_CASES:
        shutil.copytree(committed_suite / SUITE / name, target / SUITE / name)
    return target


@pytest.fixture
def mini_suite(mini_suite_source, tmp_path) -> Path:
    """A fresh, writable copy of the mini-suite for one test: for crash, hang and fault tests
    that run every case of a suite and do not need 750 of them."""
    target = tmp_path / "mini"
    shutil.copytree(mini_suite_source, target)
    return target


def small_suite(folder: Path, names) -> Path:
    """A suite of some of the committed cases (by name), with its manifest."""
    from onnx_seq_tests._suite import manifest as manifests

    manifest = manifest_of(manifests.read(GENERATED).to_json(), names)
    for entry in manifest["cases"].values():
        shutil.copytree(GENERATED / entry["folder"], folder / entry["folder"])
    (folder / manifests.MANIFEST).write_bytes(manifests.dumps(manifest))
    return folder


def manifest_of(full: dict, names) -> dict:
    """A manifest (as JSON) of some of the cases of `full` (by name): their entries and files."""
    cases = {name: full["cases"][name] for name in names}
    prefixes = tuple(entry["folder"] + "/" for entry in cases.values())
    files = {path: value for path, value in full["files"].items() if path.startswith(prefixes)}
    return {**full, "cases": cases, "files": files}
