"""Functions of the package that branch on the value kind (tensor, sequence, optional, map),
file by file, and how many of them are outside the kinds' home (_core/value_kinds/): an
isinstance test against a kind's class, a kind's proto class or TypeProto field, a comparison
with a kind's word, a type text starting `seq(`/`optional(`/`map(`. A heuristic (issue 29):
it does not see branches on a value's Python form (`isinstance(value, list)`).

    python3 scripts/kind_branches.py onnx_seq_tests
"""
import ast
import sys
from pathlib import Path

KIND_CLASSES = {"TensorType", "SequenceType", "OptionalType", "MapType"}
PROTO_NAMES = {"SequenceProto", "OptionalProto", "MapProto", "make_sequence", "make_optional",
               "make_map", "make_sequence_type_proto", "make_optional_type_proto",
               "make_map_type_proto", "to_list", "to_optional", "from_list", "from_optional"}
ATTRS = {"sequence_type", "optional_type", "map_type", "tensor_type", "elem_type"}
KIND_WORDS = {"tensor", "sequence", "optional", "seq", "map", "sequence_type", "optional_type",
              "tensor_type", "map_type"}

KIND_TEXT = ("seq(", "optional(", "map(")


def _is_text(node, test) -> bool:
    """Whether `node` is a string constant for which `test(text)` holds."""
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and test(node.value)


def hits(fn) -> set[str]:
    """Why the function `fn` (an ast node) branches on the value kind: the signs found in it."""
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
                why |= {f"=={c.value!r}" for c in ast.walk(side)
                        if _is_text(c, KIND_WORDS.__contains__)}
        elif _is_text(n, lambda text: text.startswith(KIND_TEXT)):
            why.add("text " + n.value[:10])
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                n.func.attr == "startswith":
            if any(_is_text(c, lambda text: text.startswith(("seq", "optional", "map")))
                   for c in ast.walk(n)):
                why.add("startswith")
    return why


def main(root: Path) -> None:
    """Print each file's branching functions (the innermost function holding each sign)."""
    total, files = 0, {}
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            why = hits(node)
            nested = [m for m in ast.walk(node) if m is not node
                      and isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
            own = why - set().union(*(hits(m) for m in nested)) if nested else why
            if own:
                files.setdefault(str(path.relative_to(root.parent)), []).append(
                    (node.name, sorted(own)))
    for name, functions in files.items():
        print(f"{name} ({len(functions)})")
        for function, why in functions:
            print(f"    {function}: {', '.join(why)}")
        total += len(functions)
    outside = {f: fns for f, fns in files.items() if "/value_kinds/" not in f}
    print(f"TOTAL {total} functions in {len(files)} files; outside _core/value_kinds/: "
          f"{sum(map(len, outside.values()))} in {len(outside)} files")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
