"""`gen-seq-tests import`: the round trip over the whole committed suite (import, then build,
gives every file byte for byte), foreign suites (values equal under the comparator, with the
reason bytes differ), onnx's own node cases (imported, or listed with the reason), bad input."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from foreign_suite import write_foreign_suite
from onnx import numpy_helper

from onnx_seq_tests._cli import main
from onnx_seq_tests._core.compare import compare_outputs
from onnx_seq_tests._read.importer import import_folders, refused_by_builder, to_yaml
from onnx_seq_tests._read.load import read_folder
from onnx_seq_tests._suite.build import build
from onnx_seq_tests._suite.layout import SUITE, case_folders
from onnx_seq_tests._suite.manifest import MANIFEST, tree_files

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ROOT / "generated"


@pytest.fixture(scope="session")
def round_trip(tmp_path_factory):
    """The committed suite imported (in-process) and built again (-j 2) once per session."""
    folder = tmp_path_factory.mktemp("round_trip")
    started = time.perf_counter()
    imported = import_folders([GENERATED])
    (folder / "imported.yaml").write_text(to_yaml(imported), encoding="utf-8")
    imported_at = time.perf_counter()
    build([folder / "imported.yaml"], folder / "out", jobs=2)
    print(f"\nround trip: import {imported_at - started:.1f}s, "
          f"build {time.perf_counter() - imported_at:.1f}s")
    return imported, folder / "out"


def test_round_trip_over_the_whole_suite_is_byte_identical(round_trip):
    imported, out = round_trip
    assert imported.skipped == []
    # the tensor-boundary form is not imported: the build derives it again
    assert len(imported.cases) == len(case_folders(GENERATED / SUITE)) > 700
    ours = [r for r in tree_files(GENERATED) if r != MANIFEST]
    assert [r for r in tree_files(out) if r != MANIFEST] == ours
    differ = [r for r in ours if (GENERATED / r).read_bytes() != (out / r).read_bytes()]
    assert differ == []


def test_round_trip_manifest_differs_only_in_sources(round_trip):
    """The imported cases are flat (no for_each) and live in another file: only `source` and
    `expanded_from` differ."""
    _, out = round_trip
    theirs = json.loads((out / MANIFEST).read_bytes())
    ours = json.loads((GENERATED / MANIFEST).read_bytes())
    assert theirs["files"] == ours["files"]

    def strip(entry):
        return {k: v for k, v in entry.items() if k not in ("source", "expanded_from")}
    assert {n: strip(e) for n, e in theirs["cases"].items()} == {
        n: strip(e) for n, e in ours["cases"].items()}
    assert all(re.fullmatch(r".*imported\.yaml:\d+", e["source"])
               for e in theirs["cases"].values())


def _values_equal(original: Path, rebuilt: Path) -> list[str]:
    a, b = read_folder(original), read_folder(rebuilt)
    problems = []
    assert len(a.data_sets) == len(b.data_sets)
    for (ins_a, outs_a), (ins_b, outs_b) in zip(a.data_sets, b.data_sets, strict=True):
        problems += compare_outputs(ins_a, ins_b, atol=0, rtol=0, types=a.input_types)
        problems += compare_outputs(outs_a, outs_b, atol=0, rtol=0, types=a.output_types)
    return problems


def _import_and_build(tmp_path: Path, suite: Path):
    imported = refused_by_builder(import_folders([suite]))
    (tmp_path / "imported.yaml").write_text(to_yaml(imported), encoding="utf-8")
    build([tmp_path / "imported.yaml"], tmp_path / "out", jobs=1)
    return imported


def test_foreign_suite_imports_with_equal_values(tmp_path):
    """Bytes differ where the format keeps no detail: this suite's models have no producer and
    another IR version, and one case writes the typed empty-optional encoding; values match."""
    suite = write_foreign_suite(tmp_path / "foreign")
    imported = _import_and_build(tmp_path, suite)
    (folder, reason), = imported.skipped  # a Constant node with a tensor value
    assert folder.endswith("/test_tolerance_from_data_json") and "TENSOR" in reason
    originals = {p.name: p for p in case_folders(suite) if p.as_posix() != folder}
    rebuilt = {p.name: p for p in case_folders(tmp_path / "out" / SUITE)}
    assert sorted(rebuilt) == sorted(originals)
    for name, folder in originals.items():
        assert _values_equal(folder, rebuilt[name]) == [], name
        assert read_folder(folder).model.graph.node == read_folder(rebuilt[name]).model.graph.node


def test_onnx_own_node_cases_import_or_say_why(onnx_node_suite, tmp_path):
    suite = onnx_node_suite / "node"
    imported = _import_and_build(tmp_path, suite)
    reasons = dict(imported.skipped)
    names = {Path(origin).name for origin, _ in imported.cases}
    assert len(names) + len(reasons) == len(case_folders(suite))
    assert all(reasons.values())
    assert {"test_sequence_insert_at_back", "test_optional_get_element_sequence",
            "test_sequence_map_add_2_sequences", "test_split_to_sequence_nokeepdims",
            "test_identity_opt"} <= names
    assert "must be a scalar" in reasons[str((suite / "test_sequence_insert_at_front").as_posix())]
    assert "TENSOR" in reasons[str((suite / "test_loop16_seq_none").as_posix())]
    for origin, case in imported.cases:
        rebuilt = tmp_path / "out" / SUITE / f"test_{case['name']}"
        assert _values_equal(Path(origin), rebuilt) == [], origin


def test_cli_import_writes_a_case_file_and_lists_what_it_left_out(onnx_node_suite, tmp_path):
    target = tmp_path / "imported.yaml"
    result = CliRunner().invoke(main, ["import", str(onnx_node_suite / "node"), "-o",
                                       str(target), "--prefix", "onnx_"])
    assert result.exit_code == 0, result.output
    assert "not imported: " in result.output and "test_loop16_seq_none" in result.output
    text = target.read_text(encoding="utf-8")
    assert "# imported from " in text and "- name: onnx_sequence_insert_at_back" in text
    assert "tolerance: {atol: 1.0e-07, rtol: 0.001}" in text or "atol: 1.0e-07" in text


def test_cli_import_of_a_folder_that_is_not_a_suite(tmp_path):
    result = CliRunner().invoke(main, ["import", str(tmp_path), "-o", str(tmp_path / "x.yaml")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "not a case folder" in result.output
    assert not (tmp_path / "x.yaml").exists()


def test_cli_import_of_a_truncated_pb(tmp_path):
    suite = write_foreign_suite(tmp_path / "foreign")
    pb = suite / "seq" / "test_seq_of_scalars" / "test_data_set_0" / "input_0.pb"
    pb.write_bytes(numpy_helper.from_array(np.float32([1, 2])).SerializeToString()[:-2])
    result = CliRunner().invoke(main, ["import", str(suite), "-o", str(tmp_path / "x.yaml")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "input_0.pb: not a valid TensorProto" in result.output
    assert not (tmp_path / "x.yaml").exists()
