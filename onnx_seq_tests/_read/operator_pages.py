"""One Markdown page per operator (schema from onnx.defs, then every case of a suite that uses
it, rendered as `show` renders it) and an index with cases and coverage per operator version.

A case expanded from one `for_each` is shown once, with a table of its (opset, type) pairs; the
suite's manifest (when it has one) says which cases came from which `for_each` and where their
source is. The pages are a build product of the suite folder: the same suite gives the same
bytes.
"""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path

import onnx
from onnx import defs

from .._core import operators
from .._published import coverage
from .._published.bounded import LIMITS, read_bytes
from .._published.case_folder import read_model
from .._published.discovery import case_folders, read_manifest
from .._suite.manifest import CaseEntry
from .._suite.tensor_io import TENSOR_IO_SUITE
from .load import read_folder
from .show import render

INDEX = "README.md"
_BASE = [""]  # the folder case-file paths in the manifest are relative to (set by `pages`)
_OPTION = {defs.OpSchema.FormalParameterOption.Optional: "optional",
           defs.OpSchema.FormalParameterOption.Variadic: "variadic"}


def _manifest_cases(root: Path) -> dict[str, CaseEntry]:
    """folder relative to root -> manifest entry."""
    manifest = read_manifest(root)
    return {} if manifest is None else manifest.by_folder


def _ops_in(graph: onnx.GraphProto, found: set[str]) -> set[str]:
    for node in graph.node:
        found.add(node.op_type)
        for attribute in node.attribute:
            if attribute.type == onnx.AttributeProto.GRAPH:
                _ops_in(attribute.g, found)
    return found


class _Case:
    def __init__(self, folder: Path, relative: str, entry: CaseEntry | None,
                 model: onnx.ModelProto):
        self.folder, self.relative, self.entry, self.model = folder, relative, entry, model
        self.origin = entry.expanded_from if entry else None
        self.source = entry.source if entry else None
        self.name = folder.name[len("test_"):] if folder.name.startswith("test_") else folder.name
        self.operators = _ops_in(model.graph, set())
        self.opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")),
                          0)


def pages(root: Path, out_dir: Path, shown_root: str | None = None) -> dict[str, str]:
    """File name -> Markdown text for every page under `out_dir` (used for relative links)."""
    root = Path(root)
    shown_root = shown_root or root.as_posix()
    _BASE[0] = str(root.absolute().parent)
    entries = _manifest_cases(root)
    cases = []
    for folder in case_folders(root):
        if folder.parent.name == TENSOR_IO_SUITE:  # copies of the same cases
            continue
        relative = folder.relative_to(root).as_posix()
        path = folder / "model.onnx"
        model = read_model(path, read_bytes(path, LIMITS.file_bytes, "model.onnx"))
        cases.append(_Case(folder, relative, entries.get(relative), model))
    summary = coverage.summarize([coverage.case_coverage(c.folder.name, c.model, [])
                                  for c in cases])
    files = {}
    for op_type in coverage.MATRIX_OPERATORS:
        using = [c for c in cases if op_type in c.operators]
        files[f"{op_type}.md"] = operator_page(op_type, using, out_dir)
    files[INDEX] = index_page(cases, summary, shown_root)
    return files


def _link(source: str, out_dir: Path) -> str:
    """A relative Markdown link target for `file:line` seen from `out_dir`; the manifest names
    case files from the folder holding the suite root (the project's folder)."""
    path, _, line = source.rpartition(":")
    target = os.path.relpath(os.path.join(_BASE[0], path), os.path.abspath(out_dir))
    return f"{Path(target).as_posix()}#L{line}"


def schema_lines(op_type: str, version: int, level: str = "##") -> list[str]:
    op_schema = operators.schema(op_type, version)
    function = op_schema.has_function or op_schema.has_context_dependent_function
    lines = [f"- Support level: {str(op_schema.support_level).rsplit('.', 1)[-1]}; "
             f"defined as a function: {function}; "
             f"inputs: {_arity(op_schema.min_input, op_schema.max_input)}; "
             f"outputs: {_arity(op_schema.min_output, op_schema.max_output)}", ""]
    if op_schema.attributes:
        lines += [f"{level} Attributes", ""]
        for name, attribute in sorted(op_schema.attributes.items()):
            kind = str(attribute.type).rsplit(".", 1)[-1].lower()
            need = "required" if attribute.required else "optional"
            lines.append(f"- **{name}** ({kind}, {need}): {_flat(attribute.description)}")
        lines.append("")
    for title, formals in (("Inputs", op_schema.inputs), ("Outputs", op_schema.outputs)):
        lines += [f"{level} {title}", ""]
        for formal in formals:
            option = _OPTION.get(formal.option)
            extra = f", {option}" if option else ""
            if formal.option == defs.OpSchema.FormalParameterOption.Variadic:
                extra += ", homogeneous" if formal.is_homogeneous else ", heterogeneous"
            lines.append(f"- **{formal.name}** ({formal.type_str}{extra}): "
                         f"{_flat(formal.description)}")
        if not formals:
            lines.append("- none")
        lines.append("")
    lines += [f"{level} Type Constraints", ""]
    for constraint in op_schema.type_constraints:
        lines.append(f"- **{constraint.type_param_str}**: {_flat(constraint.description)} "
                     f"Allowed types: {', '.join(sorted(constraint.allowed_type_strs))}.")
    return lines + [""]


def _arity(low: int, high: int) -> str:
    if high >= 2**31 - 1:
        return f"{low} or more"
    return str(low) if low == high else f"between {low} and {high}"


def _flat(text: str) -> str:
    return " ".join((text or "").split())


def operator_page(op_type: str, cases: list[_Case], out_dir: Path) -> str:
    versions = [v for v in operators.versions(op_type) if v <= operators.newest_opset()]
    newest = operators.schema(op_type, versions[-1])
    lines = [f"# {op_type}", "",
             "<!-- Generated by `gen-seq-tests docs` (make docs) from onnx.defs and the suite; "
             "do not edit. -->", "",
             f"- Domain: {newest.domain or 'ai.onnx'}",
             f"- Since version: {versions[-1]}",
             f"- Versions: {', '.join(map(str, versions))}",
             f"- Cases in the suite: {len(cases)}", "", _flat(newest.doc), ""]
    lines += schema_lines(op_type, versions[-1])
    if len(versions) > 1:
        lines += ["## Every version", ""]
        for version in reversed(versions):
            doc = _flat(operators.schema(op_type, version).doc)
            lines += [f"### {op_type}-{version}", "", doc, ""]
            lines += schema_lines(op_type, version, "####")
    lines += ["## Examples", ""]
    groups: dict[str, list[_Case]] = defaultdict(list)
    singles = []
    for case in cases:
        if case.origin:
            groups[case.origin.for_each].append(case)
        else:
            singles.append(case)
    shown = [(c.name, [c]) for c in singles] + [
        (_template_name(g), g) for g in groups.values()]
    for _, group in sorted(shown, key=lambda item: item[0]):
        lines += _example(group, out_dir)
    return "\n".join(lines).rstrip("\n") + "\n"


def _template_name(group: list[_Case]) -> str:
    return min(c.name for c in group)


def _representative(group: list[_Case]) -> _Case:
    """The case of an expansion shown in full: float at its newest opset where there is one."""
    def rank(case: _Case):
        return (case.origin.type != "float", -case.opset, case.name)
    return min(group, key=rank)


def _example(group: list[_Case], out_dir: Path) -> list[str]:
    case = _representative(group) if len(group) > 1 or group[0].origin else group[0]
    shown = read_folder(case.folder, case.entry)
    shown.folder = None
    text = render(shown)
    title = f"test_{case.name}"
    lines = []
    if case.origin:
        origin = case.origin
        lines += [f"### {title} (one of {len(group)} expanded from one case)", "",
                  f"The case at [{case.source}]({_link(case.source, out_dir)}) "
                  f"expands with `for_each` ([{origin.for_each}]"
                  f"({_link(origin.for_each, out_dir)})) over these (opset, type) pairs; "
                  f"shown below for {{type}}={origin.type}, {{opset}}={origin.opset}.", "",
                  "| opset | types | cases |", "| --- | --- | --- |"]
        by_opset: dict[int, list[_Case]] = defaultdict(list)
        for member in group:
            by_opset[member.origin.opset].append(member)
        for opset in sorted(by_opset):
            members = sorted(by_opset[opset], key=lambda m: m.origin.type)
            types = ", ".join(m.origin.type for m in members)
            lines.append(f"| {opset} | {types} | {len(members)} |")
        lines.append("")
    else:
        lines += [f"### {title}", ""]
        if case.source:
            lines += [f"Source: [{case.source}]({_link(case.source, out_dir)})", ""]
    return lines + ["```text", text.rstrip("\n"), "```", ""]


def index_page(cases: list[_Case], summary: coverage.Summary, shown_root: str) -> str:
    lines = ["# Operators", "",
             "<!-- Generated by `gen-seq-tests docs` (make docs) from onnx.defs and the suite; "
             "do not edit. -->", "",
             f"One page per sequence or optional operator of the suite at `{shown_root}` "
             f"({len(cases)} cases): its schema from onnx {onnx.__version__} and every case "
             "that uses it. Coverage: the sequence/optional types the version allows that a "
             "case of the suite exercises.", "",
             "| operator | version | cases | types covered |", "| --- | --- | --- | --- |"]
    per_version: dict[tuple[str, int], set[str]] = defaultdict(set)
    for (op_type, version, _), names in summary.combinations.items():
        per_version[(op_type, version)].update(names)
    for op_type in coverage.MATRIX_OPERATORS:
        for version in reversed([v for v in operators.versions(op_type)
                                 if (op_type, v) in summary.allowed]):
            allowed = summary.allowed[(op_type, version)]
            covered = summary.covered(op_type, version)
            lines.append(f"| [{op_type}]({op_type}.md) | {version} | "
                         f"{len(per_version[(op_type, version)])} | "
                         f"{len(covered)} of {len(allowed)} |")
    return "\n".join(lines) + "\n"


def write_pages(root: Path, out_dir: Path) -> dict[str, str]:
    """Write the pages into `out_dir` (stale pages there removed); return them."""
    out_dir = Path(out_dir)
    files = pages(root, out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for stale in out_dir.glob("*.md"):
        if stale.name not in files:
            stale.unlink()
    for name, text in files.items():
        (out_dir / name).write_text(text, encoding="utf-8")
    return files


def stale_pages(root: Path, out_dir: Path) -> list[str]:
    """The pages under `out_dir` that differ from what the suite at `root` gives (or are
    missing, or are not pages any more); [] when all are current."""
    out_dir = Path(out_dir)
    files = pages(root, out_dir)
    found = [n for n, text in sorted(files.items())
             if not (out_dir / n).is_file() or (out_dir / n).read_text(encoding="utf-8") != text]
    found += sorted(p.name for p in out_dir.glob("*.md") if p.name not in files)
    return found
