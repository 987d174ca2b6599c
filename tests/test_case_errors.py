"""Every kind of mistake in a case file, refused through the CLI the way a user meets it.

Each test runs `gen-seq-tests build FILE -o OUT` on a small file from tests/invalid_cases/, where
OUT already holds an earlier build, and asserts the exact `file:line:col: message` lines, exit
status 2, no traceback, and OUT byte for byte as it was.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from click.testing import CliRunner
from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from onnx_seq_tests._casefile.reader import load_cases
from onnx_seq_tests._cli import main
from onnx_seq_tests._core import budgets as casefile
from onnx_seq_tests._core.errors import MAX_REPORTED
from onnx_seq_tests._core.operators import newest_opset

INVALID = Path(__file__).parent / "invalid_cases"


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and folder (None) under `root`, hidden ones included."""
    found: dict[str, bytes | None] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs:
            found[os.path.relpath(os.path.join(folder, name), root)] = None
        for name in files:
            path = os.path.join(folder, name)
            found[os.path.relpath(path, root)] = Path(path).read_bytes()
    return found


@pytest.fixture(scope="session")
def earlier_build(tmp_path_factory) -> Path:
    """An output root holding a real build, which a refused build must leave alone."""
    out = tmp_path_factory.mktemp("earlier")
    result = CliRunner().invoke(main, ["build", str(INVALID / "valid.yaml"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert snapshot(out), "the earlier build wrote nothing"
    return out


@pytest.fixture
def workdir(tmp_path, monkeypatch) -> Path:
    """A copy of tests/invalid_cases as the working folder, so messages name short paths."""
    work = tmp_path / "cases"
    shutil.copytree(INVALID, work)
    monkeypatch.chdir(work)
    return work


@pytest.fixture
def refuse(earlier_build, tmp_path, workdir):
    """refuse(paths, *lines): build must print exactly `lines`, exit 2, and change nothing."""
    out = tmp_path / "out"
    shutil.copytree(earlier_build, out)
    before = snapshot(out)

    def run(paths, *lines: str) -> None:
        paths = [paths] if isinstance(paths, str) else list(paths)
        result = CliRunner().invoke(main, ["build", *paths, "-o", str(out)])
        assert result.exit_code == 2, result.output
        assert isinstance(result.exception, SystemExit)
        assert "Traceback" not in result.output
        summary = f"{len(lines)} problem(s) found; nothing was written."
        assert result.stderr.splitlines() == [*lines, summary]
        assert result.stdout == ""
        assert snapshot(out) == before

    return run


# -- YAML itself ------------------------------------------------------------------------------

def test_yaml_syntax_error(refuse):
    refuse("yaml_syntax.yaml",
           "yaml_syntax.yaml:12:12: not valid YAML: did not find expected ',' or '}' (while "
           "parsing a flow mapping); inside [...] or {...} quote a value that holds ',', ':', "
           "'[', ']', '{' or '}', such as \"tensor({type})\"")


def test_tab_indentation(refuse):
    refuse("tab_indentation.yaml",
           "tab_indentation.yaml:5:1: a tab character in the indentation; YAML indents with "
           "spaces only, replace the tab with spaces")


def test_invalid_utf8(refuse):
    # Line 2 is "  doc: caf\xe9 au lait" in Latin-1; the bad byte is column 11.
    refuse("invalid_utf8.yaml",
           "invalid_utf8.yaml:2:11: invalid UTF-8 (byte 0xe9); save the file as UTF-8")


def test_control_character(refuse):
    refuse("control_character.yaml",
           "control_character.yaml:2:15: control character U+0007 is not allowed in YAML; "
           "remove it, or write it as \\u0007 inside a double-quoted string")


def test_empty_file(refuse):
    refuse("empty.yaml", "empty.yaml:1:1: the file holds no cases; write a YAML list of cases")


# -- keys and kinds of values -----------------------------------------------------------------

def test_unknown_key_with_did_you_mean(refuse):
    # Reported once: the missing 'op_type' is what the did-you-mean points to.
    refuse("unknown_key.yaml",
           "unknown_key.yaml:9:7: unknown key 'optype' in a node (did you mean 'op_type'?); "
           "allowed: op_type, domain, name, inputs, outputs, attributes")


def test_missing_required_key(refuse):
    refuse("missing_key.yaml",
           "missing_key.yaml:5:7: an entry of inputs of the case is missing the required key "
           "'type'")


def test_string_where_a_number_belongs(refuse):
    refuse("wrong_kind_string_for_number.yaml",
           "wrong_kind_string_for_number.yaml:11:26: ConcatFromSequence-11 attribute 'axis' "
           "must be an integer, not the string '0'; remove the quotes")


def test_mapping_where_a_list_belongs(refuse):
    refuse("wrong_kind_mapping_for_list.yaml",
           "wrong_kind_mapping_for_list.yaml:9:7: nodes of the case must be a list, not a "
           "mapping")


# -- operators, attributes, types --------------------------------------------------------------

def test_unknown_op_type_with_did_you_mean(refuse):
    refuse("unknown_op_type.yaml",
           "unknown_op_type.yaml:9:16: unknown op_type 'SequenceAtt' (did you mean "
           "'SequenceAt'?)")


def test_operator_not_defined_at_the_opset(refuse):
    refuse("op_not_at_opset.yaml",
           "op_not_at_opset.yaml:9:16: SequenceAt is not defined at opset 10; it exists from "
           "opset 11")


def test_opset_without_an_onnx_release(refuse, workdir):
    text = (INVALID / "valid.yaml").read_text().replace("opset: 11", "opset: 3")
    (workdir / "opset_3.yaml").write_text(text)
    refuse("opset_3.yaml",
           "opset_3.yaml:2:10: no onnx release has ai.onnx opset 3, so no IR version goes with "
           "it; released opsets: 1, " + ", ".join(map(str, range(5, newest_opset() + 1))))


def test_unknown_attribute_with_did_you_mean(refuse):
    # The required 'axis' it was meant to be is not reported a second time.
    refuse("unknown_attribute.yaml",
           "unknown_attribute.yaml:11:20: unknown key 'axes' in ConcatFromSequence-11 "
           "attributes (did you mean 'axis'?); allowed: axis, new_axis")


def test_attribute_of_the_wrong_type(refuse):
    refuse("attribute_wrong_type.yaml",
           "attribute_wrong_type.yaml:11:26: ConcatFromSequence-11 attribute 'axis' must be a "
           "single value, not a list")


def test_attribute_outside_int64(refuse):
    refuse("attribute_out_of_range.yaml",
           "attribute_out_of_range.yaml:11:26: ConcatFromSequence-11 attribute 'axis' "
           "9223372036854775808 is outside the int64 range "
           "(-9223372036854775808..9223372036854775807)")


def test_required_attribute_left_out(refuse):
    refuse("missing_attribute.yaml",
           "missing_attribute.yaml:8:7: ConcatFromSequence-11: attribute 'axis' is required")


def test_malformed_type_string(refuse):
    refuse("malformed_type.yaml",
           "malformed_type.yaml:4:23: 'tensor(float' is not a type; write tensor(T), "
           "map(K, V), seq(tensor(T)), seq(map(K, V)), optional(tensor(T)), "
           "optional(seq(tensor(T))) or optional(map(K, V))")


def test_type_the_schema_does_not_allow(refuse):
    # Found while building the model (model.ModelError), reported at the node.
    refuse("type_not_allowed.yaml",
           "type_not_allowed.yaml:9:7: case 'type_not_allowed': SequenceAt-11 input 'position' "
           "('i') is tensor(float), which SequenceAt-11 does not allow; it allows "
           "tensor(int32), tensor(int64)")


def test_type_not_allowed_at_that_opset(refuse):
    refuse("type_not_allowed_at_opset.yaml",
           "type_not_allowed_at_opset.yaml:8:7: case 'type_not_allowed_at_opset': "
           "OptionalHasElement-15 input 'input' ('x') is tensor(float), which "
           "OptionalHasElement-15 does not allow; it allows 30 types: optional(...), "
           "optional(seq(...)) (OptionalHasElement-18 accepts tensor(float): use opset 18 or "
           "later)")


def test_model_refused_by_shape_inference(refuse):
    # A model error with no node to blame is reported at the case.
    refuse("inference_error.yaml",
           "inference_error.yaml:1:3: case 'inference_error': onnx shape inference refuses the "
           "model: [ShapeInferenceError] Inference error(s): (op_type:SequenceAt): "
           "[ShapeInferenceError] Inferred shape and existing shape differ in dimension 0: (2) "
           "vs (3)")


# -- values -----------------------------------------------------------------------------------

def test_value_outside_its_element_range(refuse):
    refuse("value_out_of_range.yaml",
           "value_out_of_range.yaml:13:48: 'i': 2147483648 does not fit in int32 (range "
           "-2147483648..2147483647)")


def test_ragged_nested_lists(refuse):
    refuse("ragged_tensor.yaml",
           "ragged_tensor.yaml:14:35: 'out' is ragged: this item has shape [1], the first has "
           "[2]; a tensor's rows must all be alike")


def test_data_shape_disagrees_with_declared_shape(refuse):
    refuse("shape_mismatch.yaml",
           "shape_mismatch.yaml:14:22: 'out' has shape [3] but its type declares [2]")


def test_sequence_element_of_another_type(refuse):
    refuse("sequence_element_type.yaml",
           "sequence_element_type.yaml:13:29: element 1 of 's': '3.5' is not a decimal "
           "integer (int64); write a whole number without a fraction or exponent, such as -3 "
           "or 42")


def test_empty_optional_marker_on_a_non_optional(refuse):
    refuse("empty_marker_not_optional.yaml",
           "empty_marker_not_optional.yaml:13:48: 'i' is tensor(int64), not an optional; the "
           "empty-optional marker {optional: empty} is only for optional values")


# -- data sets against the graph -------------------------------------------------------------

def test_data_set_missing_a_graph_input(refuse):
    refuse("data_set_missing_input.yaml",
           "data_set_missing_input.yaml:13:15: the data set's inputs lack 'i'; every graph "
           "input needs a value")


def test_data_set_naming_an_unknown_input(refuse):
    refuse("data_set_unknown_input.yaml",
           "data_set_unknown_input.yaml:13:51: unknown key 'j' in the data set's inputs; "
           "allowed: s, i")


def test_expected_outputs_wrong_in_number(refuse):
    refuse("outputs_wrong_number.yaml",
           "outputs_wrong_number.yaml:14:34: unknown key 'extra' in the data set's outputs; "
           "allowed: out",
           "outputs_wrong_number.yaml:16:16: the data set's outputs lack 'out'; every graph "
           "output needs a value")


def test_expected_output_wrong_in_type(refuse):
    refuse("outputs_wrong_type.yaml",
           "outputs_wrong_type.yaml:14:22: 'out' has shape [1, 2] but its type declares [2]")


# -- names ------------------------------------------------------------------------------------

def test_duplicate_case_names_across_files(refuse):
    refuse("duplicate_names",
           "duplicate_names/second.yaml:3:3: case name 'same_name' is already used at "
           "duplicate_names/first.yaml:1:3; case names must be unique across all files")


def test_unsafe_case_names(refuse):
    rule = ("may hold only lowercase letters, digits and underscores (it becomes the folder "
            "test_<name>)")
    refuse("unsafe_names.yaml",
           f"unsafe_names.yaml:1:9: case name '../escape' {rule}",
           f"unsafe_names.yaml:15:9: case name '.hidden' {rule}",
           f"unsafe_names.yaml:29:9: case name 'sub/dir' {rule}")


def test_for_each_name_without_placeholder(refuse):
    refuse("for_each_name.yaml",
           "for_each_name.yaml:1:9: for_each expands this case over 2 types (float, int64) but "
           "its name has no {type}; add {type} so every expanded case gets its own name")


# -- nothing executed, nothing exploded ------------------------------------------------------

TAG_MESSAGE = ("python_tag.yaml:2:10: YAML tag '!!python/object/apply:os.system' is not allowed; "
               "case files hold plain data only, remove the tag (quote a value to make it a "
               "string)")


def test_python_tag_is_live_when_loaded_unsafely(tmp_path, monkeypatch):
    """The control: PyYAML's unsafe loader runs this file's tag and creates the marker file."""
    monkeypatch.chdir(tmp_path)
    yaml.unsafe_load((INVALID / "python_tag.yaml").read_text())
    assert (tmp_path / "created_by_yaml_tag").exists()


def test_python_tag_never_runs(refuse, workdir):
    refuse("python_tag.yaml", TAG_MESSAGE)
    assert not (workdir / "created_by_yaml_tag").exists()


def test_python_tag_in_a_real_process(earlier_build, tmp_path, workdir):
    """The installed command in its own process: exit 2, the message, no traceback, no file."""
    out = tmp_path / "out"
    shutil.copytree(earlier_build, out)
    before = snapshot(out)
    result = subprocess.run([sys.executable, "-m", "onnx_seq_tests._cli", "build",
                             "python_tag.yaml", "-o", str(out)],
                            capture_output=True, text=True, cwd=workdir, timeout=300)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [TAG_MESSAGE,
                                          "1 problem(s) found; nothing was written."]
    assert not (workdir / "created_by_yaml_tag").exists()
    assert snapshot(out) == before


def test_alias_bomb(refuse):
    # Ten levels of ten aliases: 10**10 nodes if expanded; refused while streaming events.
    refuse("alias_bomb.yaml",
           f"alias_bomb.yaml:9:17: the file holds more than {casefile.MAX_YAML_NODES} YAML "
           "nodes once aliases are expanded (an alias bomb?), the limit for one case file; "
           "split it or repeat fewer aliases")


def test_alias_bomb_in_a_process_with_little_memory(tmp_path, workdir):
    """Under a 1 GiB address-space limit the bomb is still refused cleanly."""
    import resource

    def limit_memory():
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    script = ("import sys; from onnx_seq_tests._casefile.reader import load_cases\n"
              "from onnx_seq_tests._core.problems import CaseFileError\n"
              "try:\n    load_cases(['alias_bomb.yaml'])\n"
              "except CaseFileError as error:\n    print(error.report()); sys.exit(2)\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            cwd=workdir, preexec_fn=limit_memory, timeout=300)
    assert result.returncode == 2, result.stderr
    assert "once aliases are expanded (an alias bomb?)" in result.stdout
    assert result.stderr == ""


def test_recursive_alias(refuse):
    refuse("recursive_alias.yaml",
           "recursive_alias.yaml:14:34: alias *loop sits inside its own anchor &loop; a case "
           "file cannot be recursive")


def test_nesting_too_deep(refuse):
    refuse("too_deep.yaml",
           f"too_deep.yaml:14:81: lists and mappings nest more than {casefile.MAX_DEPTH} deep "
           "here (aliases followed), the limit for case files")


def test_tensor_over_the_element_limit(refuse):
    # 1001 rows of 100, written with an alias: refused from the list lengths alone.
    refuse("tensor_too_large.yaml",
           "tensor_too_large.yaml:13:48: 'i' has 100100 elements (shape [1001, 100]), more "
           f"than {casefile.MAX_TENSOR_ELEMENTS}, the limit for one tensor value")


def test_file_over_the_size_limit(refuse, workdir):
    text = (INVALID / "valid.yaml").read_text()
    padding = "# padding\n" * (casefile.MAX_FILE_BYTES // 10)
    (workdir / "huge.yaml").write_text(text + padding)
    refuse("huge.yaml",
           f"huge.yaml:1:1: the file is larger than {casefile.MAX_FILE_BYTES} bytes, the limit "
           "for one case file; split it into several files")


# -- YAML 1.1 traps ---------------------------------------------------------------------------

def test_yaml11_no_and_off_are_not_bools(refuse):
    refuse("yaml11_bool.yaml",
           "yaml11_bool.yaml:13:36: element 1 of 's': 'no' is not a bool here (YAML 1.1 would "
           "guess one); write true or false")


def test_yaml11_octal(refuse):
    refuse("yaml11_octal.yaml",
           "yaml11_octal.yaml:13:48: 'i': '010' is not a decimal integer (int64); it has a "
           "leading zero (YAML 1.1 reads it as octal); write the decimal number without "
           "leading zeros")


def test_yaml11_exponent_without_dot_is_a_number():
    """PyYAML reads `1e-3` as a string; a case file means the number, and gets it."""
    assert yaml.safe_load("1e-3") == "1e-3"  # the trap this avoids
    (case,) = load_cases([INVALID / "yaml11_exponent.yaml"])
    first = case.data_sets[0].inputs[0][0]
    np.testing.assert_array_equal(first, np.array([1e-3, 20.0], dtype=np.float32))


def test_yaml11_quoted_exponent_is_a_string(refuse):
    refuse("yaml11_exponent_quoted.yaml",
           "yaml11_exponent_quoted.yaml:13:21: element 0 of 's': '1e-3' is quoted, so it is a "
           "string; write the float value without quotes")


# -- all problems of a run, sorted, up to the limit -----------------------------------------

def test_every_problem_of_a_run_sorted_by_file_and_line(refuse):
    refuse(["yaml_syntax.yaml", "unsafe_names.yaml", "unknown_key.yaml", "empty.yaml"],
           "empty.yaml:1:1: the file holds no cases; write a YAML list of cases",
           "unknown_key.yaml:9:7: unknown key 'optype' in a node (did you mean 'op_type'?); "
           "allowed: op_type, domain, name, inputs, outputs, attributes",
           *[f"unsafe_names.yaml:{line}:9: case name {name!r} may hold only lowercase letters, "
             "digits and underscores (it becomes the folder test_<name>)"
             for line, name in ((1, "../escape"), (15, ".hidden"), (29, "sub/dir"))],
           "yaml_syntax.yaml:12:12: not valid YAML: did not find expected ',' or '}' (while "
           "parsing a flow mapping); inside [...] or {...} quote a value that holds ',', ':', "
           "'[', ']', '{' or '}', such as \"tensor({type})\"")


def test_report_stops_at_the_limit(earlier_build, tmp_path, workdir):
    count = MAX_REPORTED + 7
    text = (INVALID / "valid.yaml").read_text()
    (workdir / "many.yaml").write_text("".join(
        text.replace("valid_sequence_at", f"Bad{k}") for k in range(count)))
    out = tmp_path / "out"
    shutil.copytree(earlier_build, out)
    before = snapshot(out)
    result = CliRunner().invoke(main, ["build", "many.yaml", "-o", str(out)])
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == MAX_REPORTED + 2
    assert lines[0].startswith("many.yaml:1:9: case name 'Bad0' may hold only")
    assert lines[MAX_REPORTED - 1].startswith(f"many.yaml:{1 + 14 * (MAX_REPORTED - 1)}:9: ")
    assert lines[-2:] == ["... and 7 more problem(s)",
                          f"{count} problem(s) found; nothing was written."]
    assert snapshot(out) == before


# -- how one scalar is read (elements.py), the message for each spelling -------------------

@pytest.mark.parametrize(("element", "text", "message"), [
    ("bool", "off", "'off' is not a bool here (YAML 1.1 would guess one); write true or false"),
    ("bool", "1", "'1' is not a bool; write true or false"),
    ("int64", "0x1f", "'0x1f' is not a decimal integer (int64); hexadecimal, octal and binary "
                      "forms are not read; write the decimal number"),
    ("int64", "1_000", "'1_000' is not a decimal integer (int64); digit separators '_' are not "
                       "read; write the digits alone"),
    ("int64", "1:30", "'1:30' is not a decimal integer (int64); YAML 1.1 reads this as base 60 "
                      "(1:30 is 90); write the decimal number"),
    ("int32", "2.0", "'2.0' is not a decimal integer (int32); write a whole number without a "
                     "fraction or exponent, such as -3 or 42"),
    ("uint8", "-1", "-1 does not fit in uint8 (range 0..255)"),
    ("int64", "1" * 50, "111111111111... (50 characters) does not fit in int64 (range "
                        "-9223372036854775808..9223372036854775807)"),
    ("double", "1e400", "1e400 is too large for any float type; write inf or -inf for an "
                        "infinity"),
    ("float", "1e-50", "1e-50 is too small for float and would be stored as 0; write 0, or a "
                       "magnitude of at least 1.401298464324817e-45"),
    ("float16", "70000", "70000 is outside the range of float16 (-65504.0 to 65504.0)"),
    ("float8e4m3fn", "inf", "float8e4m3fn has no inf; it cannot hold infinities"),
    ("float4e2m1", "1.2", "1.2 is not exactly representable in float4e2m1; the nearest value is "
                          "1.0, write that"),
    ("float8e8m0", "-1", "-1 is outside the range of float8e8m0 (5.877471754111438e-39 to "
                         "1.7014118346046923e+38)"),
    ("complex64", "1e40j", "1e40j does not fit in complex64; write inf or nan for a special "
                           "value"),
])
def test_scalar_spellings_refused_with_the_reason(element, text, message):
    from onnx_seq_tests._core.elements import ELEMENTS
    from onnx_seq_tests._core.errors import ScalarError

    with pytest.raises(ScalarError) as caught:
        ELEMENTS[element].parse(text, quoted=False)
    assert str(caught.value) == message


@pytest.mark.parametrize(("element", "text", "value"), [
    ("float", "1e-3", 1e-3), ("double", ".inf", float("inf")), ("float16", "65504", 65504.0),
    ("int64", "-9223372036854775808", -(2**63)), ("uint64", "18446744073709551615", 2**64 - 1),
    ("string", "no", "no"), ("string", "010", "010"), ("complex128", "inf-1j", complex("inf-1j")),
])
def test_scalar_spellings_read_as_written(element, text, value):
    from onnx_seq_tests._core.elements import ELEMENTS

    assert ELEMENTS[element].parse(text, quoted=False) == value



@pytest.mark.parametrize(("element", "text"), [
    ("float", "nan(0x7fa00001)"), ("float", "nan(0xffc00000)"), ("float16", "nan(0x7d01)"),
    ("double", "nan(0x7ff0000000000001)"), ("bfloat16", "nan(0xff81)"),
])
def test_a_nan_is_read_by_its_bits_and_written_back_so(element, text):
    """A NaN spelled nan(0x<bits>) keeps exactly those bits; the writer spells it the same way,
    and spells the NaN numpy makes as plain nan."""
    import numpy as np

    from onnx_seq_tests._core.elements import ELEMENTS, nan_text

    value = ELEMENTS[element].parse(text, quoted=False)
    dtype = ELEMENTS[element].dtype
    assert np.asarray(value).dtype == dtype
    assert int(np.asarray(value).view(f"u{dtype.itemsize}")) == int(text[6:-1], 16)
    assert nan_text(value) == text
    assert nan_text(np.array([value], dtype=dtype)[0]) == text  # kept inside an array
    assert nan_text(np.array(np.nan, dtype=dtype)) == "nan"


@pytest.mark.parametrize(("element", "text", "message"), [
    ("float", "nan(0x3f800000)", "nan(0x3f800000) is not a NaN of float (it reads as 1.0); write "
                                "the number itself, or the bits of a NaN"),
    ("float", "nan(0x1ffffffff)", "'nan(0x1ffffffff)' is not a float bit pattern; write "
                                  "nan(0x...) with at most 8 hexadecimal digits, such as "
                                  "nan(0x7fffffff)"),
    ("float16", "nan(0xq)", "'nan(0xq)' is not a float16 bit pattern; write nan(0x...) with at "
                            "most 4 hexadecimal digits, such as nan(0x7fff)"),
])
def test_nan_bits_that_are_not_a_nan_are_refused(element, text, message):
    from onnx_seq_tests._core.elements import ELEMENTS
    from onnx_seq_tests._core.errors import ScalarError

    with pytest.raises(ScalarError) as caught:
        ELEMENTS[element].parse(text, quoted=False)
    assert str(caught.value) == message

# -- IR-level checks and initializers (issue 13) ------------------------------------------------


def test_named_dim_must_hold_one_size_in_a_sequence(refuse):
    rule = ("a named dim stands for one size in every tensor of a sequence and across a data "
            "set's inputs and outputs (ONNX IR.md); declare the dim as ~ (unknown) where sizes "
            "differ")
    refuse("named_dim_differs.yaml",
           "named_dim_differs.yaml:13:7: case 'named_dim_differs': data set 0: dim 'columns' is "
           "2 in output 'sequence', element 0 but 3 in output 'sequence', element 1 (axis 1); "
           + rule,
           "named_dim_differs.yaml:13:7: case 'named_dim_differs': data set 0: dim 'rows' is 2 "
           "in output 'sequence', element 0 but 1 in output 'sequence', element 1 (axis 0); "
           + rule)


def test_named_dim_must_hold_one_size_across_inputs(refuse):
    refuse("named_dim_across_values.yaml",
           "named_dim_across_values.yaml:20:7: case 'named_dim_across_values': data set 1: dim "
           "'N' is 2 in input 's', element 0 but 1 in input 't' (axis 0); a named dim stands "
           "for one size in every tensor of a sequence and across a data set's inputs and "
           "outputs (ONNX IR.md); declare the dim as ~ (unknown) where sizes differ")


def test_initializer_unknown_key_with_did_you_mean(refuse):
    refuse("initializer_unknown_key.yaml",
           "initializer_unknown_key.yaml:6:38: unknown key 'valeu' in an initializer (did you "
           "mean 'value'?); allowed: name, type, shape, value")


def test_initializer_mistakes(refuse):
    refuse("initializer_clash.yaml",
           "initializer_clash.yaml:7:14: 'i' is already a graph value (line 5); an initializer "
           "is not a graph input, rename one",
           "initializer_clash.yaml:8:23: an initializer is a tensor; seq(tensor(int64)) is not: "
           "write tensor(T)",
           "initializer_clash.yaml:9:45: an initializer has a fixed shape: give integer dims, "
           "or leave 'shape' out",
           "initializer_clash.yaml:10:45: initializer 'm': -1 does not fit in uint8 (range "
           "0..255)")


def test_tensor_attribute_mistakes(refuse):
    """A tensor attribute is `{type, shape, value}` (issue 26): a plain value, unknown or
    missing keys, a type other than tensor(T), a value that does not fit, a shape other than
    the value's, a named dim; and the tensor form given to an integer attribute."""
    what = "Constant-13 attribute"
    refuse("tensor_attribute.yaml",
           f"tensor_attribute.yaml:8:69: {what} 'value' is a tensor: write it as {{type: "
           "tensor(T), shape: [...], value: ...}, not the value '-1'",
           f"tensor_attribute.yaml:9:91: unknown key 'valeu' in {what} 'value' (did you mean "
           "'value'?); allowed: type, shape, value",
           f"tensor_attribute.yaml:10:69: {what} 'value' is missing the required key 'value'",
           f"tensor_attribute.yaml:11:76: {what} 'value' is a tensor; seq(tensor(int64)) is "
           "not: write tensor(T)",
           f"tensor_attribute.yaml:12:98: {what} 'value': -1 does not fit in uint8 (range "
           "0..255)",
           f"tensor_attribute.yaml:13:110: {what} 'value' has shape [3] but its type declares "
           "[2]",
           f"tensor_attribute.yaml:14:98: {what} 'value' has a fixed shape: give integer dims, "
           "or leave 'shape' out",
           f"tensor_attribute.yaml:15:73: {what} 'value_int' is a single integer, not a tensor; "
           "write it plainly (only tensor attributes, such as Constant's 'value', take {type, "
           "shape, value})")


# -- quotes are bounded: a message quotes at most a prefix of what the user wrote ---------------

HUGE = 100_000


def _valid_with(old: str, new: str) -> str:
    text = (INVALID / "valid.yaml").read_text()
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize(("text", "fragment"), [
    (_valid_with("i: 1}", "i: 1." + "5" * HUGE + "}"),
     ":13:48: 'i': '1." + "5" * 58 + "...' "
     "(100,002 characters, first 60 shown) is not a decimal integer (int64)"),
    (_valid_with("[3.0, 4.0]}", "[1" + "0" * HUGE + ", 4.0]}"),
     ":14:23: 'out': 1" + "0" * 59 + "... "
     "(100,001 characters, first 60 shown) is too large for any float type"),
    (_valid_with("  opset: 11", "  opset: 11\n  ? " + "z" * HUGE + "\n  : 1"),
     ":3:5: unknown key '" + "z" * 60 + "...' "
     "(100,000 characters, first 60 shown) in a case"),
    (_valid_with("valid_sequence_at", "v" * HUGE),
     ":1:9: case name '" + "v" * 60 + "...' "
     "(100,000 characters, first 60 shown) is longer than the budget MAX_CASE_NAME (120)"),
    (_valid_with("op_type: SequenceAt", "op_type: " + "S" * HUGE),
     ":9:16: unknown op_type '" + "S" * 60 + "...' "
     "(100,000 characters, first 60 shown)"),
], ids=["100000-digit-float", "100000-digit-number", "100000-char-key", "100000-char-case-name",
        "100000-char-op-type"])
def test_a_huge_value_is_quoted_as_a_bounded_prefix(tmp_path, text, fragment):
    """A 100,000-digit float in a case file gave a 100 KB error line (a 100,000-character
    case name: a 100 KB 'File name too long' and exit 1). Every quote is now at most 60
    characters and says how much was cut."""
    cases_file = tmp_path / "huge.yaml"
    cases_file.write_text(text)
    result = CliRunner().invoke(main, ["build", str(cases_file), "-o", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output[:2000]
    lines = result.stderr.splitlines()
    assert lines[0].startswith(f"{cases_file}{fragment}"), lines[0][:2000]
    assert lines[1:] == ["1 problem(s) found; nothing was written."]
    assert all(len(line) < 500 for line in lines), [len(line) for line in lines]


def _scalars(text: str) -> list[tuple[int, int]]:
    """The (start, end) offsets of every scalar of a YAML text, keys and values."""
    found, pending = [], [yaml.compose(text)]
    while pending:
        node = pending.pop()
        if isinstance(node, yaml.ScalarNode):
            found.append((node.start_mark.index, node.end_mark.index))
        elif isinstance(node, yaml.SequenceNode):
            pending.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            pending.extend(part for pair in node.value for part in pair)
    return sorted(found)


def _loop_case() -> str:
    """A committed case with a Loop body (subgraphs, attributes, data sets of sequences)."""
    text = (Path(__file__).parent.parent / "cases" / "control_flow.yaml").read_text()
    start = text.index("- name: loop_v13_carries_sequence")
    return text[start:text.index("\n- name:", start) + 1]


class TestHugeScalars:
    """Any scalar of a valid case file (a key, a name, a type, an op_type, a number, a doc)
    replaced by a huge one, plain or quoted, of digits, a decimal, letters or a type-like text:
    the build ends in exit 0 or 2, no traceback, and every line it prints is bounded."""

    BASES = {"valid": (INVALID / "valid.yaml").read_text(), "loop": _loop_case()}
    MAKERS = {
        "digits": lambda n: "9" * n,
        "decimal": lambda n: "1." + "5" * n,
        "exponent": lambda n: "1" * n + "e5",
        "letters": lambda n: "x" * n,
        "type": lambda n: "tensor(" + "q" * n + ")",
        "quoted": lambda n: '"' + "y" * n + '"',
        "name": lambda n: "n_" * (n // 2),
    }

    @settings(max_examples=examples(40), deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(data=st.data(), base=st.sampled_from(sorted(BASES)),
           kind=st.sampled_from(sorted(MAKERS)), size=st.sampled_from([5_000, 100_000]))
    def test_every_line_is_bounded(self, tmp_path, data, base, kind, size):
        text = self.BASES[base]
        start, end = data.draw(st.sampled_from(_scalars(text)), label="scalar")
        huge = text[:start] + self.MAKERS[kind](size) + text[end:]
        cases_file = tmp_path / "huge.yaml"
        cases_file.write_text(huge)
        result = CliRunner().invoke(main, ["build", str(cases_file), "-o", str(tmp_path / "out")])
        assert result.exit_code in (0, 2), result.output[:2000]
        assert "Traceback" not in result.output
        assert all(len(line) <= 1_200 for line in result.output.splitlines()), (
            [line[:300] for line in result.output.splitlines() if len(line) > 1_200])
