"""schema/case.schema.json agrees with the loader: on every file in cases/ and on the invalid ones.

The schema sees what an editor's YAML language server sees: the file read as YAML 1.2 data. It
accepts everything the loader accepts; of the files the loader refuses, it refuses those whose
mistake is structural and lets through those only the loader can judge (listed below, by reason).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml

from onnx_seq_tests._casefile import json_schema as case_schema
from onnx_seq_tests._casefile import vocabulary as casefile
from onnx_seq_tests._casefile.reader import load_cases, load_file
from onnx_seq_tests._core.errors import CaseFileError
from onnx_seq_tests._core.problems import Problems
from onnx_seq_tests._suite.compiling import compile_cases

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_FILE = ROOT / "schema" / "case.schema.json"
INVALID = Path(__file__).parent / "invalid_cases"

# Each file of tests/invalid_cases, and what the schema makes of it.
VALID = {"valid.yaml", "yaml11_exponent.yaml", "duplicate_names/first.yaml",
         "duplicate_names/second.yaml"}  # the duplicate shows only when both are loaded
# Not YAML an editor could turn into data; the language server's own parser reports these.
NOT_DATA = {"yaml_syntax.yaml", "tab_indentation.yaml", "invalid_utf8.yaml", "alias_bomb.yaml",
            "recursive_alias.yaml", "control_character.yaml"}
# Structural mistakes: the schema refuses them as the loader does.
BOTH_REFUSE = {
    "empty.yaml", "unknown_key.yaml", "missing_key.yaml", "wrong_kind_string_for_number.yaml",
    "wrong_kind_mapping_for_list.yaml", "unknown_op_type.yaml", "unknown_attribute.yaml",
    "attribute_wrong_type.yaml", "attribute_out_of_range.yaml", "missing_attribute.yaml",
    "malformed_type.yaml", "unsafe_names.yaml", "python_tag.yaml",
    "initializer_unknown_key.yaml", "initializer_clash.yaml", "tensor_attribute.yaml",
}
# Only the loader refuses these, and why the schema cannot.
LOADER_ONLY = {
    "op_not_at_opset.yaml": "the schema allows any version of an operator",
    "type_not_allowed.yaml": "allowed types depend on the graph's wiring",
    "type_not_allowed_at_opset.yaml": "allowed types depend on the opset",
    "inference_error.yaml": "onnx's shape inference runs on the built model",
    "value_out_of_range.yaml": "ranges depend on the declared element type",
    "ragged_tensor.yaml": "JSON Schema cannot compare the lengths of sibling lists",
    "shape_mismatch.yaml": "shapes depend on the declaration",
    "outputs_wrong_type.yaml": "shapes depend on the declaration",
    "sequence_element_type.yaml": "element kinds depend on the declaration",
    "empty_marker_not_optional.yaml": "optional-ness depends on the declaration",
    "data_set_missing_input.yaml": "graph value names are the case's own",
    "data_set_unknown_input.yaml": "graph value names are the case's own",
    "outputs_wrong_number.yaml": "graph value names are the case's own",
    "for_each_name.yaml": "whether a name needs {type} depends on the expansion",
    "yaml11_bool.yaml": "YAML 1.2 reads `no` as the string 'no', a valid string element",
    "yaml11_octal.yaml": "YAML 1.2 reads `010` as 10",
    "yaml11_exponent_quoted.yaml": "a quoted number is a valid string element",
    "tensor_too_large.yaml": "a limit of the loader",
    "too_deep.yaml": "a limit of the loader",
    "named_dim_differs.yaml": "a named dim's size is bound by the values",
    "named_dim_across_values.yaml": "a named dim's size is bound by the values",
}

_INT = re.compile(r"[-+]?[0-9]+")
_RADIX = re.compile(r"0o[0-7]+|0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_SPECIAL = {".inf": float("inf"), "+.inf": float("inf"), "-.inf": float("-inf"),
            ".nan": float("nan")}


def yaml12_data(node):
    """Data from composed YAML nodes by the YAML 1.2 core schema, as language servers read."""
    if isinstance(node, yaml.MappingNode):
        return {str(yaml12_data(k)): yaml12_data(v) for k, v in node.value}
    if isinstance(node, yaml.SequenceNode):
        return [yaml12_data(item) for item in node.value]
    if node is None:  # an empty document
        return None
    text = node.value
    if node.style not in (None, ""):
        return text
    if text in ("", "~", "null", "Null", "NULL"):
        return None
    if text in ("true", "True", "TRUE", "false", "False", "FALSE"):
        return text.lower() == "true"
    if _INT.fullmatch(text):
        return int(text)
    if _RADIX.fullmatch(text):
        return int(text, 0)
    if _FLOAT.fullmatch(text):
        return float(text)
    if text.lower() in _SPECIAL:
        return _SPECIAL[text.lower()]
    return text


def read_data(path: Path):
    return yaml12_data(yaml.compose(path.read_text(), Loader=yaml.SafeLoader))


@pytest.fixture(scope="module")
def validator():
    schema = json.loads(SCHEMA_FILE.read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def schema_errors(validator, path: Path) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message[:200]}"
            for e in validator.iter_errors(read_data(path))]


def loader_refuses(path: Path) -> bool:
    problems = Problems()
    load_file(path, problems)
    return bool(problems.found)


@pytest.fixture(scope="module")
def schema_text() -> str:
    """The schema as generated now from onnx.defs, once."""
    return case_schema.schema_text()


def test_schema_file_is_up_to_date(schema_text):
    assert SCHEMA_FILE.read_text() == schema_text, (
        "schema/case.schema.json is stale: python -m onnx_seq_tests._casefile.json_schema > "
        "schema/case.schema.json")


def test_schema_keys_are_the_loaders_keys(schema_text):
    definitions = json.loads(schema_text)["definitions"]
    for definition, keys in (("case", casefile.CASE_KEYS), ("for_each", casefile.FOR_EACH_KEYS),
                             ("value_decl", casefile.VALUE_KEYS), ("node", casefile.NODE_KEYS),
                             ("graph", casefile.GRAPH_KEYS),
                             ("data_set", casefile.DATA_SET_KEYS)):
        assert set(definitions[definition]["properties"]) == set(keys), definition


PROJECT_CASES = sorted((ROOT / "cases").rglob("*.yaml"))


@pytest.mark.parametrize("path", PROJECT_CASES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_project_case_file_passes_schema_and_loader(validator, path):
    assert schema_errors(validator, path) == []
    assert load_cases([path])


def test_project_has_case_files():
    assert len(PROJECT_CASES) >= 2


def test_every_invalid_file_is_classified():
    files = {str(p.relative_to(INVALID)) for p in INVALID.rglob("*.yaml")}
    classified = VALID | NOT_DATA | BOTH_REFUSE | set(LOADER_ONLY)
    assert files == classified
    assert len(classified) == len(VALID) + len(NOT_DATA) + len(BOTH_REFUSE) + len(LOADER_ONLY)


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_files_pass_both(validator, name):
    assert schema_errors(validator, INVALID / name) == []
    assert not loader_refuses(INVALID / name)


@pytest.mark.parametrize("name", sorted(BOTH_REFUSE))
def test_structural_mistakes_are_refused_by_both(validator, name):
    assert schema_errors(validator, INVALID / name) != []
    assert loader_refuses(INVALID / name)


@pytest.mark.parametrize("name", sorted(LOADER_ONLY))
def test_semantic_mistakes_pass_the_schema_and_fail_the_loader(validator, name):
    assert schema_errors(validator, INVALID / name) == [], LOADER_ONLY[name]
    path = INVALID / name
    if loader_refuses(path):
        return
    with pytest.raises(CaseFileError):  # refused later, while building the model
        compile_cases(load_cases([path]))


@pytest.mark.parametrize("name", sorted(NOT_DATA))
def test_files_that_are_not_data_are_refused_by_the_loader(name):
    assert loader_refuses(INVALID / name)
