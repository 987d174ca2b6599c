"""Finding the cases a person names (a case name, an expanded name, a case folder, a suite, a
case file) and reading them for `show`, with one clear line for each kind of bad input."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .._casefile.reader import case_files, load_cases, load_file
from .._core.cases import Case
from .._core.errors import CaseFileError, ModelError, ReadError, Unreadable, one_line
from .._core.problems import Problems, quote
from .._core.value_kinds import ValueType, decode
from .._published.bounded import as_path, as_paths
from .._published.bounded import shown as shown_path
from .._published.case_folder import read_case_folder, read_value
from .._published.discovery import (
    Outcomes,
    case_folders,
    manifest_entry,
    nearest_manifest,
    read_each,
)
from .._suite.codec import encode
from .._suite.manifest import CaseEntry, source_path
from .._suite.model import build_model
from .show import Shown

# -- a case folder --------------------------------------------------------------------------

def read_folder(path: Path, entry: CaseEntry | None = None) -> Shown:
    """A `test_<name>` folder read as any consumer reads it, every file checked (the one
    case-folder reader, case_folder.read_case_folder, in its strict mode)."""
    path = Path(path)
    folder = read_case_folder(path, strict=True)
    name = path.name[len("test_"):] if path.name.startswith("test_") else path.name
    notes = [f"Default: {which} is absent; the initializer's value is used"
             for which in folder.defaults]
    return Shown(name, folder.model, folder.input_types, folder.output_types, folder.data_sets,
                 folder.atol, folder.rtol, source=_text(entry and entry.source),
                 expanded_from=entry.expanded_from.to_json()
                 if entry and entry.expanded_from else None,
                 folder=shown_path(path), notes=notes)


def _text(value) -> str | None:
    return one_line(value) if isinstance(value, str) else None


def read_pb(path: Path, value_type: ValueType, name: str = ""):
    """The value of one .pb file, read as the proto its graph type calls for and checked to be
    that proto, whole, holding a value of that type."""
    return read_value(path, value_type, name, strict=True)


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

def resolve(targets, cases_paths, suite_root: Path) -> list[Shown]:
    """The cases named by `targets`, in order: case names (plain, expanded or `test_<name>`),
    case folders, suite folders (every case folder below), case files (every case in them).
    ReadError for what cannot be read or found (the first folder of a suite that cannot be
    read, too); ValueError for an argument of another type."""
    outcomes = resolve_each(targets, cases_paths, suite_root)
    outcomes.raise_first()
    return outcomes.values


def resolve_each(targets, cases_paths, suite_root: Path,
                 then: Callable[[Shown], object] | None = None) -> Outcomes:
    """`resolve`, each case folder below a suite folder read on its own (`read_each`): one
    that cannot be read is in `skipped` with its kind and reason, the others in `done`, in
    order, as `then(shown)` when `then` is given (show's rendering, which can refuse a case
    too). What is named itself (a case folder, a case file, a case name) that cannot be read
    raises ReadError."""
    targets = [str(t) for t in as_paths(targets, "targets")]
    cases_paths = as_paths(cases_paths, "cases_paths")
    suite_root = as_path(suite_root, "suite_root")
    then = then or (lambda shown: shown)
    outcomes: Outcomes[Any] = Outcomes()
    names: list[tuple[int, str]] = []
    for target in targets:
        path = Path(target)
        if path.is_dir() and not (path / "model.onnx").exists():
            found = _suite_each(path, then)
            outcomes.done.extend(found.done)
            outcomes.skipped.extend(found.skipped)
        elif path.is_dir():
            outcomes.done.append((path, then(read_folder(path, manifest_entry(path)))))
        elif path.is_file() and path.name == "model.onnx":
            outcomes.done.append((path.parent, then(read_folder(path.parent,
                                                                manifest_entry(path.parent)))))
        elif path.is_file() and path.suffix in (".yaml", ".yml"):
            outcomes.done.extend((path, then(from_case(c))) for c in _load([path]))
        elif path.exists():
            raise ReadError(f"{shown_path(path)}: not a case folder, suite folder or case file")
        else:
            names.append((len(outcomes.done), target))
            outcomes.done.append((path, None))  # filled below
    variants = _variant_folders([n for _, n in names], suite_root)
    for at, name in names:
        if name in variants:
            outcomes.done[at] = (variants[name][0], then(read_folder(*variants[name])))
    names = [(at, name) for at, name in names if name not in variants]
    if names:
        cases = find_cases([n for _, n in names], cases_paths, suite_root)
        for (at, name), case in zip(names, cases, strict=True):
            outcomes.done[at] = (Path(name), then(from_case(case)))
    return outcomes


def _variant_folders(names: list[str], suite_root: Path
                     ) -> dict[str, tuple[Path, CaseEntry]]:
    """name -> (case folder, manifest entry) of each name the suite's manifest knows as a
    case of its own folder that no case file holds: a variant of a derived form (`x__len3`,
    `x__constant0`)."""
    manifest = nearest_manifest(suite_root) if names else None
    found: dict[str, tuple[Path, CaseEntry]] = {}
    if manifest is None:
        return found
    for given in names:
        entry = manifest.by_name.get(given.removeprefix("test_"))
        if entry is None or entry.derived_from is None:
            continue
        folder = manifest.root / entry.folder
        if (folder / "model.onnx").is_file():
            found[given] = (folder, entry)
    return found


def _suite_each(path: Path, then: Callable[[Shown], object]) -> Outcomes:
    folders = case_folders(path)
    if not folders:
        raise ReadError(f"{shown_path(path)}: not a case folder (no model.onnx) and no case "
                        "folders (test_*/model.onnx) below it")
    cache: dict = {}
    return read_each(folders, lambda f: then(read_folder(f, manifest_entry(f, cache))))


def case_file_each(paths) -> Outcomes:
    """Each case file of `paths` (files, folders searched for *.yaml) read on its own
    (`read_each`): one with a mistake is left out, with its first problem (`unreadable` when it
    cannot be read, `corrupt` else), the others give their cases. CaseFileError (exit 2) when
    no case file is found, or a case name repeats across the files read."""
    files = case_files(paths)
    if not files:
        load_cases(paths)  # CaseFileError: no case files found
    outcomes = read_each(files, _case_file)
    problems = Problems()
    seen: dict[str, Case] = {}
    for case in (c for cases in outcomes.values for c in cases):
        if case.name in seen:
            problems.add(case.where, f"case name '{case.name}' is already used at "
                                     f"{seen[case.name].where}; case names must be unique "
                                     "across all files")
        seen.setdefault(case.name, case)
    problems.raise_if_any()
    return outcomes


def _case_file(path: Path) -> list[Case]:
    problems = Problems()
    cases = load_file(path, problems)
    if not problems.found:
        return cases
    first = min(problems.found)
    more = f" (and {len(set(problems.found)) - 1} more problem(s))" \
        if len(set(problems.found)) > 1 else ""
    refusal = Unreadable if first.message.startswith("cannot read the file") else ReadError
    raise refusal(f"{first}{more}")


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
    listed: set[Path] = set()
    files: set[Path] | None = listed
    suite = nearest_manifest(suite_root)
    manifest = suite.by_name if suite else {}
    known_files = {p.resolve() for p in case_files(cases_paths)} if manifest else set()
    for name in wanted:
        entry = manifest.get(name)
        source = entry.source if entry else None
        if not source:
            files = None
            break
        path = Path(source.rpartition(":")[0])
        if not path.is_file() or path.resolve() not in known_files:
            files = None
            break
        listed.add(path)
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
            known = sorted({*cases, *manifest})
            close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
            hint = f"; did you mean {', '.join(close)}?" if close else (
                "; `gen-seq-tests list` lists the cases")
            where = ", ".join(map(str, cases_paths))
            raise ReadError(f"no case named {quote(given)} in {where} and no such "
                            f"folder{hint}")
    return [cases[n] for n in wanted]


__all__ = [ "Shown", "case_file_each", "find_cases", "from_case", "read_folder",
           "read_pb", "resolve", "resolve_each"]
