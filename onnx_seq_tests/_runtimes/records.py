"""The record of each built-in third-party runtime, read from its adapter module's source.

A built-in runtime is a module of this package that assigns a literal dict to `RUNTIME` at
its top level (`RUNTIME: dict[str, Any] = {...}`): the list of runtimes is the list of those
modules (sorted by name), so adding a runtime is one module here and its `xfail/<name>.txt`.
A record says

  name         the `--backend` spec, the module's name and the pip extra that installs it
  label        how the README's table of runtimes names it
  summary      one line: what runs (`gen-seq-tests runtimes`, docs/runtimes.md)
  requires     the pinned requirements of its extra (`pip install 'onnx-seq-tests[NAME]'`)
  imports      the top-level modules its `load()` imports: installed or not is known without
               importing them (importlib.util.find_spec)
  version      how reports name what ran, formatted with the installed version of each
               distribution of `requires` (package metadata: nothing is imported) and the
               variables of `environment`, e.g. "{some-package}, device {DEV}"
  environment  (optional) variables the runtime reads when it is imported, with the value its
               adapter gives them when they are unset
  pack         (optional) how many programs `gen-seq-tests fuzz` packs into one model for it by
               default (an int >= 1; 1 when left out): more than 1 for a runtime that compiles
               each model, where one compile of many programs costs about what one costs
  shared_unknown_dims  (optional) true for a runtime that binds every unknown dim of a model
               to one symbol (TVM's Relax frontend): fuzz then packs at most one program with
               an unknown input dim into a model; false when left out

This module uses the standard library only and imports nothing of the package: setup.py
loads it by its path to compute the extras, `gen-seq-tests --help` reads it without onnx, and
the verifying process describes a runtime without importing it. Run as a script it prints
the runtimes' names, one a line.
"""

from __future__ import annotations

import ast
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

#: The folder of the adapter modules.
FOLDER = Path(__file__).resolve().parent
#: The keys every record has, and those it may leave out.
FIELDS = ("name", "label", "summary", "requires", "imports", "version")
OPTIONAL = ("environment", "pack", "shared_unknown_dims")
_ASSIGNMENT = re.compile(r"^RUNTIME\s*[:=]", re.MULTILINE)


class Record(NamedTuple):
    """One runtime's record (see the module's docstring)."""

    name: str
    label: str
    summary: str
    requires: tuple[str, ...]
    imports: tuple[str, ...]
    version: str
    environment: tuple[tuple[str, str], ...] = ()
    pack: int = 1
    shared_unknown_dims: bool = False

    @property
    def install(self) -> str:
        """The command that installs the runtime's packages."""
        return f"pip install 'onnx-seq-tests[{self.name}]'"

    @property
    def distributions(self) -> tuple[str, ...]:
        """The distribution names of `requires`, as `version` refers to them."""
        return tuple(re.split(r"[\s<>=!~;\[]", req, maxsplit=1)[0] for req in self.requires)

    def env_default(self, variable: str) -> str:
        """The value the adapter gives `variable` when it is unset (KeyError: not one)."""
        return dict(self.environment)[variable]

    def installed_version(self, environ: Mapping[str, str] = os.environ) -> str:
        """`version` filled in from the installed distributions' metadata and the environment
        (PackageNotFoundError when one is not installed); imports none of them."""
        from importlib.metadata import version as installed

        values = {name: environ.get(name) or default for name, default in self.environment}
        values.update({dist: installed(dist) for dist in self.distributions})
        return self.version.format_map(values)


def parse_record(source: str, path: Path | str) -> Record | None:
    """The record `RUNTIME = {...}` of a module's source, None when it has none; ValueError
    when it is not a literal dict of the fields (the message names `path`)."""
    found = _ASSIGNMENT.search(source)
    if not found:
        return None
    end = source.find("\n}\n", found.start())  # the record alone: parsing it is quicker
    if end >= 0:
        line = source.count("\n", 0, found.start())
        source = "\n" * line + source[found.start():end + 3]
    try:
        tree = ast.parse(source, str(path))
    except SyntaxError as error:
        raise ValueError(f"{path}:{error.lineno}: {error.msg}") from None
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets = [getattr(t, "id", None) for t in node.targets]
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [getattr(node.target, "id", None)]
        else:
            continue
        if targets == ["RUNTIME"] and node.value is not None:
            return _record(node.value, path)
    return None


def _record(node: ast.expr, path: Path | str) -> Record:
    where = f"{path}:{node.lineno}:{node.col_offset + 1}"
    try:
        value = ast.literal_eval(node)
    except ValueError:
        raise ValueError(f"{where}: RUNTIME must be a literal dict") from None
    if not isinstance(value, dict) or set(value) - {*FIELDS, *OPTIONAL} \
            or not set(FIELDS) <= set(value):
        raise ValueError(f"{where}: RUNTIME must be a dict of {', '.join(FIELDS)} "
                          f"(and {', '.join(OPTIONAL)})")
    environment = value.get("environment", {})
    text = all(isinstance(value[k], str) for k in ("name", "label", "summary", "version"))
    lists = all(isinstance(value[k], (list, tuple)) and all(isinstance(v, str) for v in value[k])
                for k in ("requires", "imports"))
    pack = value.get("pack", 1)
    shared = value.get("shared_unknown_dims", False)
    if not text or not lists or not isinstance(environment, dict) \
            or type(pack) is not int or pack < 1 or type(shared) is not bool:
        raise ValueError(f"{where}: RUNTIME: name, label, summary and version are strings, "
                          "requires and imports lists of strings, environment a dict, pack "
                          "an int >= 1, shared_unknown_dims true or false")
    if value["name"] != Path(path).stem:
        raise ValueError(f"{where}: RUNTIME's name {value['name']!r} must be the module's "
                          f"name {Path(path).stem!r}")
    return Record(value["name"], value["label"], value["summary"], tuple(value["requires"]),
                  tuple(value["imports"]), value["version"],
                  tuple((str(k), str(v)) for k, v in environment.items()), pack, shared)


def records(folder: Path = FOLDER) -> tuple[Record, ...]:
    """The record of every adapter module in `folder`, sorted by name."""
    found = []
    for path in sorted(folder.glob("*.py")):
        record = parse_record(path.read_text(encoding="utf-8"), path)
        if record is not None:
            found.append(record)
    return tuple(found)


def names(folder: Path = FOLDER) -> tuple[str, ...]:
    """The built-in runtimes' names (their `--backend` specs), sorted."""
    return tuple(record.name for record in records(folder))


def record(name: str, folder: Path = FOLDER) -> Record | None:
    """The record of the runtime `name`, None when no adapter module is named so."""
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
        return None
    path = folder / f"{name}.py"
    try:
        return parse_record(path.read_text(encoding="utf-8"), path)
    except OSError:
        return None


def extras(folder: Path = FOLDER) -> dict[str, list[str]]:
    """The pip extras the runtimes declare: one per runtime (its name), and `runtimes`, all."""
    found = {r.name: list(r.requires) for r in records(folder)}
    found["runtimes"] = [req for reqs in found.values() for req in reqs]
    return found


if __name__ == "__main__":
    sys.stdout.write("".join(f"{name}\n" for name in names()))
