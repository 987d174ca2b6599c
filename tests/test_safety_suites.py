"""A built suite handed over by anyone, mutated: `diff` and `pack` answer in one line, with no
traceback and in bounded time (docs/safety.md), whatever was done to its case folders or its
manifest (truncations, swapped or garbage protos, symlinks to /dev/zero, FIFOs, external data,
huge dims, nested or broken manifests)."""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_safety_read import MUTATIONS, deadline, mutate

from onnx_seq_tests._cli import main
from onnx_seq_tests._suite.build import build

CASES = """
- name: tiny_construct
  opset: 11
  inputs:
    - {name: a, type: tensor(float), shape: [2]}
    - {name: b, type: tensor(float), shape: [2]}
  outputs:
    - {name: s, type: seq(tensor(float)), shape: [2]}
  nodes:
    - op_type: SequenceConstruct
      inputs: {inputs: [a, b]}
      outputs: {output_sequence: s}
  data_sets:
    - inputs: {a: [1.0, 2.0], b: [3.0, 4.0]}
      outputs: {s: [[1.0, 2.0], [3.0, 4.0]]}
"""
MANIFEST_MUTATIONS = ("deep", "truncate", "garbage", "fifo", "dev_zero", "not_an_object")


@pytest.fixture(scope="module")
def tiny_suite(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("tiny")
    (root / "cases").mkdir()
    (root / "cases" / "tiny.yaml").write_text(CASES)
    build([root / "cases"], root / "suite")
    return root / "suite"


def mutate_manifest(path: Path, how: str, draw_int) -> None:
    import os

    if how == "deep":
        depth = draw_int(33, 100_000)
        path.write_text("[" * depth + "]" * depth)
    elif how == "truncate":
        data = path.read_bytes()
        path.write_bytes(data[:draw_int(0, max(0, len(data) - 1))])
    elif how == "garbage":
        path.write_bytes(bytes(draw_int(0, 255) for _ in range(draw_int(1, 64))))
    elif how == "fifo":
        path.unlink()
        os.mkfifo(path)
    elif how == "dev_zero":
        path.unlink()
        path.symlink_to("/dev/zero")
    elif how == "not_an_object":
        path.write_text(["[]", "1", '"x"', '{"cases": 3}'][draw_int(0, 3)])


def one_line_or_success(result) -> None:
    assert result.exit_code in (0, 1, 2), (result.exit_code, result.output, result.exception)
    assert "Traceback" not in result.output
    if result.exit_code == 2:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), lines


@settings(max_examples=examples(40), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data(), target=st.sampled_from(["case", "manifest"]))
def test_diff_and_pack_of_a_mutated_suite_answer_in_one_line(tiny_suite, data, target):
    def draw_int(low, high):
        return data.draw(st.integers(low, high))

    with tempfile.TemporaryDirectory() as tmp:
        mutated = Path(tmp) / "suite"
        shutil.copytree(tiny_suite, mutated)
        if target == "case":
            folder = next(p for p in sorted((mutated / "sequence_optional").iterdir()))
            mutate(folder, data.draw(st.sampled_from(MUTATIONS)), draw_int)
        else:
            mutate_manifest(mutated / "manifest.json",
                            data.draw(st.sampled_from(MANIFEST_MUTATIONS)), draw_int)
        started = time.perf_counter()
        with deadline(20):
            compared = CliRunner().invoke(main, ["diff", str(tiny_suite), str(mutated)])
        one_line_or_success(compared)
        with deadline(20):
            packed = CliRunner().invoke(main, ["pack", str(mutated), "-o",
                                               str(Path(tmp) / "suite.tar.gz")])
        one_line_or_success(packed)
        assert time.perf_counter() - started < 10
