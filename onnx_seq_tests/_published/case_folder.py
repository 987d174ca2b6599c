"""A case folder of the standard backend-test layout (`_suite/layout.py`) read back like any
consumer reads it.

Reading a case folder (`read_case_folder`) treats it as untrusted data: only regular files,
each with a size bound, the whole folder within `bounded.Limits`, external data refused. A
graph input that has an initializer of its name (a default value, as IR < 4 models have) may
lack its input_<j>.pb: the initializer's value is used, as onnx's Runner and onnxruntime's test
runner do.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
from google.protobuf import unknown_fields
from onnx import ModelProto

from .._core.errors import ArgumentError, MissingFile, ReadError, Unreadable, Unsupported, one_line
from .._core.problems import quote
from .._core.value_kinds import (
    UNREADABLE_KINDS,
    OptionalType,
    SequenceType,
    TensorType,
    ValueType,
    decode,
    from_type_proto,
    innermost_field,
    proto_parts,
    type_text,
)
from .._suite.codec import proto_class
from .bounded import (
    LIMITS,
    Limits,
    as_path,
    check_model,
    check_value,
    is_folder,
    load_json,
    read_bytes,
)
from .bounded import shown as _shown


@dataclass
class CaseFolder:
    """A case folder as a consumer sees it: the model, its data sets decoded, its tolerance;
    `defaults` names each input whose initializer's value stood in for a missing .pb file."""

    path: Path
    model: ModelProto
    input_types: list[ValueType]
    output_types: list[ValueType]
    data_sets: list[tuple[list, list]]
    atol: float | None
    rtol: float | None
    defaults: list[str] = field(default_factory=list)  # "test_data_set_<k>/input_<j>.pb (x)"

    @property
    def name(self) -> str:
        return self.path.name


class _Budget:
    """The bytes and files one case folder may still cost."""

    def __init__(self, limits: Limits):
        self.limits, self.bytes = limits, 0

    def read(self, path: str | Path, what: str) -> bytes:
        data = read_bytes(path, self.limits.file_bytes, what)
        self.bytes += len(data)
        if self.bytes > self.limits.folder_bytes:
            raise Unreadable(f"{_shown(os.path.dirname(path))}: its files hold more than the "
                            f"{self.limits.folder_bytes} bytes a case folder may have")
        return data


def read_case_folder(path: Path, *, strict: bool = True, limits: Limits = LIMITS) -> CaseFolder:
    """Read a `test_<name>` folder as any consumer reads it: model.onnx, then each
    test_data_set_<k>/input_<j>.pb and output_<j>.pb decoded by the model's graph types.

    Bad input raises ReadError (one line, `path: what and why`), whatever is wrong: a missing
    or unreadable file, a file that is not a regular file or is over a bound of `limits`,
    external data, a corrupt proto. `strict` (show, import) also refuses a .pb file holding
    fields of another proto or a value of another type than its graph value's; without it
    (verify, coverage) such a value is read as it is and judged by whoever uses it.
    """
    path = as_path(path, "path")
    if not isinstance(limits, Limits):
        raise ArgumentError(f"limits must be a Limits, not {type(limits).__name__}")
    budget = _Budget(limits)
    folder_names, data_set_names = _listing(path)
    if "model.onnx" not in folder_names:
        raise ReadError(f"{_shown(path)}: not a case folder (no model.onnx); a case folder "
                        "holds model.onnx and test_data_set_<k>/input_<j>.pb, output_<j>.pb")
    base = str(path)
    model_path = os.path.join(base, "model.onnx")
    model = read_model(model_path, budget.read(model_path, "model.onnx"), limits)
    input_types = _graph_types(model, "input", model_path)
    output_types = _graph_types(model, "output", model_path)
    if len(data_set_names) > limits.data_sets:
        raise ReadError(f"{_shown(path)}: {len(data_set_names)} data sets, more than the "
                        f"{limits.data_sets} a case folder may have")
    if len(data_set_names) * (len(input_types) + len(output_types)) > limits.folder_files:
        raise ReadError(f"{_shown(path)}: more than the {limits.folder_files} .pb files a case "
                        "folder may have")
    try:
        data_set_names.sort(key=lambda name: int(name.rsplit("_", 1)[1]))
    except ValueError:
        raise ReadError(f"{_shown(path)}: a data-set folder is not named "
                        "test_data_set_<k>") from None
    graph = model.graph
    defaults = {t.name: t for t in graph.initializer}
    data_sets, defaulted = [], []
    for data_set in data_set_names:
        folder = os.path.join(base, data_set)
        inputs = []
        for j, value_type in enumerate(input_types):
            pb, name = os.path.join(folder, f"input_{j}.pb"), graph.input[j].name
            if name in defaults and not os.path.lexists(pb):
                inputs.append(_default(defaults[name], model_path))
                defaulted.append(f"{data_set}/input_{j}.pb ({name})")
                continue
            inputs.append(_read_value(pb, value_type, name, budget, strict))
        outputs = [_read_value(os.path.join(folder, f"output_{j}.pb"), t, graph.output[j].name,
                               budget, strict)
                   for j, t in enumerate(output_types)]
        data_sets.append((inputs, outputs))
    atol, rtol = read_tolerance(path, limits) if "data.json" in folder_names else (None, None)
    return CaseFolder(path, model, input_types, output_types, data_sets, atol, rtol, defaulted)


def _graph_types(model: ModelProto, role: str, model_path: str) -> list[ValueType]:
    """The types of the graph's inputs (`role` "input") or outputs. Unsupported naming the
    first value of a kind this tool cannot read (a sparse tensor, also inside a sequence, optional
    or map),
    ReadError for a type that is no type (none, an unknown element type)."""
    types = []
    for value in getattr(model.graph, role):
        try:
            types.append(from_type_proto(value.type))
            continue
        except Exception as error:  # noqa: BLE001 - whatever type this tool cannot read
            problem = _first_line(error)
        which = f"graph {role} {quote(value.name)} is {type_text(value.type)}"
        kind = UNREADABLE_KINDS.get(innermost_field(value.type) or "")
        if kind:
            what = f"this tool cannot read {kind}: {which}; it reads tensors and maps, and " \
                   "sequences and optionals of them"
            raise Unsupported(f"{_shown(model_path)}: {what}", what=what, model=model)
        raise ReadError(f"{_shown(model_path)}: {which}, a type this tool cannot read "
                        f"({problem}); every one needs a tensor, sequence, optional or map type")
    return types


def _listing(path: Path) -> tuple[set[str], list[str]]:
    """The names in a case folder (links and dangling links included) and, among them, its
    data-set folders (test_data_set_*, links to folders included), listed once."""
    try:
        with os.scandir(path) as entries:
            names, data_sets = set(), []
            for entry in entries:
                names.add(entry.name)
                if entry.name.startswith("test_data_set_") and is_folder(entry):
                    data_sets.append(entry.name)
    except (FileNotFoundError, NotADirectoryError):
        return set(), []
    except OSError as error:
        raise Unreadable(f"{_shown(path)}: cannot read it ({error.strerror})") from None
    return names, data_sets


def _default(initializer: onnx.TensorProto, model_path: str | Path):
    try:
        return onnx.numpy_helper.to_array(initializer)
    except Exception as error:  # noqa: BLE001 - whatever numpy_helper makes of bad data
        raise ReadError(f"{_shown(model_path)}: cannot decode initializer "
                        f"{quote(initializer.name)} ({_first_line(error)})") from None


def read_model(path: str | Path, data: bytes, limits: Limits = LIMITS) -> ModelProto:
    """model.onnx's bytes as a ModelProto with a graph and no external data; ReadError else."""
    try:
        model = onnx.load_model_from_string(data)
    except Exception as error:  # noqa: BLE001 - DecodeError, RecursionError, ...
        raise ReadError(f"{_shown(path)}: not a valid ONNX model ({_first_line(error)})") \
            from None
    if not model.HasField("graph"):
        raise ReadError(f"{_shown(path)}: not a valid ONNX model (it has no graph)")
    check_model(model, path, limits)
    return model


def read_value(path: Path, value_type: ValueType, name: str = "", *, strict: bool = True,
               limits: Limits = LIMITS):
    """The value of one .pb file, read as the proto its graph type calls for (strict: checked
    to be that proto, whole, holding a value of that type); ReadError else."""
    return _read_value(as_path(path), value_type, name, _Budget(limits), strict)


def _read_value(path: str | Path, value_type: ValueType, name: str, budget: _Budget, strict: bool):
    try:
        data = budget.read(path, ".pb file")
    except MissingFile:  # a dangling link too: os.stat follows it
        raise ReadError(f"{_shown(path)}: missing; the graph value {quote(name)} needs "
                        "it") from None
    proto = proto_class(value_type)()
    kind = type(proto).__name__
    try:
        proto.ParseFromString(data)
    except Exception:  # noqa: BLE001 - DecodeError, RecursionError
        raise ReadError(f"{_shown(path)}: not a valid {kind} (truncated or corrupt); "
                        f"{quote(name)} is {value_type}") from None
    if strict and _has_unknown_fields(proto):
        raise ReadError(f"{_shown(path)}: does not hold a {kind} ({quote(name)} is "
                        f"{value_type}); it holds another kind of value, or is corrupt")
    check_value(proto, path, budget.limits)
    try:
        value = decode(proto)
    except Exception as error:  # noqa: BLE001 - whatever numpy_helper makes of bad data
        raise ReadError(f"{_shown(path)}: cannot decode the {kind} "
                        f"({_first_line(error)})") from None
    problem = _mismatch(value, value_type) if strict else None
    if problem:
        raise ReadError(f"{_shown(path)}: {problem}; {quote(name)} is {value_type}")
    return value


def _has_unknown_fields(proto) -> bool:
    return bool(len(unknown_fields.UnknownFieldSet(proto))) or any(
        _has_unknown_fields(part) for part in proto_parts(proto))


def _mismatch(value, value_type: ValueType) -> str | None:
    """What is wrong with a decoded value for its graph type, or None."""
    if isinstance(value_type, OptionalType):
        return None if value is None else _mismatch(value, value_type.element)
    if isinstance(value_type, SequenceType):
        if not isinstance(value, list):
            return "holds a tensor where a sequence belongs"
        for i, item in enumerate(value):
            problem = _mismatch(item, value_type.element)
            if problem:
                return f"element {i}: {problem}"
        return None
    if not isinstance(value_type, TensorType):  # any other kind: its own IR checks
        messages: list[str] = []
        value_type.check(value, f"the {value_type.WORD}", {}, messages)
        return messages[0] if messages else None
    if not isinstance(value, np.ndarray):
        return "holds a sequence where a tensor belongs"
    got = value.dtype
    if value_type.element.kind == "string":
        return None if got.kind == "O" else f"holds {got.name} values where strings belong"
    if got != np.dtype(value_type.element.dtype):
        return f"holds {got.name} values where {value_type.element.name} belongs"
    return None


def _first_line(error: BaseException) -> str:
    return one_line(" ".join(str(error).split()))[:300]


def read_tolerance(path: Path, limits: Limits = LIMITS) -> tuple[float | None, float | None]:
    """(atol, rtol) from a case folder's data.json; None for what it does not give; ReadError
    for a file that is not `{"atol": .., "rtol": ..}` with numbers."""
    tolerance_file = Path(path) / "data.json"
    if not tolerance_file.exists() and not tolerance_file.is_symlink():
        return None, None
    tolerance = load_json(tolerance_file, limits.small_json_bytes, 4, "data.json")
    if not isinstance(tolerance, dict):
        raise ReadError(f"{_shown(tolerance_file)}: not a tolerance file (not an object); "
                        'write {"atol": .., "rtol": ..}')
    found = []
    for key in ("atol", "rtol"):
        value = tolerance.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise ReadError(f"{_shown(tolerance_file)}: not a tolerance file ({key} is not a "
                            'number); write {"atol": .., "rtol": ..}')
        found.append(value)
    return found[0], found[1]


__all__ = ["CaseFolder", "read_case_folder", "read_model", "read_tolerance", "read_value"]
