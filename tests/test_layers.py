"""The flow is in the layout: each layer imports only from the layers below it.

Top to bottom: the CLI, the fuzzer, the reports, the runner, the runtime adapters, the readers of
cases for people (show, operator pages, import), the readers of a built suite as a whole
(resources, coverage, diff, pack, archive), the suite writer (the build), the case-file reader,
the spec oracle and its mutants, the core.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "onnx_seq_tests"
LAYERS = ["_cli", "_fuzz", "_reports", "_run", "_transforms", "_runtimes", "_read", "_published",
          "_suite", "_casefile", "_oracle", "_core"]  # top to bottom


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


def _dotted(path: Path) -> list[str]:
    """The dotted name of the module at `path`, as parts: its path from the package folder
    (the checkout's, or a probe's copy of it under a temporary folder)."""
    package = next(p for p in path.parents if p.name == PACKAGE.name)
    return list(path.relative_to(package.parent).with_suffix("").parts)


def _from_module(node: ast.ImportFrom, path: Path) -> str:
    """The dotted module that `from X import ...` in the module at `path` names."""
    here = _dotted(path)[:-1]  # its package
    if node.level:
        base = here[: len(here) - (node.level - 1)]
        return ".".join(base + ([node.module] if node.module else []))
    return node.module or ""


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module of the package that `path` imports, resolved to a dotted name, with its line."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            module = _from_module(node, path)
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
    upward = _upward(path)
    assert not upward, "\n".join(upward)


def _upward(path: Path) -> list[str]:
    """The imports of the module at `path` that run up."""
    own = _layer(".".join(_dotted(path)))
    if own == ROOT:
        return []  # the package root and __main__ may import any layer
    return [f"{path.name}:{line}: imports {module} ({_layer(module)} is above {own})"
            for line, module in _imports(path)
            if _layer(module) not in (None, own) and _above(_layer(module), own)]


def _probe(tmp_path: Path, relative: str, text: str) -> Path:
    """A module holding `text` at `relative` in a package folder of its own under `tmp_path`;
    never in the checkout, which other test workers read meanwhile (a build there once failed
    on a probe removed between its listing and its reading)."""
    probe = tmp_path / PACKAGE.name / relative
    probe.parent.mkdir(parents=True)
    probe.write_text(text)
    return probe


def test_every_module_is_in_a_layer():
    loose = [p.name for p in PACKAGE.glob("*.py")
             if p.stem not in ("__init__", "__main__", "_cli")]
    assert not loose, f"modules outside the layers: {loose}"


def test_the_check_sees_an_upward_import(tmp_path):
    """The checker itself can fail: an import of the verifier from the core is found."""
    probe = _probe(tmp_path, "_core/_layer_probe.py", "from .._run import verifier\n")
    assert _upward(probe) == [
        "_layer_probe.py:1: imports onnx_seq_tests._run.verifier (_run is above _core)"]


def test_the_check_sees_an_import_from_the_package_root(tmp_path):
    """`from .. import __version__` in a lower layer imports the package root, which imports
    every layer: the checker finds it (the versions live in the leaf `_core/versions.py`)."""
    probe = _probe(tmp_path, "_suite/_layer_probe.py", "from .. import __version__\n")
    assert _upward(probe) == ["_layer_probe.py:1: imports onnx_seq_tests.__version__ "
                              "(the package root is above _suite)"]


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


# -- no private reach-ins: a module uses only the public names of another ------------------------

def _is_module(dotted: str) -> bool:
    """Whether a dotted name inside the package is a module or a package of it."""
    path = PACKAGE.parent.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _reach_ins(path: Path) -> list[str]:
    """Every `from X import _name` and `module._name` in `path` where X or module is another
    module of the package and `_name` is not itself a module (`from .. import _core` is a
    layer, not a private name)."""
    tree = ast.parse(path.read_text(), str(path))
    modules: dict[str, str] = {}  # local name -> dotted module of the package it is bound to
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = _from_module(node, path)
            if not module.startswith("onnx_seq_tests"):
                continue
            for alias in node.names:
                dotted = f"{module}.{alias.name}"
                if _is_module(dotted):
                    modules[alias.asname or alias.name] = dotted
                elif _private(alias.name):
                    found.append(f"{path.name}:{node.lineno}: from {module} import {alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("onnx_seq_tests") and alias.asname:
                    modules[alias.asname] = alias.name
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in modules and _private(node.attr)
                and not _is_module(f"{modules[node.value.id]}.{node.attr}")):
            found.append(f"{path.name}:{node.lineno}: {node.value.id}.{node.attr}")
    return found


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_private_reach_in(path):
    """A module's `_name` is its own: another module that needs it needs a public name."""
    found = _reach_ins(path)
    assert not found, "\n".join(found)


def test_the_reach_in_check_can_fail(tmp_path):
    probe = _probe(tmp_path, "_suite/_layer_probe_private.py",
                   "from .._oracle import oracle\nfrom .manifest import _x\n"
                   "oracle._present\nfrom .. import _oracle\n_oracle.oracle\n")
    assert _reach_ins(probe) == [
        f"{probe.name}:2: from onnx_seq_tests._suite.manifest import _x",
        f"{probe.name}:3: oracle._present"]


# -- no facade: a module imports a name to use it, never only to hand it on -----------------------

#: The one module that hands names on: the public API (`onnx_seq_tests/__init__.py`).
PUBLIC_API = PACKAGE / "__init__.py"


def _re_exports(path: Path) -> list[str]:
    """Each name `path` imports at module level (`from X import name`) and never uses: it is
    there only for callers to import from `path`, which should import it from X."""
    tree = ast.parse(path.read_text(), str(path))
    imported = {(alias.asname or alias.name): node.lineno for node in tree.body
                if isinstance(node, ast.ImportFrom) and node.module != "__future__"
                for alias in node.names}
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    return [f"{path.name}:{line}: re-exports {name}; import it from where it is defined"
            for name, line in sorted(imported.items(), key=lambda kv: kv[1])
            if name not in used]


@pytest.mark.parametrize("path", [p for p in _modules() if p != PUBLIC_API],
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_re_exports_a_name_it_does_not_use(path):
    """No facade: callers import each name from the module that defines it (the public API
    in onnx_seq_tests/__init__.py is the one module that hands names on)."""
    found = _re_exports(path)
    assert not found, "\n".join(found)


def test_the_re_export_check_can_fail(tmp_path):
    probe = _probe(tmp_path, "_reports/_layer_probe_facade.py",
                   "from __future__ import annotations\n\nfrom .tally import cap, counts\n"
                   "from .merge import Merged\n\n__all__ = ['Merged', 'cap']\n\n\n"
                   "def used(x):\n    return counts(x)\n")
    assert _re_exports(probe) == [
        f"{probe.name}:3: re-exports cap; import it from where it is defined",
        f"{probe.name}:4: re-exports Merged; import it from where it is defined"]
    with pytest.raises(AssertionError, match="re-exports cap"):
        test_no_module_re_exports_a_name_it_does_not_use(probe)


# -- size: no module over 600 lines, no class over 300 ---------------------------------------------

MAX_MODULE_LINES = 600
MAX_CLASS_LINES = 300


def _longer_than(path: Path, kinds: tuple[type, ...], limit: int, decorators: bool):
    """(definition, lines) of each definition of `kinds` in module `path` (at any depth) over
    `limit` lines, its decorators counted when `decorators`."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, kinds):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)]) \
                if decorators else node.lineno
            if node.end_lineno - first + 1 > limit:
                yield node, node.end_lineno - first + 1


def _too_long(path: Path) -> list[str]:
    """The module `path` if it is over MAX_MODULE_LINES lines, and each class in it (at any
    depth) over MAX_CLASS_LINES lines, decorators included."""
    text = path.read_text()
    found = []
    lines = len(text.splitlines())
    if lines > MAX_MODULE_LINES:
        found.append(f"{path.name}: {lines} lines (at most {MAX_MODULE_LINES}): split it by job")
    for node, length in _longer_than(path, (ast.ClassDef,), MAX_CLASS_LINES, decorators=True):
        found.append(f"{path.name}:{node.lineno}: class {node.name}: {length} lines "
                     f"(at most {MAX_CLASS_LINES}): split it by job")
    return found


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_or_class_too_long(path):
    """The limit is a symptom: a module or class this long does more than one job."""
    assert not _too_long(path), "\n".join(_too_long(path))


def test_the_size_check_can_fail(tmp_path):
    text = ("class Big:\n" + "    x = 1\n" * MAX_CLASS_LINES
            + "\n" * (MAX_MODULE_LINES - MAX_CLASS_LINES))
    probe = _probe(tmp_path, "_core/_layer_probe_size.py", text)
    assert _too_long(probe) == [
        f"{probe.name}: {MAX_MODULE_LINES + 1} lines (at most {MAX_MODULE_LINES}): "
        "split it by job",
        f"{probe.name}:1: class Big: {MAX_CLASS_LINES + 1} lines (at most "
        f"{MAX_CLASS_LINES}): split it by job"]


# -- functions: none over 60 lines ---------------------------------------------------------------

MAX_FUNCTION_LINES = 60


def _long_functions(path: Path) -> list[str]:
    """Each function or method in module `path` (nested ones too) over MAX_FUNCTION_LINES lines
    from its `def` to its last line, docstring included (not its decorators: a command's click
    options declare its arguments)."""
    return [f"{path.name}:{node.lineno}: {node.name}: {length} lines (at most "
            f"{MAX_FUNCTION_LINES}): split it into steps with names"
            for node, length in _longer_than(path, (ast.FunctionDef, ast.AsyncFunctionDef),
                                             MAX_FUNCTION_LINES, decorators=False)]


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_function_too_long(path):
    """A function this long does several things in one place: give each step its name."""
    assert not _long_functions(path), "\n".join(_long_functions(path))


def test_the_function_size_check_can_fail(tmp_path):
    text = ("@staticmethod\ndef big():\n" + "    x = 1\n" * MAX_FUNCTION_LINES
            + "\n\ndef small():\n    pass\n")
    probe = _probe(tmp_path, "_core/_layer_probe_function.py", text)
    assert _long_functions(probe) == [
        f"{probe.name}:2: big: {MAX_FUNCTION_LINES + 1} lines (at most "
        f"{MAX_FUNCTION_LINES}): split it into steps with names"]


# -- rooms: each layer is a room named by its job, none holding over a fifth of the package -------

MAX_ROOM_SHARE = 0.20


def _room_lines(package: Path = PACKAGE) -> dict[str, int]:
    """Lines of code per layer (room) of the package, the package root's own modules apart."""
    lines: dict[str, int] = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package).parts
        room = parts[0] if len(parts) > 1 else ROOT
        lines[room] = lines.get(room, 0) + len(path.read_text().splitlines())
    return lines


def _crowded(lines: dict[str, int]) -> list[str]:
    total = sum(lines.values())
    return [f"{room}: {count} of {total} lines ({count / total:.0%}, at most "
            f"{MAX_ROOM_SHARE:.0%}): split it into rooms by job"
            for room, count in sorted(lines.items()) if count > MAX_ROOM_SHARE * total]


def test_every_folder_of_the_package_is_a_layer():
    folders = sorted(p.name for p in PACKAGE.iterdir()
                     if p.is_dir() and (p / "__init__.py").is_file())
    assert sorted(set(folders) - set(LAYERS)) == [], "a room outside LAYERS: add it there"


def test_no_room_holds_over_a_fifth_of_the_package():
    assert not _crowded(_room_lines()), "\n".join(_crowded(_room_lines()))


def test_the_room_check_can_fail():
    assert _crowded({"_big": 30, "_a": 10, "_b": 10, "_c": 10, "_d": 10, "_e": 10,
                     "_f": 10}) == ["_big: 30 of 90 lines (33%, at most 20%): split it into "
                                    "rooms by job"]
