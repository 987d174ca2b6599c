"""Functions of the package that branch on the value kind (tensor, sequence, optional, map),
file by file, and how many of them are outside the kinds' home (_core/value_kinds/): an
isinstance test against a kind's class, a kind's proto class or TypeProto field, a comparison
with a kind's word, a type text starting `seq(`/`optional(`/`map(`. A heuristic (issue 29):
it does not see branches on a value's Python form (`isinstance(value, list)`).

    python3 scripts/kind_branches.py onnx_seq_tests
"""
import ast, sys
from pathlib import Path

KIND_CLASSES = {"TensorType", "SequenceType", "OptionalType", "MapType"}
PROTO_NAMES = {"SequenceProto", "OptionalProto", "MapProto", "make_sequence", "make_optional",
               "make_map", "make_sequence_type_proto", "make_optional_type_proto",
               "make_map_type_proto", "to_list", "to_optional", "from_list", "from_optional"}
ATTRS = {"sequence_type", "optional_type", "map_type", "tensor_type", "elem_type"}
KIND_WORDS = {"tensor", "sequence", "optional", "seq", "map", "sequence_type", "optional_type",
              "tensor_type", "map_type"}

def hits(fn):
    why = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "isinstance":
            names = {x.id for x in ast.walk(n.args[1]) if isinstance(x, ast.Name)}
            if names & KIND_CLASSES:
                why.add("isinstance")
        elif isinstance(n, ast.Name) and n.id in PROTO_NAMES:
            why.add(n.id)
        elif isinstance(n, ast.Attribute) and (n.attr in PROTO_NAMES or n.attr in ATTRS):
            why.add(n.attr)
        elif isinstance(n, ast.Compare):
            for side in [n.left, *n.comparators]:
                for c in ast.walk(side):
                    if isinstance(c, ast.Constant) and isinstance(c.value, str) and c.value in KIND_WORDS:
                        why.add(f"=={c.value!r}")
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) and (
                n.value.startswith(("seq(", "optional(", "map(")) ):
            why.add("text " + n.value[:10])
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("startswith",):
            for c in ast.walk(n):
                if isinstance(c, ast.Constant) and isinstance(c.value, str) and c.value.startswith(("seq", "optional", "map")):
                    why.add("startswith")
    return why

root = Path(sys.argv[1])
total, files = 0, {}
for path in sorted(root.rglob("*.py")):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # innermost only: skip if a nested function accounts for all hits? keep simple
            why = hits(node)
            nested = [m for m in ast.walk(node) if m is not node and isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
            own = why - set().union(*(hits(m) for m in nested)) if nested else why
            if own:
                files.setdefault(str(path.relative_to(root.parent)), []).append((node.name, sorted(own)))
for f, fns in files.items():
    print(f"{f} ({len(fns)})")
    for name, why in fns:
        print(f"    {name}: {', '.join(why)}")
    total += len(fns)
outside = {f: fns for f, fns in files.items() if "/value_kinds/" not in f}
print(f"TOTAL {total} functions in {len(files)} files; outside _core/value_kinds/: "
      f"{sum(map(len, outside.values()))} in {len(outside)} files")
