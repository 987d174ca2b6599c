"""scripts/exporter_corpus.py without the exporters: its help, its layout writer on a hand-made
model (imported back by `gen-seq-tests import` with equal values), its value comparison and its
table. The exporters themselves live in .venv-exporters/ and never run here."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import ROOT
from onnx import TensorProto, helper

from onnx_seq_tests._cli import main


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location("exporter_corpus",
                                                  ROOT / "scripts" / "exporter_corpus.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def models():
    """scripts/exporter_corpus_models.py (its exporters are imported only inside functions)."""
    spec = importlib.util.spec_from_file_location("exporter_corpus_models",
                                                  ROOT / "scripts" / "exporter_corpus_models.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def split_model():
    """x -> SplitToSequence -> the sequence and its length, as an exporter would write it."""
    float_seq = helper.make_tensor_sequence_value_info("parts", TensorProto.FLOAT, [1, 2])
    graph = helper.make_graph(
        [helper.make_node("SplitToSequence", ["x"], ["parts"], axis=0),
         helper.make_node("SequenceLength", ["parts"], ["n"])], "exported",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 2])],
        [float_seq, helper.make_tensor_value_info("n", TensorProto.INT64, [])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def data_sets():
    x = np.arange(6, dtype=np.float32).reshape(3, 2) / 3
    return [([x], [[x[0:1], x[1:2], x[2:3]], np.array(3, dtype=np.int64)]),
            ([x[:1]], [[x[0:1]], np.array(1, dtype=np.int64)])]


def test_help_names_both_steps(script, capsys):
    with pytest.raises(SystemExit) as stop:
        script.main(["--help"])
    assert stop.value.code == 0
    assert "export" in capsys.readouterr().out and "measure" in script.__doc__


def test_written_folder_imports_and_rebuilds_with_its_values(script, tmp_path):
    case = script.write_case(tmp_path / "corpus" / "test_exported_split", split_model(),
                             data_sets(), script.TOLERANCE)
    assert sorted(p.name for p in case.iterdir()) == [
        "data.json", "model.onnx", "test_data_set_0", "test_data_set_1"]
    case_file = tmp_path / "exported.yaml"
    result = CliRunner().invoke(main, ["import", str(case), "-o", str(case_file)])
    assert result.exit_code == 0, result.output
    built = CliRunner().invoke(main, ["build", str(case_file), "-o", str(tmp_path / "rebuilt")])
    assert built.exit_code == 0, built.output
    rebuilt = tmp_path / "rebuilt" / "sequence_optional" / case.name
    assert script.same_values(case, rebuilt) == ""


def test_a_changed_value_is_told(script, tmp_path):
    wrong = [(inputs, [outputs[0], np.array(4, dtype=np.int64)]) for inputs, outputs in data_sets()]
    good = script.write_case(tmp_path / "good", split_model(), data_sets())
    bad = script.write_case(tmp_path / "bad", split_model(), wrong)
    assert "data set 0: the rebuilt outputs differ" in script.same_values(good, bad)


def test_values_equal_reads_maps_sequences_and_tolerance(script):
    same = [{1: np.float32(0.25)}, {2: np.float32(0.75)}]
    assert script.values_equal(same, [{1: np.float32(0.25)}, {2: np.float32(0.75)}], 0, 0)
    assert not script.values_equal(same, [{1: np.float32(0.25)}], 0, 0)
    assert script.values_equal(np.float32([1.0]), np.float32([1.000001]), 1e-5, 0)
    assert not script.values_equal(np.float32([1.0]), np.float64([1.0]), 1e-5, 0)


def test_framework_outputs_are_laid_on_the_graph_outputs(models):
    parts = [np.zeros(2, np.float32), np.ones(2, np.float32)]
    matched = models.match_outputs(split_model(), (parts, np.array(2)))
    assert matched[0] is parts and matched[1] == 2
    with pytest.raises(ValueError, match="fewer"):
        models.match_outputs(split_model(), (parts,))


def test_table_gives_the_rates_and_groups_the_reasons(script):
    oracle = "import: not expressible: the oracle does not implement Gather; it knows Add"
    rows = {"a": {"name": "a", "imported": True, "rebuilt": True, "reason": "", "group": "",
                  "ort_rebuilt": "pass"},
            "b": {"name": "b", "imported": False, "rebuilt": False, "reason": oracle,
                  "group": script.reason_group(oracle), "ort_rebuilt": ""}}
    listing = {"models": [{"name": "a", "exporter": "x 1"}, {"name": "b", "exporter": "x 1"}],
               "left_out": [{"name": "c", "family": "x", "why": "no sequence"}]}
    checkouts = {"main": {"version": "v0", "rows": rows, "ort_exported": {"a": "pass"}}}
    text = script.markdown(listing, checkouts)
    assert "1 of 2 imported (50%), 1 of 2 rebuilt with equal values (50%)" in text
    assert "| an operator the oracle cannot compute: Gather | 1 | b |" in text
    assert "| b | x 1 | - | no, no (an operator the oracle cannot compute: Gather) |" in text
    assert "- c (x): no sequence" in text
