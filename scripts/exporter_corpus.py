#!/usr/bin/env python3
"""A corpus of models exported by real tools, and how many of them gen-seq-tests imports.

Two steps, each a subcommand:

    python3 scripts/exporter_corpus.py export [--out build/exporter-corpus] [--only NAME]...
    .venv/bin/python scripts/exporter_corpus.py measure [--corpus build/exporter-corpus] \
        [--markdown docs/exporter-corpus.md]

`export` makes (once) its own virtual environment `.venv-exporters/` with the exporters pinned in
EXPORTERS below (never the project's `.venv`: `make build` knows nothing of them), re-runs itself
there, and writes every model with the framework's own outputs on seeded inputs as the expected
values, in the standard backend-test layout (`test_<name>/model.onnx`, `data.json`,
`test_data_set_<k>/input_<j>.pb`, `output_<j>.pb`). Models whose graph carries no sequence and no
optional are left out (listed as such), except skl2onnx's `zipmap=False` classifiers, kept beside
their ZipMap twins.

`measure` runs the project's own CLI on each model: `import` (its case file), `build` (the
rebuilt folder), then compares the rebuilt folder's expected values with the corpus's, and runs
both folders on onnxruntime (`verify`), and writes the table.

This file needs only the standard library to start (`--help` imports nothing else); the layout
writer (`write_case`) and the value reader need onnx and numpy.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv-exporters"
CORPUS = ROOT / "build" / "exporter-corpus"
# torch: the newest release the package index offers this machine is capped (2.14.1, whose
# wheel drags in the GPU libraries); 2.13.0+cpu is a CPU-only wheel found beside the index.
EXPORTERS = ["scikit-learn==1.9.1", "skl2onnx==1.20.0", "onnxscript==0.7.2", "onnxruntime",
             "torch==2.13.0+cpu", "tensorflow-cpu==2.21.0", "tf2onnx==1.17.0"]
FAMILIES = ("torchscript", "dynamo", "skl2onnx", "onnxscript", "tf2onnx")
SEED = 20261204
TOLERANCE = {"atol": 1e-5, "rtol": 1e-4}  # float32 exporters against the spec's float math


# --- the layout writer (onnx, numpy) -------------------------------------------------------------

def value_proto(value, type_proto, name: str = ""):
    """`value` (array, list, dict or None) as the proto of `type_proto`'s kind."""
    import numpy as np
    from onnx import OptionalProto, SequenceProto, helper, numpy_helper
    kind = type_proto.WhichOneof("value")
    if kind == "tensor_type":
        dtype = helper.tensor_dtype_to_np_dtype(type_proto.tensor_type.elem_type)
        array = np.asarray(value, dtype=object if dtype == np.dtype(object) else dtype)
        return numpy_helper.from_array(array, name)
    if kind == "sequence_type":
        element = type_proto.sequence_type.elem_type
        items = [value_proto(item, element) for item in value]
        elem_type = {"tensor_type": SequenceProto.TENSOR, "sequence_type": SequenceProto.SEQUENCE,
                     "map_type": SequenceProto.MAP,
                     "optional_type": SequenceProto.OPTIONAL}[element.WhichOneof("value")]
        return helper.make_sequence(name, elem_type, items)
    if kind == "map_type":
        key_type = type_proto.map_type.key_type
        keys = list(value)
        values = value_proto([value[key] for key in keys],
                             helper.make_sequence_type_proto(type_proto.map_type.value_type))
        written = [key.encode() if isinstance(key, str) else key for key in keys]
        return helper.make_map(name, key_type, written, values)
    if kind == "optional_type":
        element = type_proto.optional_type.elem_type
        elem_type = {"tensor_type": OptionalProto.TENSOR,
                     "sequence_type": OptionalProto.SEQUENCE}[element.WhichOneof("value")]
        inner = None if value is None else value_proto(value, element)
        return helper.make_optional(name, elem_type, inner)
    raise ValueError(f"value {name!r}: type {kind} has no writer")


def write_case(folder: Path, model, data_sets, tolerance=None) -> Path:
    """`model` and its data sets (each `(inputs, outputs)`, values in graph order) in the standard
    layout at `folder`: model.onnx, data.json, test_data_set_<k>/input_<j>.pb, output_<j>.pb."""
    import onnx
    folder.mkdir(parents=True, exist_ok=True)
    onnx.save(model, folder / "model.onnx")
    (folder / "data.json").write_text(json.dumps(tolerance or {"atol": 0.0, "rtol": 0.0}) + "\n")
    initializers = {tensor.name for tensor in model.graph.initializer}
    inputs = [info for info in model.graph.input if info.name not in initializers]
    for k, (input_values, output_values) in enumerate(data_sets):
        data = folder / f"test_data_set_{k}"
        data.mkdir(exist_ok=True)
        for prefix, infos, values in (("input", inputs, input_values),
                                      ("output", model.graph.output, output_values)):
            if len(infos) != len(values):
                raise ValueError(f"{folder.name}: {len(values)} {prefix} value(s) for "
                                 f"{len(infos)} graph {prefix}(s)")
            for j, (info, value) in enumerate(zip(infos, values, strict=True)):
                proto = value_proto(value, info.type, info.name)
                (data / f"{prefix}_{j}.pb").write_bytes(proto.SerializeToString())
    return folder


def carries_sequences(model) -> bool:
    """Whether the model's text names a sequence, optional or map type anywhere."""
    import onnx
    text = onnx.printer.to_text(model)
    return bool(re.search(r"\b(seq|optional|map)\(", text)) or any(
        node.op_type.startswith(("Sequence", "Optional")) or node.op_type in
        ("SplitToSequence", "ConcatFromSequence", "ZipMap") for node in _nodes(model.graph))


def _nodes(graph):
    for node in graph.node:
        yield node
        for attribute in node.attribute:
            for sub in ([attribute.g] if attribute.HasField("g") else []) + list(attribute.graphs):
                yield from _nodes(sub)


# --- export: runs inside .venv-exporters ---------------------------------------------------------

def ensure_venv() -> Path:
    python = VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *EXPORTERS], check=True)
    return python


def export(args) -> int:
    if Path(sys.prefix).resolve() != VENV.resolve():
        python = ensure_venv()
        return subprocess.run([str(python), __file__, *sys.argv[1:]]).returncode
    sys.path.insert(0, str(ROOT / "scripts"))
    import exporter_corpus_models as models
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    written, left_out = [], []
    for family in args.only or FAMILIES:
        for name, made in models.export_family(family):
            if isinstance(made, str):
                left_out.append((name, family, made))
                print(f"left out {name} ({family}): {made}", file=sys.stderr)
                continue
            model, data_sets, label = made
            if not carries_sequences(model) and "nozipmap" not in name:
                left_out.append((name, family, "the graph carries no sequence or optional"))
                continue
            try:
                write_case(out / f"test_{name}", model, data_sets, TOLERANCE)
            except (ValueError, TypeError, IndexError) as error:
                left_out.append((name, family, f"its values cannot be written: {error}"))
                continue
            written.append({"name": name, "exporter": label})
    (out / "corpus.json").write_text(json.dumps(
        {"models": written, "left_out": [{"name": n, "family": f, "why": w}
                                         for n, f, w in left_out]}, indent=1) + "\n")
    print(f"{len(written)} model(s) in {out}, {len(left_out)} left out")
    return 0


# --- measure: runs with the project's .venv -----------------------------------------------------

def read_values(folder: Path, k: int, prefix: str, infos) -> list:
    """The values of `prefix`_<j>.pb of data set k, as numpy arrays, lists, dicts, None."""
    import onnx
    from onnx import numpy_helper
    classes = {"tensor_type": onnx.TensorProto, "sequence_type": onnx.SequenceProto,
               "map_type": onnx.MapProto, "optional_type": onnx.OptionalProto}
    values = []
    for j, info in enumerate(infos):
        proto = classes[info.type.WhichOneof("value")]()
        proto.ParseFromString((folder / f"test_data_set_{k}" / f"{prefix}_{j}.pb").read_bytes())
        values.append(_plain(proto, numpy_helper))
    return values


def _plain(proto, numpy_helper):
    import onnx
    if isinstance(proto, onnx.TensorProto):
        return numpy_helper.to_array(proto)
    if isinstance(proto, onnx.MapProto):
        return numpy_helper.to_dict(proto)
    if isinstance(proto, onnx.OptionalProto):
        return numpy_helper.to_optional(proto)
    return numpy_helper.to_list(proto)


def values_equal(a, b, atol: float, rtol: float) -> bool:
    import numpy as np
    if isinstance(a, dict) or isinstance(b, dict):
        return (isinstance(a, dict) and isinstance(b, dict) and list(a) == list(b)
                and all(values_equal(a[key], b[key], atol, rtol) for key in a))
    if isinstance(a, list) or isinstance(b, list):
        return (isinstance(a, list) and isinstance(b, list) and len(a) == len(b)
                and all(values_equal(x, y, atol, rtol) for x, y in zip(a, b, strict=True)))
    if a is None or b is None:
        return a is None and b is None
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind in "fc":
        return bool(np.allclose(a, b, atol=atol, rtol=rtol, equal_nan=True))
    return bool(np.array_equal(a, b))


def same_values(corpus_case: Path, rebuilt_case: Path) -> str:
    """'' when every data set of the rebuilt folder holds the corpus's values, else why not."""
    import onnx
    old, new = onnx.load(corpus_case / "model.onnx"), onnx.load(rebuilt_case / "model.onnx")
    tolerance = json.loads((corpus_case / "data.json").read_text())
    sets = sorted(corpus_case.glob("test_data_set_*"))
    if len(sets) != len(list(rebuilt_case.glob("test_data_set_*"))):
        return "the rebuilt folder has another number of data sets"
    for k in range(len(sets)):
        for prefix, old_infos, new_infos in (("input", _inputs(old), _inputs(new)),
                                             ("output", old.graph.output, new.graph.output)):
            a = read_values(corpus_case, k, prefix, old_infos)
            b = read_values(rebuilt_case, k, prefix, new_infos)
            if not values_equal(a, b, tolerance["atol"], tolerance["rtol"]):
                return f"data set {k}: the rebuilt {prefix}s differ from the exported ones"
    return ""


def _inputs(model):
    initializers = {tensor.name for tensor in model.graph.initializer}
    return [info for info in model.graph.input if info.name not in initializers]


def cli_run(cli: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([cli, *args], capture_output=True, text=True)


def first_reason(result: subprocess.CompletedProcess) -> str:
    """The reason of a `skipped FOLDER: WORD: why` line, or the first error line."""
    for line in (result.stdout + result.stderr).splitlines():
        found = re.match(r"skipped \S+: (.*)$", line.strip())
        if found:
            return found.group(1)
    lines = [line for line in (result.stderr + result.stdout).splitlines() if line.strip()]
    return lines[0] if lines else f"exit {result.returncode}"


def ort_outcomes(cli: str, suite: Path, work: Path, label: str) -> dict[str, str]:
    """Case name -> onnxruntime's outcome on the folders of `suite` (verify --json)."""
    report = work / f"verify-{label}.json"
    cli_run(cli, "verify", str(suite), "-b", "onnxruntime", "--json", str(report),
            "--no-progress")
    if not report.exists():
        return {}
    outcomes = {}
    for result in json.loads(report.read_text())["results"]:
        if result["form"] == "original":
            outcomes[result["name"].removeprefix("test_")] = result["outcome"]
    return outcomes


def measure_one(cli: str, case: Path, work: Path) -> dict:
    name = case.name.removeprefix("test_")
    row = {"name": name, "imported": False, "rebuilt": False, "reason": ""}
    case_file = work / "cases" / f"{name}.yaml"
    result = cli_run(cli, "import", str(case), "-o", str(case_file))
    if result.returncode != 0 or not case_file.exists():
        row["reason"] = "import: " + first_reason(result)
        return row
    row["imported"] = True
    suite = work / "rebuilt" / name
    result = cli_run(cli, "build", str(case_file), "-o", str(suite))
    rebuilt = suite / "sequence_optional" / case.name
    if result.returncode != 0 or not rebuilt.is_dir():
        row["reason"] = "build: " + first_reason(result)
        return row
    row["reason"] = same_values(case, rebuilt)
    row["rebuilt"] = not row["reason"]
    return row


def measure_checkout(cli: str, corpus: Path, models: list) -> dict:
    """Every model of the corpus through one checkout's CLI, and both folders on onnxruntime."""
    with tempfile.TemporaryDirectory(prefix="exporter-corpus-") as temporary:
        work = Path(temporary)
        (work / "cases").mkdir()
        rows = {}
        for model in models:
            row = measure_one(cli, corpus / f"test_{model['name']}", work)
            rows[row["name"]] = row
            print(f"{row['name']}: imported={row['imported']} rebuilt={row['rebuilt']} "
                  f"{row['reason']}", file=sys.stderr)
        ort_corpus = ort_outcomes(cli, corpus, work, "corpus")
        rebuilt_root = work / "rebuilt"
        ort_rebuilt = ort_outcomes(cli, rebuilt_root, work, "rebuilt") \
            if rebuilt_root.exists() else {}
    for name, row in rows.items():
        row["group"] = reason_group(row["reason"])
        row["ort_rebuilt"] = ort_rebuilt.get(name, "")
    version = cli_run(cli, "--version").stdout.strip()
    return {"version": version, "rows": rows, "ort_exported": ort_corpus}


# What each kind of refusal means, first match wins: (pattern of the reason, its group).
REASON_GROUPS = [
    (r"cannot read a map", "maps not supported yet (ZipMap's seq(map), DictVectorizer's map "
                           "input)"),
    (r"opset domain\(s\) ai\.onnx\.ml", "another opset domain (ai.onnx.ml operators)"),
    (r"oracle does not implement (\w+)", "an operator the oracle cannot compute: {0}"),
    (r"has a type case files cannot write \(no type\)", "untyped values inside subgraphs "
                                                          "(onnxscript's Loop and If bodies)"),
    (r"dim '[^']*' is not an integer, a name", "a symbolic dim name the case format refuses "
                                               "(the exporter's names hold '.' or '/')"),
    (r"has shape \[.*\] but its type declares", "the framework's values do not fit the type "
                                                  "the exporter declares"),
    (r"differ from the exported ones", "rebuilt values differ"),
]


def reason_group(reason: str) -> str:
    for pattern, group in REASON_GROUPS:
        found = re.search(pattern, reason)
        if found:
            return group.format(*found.groups())
    return "other: " + reason if reason else ""


def measure(args) -> int:
    corpus = Path(args.corpus)
    listing = json.loads((corpus / "corpus.json").read_text())
    checkouts = {}
    for given in args.cli or [f"this checkout={ROOT / '.venv' / 'bin' / 'gen-seq-tests'}"]:
        label, _, cli = given.rpartition("=")
        checkouts[label or cli] = measure_checkout(cli, corpus, listing["models"])
    if args.json:
        Path(args.json).write_text(json.dumps(checkouts, indent=1) + "\n")
    text = markdown(listing, checkouts)
    if args.markdown:
        Path(args.markdown).write_text(text)
    else:
        print(text)
    return 0


def markdown(listing: dict, checkouts: dict) -> str:
    """The rates, the reasons grouped (per checkout), the table of every model."""
    models, lines = listing["models"], []
    total = len(models) or 1
    for label, run in checkouts.items():
        rows = run["rows"].values()
        imported = sum(row["imported"] for row in rows)
        equal = sum(row["rebuilt"] for row in rows)
        passing = sum(row["rebuilt"] and row["ort_rebuilt"] == "pass" for row in rows)
        lines.append(f"- **{label}** ({run['version']}): {imported} of {len(models)} imported "
                     f"({100 * imported // total}%), {equal} of {len(models)} rebuilt with equal "
                     f"values ({100 * equal // total}%); onnxruntime passes {passing} of the "
                     f"{equal} rebuilt folders.")
    for label, run in checkouts.items():
        groups: dict[str, list[str]] = {}
        for row in run["rows"].values():
            if row["group"]:
                groups.setdefault(row["group"], []).append(row["name"])
        lines += ["", f"Why the others were not, on {label}:", "", "| reason | models | which |",
                  "| --- | --- | --- |"]
        for group, names in sorted(groups.items(), key=lambda item: (-len(item[1]), item[0])):
            lines.append(f"| {group} | {len(names)} | {', '.join(names)} |")
    labels = list(checkouts)
    head = "| model | exporter | onnxruntime on the exported folder | " + " | ".join(
        f"{label}: imported, rebuilt equal" for label in labels) + " |"
    lines += ["", head, "| --- | --- | --- |" + " --- |" * len(labels)]
    first = checkouts[labels[0]] if labels else {"ort_exported": {}}
    for model in models:
        cells = []
        for label in labels:
            row = checkouts[label]["rows"][model["name"]]
            cells.append(f"{'yes' if row['imported'] else 'no'}, "
                         f"{'yes' if row['rebuilt'] else 'no'}"
                         + (f" ({row['group']})" if row["group"] else ""))
        lines.append(f"| {model['name']} | {model['exporter']} | "
                     f"{first['ort_exported'].get(model['name'], '-')} | " + " | ".join(cells)
                     + " |")
    if listing["left_out"]:
        lines += ["", "Exported but left out of the corpus:", ""]
        lines += [f"- {item['name']} ({item['family']}): {item['why']}"
                  for item in listing["left_out"]]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    export_parser = commands.add_parser("export", help="export the corpus (own venv)")
    export_parser.add_argument("--out", default=str(CORPUS))
    export_parser.add_argument("--only", action="append", choices=FAMILIES)
    measure_parser = commands.add_parser("measure", help="import, build, compare, verify")
    measure_parser.add_argument("--corpus", default=str(CORPUS))
    measure_parser.add_argument("--cli", action="append", metavar="[LABEL=]GEN_SEQ_TESTS",
                                help="a checkout's gen-seq-tests (repeatable; default: "
                                     ".venv/bin/gen-seq-tests of this checkout)")
    measure_parser.add_argument("--markdown", help="write the tables here (default: stdout)")
    measure_parser.add_argument("--json", help="write every row as JSON here")
    args = parser.parse_args(argv)
    return export(args) if args.command == "export" else measure(args)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
