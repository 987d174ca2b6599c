"""Structural mutations of the project's own case files: a clean build or a clean case error.

Hypothesis picks a case from cases/, mutates its YAML nodes (drop, rename or duplicate a key,
swap a value's kind, perturb a number, replace a scalar's text) or truncates its text, and
compiles the result. Every outcome must be a successful build or a CaseFileError whose every
problem names the file, a line >= 1 and a column >= 1 and prints as exactly one line whatever
text the mutation put in it; any other exception fails the test. A smaller run goes through the
CLI: exit 0, or exit 2 with `file:line:col:` lines, no traceback, and the output folder byte for
byte as it was.

The number of examples and their randomness come from the hypothesis profile (conftest.py):
`ci` (CI=true) runs the same examples every time, `dev` a few new ones each run, and
`HYPOTHESIS_PROFILE=fuzz` a long search. Inputs that once broke a rule stay as @example.
"""

from __future__ import annotations

import copy
import re
import shutil
import tempfile
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import examples
from hypothesis import example, given, settings
from hypothesis import strategies as st

from onnx_seq_tests._casefile import vocabulary as casefile
from onnx_seq_tests._casefile.reader import load_cases
from onnx_seq_tests._cli import main
from onnx_seq_tests._core.errors import MAX_REPORTED, CaseFileError
from onnx_seq_tests._suite.compiling import compile_cases

ROOT = Path(__file__).resolve().parent.parent
_RESOLVER = yaml.resolver.Resolver()


def project_cases() -> list[tuple[str, yaml.Node]]:
    """(file name, case node) for every top-level case of every file in cases/."""
    found = []
    for path in sorted((ROOT / "cases").rglob("*.yaml")):
        root = yaml.compose(path.read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
        if isinstance(root, yaml.SequenceNode):
            found.extend((path.name, node) for node in root.value)
    return found


CASES = project_cases()

KEYS = sorted({*casefile.CASE_KEYS, *casefile.FOR_EACH_KEYS, *casefile.VALUE_KEYS,
               *casefile.NODE_KEYS, *casefile.DATA_SET_KEYS, *casefile.TOLERANCE_KEYS,
               "by_type", "optional", "axis", "new_axis", "keepdims", "dtype", "type", "body"})
NUMBERS = ["0", "-0", "1", "-1", "2", "010", "0x10", "1_000", "1:30", "1.5", "-2.5", "1e-3",
           "1e400", "-1e-400", "nan", "-inf", ".inf", "127", "128", "255", "256", "-129",
           "65504", "65520", "2147483648", "9223372036854775807", "9223372036854775808",
           "18446744073709551616", "1" * 60, "true", "no", "off", "~", ""]
TEXTS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
MUTATIONS = ("drop_key", "rename_key", "duplicate_key", "swap_kind", "perturb_number",
             "replace_text", "drop_item", "duplicate_item")


def scalar(value: str, quoted: bool = False) -> yaml.ScalarNode:
    """A scalar node tagged as YAML would tag that text, so it serializes without a tag."""
    if not value and not quoted:
        value = "~"  # an empty plain scalar cannot always be written without a tag
    tag = _RESOLVER.resolve(yaml.ScalarNode, value, (not quoted, quoted))
    return yaml.ScalarNode(tag, value, style="'" if quoted else None)


def sequence(items) -> yaml.SequenceNode:
    return yaml.SequenceNode("tag:yaml.org,2002:seq", list(items), flow_style=True)


def mapping(pairs) -> yaml.MappingNode:
    return yaml.MappingNode("tag:yaml.org,2002:map", list(pairs), flow_style=True)


def nodes_of(root: yaml.Node) -> list[tuple[yaml.Node | None, int, yaml.Node]]:
    """Every (parent, position, node) below `root`, each node once; position indexes the
    parent's items (a mapping's pair for keys and values alike)."""
    found, seen, stack = [], set(), [(None, 0, root)]
    while stack:
        parent, position, node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        found.append((parent, position, node))
        if isinstance(node, yaml.SequenceNode):
            stack.extend((node, i, item) for i, item in enumerate(node.value))
        elif isinstance(node, yaml.MappingNode):
            stack.extend((node, i, value) for i, (_, value) in enumerate(node.value))
    return found


def replace(parent, position: int, new: yaml.Node) -> None:
    if isinstance(parent, yaml.SequenceNode):
        parent.value[position] = new
    elif isinstance(parent, yaml.MappingNode):
        parent.value[position] = (parent.value[position][0], new)


def swapped(node: yaml.Node, choice: int) -> yaml.Node:
    """A node of another kind made from `node`."""
    if isinstance(node, yaml.ScalarNode):
        options = [sequence([node]), mapping([(scalar("value"), node)]),
                   scalar(node.value, quoted=True), sequence([])]
    elif isinstance(node, yaml.SequenceNode):
        options = [scalar("1"), scalar("text"), mapping([(scalar("0"), i) for i in node.value]),
                   mapping([])]
    else:
        options = [sequence(v for _, v in node.value), scalar("1.5"), scalar(""),
                   sequence([k for k, _ in node.value])]
    return options[choice % len(options)]


def mutate(root: yaml.Node, kind: str, pick: int, choice: int, text: str) -> None:
    """Apply one mutation of `kind` to a node chosen by `pick`, in place."""
    everything = nodes_of(root)
    if kind in ("drop_key", "rename_key", "duplicate_key"):
        maps = [n for _, _, n in everything if isinstance(n, yaml.MappingNode) and n.value]
        if not maps:
            return
        target = maps[pick % len(maps)]
        position = choice % len(target.value)
        key, value = target.value[position]
        if kind == "drop_key":
            del target.value[position]
        elif kind == "duplicate_key":
            target.value.insert(position, (key, copy.deepcopy(value)))
        else:
            names = [k for k in KEYS if k != getattr(key, "value", None)]
            new = names[choice % len(names)] if choice % 3 else (text or "x")
            target.value[position] = (scalar(new), value)
    elif kind in ("drop_item", "duplicate_item"):
        lists = [n for _, _, n in everything if isinstance(n, yaml.SequenceNode) and n.value]
        if not lists:
            return
        target = lists[pick % len(lists)]
        position = choice % len(target.value)
        if kind == "drop_item":
            del target.value[position]
        else:
            target.value.insert(position, copy.deepcopy(target.value[position]))
    else:
        children = everything[1:]
        if kind == "replace_text":
            children = [c for c in children if isinstance(c[2], yaml.ScalarNode)]
        elif kind == "perturb_number":
            children = [c for c in children if isinstance(c[2], yaml.ScalarNode)
                        and NUMBER_TEXT.fullmatch(c[2].value)]
        if not children:
            return
        parent, position, node = children[pick % len(children)]
        if kind == "swap_kind":
            new = swapped(node, choice)
        elif kind == "perturb_number":
            new = scalar(perturbed(node.value, choice))
        else:
            new = scalar(text, quoted=bool(choice % 2))
        replace(parent, position, new)


NUMBER_TEXT = re.compile(r"[-+]?(\.?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?|\.?inf|\.?nan)")


def perturbed(text: str, choice: int) -> str:
    """`text`, a number, changed a little or a lot, or one of the awkward NUMBERS."""
    derived = [text[1:] if text.startswith("-") else "-" + text, text + "0", text + "5",
               "0" + text, text + ".5", text + "e3", text + "e-3", text * 3, text[:-1] or "0"]
    options = derived + NUMBERS
    return options[choice % len(options)]


def serialize(case_node: yaml.Node) -> str:
    return yaml.serialize(sequence([case_node]), Dumper=yaml.SafeDumper, allow_unicode=True,
                          width=100)


@st.composite
def mutated_files(draw) -> str:
    """The text of a one-case file: a project case, mutated once to three times."""
    name, original = draw(st.sampled_from(CASES))
    node = copy.deepcopy(original)
    steps = draw(st.lists(st.tuples(st.sampled_from(MUTATIONS), st.integers(0, 10**6),
                                    st.integers(0, 10**6), TEXTS), min_size=1, max_size=3))
    for kind, pick, choice, text in steps:
        mutate(node, kind, pick, choice, text)
    text = serialize(node)
    if draw(st.booleans()) and draw(st.integers(0, 4)) == 0:  # sometimes truncate
        text = text[: draw(st.integers(0, len(text)))]
    return text


def with_key(key: str) -> str:
    """The text of a file holding the first project case with one more key, `key`."""
    node = copy.deepcopy(CASES[0][1])
    node.value.insert(0, (scalar(key, quoted=True), scalar("1")))
    return serialize(node)


#: Keys that once made `unknown key '...'` span two lines: a carriage return, U+0085 (NEL).
REGRESSIONS = [with_key("\r"), with_key(" \x85")]


def is_one_line(text: str) -> bool:
    """No line break of any kind (those str.splitlines knows: \\n, \\r, U+0085, U+2028, ...)
    and no terminal escape."""
    return len(text.splitlines()) == 1 and "\x1b" not in text


def check_outcome(path: Path) -> None:
    """A clean build or a clean CaseFileError; anything else propagates and fails the test."""
    try:
        compile_cases(load_cases([path]))
    except CaseFileError as error:
        assert error.problems, "a CaseFileError with no problem"
        for problem in error.problems:
            assert problem.path == str(path), problem
            assert problem.line >= 1 and problem.column >= 1, problem
            assert problem.message, problem
            assert is_one_line(str(problem)), repr(str(problem))
        shown = min(len(error.problems), MAX_REPORTED)
        assert len(error.report().splitlines()) == shown + (len(error.problems) > shown)


def test_regressions_are_refused_on_one_line(scratch):
    """The keys that broke "one problem per line" reach the message, escaped."""
    for text, shown in zip(REGRESSIONS, ["'\\r'", "' \\x85'"], strict=True):
        path = scratch / "regression.yaml"
        path.write_text(text, encoding="utf-8")
        with pytest.raises(CaseFileError) as caught:
            load_cases([path])
        [line] = caught.value.report().splitlines()
        assert f"unknown key {shown}" in line, line


@pytest.fixture(scope="module")
def scratch():
    with tempfile.TemporaryDirectory() as folder:
        yield Path(folder)


def test_project_cases_found():
    assert len(CASES) >= 10


def test_unmutated_cases_build(scratch):
    """The baseline: every project case, serialized back from its nodes, builds as it is."""
    for index, (_, node) in enumerate(CASES):
        path = scratch / f"baseline_{index}.yaml"
        path.write_text(serialize(node), encoding="utf-8")
        compile_cases(load_cases([path]))


@settings(max_examples=examples(300))
@given(text=mutated_files())
@example(text=REGRESSIONS[0])
@example(text=REGRESSIONS[1])
def test_mutated_case_files_build_or_are_refused_cleanly(scratch, text):
    path = scratch / "mutated.yaml"
    path.write_text(text, encoding="utf-8")
    check_outcome(path)


def snapshot(root: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None)
            for p in sorted(root.rglob("*"))}


@pytest.fixture(scope="module")
def earlier_build(scratch) -> Path:
    out = scratch / "earlier"
    valid = Path(__file__).parent / "invalid_cases" / "valid.yaml"
    assert CliRunner().invoke(main, ["build", str(valid), "-o", str(out)]).exit_code == 0
    return out


PROBLEM_LINE = re.compile(r"mutated\.yaml:[1-9][0-9]*:[1-9][0-9]*: \S")


@settings(max_examples=examples(40))
@given(text=mutated_files())
@example(text=REGRESSIONS[0])
@example(text=REGRESSIONS[1])
def test_mutations_through_the_cli(scratch, earlier_build, text):
    """As a user meets it: exit 0, or exit 2 with file:line:col lines and the output untouched."""
    work = Path(tempfile.mkdtemp(dir=scratch))
    (work / "mutated.yaml").write_text(text, encoding="utf-8")
    out = work / "out"
    shutil.copytree(earlier_build, out)
    before = snapshot(out)
    result = CliRunner().invoke(main, ["build", str(work / "mutated.yaml"), "-o", str(out)])
    if result.exit_code == 0:
        return
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    *problems, summary = result.stderr.splitlines()
    assert summary.endswith("problem(s) found; nothing was written.")
    for line in problems:
        assert line.startswith("... and ") or PROBLEM_LINE.match(
            line.replace(str(work) + "/", "")), line
    assert "Traceback" not in result.output
    assert snapshot(out) == before
