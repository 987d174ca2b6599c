"""Finding the cases a person names (a case name, an expanded name, a case folder, a suite, a
case file) and reading them for `show`, with one clear line for each kind of bad input."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import numpy as np
import onnx
from google.protobuf import unknown_fields
from google.protobuf.message import DecodeError
from onnx import OptionalProto, SequenceProto

from .._casefile.reader import case_files, load_cases
from .._core.cases import Case
from .._core.problems import CaseFileError, SeqTestsError, one_line
from .._core.value_types import OptionalType, SequenceType, ValueType, boundary_types
from .._suite.codec import decode, encode, proto_class
from .._suite.layout import case_folders, read_tolerance
from .._suite.manifest import MANIFEST, source_path
from .._suite.model import ModelError, build_model
from .show import Shown


class ReadError(SeqTestsError):
    """Input that cannot be read as a case; the message is one line saying what and why."""


# -- a case folder --------------------------------------------------------------------------

def read_folder(path: Path, entry: dict | None = None) -> Shown:
    """A `test_<name>` folder read as any consumer reads it, every file checked."""
    path = Path(path)
    model_path = path / "model.onnx"
    if not model_path.is_file():
        raise ReadError(f"{path}: not a case folder (no model.onnx); a case folder holds "
                        "model.onnx and test_data_set_<k>/input_<j>.pb, output_<j>.pb")
    try:
        model = onnx.load_model_from_string(model_path.read_bytes())
    except (DecodeError, ValueError, RuntimeError) as error:
        raise ReadError(f"{model_path}: not a valid ONNX model ({_first_line(error)})") from None
    if not model.HasField("graph"):
        raise ReadError(f"{model_path}: not a valid ONNX model (it has no graph)")
    try:
        input_types, output_types = boundary_types(model)
    except (TypeError, KeyError) as error:
        raise ReadError(f"{model_path}: a graph input or output has a type this tool cannot "
                        f"read ({_first_line(error)}); every one needs a tensor, sequence or "
                        "optional type") from None
    data_sets = []
    folders = [p for p in path.glob("test_data_set_*") if p.is_dir()]
    try:
        folders.sort(key=lambda p: int(p.name.rsplit("_", 1)[1]))
    except ValueError:
        raise ReadError(f"{path}: a data-set folder is not named test_data_set_<k>") from None
    for folder in folders:
        inputs = [read_pb(folder / f"input_{j}.pb", t, model.graph.input[j].name)
                  for j, t in enumerate(input_types)]
        outputs = [read_pb(folder / f"output_{j}.pb", t, model.graph.output[j].name)
                   for j, t in enumerate(output_types)]
        data_sets.append((inputs, outputs))
    try:
        atol, rtol = read_tolerance(path)
    except (ValueError, AttributeError) as error:
        raise ReadError(f"{path / 'data.json'}: not a tolerance file ({_first_line(error)}); "
                        'write {"atol": .., "rtol": ..}') from None
    entry = entry or {}
    name = path.name[len("test_"):] if path.name.startswith("test_") else path.name
    return Shown(name, model, input_types, output_types, data_sets, atol, rtol,
                 source=entry.get("source"), expanded_from=entry.get("expanded_from"),
                 folder=path.as_posix())


def read_pb(path: Path, value_type: ValueType, name: str = ""):
    """The value of one .pb file, read as the proto its graph type calls for and checked to be
    that proto, whole, holding a value of that type."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ReadError(f"{path}: missing; the graph value {name!r} needs it") from None
    except OSError as error:
        raise ReadError(f"{path}: cannot read it ({error.strerror})") from None
    proto = proto_class(value_type)()
    kind = type(proto).__name__
    try:
        proto.ParseFromString(data)
    except DecodeError:
        raise ReadError(f"{path}: not a valid {kind} (truncated or corrupt); {name!r} is "
                        f"{value_type}") from None
    if _has_unknown_fields(proto):
        raise ReadError(f"{path}: does not hold a {kind} ({name!r} is {value_type}); it "
                        "holds another kind of value, or is corrupt")
    try:
        value = decode(proto)
    except (TypeError, ValueError) as error:
        raise ReadError(f"{path}: cannot decode the {kind} ({_first_line(error)})") from None
    problem = _mismatch(value, value_type)
    if problem:
        raise ReadError(f"{path}: {problem}; {name!r} is {value_type}")
    return value


def _has_unknown_fields(proto) -> bool:
    if len(unknown_fields.UnknownFieldSet(proto)):
        return True
    if isinstance(proto, SequenceProto):
        return any(_has_unknown_fields(t) for t in proto.tensor_values)
    if isinstance(proto, OptionalProto):
        for which in ("tensor_value", "sequence_value"):
            if proto.HasField(which):
                return _has_unknown_fields(getattr(proto, which))
    return False


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
    if not isinstance(value, np.ndarray):
        return "holds a sequence where a tensor belongs"
    want = value_type.element.dtype
    got = value.dtype
    if value_type.element.kind == "string":
        return None if got.kind == "O" else f"holds {got.name} values where strings belong"
    if got != np.dtype(want):
        return f"holds {got.name} values where {value_type.element.name} belongs"
    return None


def _first_line(error: Exception) -> str:
    return one_line(" ".join(str(error).split()))[:300]


# -- a case from case files -----------------------------------------------------------------

def from_case(case: Case) -> Shown:
    """A case object as a consumer of its built folder would read it."""
    try:
        model = build_model(case)
    except ModelError as error:
        raise ReadError(f"{case.where}: case '{case.name}': {error}") from None
    inputs, outputs = case.graph.inputs, case.graph.outputs
    data_sets = []
    for data_set in case.data_sets:
        data_sets.append(([decode(encode(v, d.type)) for v, d in zip(data_set.inputs, inputs,
                                                                     strict=True)],
                          [decode(encode(v, d.type)) for v, d in zip(data_set.outputs, outputs,
                                                                     strict=True)]))
    origin = None
    if case.expanded_from is not None:
        e = case.expanded_from
        origin = {"for_each": f"{source_path(e.for_each.path)}:{e.for_each.line}",
                  "type": e.type, "opset": e.opset}
    return Shown(case.name, model, [d.type for d in inputs], [d.type for d in outputs],
                 data_sets, case.atol, case.rtol,
                 source=f"{source_path(case.where.path)}:{case.where.line}",
                 expanded_from=origin)


# -- what a person names --------------------------------------------------------------------

def manifest_entry(folder: Path) -> dict | None:
    """The manifest entry of a case folder inside a built suite (`<root>/<suite>/test_x`)."""
    folder = Path(folder).absolute()
    root = folder.parent.parent
    try:
        manifest = json.loads((root / MANIFEST).read_bytes())
        relative = folder.relative_to(root).as_posix()
        for entry in manifest["cases"].values():
            if entry.get("folder") == relative:
                return entry
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return None


def resolve(targets, cases_paths, suite_root: Path) -> list[Shown]:
    """The cases named by `targets`, in order: case names (plain, expanded or `test_<name>`),
    case folders, suite folders (every case folder below), case files (every case in them)."""
    shown: list[Shown] = []
    names: list[tuple[int, str]] = []
    for target in targets:
        path = Path(target)
        if path.is_dir():
            shown.extend(_folder_or_suite(path))
        elif path.is_file() and path.name == "model.onnx":
            shown.append(read_folder(path.parent, manifest_entry(path.parent)))
        elif path.is_file() and path.suffix in (".yaml", ".yml"):
            shown.extend(from_case(c) for c in _load([path]))
        elif path.exists():
            raise ReadError(f"{path}: not a case folder, suite folder or case file")
        else:
            names.append((len(shown), target))
            shown.append(None)  # filled below
    if names:
        found = find_cases([n for _, n in names], cases_paths, suite_root)
        for (at, _), case in zip(names, found, strict=True):
            shown[at] = from_case(case)
    return shown


def _folder_or_suite(path: Path) -> list[Shown]:
    if (path / "model.onnx").exists():
        return [read_folder(path, manifest_entry(path))]
    folders = case_folders(path)
    if not folders:
        raise ReadError(f"{path}: not a case folder (no model.onnx) and no case folders "
                        "(test_*/model.onnx) below it")
    return [read_folder(f, manifest_entry(f)) for f in folders]


def _load(paths) -> list[Case]:
    try:
        return load_cases(paths)
    except CaseFileError as error:
        first = error.problems[0]
        more = f" (and {len(error.problems) - 1} more problem(s))" if len(error.problems) > 1 \
            else ""
        raise ReadError(f"{first}{more}") from None


def find_cases(names: list[str], cases_paths, suite_root: Path) -> list[Case]:
    """The cases of these names; the suite's manifest points at their case files, so only those
    are read when it knows them."""
    wanted = [n[len("test_"):] if n.startswith("test_") else n for n in names]
    files: set[Path] = set()
    try:
        manifest = json.loads((Path(suite_root) / MANIFEST).read_bytes())["cases"]
    except (OSError, ValueError, KeyError, TypeError):
        manifest = {}
    known_files = {p.resolve() for p in case_files(cases_paths)} if manifest else set()
    for name in wanted:
        source = (manifest.get(name) or {}).get("source", "")
        path = Path(source.rpartition(":")[0]) if source else None
        if path is None or not path.is_file() or path.resolve() not in known_files:
            files = None
            break
        files.add(path)
    cases = {}
    if files:
        cases = {c.name: c for c in _load(sorted(files))}
    if not files or any(n not in cases for n in wanted):
        if not case_files(cases_paths):
            shown = ", ".join(map(str, cases_paths))
            raise ReadError(f"no case files under {shown}; name a case folder, or give the case "
                            "files with --cases")
        cases = {c.name: c for c in _load(cases_paths)}
    for name, given in zip(wanted, names, strict=True):
        if name not in cases:
            close = difflib.get_close_matches(name, list(cases), n=3, cutoff=0.6)
            hint = f"; did you mean {', '.join(close)}?" if close else (
                "; `gen-seq-tests list` lists the cases")
            raise ReadError(f"no case named {given!r} in {', '.join(map(str, cases_paths))} and "
                            f"no such folder{hint}")
    return [cases[n] for n in wanted]


__all__ = ["ReadError", "Shown", "find_cases", "from_case", "read_folder", "read_pb", "resolve"]
