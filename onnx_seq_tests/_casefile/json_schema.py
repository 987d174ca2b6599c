"""The JSON Schema of case files, for editors, built from the loader's keys and from onnx.defs.

Editors with the YAML language server (VS Code's YAML extension, and others) validate a case file
while it is typed, complete keys and show their descriptions, when the file's first line is

    # yaml-language-server: $schema=../schema/case.schema.json

(a path relative to the case file; `cases/sub/x.yaml` needs `../../schema/case.schema.json`), or
for every case file at once, in VS Code's settings.json:

    "yaml.schemas": {"./schema/case.schema.json": ["cases/**/*.yaml", "cases/**/*.yml"]}

Write the file again after changing the case format or the pinned onnx:

    python -m onnx_seq_tests._casefile.json_schema > schema/case.schema.json

(tests/test_case_schema.py fails while it is stale). The schema checks structure: keys, the kind
of each value, op_type, element types, type strings, each operator's formal input and output
names, attribute names and kinds (for any version of the operator). The loader is the authority;
what only it checks is listed in `LOADER_ONLY`.
"""

from __future__ import annotations

import json
import sys
from typing import Any, cast

from .._core import operators, value_kinds
from .._core.elements import ELEMENTS
from .._core.value_kinds import TYPE_FORMS
from . import vocabulary as casefile

#: What the loader refuses and the schema lets through (the schema sees YAML 1.2 data, not the
#: text as written, and knows nothing of the graph or of a particular opset).
LOADER_ONLY = (
    "YAML 1.1 spellings: leading zeros (010), yes/no/on/off for bools",
    "values out of their element type's range, inexact values of 8-bit-or-smaller floats",
    "ragged tensors, data whose shape disagrees with the declared shape, element kinds",
    "data sets naming unknown graph values or lacking one (names are the case's own)",
    "an operator or attribute not defined at the case's opset; types a schema does not allow",
    "node wiring: formal inputs out of order, required inputs or attributes left out",
    "duplicate case names, duplicate graph value names, placeholders outside for_each",
    "the limits: file size, YAML nodes, nesting depth, tensor elements",
)

_DRAFT = "http://json-schema.org/draft-07/schema#"
_PLACEHOLDER = casefile.PLACEHOLDER_TEXT
_DIM_FIRST, _DIM_REST = casefile.DIM_NAME_CHARACTERS
_DIM_NAME_PATTERN = rf"^([{_DIM_FIRST}]|{_PLACEHOLDER})([{_DIM_REST}]|{_PLACEHOLDER})*$"
_FLOAT_WORD = {"type": "string",  # nan, inf, -inf, or a NaN by its bits: nan(0x7fa00001)
               "pattern": r"^([-+]?\.?([nN][aA][nN]|[iI][nN][fF])|nan\(0x[0-9a-fA-F]+\))$"}


def _ref(name: str) -> dict:
    return {"$ref": f"#/definitions/{name}"}


_TEXT = _ref("text")
_NUMBER = _ref("number")
_INTEGER = _ref("integer")


def _described(schema: dict, description: str) -> dict:
    return {**schema, "description": description}


def _element_patterns() -> list[str]:
    """Element type names as regex alternatives, longest first, and the {type} placeholder."""
    return [*sorted(ELEMENTS, key=lambda n: (-len(n), n)), r"\{type\}"]


def _type_pattern() -> str:
    return casefile.type_pattern(_element_patterns())


def _attribute_schema(kind: int) -> dict | bool:
    form, item = casefile.ATTRIBUTE_FORMS.get(kind, (None, None))
    scalar = {"integer": _INTEGER, "number": _NUMBER, "text": _TEXT}
    if form in scalar:
        return scalar[form]
    if form == "list":
        return {"type": "array", "items": scalar[cast(str, item)], "minItems": 1}
    if form == "graph":
        return _ref("graph")
    if form == "type":
        return {"anyOf": [_ref("type"), {
            "type": "object", "additionalProperties": False, "required": ["type"],
            "properties": {"type": _ref("type"), "shape": _ref("shape")}}]}
    if form == "tensor":
        return _ref("tensor")
    return False  # sparse tensors, lists of graphs, types or tensors are not written


def _formals_schema(formal_lists) -> dict:
    """Node inputs or outputs: formal name -> value name (a list for a variadic formal)."""
    kinds: dict[str, set[str]] = {}
    for formals in formal_lists:
        for formal in formals:
            kind = "variadic" if formal.option == operators.VARIADIC else "single"
            kinds.setdefault(formal.name, set()).add(kind)
    properties = {}
    for name, found in sorted(kinds.items()):
        choices = []
        if "single" in found:
            choices.append(_TEXT)
        if "variadic" in found:
            choices.append({"type": "array", "items": _TEXT})
        properties[name] = choices[0] if len(choices) == 1 else {"anyOf": choices}
    return {"type": "object", "additionalProperties": False, "properties": properties}


def _operator_rule(op_type: str, domain: str = "") -> dict:
    """`if op_type is X then` its formal names and attributes, any version of X (of `domain`,
    which a node of another domain than ai.onnx must name)."""
    versions = [operators.defined_schema(op_type, v, domain)
                for v in operators.versions(op_type, domain)]
    attribute_kinds: dict[str, set[int]] = {}
    for op_schema in versions:
        for name, attribute in op_schema.attributes.items():
            attribute_kinds.setdefault(name, set()).add(int(attribute.type.value))  # type: ignore[attr-defined]
    always_required = sorted(set.intersection(*(
        {n for n, a in s.attributes.items() if a.required} for s in versions)))
    then: dict = {"properties": {
        "inputs": _formals_schema(s.inputs for s in versions),
        "outputs": _formals_schema(s.outputs for s in versions),
        "attributes": False,
    }}
    if attribute_kinds:
        properties = {}
        for name, kinds in sorted(attribute_kinds.items()):
            options = [_attribute_schema(k) for k in sorted(kinds)]
            properties[name] = options[0] if len(options) == 1 else {"anyOf": options}
        then["properties"]["attributes"] = {"type": "object", "additionalProperties": False,
                                            "properties": properties}
    if always_required:
        then["required"] = ["attributes"]
        then["properties"]["attributes"]["required"] = always_required
    if domain:
        then["properties"]["domain"] = {"const": domain}
        then["required"] = [*then.get("required", []), "domain"]
    return {
        "if": {"properties": {"op_type": {"const": op_type}}, "required": ["op_type"]},
        "then": then,
    }


def _value_definitions() -> dict:
    leaf = {"type": ["string", "number", "boolean"]}
    empty = {"type": "object", "additionalProperties": False, "required": ["optional"],
             "properties": {"optional": {"const": casefile.EMPTY_MARKER_VALUE}},
             "description": "An empty optional: {optional: empty}."}
    forms = value_kinds.case_schemas(_ref("value"))  # {map: [[key, value], ...]}
    wrapped = [_ref(word) for word in forms]
    groups = sorted(ELEMENTS) + sorted(set(casefile.TYPE_GROUPS.values())) + ["default"]
    by_type = {
        "type": "object", "additionalProperties": False, "required": ["by_type"],
        "properties": {"by_type": {
            "type": "object", "propertyNames": {"enum": groups},
            "additionalProperties": {"anyOf": [_ref("data"), empty]},
            "description": "In a for_each case: the value per element type, group "
                           "(integers, floats, complexes, bool, string) or default."}}}
    return {
        "data": {"anyOf": [leaf, {"type": "array",
                                  "items": {"anyOf": [_ref("data"), _ref("by_type"),
                                                      *wrapped]}}],
                 "description": "A tensor as nested lists (a scalar for rank 0), or a "
                                "sequence as a list of tensors (each may be a by_type) or of "
                                "maps."},
        "by_type": by_type,
        **forms,
        "value": {"anyOf": [_ref("data"), empty, _ref("by_type"), *wrapped]},
        "values": {"type": "object", "additionalProperties": _ref("value"),
                   "description": "Graph value name -> value."},
    }


def case_schema() -> dict:
    """The JSON Schema (draft-07) of a case file, as a dict."""
    op_types = list(operators.all_operator_names())
    ml_types = list(operators.all_operator_names(operators.ML_DOMAIN))
    definitions = {**_scalar_definitions(), **_graph_definitions(op_types, ml_types),
                   **_case_definitions(op_types), **_value_definitions()}
    return {
        "$schema": _DRAFT,
        "title": "onnx-seq-tests case file",
        "description": "A list of test cases for ONNX sequence and optional operators.",
        "type": "array",
        "items": _ref("case"),
        "definitions": definitions,
    }


def _scalar_definitions() -> dict[str, Any]:
    """The definitions of text, numbers, type strings and shapes."""
    return {
        "text": {"type": ["string", "number", "boolean"]},
        "number": {"anyOf": [{"type": "number"}, _FLOAT_WORD]},
        "integer": {"anyOf": [{"type": "integer", "minimum": -(2**63), "maximum": 2**63 - 1},
                              {"type": "string", "pattern": f"^.*{_PLACEHOLDER}.*$"}]},
        "type": {"type": "string", "pattern": _type_pattern(),
                 "description": ", ".join(TYPE_FORMS[:-1]) + f" or {TYPE_FORMS[-1]}; T an "
                                "element type or {type}, K a map's key type, V a type."},
        "shape": {"type": "array", "description": "Dims of the innermost tensor: integers, "
                  "names, or ~ for unknown.",
                  "items": {"anyOf": [
                      {"type": "integer", "minimum": 0}, {"type": "null"},
                      {"type": "string", "pattern": _DIM_NAME_PATTERN},
                  ]}},
    }


def _tensor_schema(**more: dict) -> dict:
    """A tensor written in full (`TENSOR_KEYS`: tensor(T), fixed dims, the value), with `more`
    properties before them (an initializer's name); a tensor attribute has none."""
    tensor_type = casefile.type_pattern(_element_patterns(), TYPE_FORMS[:1])
    properties = {
        "type": {"type": "string", "pattern": tensor_type, "description": "tensor(T)."},
        "shape": {"type": "array", "items": {"type": "integer", "minimum": 0},
                  "description": "Fixed dims; without it, the value's shape."},
        "value": {"anyOf": [_ref("data"), _ref("by_type")],
                  "description": "The tensor's value; [] for any shape of no elements."}}
    return {"type": "object", "additionalProperties": False,
            "required": [*more, "type", "value"],
            "properties": {**more, **{key: properties[key] for key in casefile.TENSOR_KEYS}}}


def _graph_definitions(op_types: list[str], ml_types: list[str]) -> dict[str, Any]:
    """The definitions of a graph and what it holds: value declarations, initializers, nodes
    (with each operator's own rule), and a data set."""
    return {
        "value_decl": {
            "type": "object", "additionalProperties": False, "required": ["name", "type"],
            "properties": {"name": _described(_TEXT, "The graph value's name."),
                           "type": _ref("type"), "shape": _ref("shape")}},
        "tensor": _tensor_schema(),
        "initializer": _tensor_schema(name=_described(_TEXT, "The initializer's name.")),
        "node": {
            "type": "object", "additionalProperties": False, "required": ["op_type"],
            "properties": {
                "op_type": {"enum": sorted({*op_types, *ml_types}),
                            "description": "An operator of ai.onnx, or of the node's domain."},
                "domain": {"enum": list(casefile.NODE_DOMAINS),
                           "description": "The operator's opset domain; left out, ai.onnx."},
                "name": _TEXT,
                "inputs": {"type": "object", "description": "Formal input name -> value "
                           "name; \"\" omits an optional input."},
                "outputs": {"type": "object", "description": "Formal output name -> value "
                            "name."},
                "attributes": {"type": "object"},
            },
            "allOf": [_operator_rule(op) for op in op_types]
            + [_operator_rule(op, operators.ML_DOMAIN) for op in ml_types]},
        "graph": {
            "type": "object", "additionalProperties": False, "required": ["outputs", "nodes"],
            "properties": {"inputs": {"type": "array", "items": _ref("value_decl")},
                           "outputs": {"type": "array", "items": _ref("value_decl")},
                           "nodes": {"type": "array", "items": _ref("node")}}},
        "data_set": {
            "type": "object", "additionalProperties": False, "required": ["outputs"],
            "properties": {"inputs": _ref("values"), "outputs": _ref("values")}},
    }


def _case_definitions(op_types: list[str]) -> dict[str, Any]:
    """The definitions of a case and of its for_each expansion."""
    type_list = {"type": "array", "items": {"enum": sorted(ELEMENTS)}}
    return {
        "for_each": {
            "type": "object", "additionalProperties": False, "required": ["op", "param"],
            "description": "Expand the case over the opsets at which `op` changed and the "
                           "element types its type parameter `param` allows there.",
            "properties": {
                "op": {"enum": op_types},
                "param": _described(_TEXT, "A type parameter of op, such as S or T."),
                "opsets": {"anyOf": [{"const": "all"},
                                     {"type": "array", "items": {"type": "integer"}}]},
                "types": {"anyOf": [{"const": "all"}, type_list]},
                "exclude_types": type_list,
            }},
        "case": {
            "type": "object", "additionalProperties": False,
            "required": ["name", "outputs", "nodes", "data_sets"],
            "if": {"required": ["for_each"]},
            "then": {"not": {"required": ["opset"]}},
            "else": {"required": ["opset"]},
            "properties": {
                "name": {"description": "Becomes the folder test_<name>: lowercase letters, "
                                        "digits, underscores; {type}, {opset} with for_each.",
                         "anyOf": [{"type": "string",
                                    "pattern": rf"^([a-z0-9_]|{_PLACEHOLDER})+$"},
                                   {"type": "integer", "minimum": 0}]},
                "doc": _TEXT,
                "opset": {"type": "integer", "minimum": 1,
                          "maximum": operators.newest_released_opset(),
                          "description": "The ai.onnx opset the model imports."},
                "ml_opset": {"enum": sorted(operators.released_ml_opsets()),
                             "description": "The ai.onnx.ml opset the model imports, for "
                                            "nodes of that domain."},
                "for_each": _ref("for_each"),
                "inputs": {"type": "array", "items": _ref("value_decl")},
                "initializers": {"type": "array", "items": _ref("initializer"),
                                 "description": "Constant tensors of the graph (ONNX "
                                                "initializers), read by name like inputs."},
                "outputs": {"type": "array", "items": _ref("value_decl"), "minItems": 1},
                "nodes": {"type": "array", "items": _ref("node"), "minItems": 1},
                "data_sets": {"type": "array", "items": _ref("data_set"), "minItems": 1},
                "tolerance": {"type": "object", "additionalProperties": False,
                              "properties": {k: {"anyOf": [{"type": "number", "minimum": 0},
                                                           _FLOAT_WORD]}
                                             for k in casefile.TOLERANCE_KEYS}},
            }},
    }


def schema_text() -> str:
    """The schema as the file schema/case.schema.json holds it."""
    return json.dumps(case_schema(), indent=1, sort_keys=True) + "\n"


if __name__ == "__main__":  # pragma: no cover
    sys.stdout.write(schema_text())
