"""Shared fixtures: paths of the project's own case files and generated suite, and one
verification of the committed suite per session."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def suite_verification():
    """Every case folder of the committed generated/ (both forms) on onnxruntime and onnx's
    reference evaluator, run once per session: `build --check` (in `make test`) keeps
    generated/ equal to what the cases give, so this is the suite the cases build."""
    from onnx_seq_tests._verify.verifier import verify

    return verify(ROOT / "generated", ["onnxruntime", "reference"], jobs=2)
