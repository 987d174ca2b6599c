"""The ai.onnx.ml operators of the spec oracle, one table: the map operators and LabelEncoder
(ml_maps.py), the classifiers and the tensor operators beside them (ml_models.py), each inside
its schema's rules at `context.ml_opset` (`ml_typed`). A node of domain ai.onnx.ml is looked up
as "ai.onnx.ml.<OpType>"."""

from __future__ import annotations

from .ml_maps import ML_DOMAIN, cast_map, dict_vectorizer, label_encoder, ml_typed, zip_map
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

#: These operators, as entries of the oracle's table, by "ai.onnx.ml.<OpType>".
ML_OPERATORS: dict[str, Entry] = {
    f"{ML_DOMAIN}.{op}": ml_typed(run) for op, run in (
        ("ZipMap", zip_map),
        ("CastMap", cast_map),
        ("DictVectorizer", dict_vectorizer),
        ("LinearClassifier", linear_classifier),
        ("TreeEnsembleClassifier", tree_ensemble_classifier),
        ("Normalizer", normalizer),
        ("ArrayFeatureExtractor", array_feature_extractor),
        ("Binarizer", binarizer),
        ("Scaler", scaler),
        ("Imputer", imputer),
        ("LabelEncoder", label_encoder),
    )
}
