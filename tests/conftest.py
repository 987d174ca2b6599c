"""Shared fixtures: paths of the project's own case files and generated suite."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def onnx_node_suite(tmp_path_factory) -> Path:
    """onnx's own sequence/optional node cases written to disk (`<root>/node/test_*`)."""
    from onnx_node_cases import write_onnx_node_cases

    root = tmp_path_factory.mktemp("onnx_node_cases")
    write_onnx_node_cases(root)
    return root
