"""The flow is in the layout: each layer imports only from the layers below it.

Top to bottom: the CLI, the verifier, the suite writer, the case-file reader, the core.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "onnx_seq_tests"
LAYERS = ["_cli", "_fuzz", "_verify", "_read", "_suite", "_casefile", "_core"]  # top to bottom


ROOT = "the package root"  # onnx_seq_tests/__init__.py: it imports every layer, so it is above
#                            all of them but the CLI


def _layer(module: str) -> str | None:
    """The layer of a dotted module name inside the package: ROOT for the package root itself
    or a name in it (`from .. import __version__`), None for a module outside the package."""
    parts = module.split(".")
    if parts[0] != "onnx_seq_tests":
        return None
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else ROOT


def _above(layer: str, own: str) -> bool:
    """Whether `layer` is above the layer `own`."""
    if layer == ROOT:
        return own != "_cli"
    return LAYERS.index(layer) < LAYERS.index(own)


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module of the package that `path` imports, resolved to a dotted name, with its line."""
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    here = list(relative.parts)
    if here[-1] == "__init__":
        here = here[:-1]
    else:
        here = here[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.startswith("onnx_seq_tests"):
                if node.module is None or module.count(".") < 2:
                    # `from .. import x` or `from .._core import x`: x may be a module
                    found += [(node.lineno, f"{module}.{a.name}") for a in node.names]
                else:
                    found.append((node.lineno, module))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names
                      if a.name.startswith("onnx_seq_tests")]
    return found


def _modules():
    return sorted(p for p in PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_go_only_downward(path):
    own = _layer(".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts))
    if own == ROOT:
        return  # the package root and __main__ may import any layer
    upward = [
        f"{path.name}:{line}: imports {module} ({_layer(module)} is above {own})"
        for line, module in _imports(path)
        if _layer(module) not in (None, own) and _above(_layer(module), own)
    ]
    assert not upward, "\n".join(upward)


def test_every_module_is_in_a_layer():
    loose = [p.name for p in PACKAGE.glob("*.py")
             if p.stem not in ("__init__", "__main__", "_cli")]
    assert not loose, f"modules outside the layers: {loose}"


def test_the_check_sees_an_upward_import(tmp_path):
    """The checker itself can fail: an import of the verifier from the core is found."""
    probe = PACKAGE / "_core" / "_layer_probe_tmp.py"
    probe.write_text("from .._verify import verifier\n")
    try:
        with pytest.raises(AssertionError, match="_verify is above _core"):
            test_imports_go_only_downward(probe)
    finally:
        probe.unlink()


def test_the_check_sees_an_import_from_the_package_root(tmp_path):
    """`from .. import __version__` in a lower layer imports the package root, which imports
    every layer: the checker finds it (the versions live in the leaf `_core/versions.py`)."""
    probe = PACKAGE / "_suite" / "_layer_probe_root_tmp.py"
    probe.write_text("from .. import __version__\n")
    try:
        with pytest.raises(AssertionError, match="package root is above _suite"):
            test_imports_go_only_downward(probe)
    finally:
        probe.unlink()


def _graph() -> dict[str, set[str]]:
    """module -> the package's modules it imports (anywhere in it, functions included)."""
    modules = {".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts): p
               for p in _modules()}
    modules = {m.removesuffix(".__init__"): p for m, p in modules.items()}
    return {m: {i for _, i in _imports(p) if i in modules and i != m}
            for m, p in modules.items()}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every import circle (strongly connected group of more than one module), sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_no_import_circle():
    """freshness and manifest once imported each other (over `installed_onnx`)."""
    assert _circles(_graph()) == []


def test_the_circle_check_can_fail():
    assert _circles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
