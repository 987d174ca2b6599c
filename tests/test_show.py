"""`gen-seq-tests show`: golden renderings, the seed page's examples character for character,
foreign suites (hand-written and onnx's own node cases), and bad input.

A golden file is `gen-seq-tests show <its name>` run from the project's folder; after a
deliberate change of the layout, write it again that way and review the diff."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from foreign_suite import write_foreign_suite
from onnx import helper, numpy_helper

from onnx_seq_tests._cli import main
from onnx_seq_tests._core.value_kinds import parse_type
from onnx_seq_tests._core.value_kinds.text import array_text
from onnx_seq_tests._read.show import value_lines

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).parent / "data"
GOLDEN = sorted((DATA / "show").glob("*.txt"))


def show(*args, cwd: Path = ROOT):
    """`gen-seq-tests show ARGS` in-process, from the project's folder (case names are looked up
    in cases/ there, and sources are named relative to it)."""
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, ["show", *map(str, args)])
    finally:
        os.chdir(old)


@pytest.mark.parametrize("golden", GOLDEN, ids=lambda p: p.stem)
def test_show_matches_its_golden_file(golden):
    result = show(golden.stem)
    assert result.exit_code == 0, result.output
    assert result.output == golden.read_text(encoding="utf-8")


def _seed_blocks() -> dict[str, str]:
    page = (DATA / "seed_sequence_construct.txt").read_text().split("\nOn this page")[0]
    parts = re.split(r"\n(test_cc_\w+)\n", page)[1:]
    return dict(zip(parts[0::2], parts[1::2], strict=True))


def _section(text: str, title: str) -> list[str]:
    lines = text.split("\n")
    start = lines.index(title) + 1
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith(" ")), len(lines))
    return lines[start:end]


SEED = _seed_blocks()


def test_every_seed_example_is_a_case():
    assert len(SEED) == 17


@pytest.mark.parametrize("name", sorted(SEED))
def test_show_prints_the_seed_example_character_for_character(name):
    """Inputs as on the page; the output value as on the page (the page names it after the
    SequenceConstruct node's output; `show` names the graph output and lists every node)."""
    result = show(name)
    assert result.exit_code == 0, result.output
    assert _section(result.output, "Inputs:") == _section(SEED[name], "Inputs:")
    ours, page = _section(result.output, "Outputs:"), _section(SEED[name], "Outputs:")
    assert [ours[0].split(": ", 1)[1]] + ours[1:] == [page[0].split(": ", 1)[1]] + page[1:]
    tensors = re.findall(r"^  (i0|i1|i2|a|b|c):", SEED[name], re.M)
    assert f"SequenceConstruct({', '.join(tensors)})" in result.output


def test_a_case_names_its_source_and_expansion():
    result = show("test_optional_get_element_v18_optional_seq_int8")
    assert result.exit_code == 0, result.output
    assert "Source: cases/optional_types.yaml:" in result.output
    assert re.search(r"Expanded from: for_each at cases/optional_types.yaml:\d+ with "
                     r"\{type\}=int8, \{opset\}=18", result.output)


def test_long_arrays_are_summarised_unless_full(tmp_path):
    array = np.arange(2000, dtype=np.int32)
    assert array_text(array) == np.array2string(array, separator=", ")
    assert "..." in array_text(array) and "..." not in array_text(array, full=True)
    folder = tmp_path / "test_big"
    (folder / "test_data_set_0").mkdir(parents=True)
    node = helper.make_node("Identity", ["x"], ["y"])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", 6, [2000])],
                              [helper.make_tensor_value_info("y", 6, [2000])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    (folder / "model.onnx").write_bytes(model.SerializeToString())
    for side in ("input", "output"):
        (folder / "test_data_set_0" / f"{side}_0.pb").write_bytes(
            numpy_helper.from_array(array, "x").SerializeToString())
    short, full = show(folder), show(folder, "--full")
    assert short.exit_code == full.exit_code == 0
    assert "..." in short.output and "1999" in short.output and "1000" not in short.output
    assert "..." not in full.output and "1000, 1001" in full.output


def test_values_of_every_kind():
    assert value_lines("o", None, parse_type("optional(tensor(float))")) == [
        "  o: optional(empty), type=optional(tensor(float))"]
    assert value_lines("s", [], parse_type("seq(tensor(int8))")) == [
        "  s: sequence(len=0), element_dtype=int8", "    []"]
    assert value_lines("t", np.array(["a", ""], dtype=object), parse_type("tensor(string)")) == [
        "  t: shape=(2,), dtype=string", "    ['a', '']"]
    assert value_lines("c", np.array([1.5 - 2j], np.complex64), parse_type(
        "tensor(complex64)")) == ["  c: shape=(1,), dtype=complex64", "    [1.5-2.j]"]


def test_show_reads_a_foreign_suite(tmp_path):
    root = write_foreign_suite(tmp_path / "foreign")
    result = show(root)
    assert result.exit_code == 0, result.output
    assert "optional(empty)" in result.output and "sequence(len=0)" in result.output
    assert result.output.count("\ntest_") + 1 >= 10


def test_show_reads_onnx_own_node_cases(onnx_node_suite):
    result = show(onnx_node_suite / "node")
    assert result.exit_code == 0, result.output
    assert "test_loop16_seq_none" in result.output and "SequenceMap(" in result.output


# -- bad input: one line, exit 2 ----------------------------------------------------------------

def _one_error(result, *words):
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.output.strip().split("\n")
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    for word in words:
        assert word in lines[0]


def test_unknown_name_says_did_you_mean():
    _one_error(show("sequence_at_singel"), "no case named", "did you mean sequence_at_single")


def test_folder_that_is_not_a_case(tmp_path):
    (tmp_path / "empty").mkdir()
    _one_error(show(tmp_path / "empty"), "not a case folder")


@pytest.fixture
def good_folder(tmp_path):
    root = write_foreign_suite(tmp_path / "foreign")
    return root / "seq" / "test_seq_of_scalars"


def test_truncated_pb(good_folder):
    pb = good_folder / "test_data_set_0" / "output_0.pb"
    pb.write_bytes(pb.read_bytes()[:-3])
    _one_error(show(good_folder), "output_0.pb", "not a valid SequenceProto")


def test_mismatched_pb(good_folder):
    pb = good_folder / "test_data_set_0" / "output_0.pb"
    pb.write_bytes(numpy_helper.from_array(np.float32([1.5, 2.0]), "s").SerializeToString())
    _one_error(show(good_folder), "output_0.pb", "does not hold a SequenceProto")


def test_wrong_dtype_pb(good_folder):
    pb = good_folder / "test_data_set_0" / "input_0.pb"
    pb.write_bytes(numpy_helper.from_array(np.int64(3), "a").SerializeToString())
    _one_error(show(good_folder), "input_0.pb", "int64 values where float belongs")


def test_missing_pb(good_folder):
    (good_folder / "test_data_set_1" / "input_2.pb").unlink()
    _one_error(show(good_folder), "input_2.pb", "missing")


def test_model_that_does_not_parse(good_folder):
    (good_folder / "model.onnx").write_bytes(b"\x0a\xff\xff not a model")
    _one_error(show(good_folder), "model.onnx", "not a valid ONNX model")


def test_model_with_a_map_input_whose_data_is_no_map(good_folder):
    """A map is a kind this tool reads: the data set's .pb must hold a MapProto."""
    model = onnx.load(good_folder / "model.onnx")
    model.graph.input[0].type.CopyFrom(helper.make_map_type_proto(
        onnx.TensorProto.INT64, helper.make_tensor_type_proto(1, [])))
    (good_folder / "model.onnx").write_bytes(model.SerializeToString())
    _one_error(show(good_folder), "input_0.pb", "does not hold a MapProto")


def test_manifest_names_each_case_source_line():
    import json

    manifest = json.loads((ROOT / "generated" / "manifest.json").read_bytes())["cases"]
    entry = manifest["optional_get_element_v18_optional_seq_int8"]
    path, _, line = entry["source"].rpartition(":")
    lines = (ROOT / path).read_text(encoding="utf-8").split("\n")
    assert "name: \"optional_get_element_v{opset}_optional_seq_{type}\"" in lines[int(line) - 1]
    origin = entry["expanded_from"]
    assert (origin["type"], origin["opset"]) == ("int8", 18)
    for_each_path, _, for_each_line = origin["for_each"].rpartition(":")
    assert for_each_path == path and "for_each" in lines[int(for_each_line) - 1]
    plain = manifest["cc_sequence_insert_at_back"]
    assert plain["source"] == "cases/seeds/sequence_construct_examples.yaml:249"
    assert "expanded_from" not in plain
