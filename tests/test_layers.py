"""The flow is in the layout: each layer imports only from the layers below it.

Top to bottom: the CLI, the verifier, the suite writer, the case-file reader, the core.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "onnx_seq_tests"
LAYERS = ["_cli", "_fuzz", "_verify", "_read", "_suite", "_casefile", "_core"]  # top to bottom


def _layer(module: str) -> str | None:
    """The layer of a dotted module name inside the package (None for the package root)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


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
    if own is None:
        return  # the package root and __main__ may import any layer
    upward = [
        f"{path.name}:{line}: imports {module} ({_layer(module)} is above {own})"
        for line, module in _imports(path)
        if _layer(module) is not None and LAYERS.index(_layer(module)) < LAYERS.index(own)
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
