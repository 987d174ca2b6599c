"""The ai.onnx.ml operators of the spec oracle, one table: the map operators and LabelEncoder
(ml_maps.py), the classifiers and the tensor operators beside them (ml_models.py), each inside
its schema's rules at `context.ml_opset` (`ml_typed`). A node of domain ai.onnx.ml is looked up
as "ai.onnx.ml.<OpType>"."""

from __future__ import annotations

import functools
from typing import Any

from .._core.cases import Node
from .._core.operators import ML_DOMAIN
from .._core.value_kinds import MapType, TensorType
from .ml_maps import cast_map, dict_vectorizer, label_encoder, ml_typed, zip_map
from .ml_models import (
    array_feature_extractor,
    binarizer,
    imputer,
    linear_classifier,
    normalizer,
    scaler,
    tree_ensemble_classifier,
)
from .tensor_ops import Entry


def _dict_vectorizer(node: Node, args: list[Any], attributes: dict[str, Any],
                     context: Any) -> list[Any]:
    """DictVectorizer, an empty map's element type read from its declaration (the map's value
    type, or the declared output tensor's): no value of an empty map tells it."""
    mapping_type = context.declared.get(node.inputs[0]) if node.inputs else None
    output_type = context.declared.get(node.outputs[0]) if node.outputs else None
    element = (mapping_type.value if isinstance(mapping_type, MapType) else output_type)
    dtype = element.element.dtype if isinstance(element, TensorType) else None
    return ml_typed(functools.partial(dict_vectorizer, empty_dtype=dtype))(
        node, args, attributes, context)


#: These operators, as entries of the oracle's table, by "ai.onnx.ml.<OpType>".
ML_OPERATORS: dict[str, Entry] = {
    **{f"{ML_DOMAIN}.{op}": ml_typed(run) for op, run in (
        ("ZipMap", zip_map),
        ("CastMap", cast_map),
        ("LinearClassifier", linear_classifier),
        ("TreeEnsembleClassifier", tree_ensemble_classifier),
        ("Normalizer", normalizer),
        ("ArrayFeatureExtractor", array_feature_extractor),
        ("Binarizer", binarizer),
        ("Scaler", scaler),
        ("Imputer", imputer),
        ("LabelEncoder", label_encoder),
    )},
    f"{ML_DOMAIN}.DictVectorizer": _dict_vectorizer,
}
