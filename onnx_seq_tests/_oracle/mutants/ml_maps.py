"""Mutants of the ai.onnx.ml operators of maps and of skl2onnx's graphs: ZipMap keying by
column, CastMap in the map's own order or two-dimensional, DictVectorizer in the map's order,
TreeEnsembleClassifier with a strict comparison. Each is the spec's operator with its input or
attributes changed, so it still runs inside the schema's rules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..._core.cases import Node
from ..._core.operators import ML_DOMAIN
from ..oracle import Context, Operator
from .kit import Mutant, spec, targeted


def _ml(op_type: str) -> str:
    return f"{ML_DOMAIN}.{op_type}"


def _zipmap_keys_are_columns(node: Node, args: list[Any], attributes: dict[str, Any],
                             context: Context) -> list[Any]:
    labels = attributes.get("classlabels_int64s")
    if labels is not None:
        attributes = {**attributes, "classlabels_int64s": list(range(len(labels)))}
    return spec(_ml("ZipMap"))(node, args, attributes, context)


def _zipmap_sorted_labels(node: Node, args: list[Any], attributes: dict[str, Any],
                          context: Context) -> list[Any]:
    for name in ("classlabels_int64s", "classlabels_strings"):
        if name in attributes:
            attributes = {**attributes, name: sorted(attributes[name])}
    return spec(_ml("ZipMap"))(node, args, attributes, context)


def _in_map_order(keys: Callable[[dict[str, Any], int], list[Any]]) -> Operator:
    """The spec's operator with the input map's keys replaced, in the map's own order, by
    `keys(n)`: an operator that reads a map in insertion order, not by key."""
    def run(node: Node, args: list[Any], attributes: dict[str, Any],
            context: Context) -> list[Any]:
        mapping = args[0]
        if isinstance(mapping, dict):
            new_keys = keys(attributes, len(mapping))
            args = [dict(zip(new_keys, mapping.values(), strict=True)), *args[1:]]
        return spec(_ml(node.op_type))(node, args, attributes, context)
    return run


def _castmap_two_dimensional(node: Node, args: list[Any], attributes: dict[str, Any],
                             context: Context) -> list[Any]:
    return [np.asarray(y).reshape(1, -1) for y in spec(_ml("CastMap"))(
        node, args, attributes, context)]


def _tree_leq_as_lt(node: Node, args: list[Any], attributes: dict[str, Any],
                    context: Context) -> list[Any]:
    modes = attributes.get("nodes_modes")
    if modes is not None:
        attributes = {**attributes, "nodes_modes": [
            "BRANCH_LT" if m == "BRANCH_LEQ" else m for m in modes]}
    return spec(_ml("TreeEnsembleClassifier"))(node, args, attributes, context)


def _vocabulary_prefix(attributes: dict[str, Any], n: int) -> list[Any]:
    vocabulary = attributes.get("int64_vocabulary") or attributes.get("string_vocabulary") or []
    return list(vocabulary)[:n]


MUTANTS: tuple[Mutant, ...] = (
    Mutant("zipmap_keys_are_column_numbers",
           "ZipMap keys each map by column number (0, 1, ...) instead of the int64 labels",
           {_ml("ZipMap"): _zipmap_keys_are_columns}),
    Mutant("zipmap_labels_sorted",
           "ZipMap pairs the columns with the labels sorted, not in the attribute's order",
           {_ml("ZipMap"): _zipmap_sorted_labels}),
    Mutant("castmap_in_map_order",
           "CastMap writes the values in the map's own order, not ordered by key",
           {_ml("CastMap"): _in_map_order(lambda attributes, n: list(range(n)))}),
    Mutant("castmap_two_dimensional",
           "CastMap gives [1, N] instead of its 1-D output",
           {_ml("CastMap"): _castmap_two_dimensional},
           modelled_on="onnxruntime 1.32, measured by this project (castmap_output_is_1d)"),
    Mutant("dictvectorizer_in_map_order",
           "DictVectorizer writes the values in the map's order, not at each key's index in "
           "the vocabulary",
           {_ml("DictVectorizer"): _in_map_order(_vocabulary_prefix)}),
    Mutant("tree_ensemble_leq_as_lt",
           "TreeEnsembleClassifier's BRANCH_LEQ compares strictly (a value equal to the "
           "threshold goes to the false branch)",
           {_ml("TreeEnsembleClassifier"): _tree_leq_as_lt}),
)

TARGETS = {
    "zipmap_keys_are_column_numbers": ("seq(map(int64, tensor(float)))",),
    "zipmap_labels_sorted": ("seq(map(int64, tensor(float)))",
                             "seq(map(string, tensor(float)))"),
    "castmap_in_map_order": ("map(int64, tensor(float))",),
    "castmap_two_dimensional": ("map(int64, tensor(float))",),
    "dictvectorizer_in_map_order": ("map(int64, tensor(float))", "map(string, tensor(float))"),
    "tree_ensemble_leq_as_lt": ("seq(map(int64, tensor(float)))",),
}
MUTANTS = targeted(MUTANTS, TARGETS)
