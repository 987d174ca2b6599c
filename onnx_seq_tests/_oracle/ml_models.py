"""The ai.onnx.ml classifiers skl2onnx's default converters emit (LinearClassifier,
TreeEnsembleClassifier) and the small tensor operators beside them (Normalizer,
ArrayFeatureExtractor, Binarizer, Scaler, Imputer), as the oracle runs them inside
`ml_typed`.

Float math is done in float64 from the exact input and attribute values and rounded once to
float32 at the output (the schemas' Y and Z are tensor(float)). A classifier's label is that of
the first highest score (numpy's argmax): the schemas name no tie rule. Their docs say little
('Linear classifier'); where a schema is silent, the oracle reads onnx's reference
implementation (onnx/reference/ops/aionnxml) as the meaning of the attribute, and each function
says which sentence decides and where that reading comes from. Where neither gives a result,
OracleError.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from statistics import NormalDist
from typing import Any

import numpy as np

from .._core.cases import Node
from .._core.errors import OracleError
from .ml_maps import distinct_labels, one_of

_CLASS_LABELS = ("classlabels_strings", "classlabels_ints")
_TREE_LABELS = ("classlabels_strings", "classlabels_int64s")


def features(value: Any, op: str) -> np.ndarray:
    """An [N, F] input as float64 (its values exact); a 1-D input [F] is one example, [1, F]
    (the outputs are 'one class per example' and '[N,E] - one score for each class and
    example': a 1-D tensor of features is one example, as DictVectorizer's 1-D Y feeds a
    classifier in skl2onnx's pipelines); another rank: OracleError."""
    data = np.asarray(value)
    if data.ndim == 1:
        data = data.reshape(1, -1)
    if data.ndim != 2:
        raise OracleError(f"{op}'s input has shape {list(data.shape)}; the oracle reads it as "
                          "[N, F] (or [F], one example)")
    return data.astype(np.float64)


# -- post_transform -----------------------------------------------------------------------------

def _softmax(scores: np.ndarray) -> np.ndarray:
    shifted = np.exp(scores - scores.max(axis=1, keepdims=True))
    return np.asarray(shifted / shifted.sum(axis=1, keepdims=True))


def _softmax_zero(scores: np.ndarray) -> np.ndarray:
    """The reference's compute_softmax_zero: a zero score stays zero, the others are
    exp(v - max) normalized. It counts |v| <= 1e-7 as zero, and gives 0.5 everywhere to a row
    of zeros (onnxruntime: NaN); the oracle counts 0 alone and gives no result for
    0 < |v| <= 1e-7 nor for a row of zeros."""
    if np.any((scores != 0) & (np.abs(scores) <= 1e-7)):
        raise OracleError("SOFTMAX_ZERO of a score within 1e-7 of zero: the reference counts "
                          "it as zero, the name does not")
    if np.any(np.all(scores == 0, axis=1)):
        raise OracleError("SOFTMAX_ZERO of a row of zeros: nothing to normalize (the "
                          "reference gives 0.5 to each class, onnxruntime NaN)")
    result = np.where(scores == 0, 0.0, np.exp(scores - scores.max(axis=1, keepdims=True)))
    return np.asarray(result / result.sum(axis=1, keepdims=True))


def _probit(scores: np.ndarray) -> np.ndarray:
    """The probit function, the standard normal's quantile, exactly (the reference and
    onnxruntime use an approximation of erf^-1 with about 1e-3 relative error); a score
    outside (0, 1), the function's domain, has no result."""
    if np.any((scores <= 0) | (scores >= 1) | np.isnan(scores)):
        raise OracleError("PROBIT of a score outside (0, 1): the probit function is defined "
                          "on probabilities strictly between 0 and 1")
    quantile = NormalDist().inv_cdf
    return np.asarray(np.vectorize(quantile, otypes=[np.float64])(scores))


_POST_TRANSFORMS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "NONE": lambda s: s,
    "LOGISTIC": lambda s: np.asarray(1.0 / (1.0 + np.exp(-s))),
    "SOFTMAX": _softmax,
    "SOFTMAX_ZERO": _softmax_zero,
    "PROBIT": _probit,
}


def post_transform(scores: np.ndarray, attributes: dict[str, Any], op: str) -> np.ndarray:
    """post_transform: 'Indicates the transform to apply to the scores vector. One of 'NONE,'
    'SOFTMAX,' 'LOGISTIC,' 'SOFTMAX_ZERO,' or 'PROBIT'' (default NONE), applied to each row."""
    name = attributes.get("post_transform", "NONE")
    if name not in _POST_TRANSFORMS:
        raise OracleError(f"{op} post_transform {name!r}: one of {', '.join(_POST_TRANSFORMS)}")
    with np.errstate(over="ignore"):
        return _POST_TRANSFORMS[name](scores)


def labelled(scores: np.ndarray, labels: list[Any], strings: bool) -> list[Any]:
    """Y (the label of each row's first highest score) and Z (the scores, as float32)."""
    chosen = [labels[int(i)] for i in np.argmax(scores, axis=1)] if scores.shape[1] else []
    if len(chosen) != scores.shape[0]:
        raise OracleError("a classifier with no class scores gives no label")
    y = np.array(chosen, dtype=object if strings else np.int64)
    return [y, scores.astype(np.float32)]


# -- LinearClassifier ---------------------------------------------------------------------------

def linear_classifier(node: Node, args: list[Any], attributes: dict[str, Any],
                      version: int) -> list[Any]:
    """LinearClassifier ('Linear classifier'): coefficients 'A collection of weights of the
    model(s)', intercepts 'A collection of intercepts', multi_class 'Indicates whether to do OvR
    or multinomial (0=OvR is the default)', 'One and only one 'classlabels' attribute must be
    defined.' The doc gives no formula; as the reference reads it, the coefficients are C rows
    of F weights and the scores are X @ W.T + intercepts (none: zeros), one per class, in the
    order of the labels; multi_class changes nothing (the reference does not read it).

    The binary case, one row of weights and two labels: the reference's scores are [-s, s]
    before the post_transform (class 1 wins when s > 0; at s = 0 the first, class 0). Another
    count of rows than of labels, intercepts that are not one per row, weights that do not
    split into rows of F, fewer than two labels: OracleError."""
    data = features(args[0], "LinearClassifier")
    name, labels = one_of(attributes, _CLASS_LABELS, "LinearClassifier")
    distinct_labels(labels, f"LinearClassifier {name}")
    weights = np.array(attributes["coefficients"], dtype=np.float64)
    width = data.shape[1]
    if width == 0 or weights.size % width or not weights.size:
        raise OracleError(f"LinearClassifier: {weights.size} coefficient(s) do not make rows "
                          f"of {width} feature weight(s)")
    rows = weights.size // width
    intercepts = np.array(attributes.get("intercepts", [0.0] * rows), dtype=np.float64)
    if intercepts.size != rows:
        raise OracleError(f"LinearClassifier: {intercepts.size} intercept(s) for {rows} row(s) "
                          "of coefficients")
    binary = rows == 1 and len(labels) == 2
    if len(labels) < 2:
        raise OracleError(f"LinearClassifier with {len(labels)} class label(s): the reference "
                          "thresholds a single score into the label or 0, which no sentence "
                          "of the schema says")
    if rows != len(labels) and not binary:
        raise OracleError(f"LinearClassifier: {rows} row(s) of coefficients for "
                          f"{len(labels)} class label(s); one row per class (or one row for "
                          "two classes)")
    scores = data @ weights.reshape(rows, width).T + intercepts
    if binary:
        scores = np.concatenate([-scores, scores], axis=1)
    return labelled(post_transform(scores, attributes, "LinearClassifier"), labels,
                    name == "classlabels_strings")


# -- TreeEnsembleClassifier ---------------------------------------------------------------------

_MODES: dict[str, Callable[[float, float], bool]] = {
    "BRANCH_LEQ": operator.le, "BRANCH_LT": operator.lt, "BRANCH_GTE": operator.ge,
    "BRANCH_GT": operator.gt, "BRANCH_EQ": operator.eq, "BRANCH_NEQ": operator.ne,
}
_NODE_FIELDS = ("nodes_treeids", "nodes_nodeids", "nodes_featureids", "nodes_modes",
                "nodes_truenodeids", "nodes_falsenodeids")
_CLASS_FIELDS = ("class_treeids", "class_nodeids", "class_ids")


def floats_or_tensor(attributes: dict[str, Any], name: str, version: int) -> np.ndarray | None:
    """`name` or, from version 3, `name_as_tensor`: 'All fields ending with _as_tensor can be
    used instead of the same parameter without the suffix if the element type is double and
    not float'; both set: OracleError."""
    tensor = attributes.get(f"{name}_as_tensor")
    if tensor is not None and (version < 3 or name in attributes):
        raise OracleError(f"TreeEnsembleClassifier-{version}: {name}_as_tensor "
                          f"{'with ' + name if name in attributes else 'comes at version 3'}")
    if tensor is not None:
        return np.asarray(tensor, dtype=np.float64).reshape(-1)
    return np.array(attributes[name], dtype=np.float64) if name in attributes else None


class _Trees:
    """The nodes of an ensemble: 'The attributes named 'nodes_X' form a sequence of tuples,
    associated by index into the sequences, which must all be of equal length.' A node is known
    by (tree id, node id). The doc does not say which node is a tree's root: the reference
    takes the tree's first node listed, the structure the one node no node names as a child;
    where the two differ, OracleError."""

    def __init__(self, attributes: dict[str, Any], version: int) -> None:
        fields = {f: list(attributes.get(f, [])) for f in _NODE_FIELDS}
        values = floats_or_tensor(attributes, "nodes_values", version)
        count = len(fields["nodes_nodeids"])
        self.values = np.zeros(count) if values is None else values
        tracks = list(attributes.get("nodes_missing_value_tracks_true", [0] * count))
        if {len(v) for v in fields.values()} | {self.values.size, len(tracks)} != {count}:
            raise OracleError("TreeEnsembleClassifier: the nodes_* attributes differ in "
                              "length; 'they must all be of equal length'")
        self.tree, self.feature, self.modes, self.true, self.false = (
            fields["nodes_treeids"], fields["nodes_featureids"], fields["nodes_modes"],
            fields["nodes_truenodeids"], fields["nodes_falsenodeids"])
        self.tracks_true = [bool(t) for t in tracks]
        self.index = {(t, n): i for i, (t, n) in enumerate(zip(self.tree,
                                                              fields["nodes_nodeids"],
                                                              strict=True))}
        if len(self.index) != count:
            raise OracleError("TreeEnsembleClassifier: two nodes share a (tree id, node id)")
        if any(m not in _MODES and m != "LEAF" for m in self.modes):
            raise OracleError(f"TreeEnsembleClassifier nodes_modes {self.modes}: each one of "
                              f"{', '.join(_MODES)}, LEAF")
        self.roots = self._roots()

    def _roots(self) -> list[int]:
        children = {(self.tree[i], c) for i, m in enumerate(self.modes) if m != "LEAF"
                    for c in (self.true[i], self.false[i])}
        undefined = sorted(children - set(self.index))
        if undefined:
            raise OracleError(f"TreeEnsembleClassifier: node(s) {undefined} (tree, node) are "
                              "named as a child but not defined")
        roots = []
        for tree in sorted(set(self.tree)):
            found = [i for (t, n), i in self.index.items() if t == tree and (t, n) not in children]
            if len(found) != 1:
                raise OracleError(f"TreeEnsembleClassifier tree {tree} has {len(found)} nodes "
                                  "no node names as a child; a tree has one root")
            if found[0] != self.tree.index(tree):
                raise OracleError(f"TreeEnsembleClassifier tree {tree}: its root (the node no "
                                  "node names as a child) is not listed first, where the "
                                  "reference starts")
            roots.append(found[0])
        return roots

    def leaves(self, row: np.ndarray) -> list[int]:
        """The index of the leaf each tree reaches for `row`: 'if a value is missing (NaN), use
        the 'true' or 'false' branch based on the value in this array' (default false)."""
        reached = []
        for index in self.roots:
            for _ in range(len(self.modes) + 1):
                if self.modes[index] == "LEAF":
                    break
                feature = self.feature[index]
                if not 0 <= feature < row.size:
                    raise OracleError(f"TreeEnsembleClassifier: feature id {feature} is not "
                                      f"one of the input's {row.size} feature(s)")
                x = float(row[feature])
                go = self.tracks_true[index] if math.isnan(x) else _MODES[self.modes[index]](
                    x, float(self.values[index]))
                index = self.index[(self.tree[index],
                                    self.true[index] if go else self.false[index])]
            else:
                raise OracleError("TreeEnsembleClassifier: a tree's branches run in a circle")
            reached.append(index)
        return reached


def _votes(trees: _Trees, attributes: dict[str, Any], version: int,
           classes: int) -> dict[int, list[tuple[int, float]]]:
    """'all fields prefixed with 'class_' are tuples of votes at the leaves. A leaf may have
    multiple votes, where each vote is weighted by the associated class_weights index... The
    class_ids are indices into this list': leaf index -> [(class index, weight)]."""
    fields = {f: list(attributes.get(f, [])) for f in _CLASS_FIELDS}
    weights = floats_or_tensor(attributes, "class_weights", version)
    weights = np.zeros(0) if weights is None else weights
    count = len(fields["class_ids"])
    if {len(v) for v in fields.values()} | {weights.size} != {count}:
        raise OracleError("TreeEnsembleClassifier: the class_* attributes differ in length")
    votes: dict[int, list[tuple[int, float]]] = {}
    for k, (tree, node, class_id) in enumerate(zip(*fields.values(), strict=True)):
        leaf = trees.index.get((tree, node))
        if leaf is None or trees.modes[leaf] != "LEAF":
            raise OracleError(f"TreeEnsembleClassifier: a vote names ({tree}, {node}), which "
                              "is not a leaf; votes are 'at the leaves'")
        if not 0 <= class_id < classes:
            raise OracleError(f"TreeEnsembleClassifier class_id {class_id} is not an index "
                              f"into the {classes} class label(s)")
        votes.setdefault(leaf, []).append((class_id, float(weights[k])))
    return votes


def tree_ensemble_classifier(node: Node, args: list[Any], attributes: dict[str, Any],
                             version: int) -> list[Any]:
    """TreeEnsembleClassifier: 'Returns the top class for each of N inputs.' Each tree's
    reached leaf adds its votes' weights to their classes' scores; base_values: 'Base values for
    classification, added to final class score; the size must be the same as the classes or can
    be left unassigned (assumed 0)'; then post_transform; Y the label of the first highest score.
    nodes_hitrates ('used for performance and may be omitted') changes nothing.

    The binary case, every vote for class 0 of two labels (one weight column), is the
    reference's reading: r = the class-0 score, and the scores are [1 - r, r] (post_transform
    NONE or PROBIT) or [-r, r] before the transform (the others). The reference drops
    base_values[1] there, overwrites votes for class 1 when all votes name class 1, and applies
    its binary rule whenever the votes name one class, more than two labels too: those, and a
    single class label, give OracleError."""
    data = features(args[0], "TreeEnsembleClassifier")
    name, labels = one_of(attributes, _TREE_LABELS, "TreeEnsembleClassifier")
    distinct_labels(labels, f"TreeEnsembleClassifier {name}")
    trees = _Trees(attributes, version)
    votes = _votes(trees, attributes, version, len(labels))
    base = floats_or_tensor(attributes, "base_values", version)
    base = np.zeros(len(labels)) if base is None else base
    if base.size != len(labels):
        raise OracleError(f"TreeEnsembleClassifier: {base.size} base value(s) for "
                          f"{len(labels)} class(es): 'the size must be the same as the classes'")
    voted = {c for leaf in votes.values() for c, _ in leaf}
    binary = len(voted) == 1 and len(labels) == 2
    if len(labels) < 2 or (binary and (voted != {0} or base[1] != 0)) or (
            len(voted) == 1 and len(labels) > 2):
        raise OracleError(f"TreeEnsembleClassifier with labels {labels}, votes for class(es) "
                          f"{sorted(voted)}, base_values {base.tolist()}: neither the schema "
                          "nor the reference's binary rule gives a result")
    scores = np.tile(base, (data.shape[0], 1))
    for row, values in enumerate(data):
        for leaf in trees.leaves(values):
            for class_id, weight in votes.get(leaf, []):
                scores[row, class_id] += weight
    if binary:
        r = scores[:, :1]
        complement = 1 - r if attributes.get("post_transform", "NONE") in ("NONE", "PROBIT") else -r
        scores = np.concatenate([complement, r], axis=1)
    return labelled(post_transform(scores, attributes, "TreeEnsembleClassifier"), labels,
                    name == "classlabels_strings")


# -- Normalizer, ArrayFeatureExtractor, Binarizer, Scaler, Imputer ---------------------------

def normalizer(node: Node, args: list[Any], attributes: dict[str, Any],
               version: int) -> list[Any]:
    """Normalizer: 'Max: Y = X / max(X); L1: Y = X / sum(X); L2: Y = sqrt(X^2 / sum(X^2)). In
    all modes, if the divisor is zero, Y == X. For batches, that is, [N,C] tensors,
    normalization is done along the C axis. In other words, each row of the batch is normalized
    independently.' The formulas as written: max and sum of the values, not of their
    magnitudes, and L2 without the sign (onnxruntime divides by sum(|X|) and keeps the sign).
    A 1-D X is one row; another rank, or MAX of an empty row, has no result."""
    data = np.asarray(args[0])
    norm = attributes.get("norm", "MAX")
    if data.ndim not in (1, 2) or norm not in ("MAX", "L1", "L2"):
        raise OracleError(f"Normalizer of shape {list(data.shape)}, norm {norm!r}: the doc "
                          "speaks of [C] and [N, C] tensors, norm MAX, L1 or L2")
    rows = data.astype(np.float64).reshape((1, -1) if data.ndim == 1 else data.shape)
    if norm == "MAX" and rows.size == 0 and len(rows):
        raise OracleError("Normalizer MAX of an empty row: max(X) has no value")
    result = []
    for row in rows:
        divisor = (row.max() if norm == "MAX" else row.sum() if norm == "L1"
                   else np.square(row).sum()) if row.size else 0.0
        if divisor == 0:
            result.append(row)
        elif norm == "L2":
            result.append(np.sqrt(np.square(row) / divisor))
        else:
            result.append(row / divisor)
    return [np.array(result, dtype=np.float64).reshape(data.shape).astype(np.float32)]


def array_feature_extractor(node: Node, args: list[Any], attributes: dict[str, Any],
                            version: int) -> list[Any]:
    """ArrayFeatureExtractor: 'Select elements of the input tensor based on the indices
    passed. The indices are applied to the last axes of the tensor.' Y: 'The indices, based on 0
    as the first index of any dimension': its elements in order, whatever its shape (skl2onnx
    passes ArgMax's [N, 1]). Z = X[..., Y]: X's shape with its last dim replaced by Y's count
    (so [k] for a 1-D X: onnxruntime gives [1, k]). An index outside [0, C-1] (the doc speaks
    of no negative index) and a 0-d X have no result."""
    data, indices = np.asarray(args[0]), np.asarray(args[1]).reshape(-1)
    if data.ndim == 0:
        raise OracleError("ArrayFeatureExtractor of a 0-d X: the indices need a last axis")
    size = data.shape[-1]
    if indices.size and not (0 <= indices.min() and indices.max() < size):
        raise OracleError(f"ArrayFeatureExtractor indices {indices.tolist()} out of [0, "
                          f"{size - 1}]")
    return [np.array(np.take(data, indices, axis=-1))]


def binarizer(node: Node, args: list[Any], attributes: dict[str, Any],
              version: int) -> list[Any]:
    """Binarizer: 'Maps the values of the input tensor to either 0 or 1, element-wise, based on
    the outcome of a comparison against a threshold value.' threshold: 'Values greater than this
    are mapped to 1, others to 0' (default 0; NaN is not greater: 0)."""
    data = np.asarray(args[0])
    threshold = float(attributes.get("threshold", 0.0))
    return [(data.astype(np.float64) > threshold).astype(data.dtype)]


def scaler(node: Node, args: list[Any], attributes: dict[str, Any], version: int) -> list[Any]:
    """Scaler: 'Rescale input data, for example to standardize features by removing the mean
    and scaling to unit variance.' offset: 'First, offset by this' (removed: Y = (X - offset) *
    scale); scale: 'Second, multiply by this. Can be length of features in an [N,F] tensor or
    length 1, in which case it applies to all features... Must be same length as 'offset''.
    No default is given: a missing one, or lengths other than F or 1, have no result."""
    data = np.asarray(args[0]).astype(np.float64)
    if "offset" not in attributes or "scale" not in attributes:
        raise OracleError("Scaler needs offset and scale: the schema gives no default")
    offset, scale = (np.array(attributes[n], dtype=np.float64) for n in ("offset", "scale"))
    features_count = data.shape[-1] if data.ndim else 1
    if offset.size != scale.size or offset.size not in (1, features_count):
        raise OracleError(f"Scaler offset ({offset.size}) and scale ({scale.size}): one length, "
                          f"1 or the {features_count} feature(s)")
    return [((data - offset) * scale).astype(np.float32)]


def imputer(node: Node, args: list[Any], attributes: dict[str, Any], version: int) -> list[Any]:
    """Imputer: 'Replaces inputs that equal one value with another, leaving all other elements
    alone... One and only one of imputed_value_floats or imputed_value_int64s should be defined
    -- floats if the input tensor holds floats, integers if the input tensor holds integers. The
    imputed values must all fit within the width of the tensor element type. One and only one
    of the replaced_value_float or replaced_value_int64 should be defined, which one depends on
    whether floats or integers are being processed... if the input tensor has the shape [*,F],
    then the length of the attribute array may be 1 or F.' A replaced value of NaN matches every
    NaN ('typically used to replace missing values... such as... NaN'); the replaced value of
    the input's kind defaults to 0 (the schema's default)."""
    data = np.asarray(args[0])
    kind = "float" if data.dtype.kind == "f" else "int64"
    other = "int64" if kind == "float" else "float"
    if f"imputed_value_{other}s" in attributes or f"replaced_value_{other}" in attributes:
        raise OracleError(f"Imputer of {data.dtype}: imputed_value_{other}s and "
                          f"replaced_value_{other} are for {other}s")
    if f"imputed_value_{kind}s" not in attributes:
        raise OracleError(f"Imputer of {data.dtype} needs imputed_value_{kind}s")
    imputed = np.array(attributes[f"imputed_value_{kind}s"],
                       dtype=np.float64 if kind == "float" else object)
    width = data.shape[-1] if data.ndim else 1
    if imputed.size not in (1, width):
        raise OracleError(f"Imputer: {imputed.size} imputed value(s) for {width} feature(s); "
                          "'the length of the attribute array may be 1 or F'")
    if kind == "int64":
        info = np.iinfo(data.dtype)
        if not all(info.min <= v <= info.max for v in imputed):
            raise OracleError(f"Imputer: imputed values {imputed.tolist()} do not fit "
                              f"{data.dtype}: 'must all fit within the width'")
    replaced = attributes.get(f"replaced_value_{kind}", 0)
    hit = np.isnan(data) if kind == "float" and math.isnan(replaced) else data == replaced
    filled = np.broadcast_to(imputed.astype(data.dtype), data.shape)
    return [np.where(hit, filled, data).astype(data.dtype)]
