"""`manifest.json` at the root of a built suite: every file with its sha256 and size, what built
the suite (tool and onnx versions, empty-optional form), and per case its operators, opset,
tolerance and data-set count.

    {"format": 1, "generator": "onnx-seq-tests", "generator_version": "0.1.0",
     "onnx_version": "1.23.2", "empty_optional": "undefined", "suite": "sequence_optional",
     "cases": {"<name>": {"folder": "sequence_optional/test_<name>", "operators": [...],
                          "opset": 18, "atol": 0.0, "rtol": 0.0, "data_sets": 1,
                          "source": "cases/<file>.yaml:<line>",
                          "expanded_from": {"for_each": "cases/<file>.yaml:<line>",
                                            "type": "int8", "opset": 18},
                          "tensor_io": ["<name>__tensors"],
                          "constant": ["<name>__constant"]}, ...},
     "files": {"sequence_optional/test_<name>/model.onnx": {"sha256": "...", "size": 123}, ...}}

A case's tensor-boundary variants (`tensor_io`, with `no_tensor_io_form` saying why a case has
none) and its constant variants (`constant`, with `no_constant_form`) are cases of their own,
with `"form": "tensor_io"` or `"form": "constant"` and `derived_from` (the original's name).
CaseEntry and FileEntry are these entries as records. Paths are relative to the root and
'/'-separated; keys are sorted, so the same suite always gives the same bytes. The manifest
does not list itself.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeGuard

from .._core import suite_forms, versions
from .._core.errors import ManifestError
from .._core.regular_files import read_regular

if TYPE_CHECKING:  # nothing here imports onnx: a no-op build reads manifests without it
    from .._core.cases import Case

MANIFEST = "manifest.json"
#: How an empty optional is written (the manifest's `empty_optional`): `undefined` (elem_type
#: UNDEFINED, what numpy_helper.to_optional reads) or `typed` (elem_type TENSOR/SEQUENCE with no
#: value, what onnxruntime's C++ onnx_test_runner reads).
EMPTY_OPTIONAL_FORMS = ("undefined", "typed")
FORMAT = 1
GENERATOR = "onnx-seq-tests"


#: The largest manifest read (the suite's is about 3 MB).
MAX_MANIFEST_BYTES = 64 * 1024 * 1024
#: How deeply a manifest (or the build's cache.json) may nest: a manifest nests 4 deep.
MAX_JSON_DEPTH = 32
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}")


def load_json(data: bytes, where: str):
    """`data` parsed as JSON, nested at most MAX_JSON_DEPTH deep (checked before parsing, so
    no RecursionError); ManifestError (one line, starting with `where`) otherwise."""
    if not _shallow(data) and not _shallow(_STRING.sub(b"", data)):  # brackets in strings?
        raise ManifestError(f"{where}: nested more than {MAX_JSON_DEPTH} deep (a manifest "
                            "nests 4 deep), or its brackets do not pair")
    try:
        return json.loads(data)
    except (ValueError, RecursionError) as error:
        raise ManifestError(f"{where}: not valid JSON: {error}") from None


def _shallow(data: bytes) -> bool:
    """Whether the brackets of `data` pair up within MAX_JSON_DEPTH levels (strings are not
    told apart: their brackets count too)."""
    brackets = data.translate(None, _NOT_BRACKETS)
    for _ in range(MAX_JSON_DEPTH):
        if not brackets:
            return True
        brackets = brackets.replace(b"[]", b"").replace(b"{}", b"")
    return not brackets


# -- entries -----------------------------------------------------------------------------------
# A manifest is read by hand-edited or damaged files too, so decoding is lenient field by field:
# `from_json` gives None for an entry that is not one, and None for a field that is missing or
# of the wrong type (callers then fall back, e.g. to the model's operators). `to_json` leaves None
# fields out, so a built entry round-trips: to_json(from_json(x)) == x.


@dataclass(frozen=True)
class FileEntry:
    """A file the manifest lists: the sha256 (hex) and size of its bytes."""

    sha256: str
    size: int

    @classmethod
    def of(cls, data: bytes) -> FileEntry:
        return cls(hashlib.sha256(data).hexdigest(), len(data))

    @classmethod
    def from_json(cls, value) -> FileEntry | None:
        """The entry `value` (a decoded JSON object) holds; None unless it is an object with
        exactly a string sha256 and an integer size."""
        if not isinstance(value, dict) or value.keys() != {"sha256", "size"}:
            return None
        sha256, size = value.get("sha256"), value.get("size")
        if not isinstance(sha256, str) or not _is_int(size):
            return None
        return cls(sha256, size)

    def to_json(self) -> dict:
        return {"sha256": self.sha256, "size": self.size}


@dataclass(frozen=True)
class ExpandedFrom:
    """Where an expanded case was written: its for_each's `file:line`, the element type and
    opset it took there."""

    for_each: str
    type: str
    opset: int

    @classmethod
    def from_json(cls, value) -> ExpandedFrom | None:
        """None unless `value` is an object with string for_each and type, integer opset."""
        if not isinstance(value, dict):
            return None
        for_each, kind, opset = value.get("for_each"), value.get("type"), value.get("opset")
        if not isinstance(for_each, str) or not isinstance(kind, str) or not _is_int(opset):
            return None
        return cls(for_each, kind, opset)

    def to_json(self) -> dict:
        return {"for_each": self.for_each, "type": self.type, "opset": self.opset}


#: The key of a case's tensor-boundary variants (= SuiteForm.TENSOR_BOUNDARY.manifest_form).
TENSOR_IO = suite_forms.TENSOR_IO
#: The key of a case's constant variants (= SuiteForm.CONSTANT.manifest_form).
CONSTANT = suite_forms.CONSTANT


@dataclass(frozen=True)
class CaseEntry:
    """What the manifest says of one case (see the module docstring). `tensor_io` names the
    tensor-boundary variants of an original case (`no_tensor_io_form` says why it has none),
    `constant` its constant variants (`no_constant_form` alike); a variant has `form`
    ("tensor_io" or "constant") and `derived_from` (its original's name). Every field but
    `folder` is None when the manifest does not hold it (right)."""

    folder: str
    operators: tuple[str, ...] | None = None
    opset: int | None = None
    atol: float | None = None
    rtol: float | None = None
    data_sets: int | None = None
    source: str | None = None
    expanded_from: ExpandedFrom | None = None
    tensor_io: tuple[str, ...] | None = None
    no_tensor_io_form: str | None = None
    constant: tuple[str, ...] | None = None
    no_constant_form: str | None = None
    form: str | None = None
    derived_from: str | None = None

    @classmethod
    def of(cls, case: Case, suite: str) -> CaseEntry:
        """The entry of a case built into the form folder `suite`; `source` is `file:line` of
        the case in its case file, and an expanded case has `expanded_from`."""
        origin = case.expanded_from
        return cls(f"{suite}/{case.folder}", tuple(case.operators), case.opset, case.atol,
                   case.rtol, len(case.data_sets),
                   f"{source_path(case.where.path)}:{case.where.line}",
                   None if origin is None else ExpandedFrom(
                       f"{source_path(origin.for_each.path)}:{origin.for_each.line}",
                       origin.type, origin.opset))

    @classmethod
    def from_json(cls, value) -> CaseEntry | None:
        """The entry `value` (a decoded JSON object) holds; None unless it is an object with a
        string folder. A field of the wrong type reads as None."""
        if not isinstance(value, dict) or not isinstance(value.get("folder"), str):
            return None
        get = value.get
        return cls(value["folder"], _names(get("operators")), _int(get("opset")),
                   _number(get("atol")), _number(get("rtol")), _int(get("data_sets")),
                   _text(get("source")), ExpandedFrom.from_json(get("expanded_from")),
                   _names(get(TENSOR_IO)), _text(get(f"no_{TENSOR_IO}_form")),
                   _names(get(CONSTANT)), _text(get(f"no_{CONSTANT}_form")),
                   _text(get("form")), _text(get("derived_from")))

    def variants(self, form: suite_forms.SuiteForm) -> tuple[str, ...] | None:
        """The names of this case's variants of a derived `form` (None: not listed)."""
        return self.constant if form is suite_forms.SuiteForm.CONSTANT else self.tensor_io

    def no_form(self, form: suite_forms.SuiteForm) -> str | None:
        """Why this case has no variant of a derived `form` (None: not said)."""
        return self.no_constant_form if form is suite_forms.SuiteForm.CONSTANT \
            else self.no_tensor_io_form

    def with_variants(self, form: suite_forms.SuiteForm, names: tuple[str, ...],
                      reason: str | None) -> CaseEntry:
        """This entry listing `names` as its variants of a derived `form`, or `reason`."""
        if form is suite_forms.SuiteForm.CONSTANT:
            return replace(self, constant=names, no_constant_form=reason)
        return replace(self, tensor_io=names, no_tensor_io_form=reason)

    def to_json(self) -> dict:
        """The entry as the manifest writes it (lists for tuples; None fields left out)."""
        found = {}
        for field in fields(self):
            value = getattr(self, field.name)
            if value is None:
                continue
            if isinstance(value, ExpandedFrom):
                value = value.to_json()
            elif isinstance(value, tuple):
                value = list(value)
            found[field.name] = value  # the field names are the manifest's keys
        return found


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _int(value) -> int | None:
    return value if _is_int(value) else None


def _number(value) -> float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _text(value) -> str | None:
    return value if isinstance(value, str) else None


def _names(value) -> tuple[str, ...] | None:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def case_entries(cases) -> dict[str, CaseEntry]:
    """name -> CaseEntry of a manifest's "cases" object, entries that are not one left out."""
    if not isinstance(cases, dict):
        return {}
    decoded = ((name, CaseEntry.from_json(value)) for name, value in cases.items())
    return {name: entry for name, entry in decoded if entry is not None}


#: Where an installed wheel keeps the case files (`_data/cases/`), as a checkout has `cases/`.
_PACKAGE_DATA = Path(__file__).resolve().parent.parent / "_data"


def source_path(path: str) -> str:
    """A case file's path as the manifest names it: relative to the working folder when it is
    below it ('/'-separated, so the same checkout gives the same bytes anywhere); the installed
    package's case files as in a checkout (`cases/...`), so a rebuild of the packaged cases
    gives the packaged suite's bytes; else as given."""
    absolute = os.path.abspath(path)
    for base in (os.getcwd(), str(_PACKAGE_DATA)):
        if absolute.startswith(base + os.sep):
            return Path(os.path.relpath(absolute, base)).as_posix()
    return Path(path).as_posix()


@dataclass(frozen=True)
class Manifest:
    """A manifest decoded once, the one form every module reads it in: `header` every
    top-level key but "cases" and "files" as written (format, generator, versions, form, suite),
    `cases` the case entries that decode (`damaged` names the others), `files` path ->
    FileEntry (None for an entry that is not one). `make` builds one; `to_bytes` writes it."""

    header: dict[str, object]
    cases: dict[str, CaseEntry]
    files: dict[str, FileEntry | None]
    damaged: tuple[str, ...] = ()

    @classmethod
    def make(cls, cases: dict[str, CaseEntry], files: dict[str, FileEntry], suite: str,
             empty_optional: str) -> Manifest:
        """The manifest of a suite this package builds now."""
        return cls({"format": FORMAT, "generator": GENERATOR,
                    "generator_version": versions.package_version(),
                    "onnx_version": versions.installed_onnx(),
                    "empty_optional": empty_optional, "suite": suite}, cases, dict(files))

    @property
    def complete(self) -> bool:
        """Whether every entry of "cases" and "files" decoded."""
        return not self.damaged and None not in self.files.values()

    def get(self, key: str) -> object:
        """A header field as written; None when there is none."""
        return self.header.get(key)

    def to_json(self) -> dict:
        return {**self.header, "cases": {n: e.to_json() for n, e in self.cases.items()},
                "files": {p: e.to_json() for p, e in self.files.items() if e is not None}}

    def to_bytes(self) -> bytes:
        """The manifest's bytes (`dumps`)."""
        return dumps(self.to_json())


def decode(data: bytes, where: str) -> Manifest:
    """The manifest in `data`; ManifestError (one line, starting with `where`) unless it is
    JSON (see `load_json`) holding an object with a "cases" object and, if any, a "files"
    object (a suite another tool wrote may list its cases only: verify reads what they are
    about from it). Entries are decoded leniently (see Manifest); the format is not checked
    (`read` does)."""
    value = load_json(data, where)
    if not isinstance(value, dict) or not isinstance(value.get("cases"), dict) \
            or not isinstance(value.get("files", {}), dict):
        raise ManifestError(f"{where}: not a format-{FORMAT} manifest of gen-seq-tests")
    cases = case_entries(value["cases"])
    files = {path: FileEntry.from_json(entry)
             for path, entry in value.get("files", {}).items()}
    header = {k: v for k, v in value.items() if k not in ("cases", "files")}
    return Manifest(header, cases, files, tuple(n for n in value["cases"] if n not in cases))


def dumps(manifest: dict) -> bytes:
    """The manifest's bytes: JSON with sorted keys, ASCII, one case or file per line."""
    lines = []
    for key, value in sorted(manifest.items()):
        if key in ("cases", "files") and value:
            inner = [f"  {json.dumps(k)}: {_compact(v)}" for k, v in sorted(value.items())]
            lines.append(f" {json.dumps(key)}: {{\n" + ",\n".join(inner) + "\n }")
        else:
            lines.append(f" {json.dumps(key)}: {_compact(value)}")
    return ("{\n" + ",\n".join(lines) + "\n}\n").encode()


def _compact(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(", ", ": "))


def read(root: Path) -> Manifest:
    """The manifest at `root`; ManifestError if it is missing or not a manifest."""
    path = Path(root) / MANIFEST
    try:
        data = read_regular(path, MAX_MANIFEST_BYTES + 1)
        if len(data) > MAX_MANIFEST_BYTES:
            raise ManifestError(f"{path}: larger than {MAX_MANIFEST_BYTES} bytes, more than a "
                                "manifest of gen-seq-tests may be")
        manifest = decode(data, str(path))
    except FileNotFoundError:
        raise ManifestError(f"{path}: no manifest; build the suite with `gen-seq-tests build`") \
            from None
    except ManifestError:
        raise
    except (OSError, ValueError) as error:
        raise ManifestError(f"{path}: cannot read the manifest: {error}") from None
    if manifest.get("format") != FORMAT:
        raise ManifestError(f"{path}: not a format-{FORMAT} manifest of gen-seq-tests")
    return manifest


def unlisted(listed, files, folders) -> list[str]:
    """The paths of a tree that no build wrote: `files` and `folders` (relative,
    '/'-separated, as publish.scan_tree gives them) that the manifest's `listed` files neither
    name nor hold, each named once at its top (a folder ends in '/'), sorted. The manifest
    itself is the build's."""
    holding = {""}
    for relative in listed:
        parts = relative.split("/")
        holding.update("/".join(parts[:i]) for i in range(1, len(parts)))
    found = [f"{f}/" for f in folders if f not in holding and f.rpartition("/")[0] in holding]
    found += [f for f in files if f not in listed and f != MANIFEST
              and f.rpartition("/")[0] in holding]
    return sorted(found)


def tree_files(root: Path) -> list[str]:
    """Every file under `root` as a '/'-separated relative path, sorted; a link to a folder is
    neither followed nor listed (os.walk), a link to a file is listed."""
    found: list[str] = []
    for folder, _, names in os.walk(root):
        relative = Path(folder).relative_to(root).as_posix()
        prefix = "" if relative == "." else relative + "/"
        found.extend(prefix + name for name in names)
    return sorted(found)


def read_listed(path: Path, entry: FileEntry | None) -> bytes:
    """The bytes of a file a manifest lists with `entry`, reading no more than its listed size
    and one byte (so a longer file shows as different; no entry: one byte); see
    `read_regular`."""
    size = entry.size if entry is not None and entry.size >= 0 else 0
    return read_regular(path, size + 1)


def verify(root: Path) -> list[str]:
    """What is wrong with the suite at `root` against its manifest; [] when every listed file
    is there with its sha256 and size, and no other file is (as tree_files sees the tree: a
    link to a folder is not seen)."""
    root = Path(root)
    try:
        manifest = read(root)
    except ManifestError as error:
        return [str(error)]
    problems = []
    listed = manifest.files
    on_disk = set(tree_files(root)) - {MANIFEST}
    for relative in sorted(listed):
        if relative not in on_disk:
            problems.append(f"{relative}: missing")
            continue
        try:
            entry = FileEntry.of(read_listed(root / relative, listed[relative]))
        except OSError as error:
            problems.append(f"{relative}: cannot read it: {error.strerror or error}")
            continue
        if entry != listed[relative]:
            problems.append(f"{relative}: sha256 or size differs from the manifest")
    extra = sorted(on_disk - set(listed))
    problems.extend(f"{relative}: not in the manifest" for relative in extra)
    return problems
