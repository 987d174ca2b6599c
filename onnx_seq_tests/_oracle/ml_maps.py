"""The ai.onnx.ml operators that make maps or take them apart (ZipMap, CastMap, DictVectorizer)
and the one that maps values by a table (LabelEncoder), as the oracle runs them, and
`ml_typed`, the schema rules of domain ai.onnx.ml at the opset in force (`context.ml_opset`)
that every ai.onnx.ml entry runs inside.

Values follow the oracle's convention: a tensor is an ndarray, a sequence a list, a map a dict
from key (Python int for int64, str for string) to a 0-d tensor (value_kinds/map.py). Each
function quotes its schema's doc; where the doc gives no result, OracleError says why.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from onnx import TensorProto

from .._core import operators
from .._core.cases import Node
from .._core.errors import OracleError
from .._core.operators import ML_DOMAIN
from .elementwise import cast
from .tensor_ops import Entry, Versioned, admitted, type_string


def ml_type_string(value: Any) -> str | None:
    """A value's type string as `operators.allowed_types` gives ai.onnx.ml's schema types:
    `tensor(float)`, `map(int64, tensor(float))`, `seq(map(string, tensor(float)))`; "" for an
    input left off; None where it cannot be told (an empty map or sequence, mixed keys or
    values), which is not judged."""
    if isinstance(value, dict):
        keys = {type(k) for k in value}
        values = {type_string(v) for v in value.values()}
        if len(keys) != 1 or len(values) != 1 or keys - {int, str}:
            return None
        element = values.pop()
        if element is None or not element.startswith("tensor("):
            return None
        return f"map({'string' if str in keys else 'int64'}, {element})"
    if isinstance(value, list):
        inner = {ml_type_string(v) for v in value}
        return None if len(inner) != 1 or None in inner else f"seq({inner.pop()})"
    return type_string(value)


def ml_typed(run: Versioned) -> Entry:
    """`run` as an entry of the oracle's table, inside its ai.onnx.ml schema's rules: defined at
    `context.ml_opset`, inputs (before) and outputs (after) of types the schema admits."""
    def checked(node: Node, args: list[Any], attributes: dict[str, Any],
                context: Any) -> list[Any]:
        schema = operators.schema(node.op_type, context.ml_opset, ML_DOMAIN)
        if schema is None:
            raise OracleError(f"{ML_DOMAIN}.{node.op_type} is not defined at {ML_DOMAIN} "
                              f"opset {context.ml_opset}")
        admitted(node, schema, [ml_type_string(a) for a in args], "input")
        outputs = run(node, args, attributes, schema.since_version)
        admitted(node, schema, [ml_type_string(o) for o in outputs], "output")
        return outputs
    return checked


def one_of(attributes: dict[str, Any], names: tuple[str, ...], op: str) -> tuple[str, Any]:
    """The one attribute of `names` that is set ('One and only one of ... must be defined')."""
    given = [n for n in names if n in attributes]
    if len(given) != 1:
        raise OracleError(f"{op}: one and only one of {', '.join(names)} must be defined; "
                          f"{'none is' if not given else ', '.join(given) + ' are'} set")
    return given[0], list(attributes[given[0]])


def distinct_labels(labels: list[Any], what: str) -> None:
    if len(set(labels)) != len(labels):
        raise OracleError(f"{what} {labels} repeats an entry: which one a value belongs to "
                          "is not defined")


# -- ZipMap -------------------------------------------------------------------------------------

def zip_map(node: Node, args: list[Any], attributes: dict[str, Any], version: int) -> list[Any]:
    """ZipMap: 'Creates a map from the input and the attributes. The values are provided by the
    input tensor, while the keys are specified by the attributes. Must provide keys in either
    classlabels_strings or classlabels_int64s (but not both). The columns of the tensor
    correspond one-by-one to the keys specified by the attributes. There must be as many
    columns as keys.' One map per row of an [N, C] tensor, in row order (zero rows: an empty
    sequence); a value is a 0-d float tensor. A tensor of another rank has no columns the doc
    speaks of: OracleError (onnxruntime reads a 1-D tensor as one row). Repeated labels would
    put two values under one key: OracleError."""
    data = np.asarray(args[0])
    name, labels = one_of(attributes, ("classlabels_strings", "classlabels_int64s"), "ZipMap")
    distinct_labels(labels, f"ZipMap {name}")
    if data.ndim != 2:
        raise OracleError(f"ZipMap's input has shape {list(data.shape)}; the doc speaks of "
                          "the columns of an [N, C] tensor")
    if data.shape[1] != len(labels):
        raise OracleError(f"ZipMap: {data.shape[1]} column(s), {len(labels)} key(s): 'There "
                          "must be as many columns as keys'")
    keys = [str(k) if name == "classlabels_strings" else int(k) for k in labels]
    return [[{k: np.array(v, dtype=np.float32) for k, v in zip(keys, row, strict=True)}
             for row in data]]


# -- CastMap ------------------------------------------------------------------------------------

_CAST_TO = {"TO_FLOAT": TensorProto.FLOAT, "TO_STRING": TensorProto.STRING,
            "TO_INT64": TensorProto.INT64}


def map_values(mapping: Any, op: str) -> dict[Any, Any]:
    """The map input, each value its one element (a 0-d array)."""
    if not isinstance(mapping, dict):
        raise OracleError(f"{op}'s input is not a map")
    found = {}
    for key, value in mapping.items():
        array = np.asarray(value)
        if array.size != 1:
            raise OracleError(f"{op}: the value of key {key!r} holds {array.size} elements; "
                              "a map value here is one element")
        found[key] = array.reshape(())
    return found


def cast_map(node: Node, args: list[Any], attributes: dict[str, Any], version: int) -> list[Any]:
    """CastMap: 'Converts a map to a tensor. The map key must be an int64 and the values will be
    ordered in ascending order based on this key. The operator supports dense packing or sparse
    packing. If using sparse packing, the key cannot exceed the max_map-1 value.' map_form:
    'Indicates whether to only output as many values as are in the input (dense), or position
    the input based on using the key of the map as the index of the output (sparse).' max_map:
    'If the value of map_form is 'SPARSE,' this attribute indicates the total length of the
    output tensor.' cast_to: 'the desired element type of the output tensor'.

    The output is read as 1-D (a 'length', like DictVectorizer's '1-D tensor'; onnxruntime
    gives [1, N]). Where the doc gives no result, OracleError: a SPARSE key below 0 or above
    max_map-1, a SPARSE position no key fills (the doc names no fill value), and a value the
    conversion leaves undefined; the conversion follows Cast's rules (float to int64 of a value
    with a fraction, float to string, a non-numeric string to float have no result there)."""
    mapping = map_values(args[0], "CastMap")
    cast_to, form = attributes.get("cast_to", "TO_FLOAT"), attributes.get("map_form", "DENSE")
    if cast_to not in _CAST_TO or form not in ("DENSE", "SPARSE"):
        raise OracleError(f"CastMap cast_to {cast_to!r}, map_form {form!r}: cast_to is one of "
                          f"{', '.join(_CAST_TO)}, map_form DENSE or SPARSE")
    if any(type(k) is not int for k in mapping):
        raise OracleError("CastMap: 'The map key must be an int64'")
    keys = sorted(mapping)
    if form == "SPARSE":
        max_map = attributes.get("max_map", 1)
        if any(not 0 <= k <= max_map - 1 for k in keys):
            raise OracleError(f"CastMap SPARSE with max_map {max_map}, keys {keys}: 'the key "
                              "cannot exceed the max_map-1 value' (nor be negative: an index)")
        if len(keys) != max_map:
            raise OracleError(f"CastMap SPARSE with max_map {max_map}, keys {keys}: the doc "
                              "names no value for the positions no key fills")
    if not keys:
        return [np.zeros(0, dtype=object if cast_to == "TO_STRING" else
                         np.float32 if cast_to == "TO_FLOAT" else np.int64)]
    if any(mapping[k].dtype.kind in "OUS" for k in keys):
        source = np.array([str(mapping[k]) for k in keys], dtype=object)
    else:
        source = np.array([mapping[k] for k in keys], dtype=np.float32)
    return cast(node, [source], {"to": _CAST_TO[cast_to]}, version)


# -- DictVectorizer -----------------------------------------------------------------------------

_VOCABULARIES = ("string_vocabulary", "int64_vocabulary")


def dict_vectorizer(node: Node, args: list[Any], attributes: dict[str, Any],
                    version: int, empty_dtype: np.dtype | None = None) -> list[Any]:
    """DictVectorizer: 'Given a dictionary, each key is looked up in the vocabulary attribute
    corresponding to the key type. The index into the vocabulary array at which the key is
    found is then used to index the output 1-D tensor 'Y' and insert into it the value found in
    the dictionary 'X'. The key type of the input map must correspond to the element type of
    the defined vocabulary attribute. Therefore, the output array will be equal in length to the
    index mapping vector parameter. All keys in the input dictionary must be present in the
    index mapping vector. For each item in the input dictionary, insert its value in the output
    array. Any keys not present in the input dictionary, will be zero in the output array.'

    Y is 1-D of the vocabulary's length and the values' element type (onnxruntime gives
    [1, len]). OracleError: a key absent from the vocabulary ('must be present'; onnxruntime
    skips it), a vocabulary that repeats an entry, a key of the other type, a string output
    with an entry the map does not fill (a string has no 'zero'), and an empty map whose
    element type `empty_dtype` does not give (the map's declared value type: no value of an
    empty map tells it)."""
    mapping = map_values(args[0], "DictVectorizer")
    name, vocabulary = one_of(attributes, _VOCABULARIES, "DictVectorizer")
    distinct_labels(vocabulary, f"DictVectorizer {name}")
    key_type = str if name == "string_vocabulary" else int
    index = {key_type(k): i for i, k in enumerate(vocabulary)}
    for key in mapping:
        if type(key) is not key_type:
            raise OracleError(f"DictVectorizer: the key {key!r} is not of {name}'s type: 'The "
                              "key type of the input map must correspond to the element type "
                              "of the defined vocabulary attribute'")
        if key not in index:
            raise OracleError(f"DictVectorizer: the key {key!r} is not in {name}: 'All keys in "
                              "the input dictionary must be present in the index mapping "
                              "vector'")
    dtypes = {str(v.dtype) for v in mapping.values()}
    if not mapping and empty_dtype is not None:
        return [_vector(mapping, vocabulary, index, key_type, np.dtype(empty_dtype))]
    if len(dtypes) != 1:
        raise OracleError(f"DictVectorizer of a map whose values are of {len(dtypes)} types "
                          f"{sorted(dtypes)}: the output's element type is that of the values")
    return [_vector(mapping, vocabulary, index, key_type, next(iter(mapping.values())).dtype)]


def _vector(mapping: dict[Any, Any], vocabulary: list[Any], index: dict[Any, int], key_type: type,
            dtype: np.dtype) -> np.ndarray:
    """DictVectorizer's Y: each value at its key's index in the vocabulary, zero elsewhere."""
    if dtype.kind in "OUS":
        if len(mapping) != len(vocabulary):
            raise OracleError("DictVectorizer to a string tensor: the doc's 'will be zero' "
                              "names no string for a vocabulary entry the map does not fill")
        return np.array([str(mapping[key_type(k)]) for k in vocabulary], dtype=object)
    result = np.zeros(len(vocabulary), dtype=dtype)
    for key, value in mapping.items():
        result[index[key]] = value
    return result


# -- LabelEncoder -------------------------------------------------------------------------------

_LISTS = {"strings": np.dtype(object), "int64s": np.dtype(np.int64),
          "floats": np.dtype(np.float32)}
_DEFAULTS = {"strings": ("default_string", "_Unused"), "int64s": ("default_int64", -1),
             "floats": ("default_float", -0.0)}


def _encoder_side(attributes: dict[str, Any], side: str, version: int) -> np.ndarray:
    """The keys or values: 'keys_*'/'values_*' (strings, int64s, floats; a 1-D tensor from
    version 4), 'One and only one of 'keys_*'s should be set'."""
    names = tuple(f"{side}_{k}" for k in _LISTS) + ((f"{side}_tensor",) if version >= 4 else ())
    name, items = one_of(attributes, names, f"LabelEncoder-{version}")
    if name.endswith("_tensor"):
        return np.asarray(attributes[name]).reshape(-1)
    return np.array(items, dtype=_LISTS[name[len(side) + 1:]])


def _encoder_default(attributes: dict[str, Any], values: np.ndarray, version: int) -> Any:
    """'the 'default_*' that matches the specified 'values_*' attribute'; from 4 'The type of
    the 'default_*' attribute must match the 'values_*' attribute chosen' and default_tensor:
    '{"_Unused"} if values_* has string type, {-1} if values_* has integral type, and {-0.f} if
    values_* has float type.'"""
    kind = "strings" if values.dtype.kind in "OUS" else "floats" if values.dtype.kind == "f" \
        else "int64s"
    name, fallback = _DEFAULTS[kind]
    given = [n for n, _ in _DEFAULTS.values() if n in attributes] + (
        ["default_tensor"] if "default_tensor" in attributes else [])
    if version >= 4 and given and given != [name] and given != ["default_tensor"]:
        raise OracleError(f"LabelEncoder-{version}: {', '.join(given)} set beside values of "
                          f"{values.dtype}: 'The type of the 'default_*' attribute must match'")
    if version >= 4 and "default_tensor" in attributes:
        default = np.asarray(attributes["default_tensor"])
        if default.size != 1 or (default.dtype.kind in "OUS") != (values.dtype.kind in "OUS"):
            raise OracleError("LabelEncoder's default_tensor must be one value of the values' "
                              "type")
        return default.reshape(-1)[0]
    return attributes.get(name, fallback)


def _key(value: Any, version: int) -> Any:
    """A key as looked up: a float by its bits at version 2 ('bit-wise comparison is used'),
    any NaN as one key from 4 ('Float keys with value 'NaN' match any input 'NaN' value')."""
    if isinstance(value, (float, np.floating)):
        if version < 4:
            return np.float32(value).tobytes()
        return "NaN" if math.isnan(value) else float(value)
    return value if isinstance(value, str) else int(value)


def label_encoder(node: Node, args: list[Any], attributes: dict[str, Any],
                  version: int) -> list[Any]:
    """LabelEncoder. Version 1: 'Converts strings to integers and vice versa... When converting
    from integers to strings, the string is fetched from the 'classes_strings' list, by simple
    indexing. When converting from strings to integers, the string is looked up in the list and
    the index at which it is found is used'; default_string / default_int64 for a value 'not
    found'. From 2: 'The i-th value in the specified 'keys_*' attribute would be mapped to the
    i-th value in the specified 'values_*' attribute... input's element type and the element
    type of the specified 'keys_*' should be identical while the output type is identical to the
    specified 'values_*' attribute. If an input element can not be found in the specified
    'keys_*' attribute, the 'default_*'... may be used'; from 4 'the 'keys_*' and 'values_*'
    attributes must have the same length... If a key is repeated, the last key takes
    precedence.' A key repeated before 4, or found at two indices at 1, has no result."""
    data = np.asarray(args[0])
    if version == 1:
        return [_label_encoder_1(data, attributes)]
    keys, values = (_encoder_side(attributes, side, version) for side in ("keys", "values"))
    if keys.size != values.size:
        raise OracleError(f"LabelEncoder: {keys.size} key(s), {values.size} value(s)")
    if (keys.dtype.kind in "OUS") != (data.dtype.kind in "OUS") or (
            keys.dtype.kind not in "OUS" and keys.dtype != data.dtype):
        raise OracleError(f"LabelEncoder: keys of {keys.dtype} for an input of {data.dtype}: "
                          "'input's element type and the element type of the specified "
                          "'keys_*' should be identical'")
    found = [_key(k, version) for k in keys.tolist()]
    if version < 4:
        distinct_labels(found, "LabelEncoder's keys")
    table = dict(zip(found, values.tolist(), strict=True))
    default = _encoder_default(attributes, values, version)
    result = [table.get(_key(x, version), default) for x in data.reshape(-1).tolist()]
    return [np.array(result, dtype=values.dtype).reshape(data.shape)]


def _label_encoder_1(data: np.ndarray, attributes: dict[str, Any]) -> np.ndarray:
    if "default_string" in attributes and "default_int64" in attributes:
        raise OracleError("LabelEncoder-1: 'Only one default value attribute should be "
                          "defined'")
    classes = list(attributes.get("classes_strings", []))
    texts = [str(x) for x in data.reshape(-1)] if data.dtype.kind in "OUS" else None
    if texts is not None:
        distinct_labels(classes, "LabelEncoder-1 classes_strings")
        default = attributes.get("default_int64", -1)
        return np.array([classes.index(t) if t in classes else default for t in texts],
                        dtype=np.int64).reshape(data.shape)
    default = attributes.get("default_string", "_Unused")
    return np.array([classes[int(i)] if 0 <= i < len(classes) else default
                     for i in data.reshape(-1)], dtype=object).reshape(data.shape)
