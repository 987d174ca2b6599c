"""Mutants of the graph boundary: how a runtime's API feeds inputs in and hands outputs back
(dtypes, bit patterns, strings, empty values, value kinds), as data (see kit.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..._core.elements import PACKED_PER_BYTE
from ..._core.errors import MutantError
from ..._core.suite_forms import GRAPH_INPUT, SEQUENCE_AT_BOUNDARY
from ..._core.value_kinds import OptionalType, SequenceType
from .kit import (
    Mutant,
    TensorChange,
    Transform,
    each_string,
    each_tensor,
    map_tensors,
    refuse_dtypes,
    targeted,
    when_dtype,
)

# -- tensor transforms ---------------------------------------------------------------------------


def _is_float(tensor: np.ndarray) -> bool:
    return tensor.dtype.kind == "f" or tensor.dtype.name in ("bfloat16", "float16")


def _negative_zero_lost(tensor: np.ndarray) -> np.ndarray:
    if _is_float(tensor):
        zero = np.zeros((), dtype=tensor.dtype)
        return np.where(tensor == zero, zero, tensor).astype(tensor.dtype)
    return tensor


def _nan_to_zero(tensor: np.ndarray) -> np.ndarray:
    if tensor.dtype.kind == "f" and tensor.dtype.itemsize >= 2:
        return np.where(np.isnan(tensor), np.zeros((), tensor.dtype), tensor).astype(tensor.dtype)
    return tensor


_BITS = {np.dtype(np.float16): np.uint16, np.dtype(np.float32): np.uint32,
         np.dtype(np.float64): np.uint64}
#: The quiet bit of each IEEE binary format (the top bit of the significand).
_QUIET = {np.dtype(np.float16): 1 << 9, np.dtype(np.float32): 1 << 22,
          np.dtype(np.float64): 1 << 51}


def _nan_bits(tensor: np.ndarray, change: Callable[[Any, Any, Any], Any]) -> np.ndarray:
    """`tensor` with `change(bits, quiet_bit, canonical_bits)` applied to its NaNs' bit patterns
    (IEEE float16/32/64 only; other dtypes unchanged)."""
    if tensor.dtype not in _BITS or not np.isnan(tensor).any():
        return tensor
    kind = _BITS[tensor.dtype]
    bits = tensor.view(kind).copy()
    nan = np.isnan(tensor)
    canonical = np.array(np.nan, dtype=tensor.dtype).view(kind)
    bits[nan] = change(bits[nan], kind(_QUIET[tensor.dtype]), canonical)
    changed: np.ndarray = bits.view(tensor.dtype)
    return changed


def _nan_canonical(tensor: np.ndarray) -> np.ndarray:
    """Every NaN replaced by the canonical quiet NaN: sign and payload lost."""
    return _nan_bits(tensor, lambda bits, quiet, canonical: canonical)


def _nan_quieted(tensor: np.ndarray) -> np.ndarray:
    """A signalling NaN comes back quiet (the quiet bit set, the rest of the payload kept), as a
    float passes through a wider float or an FPU register."""
    return _nan_bits(tensor, lambda bits, quiet, canonical: bits | quiet)


def _nan_sign_dropped(tensor: np.ndarray) -> np.ndarray:
    """A NaN's sign bit cleared (its payload kept)."""
    sign = {np.dtype(np.float16): 1 << 15, np.dtype(np.float32): 1 << 31,
            np.dtype(np.float64): 1 << 63}.get(tensor.dtype)
    return _nan_bits(tensor, lambda bits, quiet, canonical: bits & ~bits.dtype.type(sign))


def _float16_quieted(tensor: np.ndarray) -> np.ndarray:
    """float16 through float32 and back: a signalling NaN comes back quiet."""
    return _nan_quieted(tensor) if tensor.dtype == np.float16 else tensor


def _double_narrowed_by_truncation(tensor: np.ndarray) -> np.ndarray:
    """double narrowed to float by dropping the low 29 bits of the significand: a NaN whose
    payload lies only there becomes an infinity."""
    if tensor.dtype != np.float64:
        return tensor
    narrowed = tensor.astype(np.float32).astype(np.float64)
    bits = tensor.view(np.uint64)
    lost = np.isnan(tensor) & ((bits & np.uint64(0x000FFFFFE0000000)) == 0)
    return np.where(lost, np.copysign(np.inf, tensor), narrowed)


def _packed_padding(tensor: np.ndarray) -> np.ndarray:
    """A reader that sizes a packed buffer as size // per_byte and reads the last value back
    as the padding (zero)."""
    if tensor.dtype.name in PACKED_PER_BYTE and tensor.size % 2:
        flat = tensor.reshape(-1).copy()
        flat[-1] = np.zeros((), dtype=tensor.dtype)
        return np.asarray(flat.reshape(tensor.shape))
    return tensor


def _int4_sign_lost(tensor: np.ndarray) -> np.ndarray:
    """int4 values unpacked as plain nibbles: -1 comes back as 15 (as uint8)."""
    if tensor.dtype.name == "int4":
        unpacked: np.ndarray = (tensor.astype(np.int8) & 0x0F).astype(np.uint8)
        return unpacked
    return tensor


def _latin1(text: Any) -> Any:
    return text.encode("utf-8").decode("latin-1") if isinstance(text, str) else text


def _int64_clamped(tensor: np.ndarray) -> np.ndarray:
    info = np.iinfo(np.int32)
    return np.asarray(np.clip(tensor, info.min, info.max).astype(np.int64))


def _through_double(dtype: Any) -> TensorChange:
    def apply(tensor: np.ndarray) -> np.ndarray:
        return tensor.astype(np.float64).astype(dtype)
    return apply


# -- value transforms: `transform(value, value_type) -> value` ----------------------------------

def _zero_d_in_sequences(value: Any, value_type: Any) -> Any:
    if isinstance(value, list):
        return [np.reshape(t, (1,)) if np.asarray(t).ndim == 0 else t for t in value]
    return value


def _zero_d_as_1d(value: Any, value_type: Any) -> Any:
    return map_tensors(lambda t, _: np.reshape(t, (1,)) if t.ndim == 0 else t, value,
                       value_type)


def _empty_sequence_as_none(value: Any, value_type: Any) -> Any:
    return None if isinstance(value, list) and not value else value


def _empty_optional_sequence_as_empty_sequence(value: Any, value_type: Any) -> Any:
    if value is None and isinstance(value_type, OptionalType) and isinstance(
            value_type.element, SequenceType):
        return []
    return value


def _zero_element_loses_dtype(value: Any, value_type: Any) -> Any:
    return map_tensors(lambda t, _: np.zeros(t.shape, np.float32) if t.size == 0 else t,
                       value, value_type)


def _zero_size_refused(value: Any, value_type: Any) -> Any:
    def look(tensor: np.ndarray, _: Any) -> np.ndarray:
        if 0 in tensor.shape:
            raise MutantError(f"invalid tensor shape {list(tensor.shape)}: a dimension is 0")
        return tensor
    return map_tensors(look, value, value_type)


def _all_empty_strings_vanish(value: Any, value_type: Any) -> Any:
    def look(tensor: np.ndarray, _: Any) -> np.ndarray:
        if tensor.dtype.kind == "O" and tensor.size and all(s == "" for s in tensor.flat):
            return np.empty((0,), dtype=object)
        return tensor
    return map_tensors(look, value, value_type)


def _kind_refused(kind: type, message: str) -> Transform:
    def check(value: Any, value_type: Any) -> Any:
        if isinstance(value_type, kind):
            raise MutantError(message)
        return value
    return check


def _optional_tensor_refused(value: Any, value_type: Any) -> Any:
    if isinstance(value_type, OptionalType) and not isinstance(value_type.element,
                                                               SequenceType):
        raise MutantError("unsupported OrtValue type: optional(tensor)")
    return value


def _optional_sequence_lost(value: Any, value_type: Any) -> Any:
    if isinstance(value_type, OptionalType) and isinstance(value_type.element, SequenceType):
        return None
    return value


def _strings_in_sequence_refused(value: Any, value_type: Any) -> Any:
    if isinstance(value, list) and any(np.asarray(t).dtype.kind == "O" for t in value):
        raise MutantError("unsupported tensor element type in the sequence: string")
    return value


def _bool_as_uint8_input(value: Any, value_type: Any) -> Any:
    def look(tensor: np.ndarray, _: Any) -> np.ndarray:
        if tensor.dtype == np.bool_:
            raise MutantError("unexpected input data type: tensor(uint8), expected tensor(bool)")
        return tensor
    return map_tensors(look, value, value_type)


_DTYPES = (
    Mutant("int64_cut_to_32_bits", "int64 values cross the boundary as int32",
           inputs=when_dtype(np.int64, lambda t: t.astype(np.int32).astype(np.int64)),
           outputs=when_dtype(np.int64, lambda t: t.astype(np.int32).astype(np.int64)),
           modelled_on="OpenVINO CPU plugin",
           sources=("openvinotoolkit/openvino#37957", "microsoft/onnxruntime#1824")),
    Mutant("int64_clamped_to_int32", "int64 values are clamped to the int32 range",
           outputs=when_dtype(np.int64, _int64_clamped), sources=("microsoft/onnxruntime#2104",)),
    Mutant("int64_through_double", "int64 values pass through a double (exact to 2**53 only)",
           outputs=when_dtype(np.int64, _through_double(np.int64)),
           sources=("microsoft/react-native-windows#5622",)),
    Mutant("uint64_through_double", "uint64 values pass through a double",
           outputs=when_dtype(np.uint64, _through_double(np.uint64)),
           sources=("pyscada/PyScada#105",)),
    Mutant("double_through_float", "double values pass through float",
           outputs=when_dtype(np.float64, lambda t: t.astype(np.float32).astype(np.float64)),
           modelled_on="OpenVINO CPU plugin"),
    Mutant("float16_widened", "float16 comes back as float32",
           outputs=when_dtype(np.float16, lambda t: t.astype(np.float32)),
           sources=("microsoft/onnxruntime#10308",)),
    Mutant("float16_inputs_refused", "float16 inputs are not supported by the API",
           inputs=refuse_dtypes({"float16"}, "unsupported scalar type"),
           sources=("microsoft/onnxruntime#948",), needs=(GRAPH_INPUT,)),
    Mutant("bfloat16_widened", "bfloat16 comes back as float32",
           outputs=when_dtype("bfloat16", lambda t: t.astype(np.float32)),
           modelled_on="tinygrad Tensor.numpy()", sources=("tinygrad/tinygrad#3724",)),
    Mutant("bool_as_uint8", "bool comes back as uint8",
           outputs=when_dtype(np.bool_, lambda t: t.astype(np.uint8)),
           sources=("elixir-nx/ortex#39",)),
    Mutant("bool_inputs_arrive_as_uint8",
           "bool inputs are converted to uint8 on the way in and refused",
           inputs=_bool_as_uint8_input, sources=("masicai/flutter_onnxruntime#64",),
           needs=(GRAPH_INPUT,)),
    Mutant("int8_as_uint8", "int8 comes back as uint8 (sign lost)",
           outputs=when_dtype(np.int8, lambda t: t.astype(np.uint8))),
    Mutant("int4_sign_lost", "int4 values come back as their unsigned nibbles (no sign extension)",
           outputs=each_tensor(_int4_sign_lost), sources=("Samsung/ONE#12791",)),
    Mutant("packed_odd_count_last_value_lost",
           "a packed 4-bit/2-bit tensor with an odd element count loses its last value to the "
           "padding", inputs=each_tensor(_packed_padding), outputs=each_tensor(_packed_padding)),
    Mutant("complex_types_refused", "complex64 and complex128 values are not registered",
           inputs=refuse_dtypes({"complex64", "complex128"}, "MLDataType not registered"),
           modelled_on="onnxruntime 1.32", sources=("microsoft/onnxscript#1128",),
           needs=(GRAPH_INPUT,)),
)

_FLOATS = (
    Mutant("negative_zero_lost", "-0.0 comes back as 0.0",
           outputs=each_tensor(_negative_zero_lost), sources=("microsoft/onnxruntime#32191",)),
    Mutant("nan_to_zero", "NaN comes back as 0", outputs=each_tensor(_nan_to_zero)),
    Mutant("nan_canonicalised",
           "every NaN comes back as the canonical quiet NaN (sign and payload lost)",
           outputs=each_tensor(_nan_canonical), sources=("PJK/libcbor#447",)),
    Mutant("nan_sign_dropped", "a negative NaN comes back positive (payload kept)",
           outputs=each_tensor(_nan_sign_dropped), sources=("PJK/libcbor#447",)),
    Mutant("float16_signalling_nan_quieted",
           "float16 values pass through float32 and back: a signalling NaN comes back quiet",
           outputs=each_tensor(_float16_quieted), sources=("JuliaLang/julia#23244",)),
    Mutant("double_narrowed_by_bit_truncation",
           "double values are narrowed to float by dropping low significand bits: a NaN whose "
           "payload is only there comes back as an infinity",
           outputs=each_tensor(_double_narrowed_by_truncation),
           sources=("nanopb/nanopb#1185",)),
    Mutant("nan_signalling_quieted",
           "a signalling NaN comes back quiet (through a wider float)",
           outputs=each_tensor(_nan_quieted),
           sources=("mas-bandwidth/schema#480", "python/cpython#130452")),
)

_STRINGS = (
    Mutant("strings_as_bytes", "strings come back as bytes",
           outputs=each_string(lambda s: s.encode("utf-8") if isinstance(s, str) else s),
           sources=("microsoft/onnxruntime#2315",)),
    Mutant("non_ascii_strings_mangled", "UTF-8 strings are read back as Latin-1",
           outputs=each_string(_latin1), sources=("microsoft/onnxruntime#2690",)),
    Mutant("all_empty_strings_vanish",
           "a string tensor whose strings are all empty comes back with no elements",
           outputs=_all_empty_strings_vanish, sources=("microsoft/onnxruntime#612",)),
    Mutant("strings_in_sequence_refused", "a sequence of string tensors cannot be created",
           inputs=_strings_in_sequence_refused, outputs=_strings_in_sequence_refused,
           sources=("microsoft/onnxruntime#3044",), needs=(SEQUENCE_AT_BOUNDARY,)),
)

_SHAPES_AND_KINDS = (
    Mutant("zero_d_elements_as_1d", "0-d tensors in a sequence come back with shape [1]",
           outputs=_zero_d_in_sequences, sources=("webmachinelearning/webnn#390",),
           needs=(SEQUENCE_AT_BOUNDARY,)),
    Mutant("zero_d_inputs_as_1d", "0-d input tensors arrive with shape [1]",
           inputs=_zero_d_as_1d, sources=("Oneflow-Inc/oneflow#2048",), needs=(GRAPH_INPUT,)),
    Mutant("zero_size_tensors_refused", "a tensor with a dimension of 0 cannot be returned",
           outputs=_zero_size_refused, sources=("yalue/onnxruntime_go#101",)),
    Mutant("zero_element_input_loses_dtype", "a zero-element input tensor arrives as float32",
           inputs=_zero_element_loses_dtype, modelled_on="OpenVINO: drops zero-size inputs",
           needs=(GRAPH_INPUT,)),
    Mutant("empty_sequence_as_empty_optional", "an empty sequence comes back as None",
           outputs=_empty_sequence_as_none, sources=("onnx/onnx#4835",),
           needs=(SEQUENCE_AT_BOUNDARY,)),
    Mutant("empty_optional_sequence_as_empty_sequence",
           "an empty optional(seq) comes back as an empty sequence",
           outputs=_empty_optional_sequence_as_empty_sequence, needs=(SEQUENCE_AT_BOUNDARY,)),
    Mutant("optional_tensor_inputs_refused", "an optional(tensor) graph input is refused",
           inputs=_optional_tensor_refused, sources=("microsoft/onnxruntime#14457",),
           needs=(GRAPH_INPUT, SEQUENCE_AT_BOUNDARY)),
    Mutant("optional_sequence_inputs_lost",
           "an optional(seq) graph input arrives empty, whatever was fed",
           inputs=_optional_sequence_lost, sources=("microsoft/onnxruntime#19273",),
           needs=(GRAPH_INPUT, SEQUENCE_AT_BOUNDARY)),
    Mutant("sequence_graph_inputs_refused", "a sequence graph input is refused",
           inputs=_kind_refused(SequenceType, "seq type at the entry point"),
           sources=("onnx/onnx-mlir#1220",), needs=(GRAPH_INPUT, SEQUENCE_AT_BOUNDARY)),
    Mutant("sequence_graph_outputs_refused", "a sequence graph output is refused",
           outputs=_kind_refused(SequenceType, "output type is sequence"),
           sources=("microsoft/onnxruntime#16139",), needs=(SEQUENCE_AT_BOUNDARY,)),
)

MUTANTS: tuple[Mutant, ...] = _DTYPES + _FLOATS + _STRINGS + _SHAPES_AND_KINDS

#: The features each mutant targets (kit.targeted): the data that tells it from the spec.
TARGETS = {
    "int64_cut_to_32_bits": ("int64 min", "int64 max"),
    "int64_clamped_to_int32": ("int64 min", "int64 max"),
    "int64_through_double": ("int64 max",),
    "uint64_through_double": ("uint64 max",),
    "double_through_float": ("tensor(double)",),
    "float16_widened": ("tensor(float16)",),
    "float16_inputs_refused": ("tensor(float16)",),
    "bfloat16_widened": ("tensor(bfloat16)",),
    "bool_as_uint8": ("tensor(bool)",),
    "bool_inputs_arrive_as_uint8": ("tensor(bool)",),
    "int8_as_uint8": ("tensor(int8)",),
    "int4_sign_lost": ("tensor(int4)",),
    "packed_odd_count_last_value_lost": ("odd packed count",),
    "complex_types_refused": ("tensor(complex64)", "tensor(complex128)"),
    "negative_zero_lost": ("-0.0",),
    "nan_to_zero": ("nan",),
    "nan_canonicalised": ("nan",),
    "nan_sign_dropped": ("nan",),
    "float16_signalling_nan_quieted": ("nan", "tensor(float16)"),
    "double_narrowed_by_bit_truncation": ("nan", "tensor(double)"),
    "nan_signalling_quieted": ("nan",),
    "strings_as_bytes": ("tensor(string)",),
    "non_ascii_strings_mangled": ("non-ASCII string",),
    "all_empty_strings_vanish": ("empty string",),
    "strings_in_sequence_refused": ("seq(tensor(string))",),
    "zero_d_elements_as_1d": ("0-d tensors in a sequence",),
    "zero_d_inputs_as_1d": ("int64 position", "int32 position"),
    "zero_size_tensors_refused": ("zero-element tensor",),
    "zero_element_input_loses_dtype": ("zero-element tensor",),
    "empty_sequence_as_empty_optional": ("empty sequence out",),
    "empty_optional_sequence_as_empty_sequence": ("empty optional out",),
    "optional_tensor_inputs_refused": ("optional(tensor(",),
    "optional_sequence_inputs_lost": ("optional(seq(",),
    "sequence_graph_inputs_refused": ("seq(",),
    "sequence_graph_outputs_refused": ("seq(",),
}
MUTANTS = targeted(MUTANTS, TARGETS)

