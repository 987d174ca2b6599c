"""Case files (YAML) to validated `Case` objects, every mistake reported as `file:line:col`.

The YAML is composed into nodes (never constructed into Python objects, so no tag can run code)
and read here with our own rules for scalars, which sidesteps YAML 1.1's guesses: `no` is not a
bool, `010` is not octal, `1e-3` is a number wherever a number belongs.

Error format, one line per mistake, sorted by file, line and column, at most
`problems.MAX_REPORTED` shown (then a count of the rest):

    cases/sequence_at.yaml:14:9: unknown key 'optype' in a node (did you mean 'op_type'?); ...

Line and column are 1-based and point at the YAML node at fault (a missing key: the mapping that
lacks it). Every file of a run is read and every mistake collected before anything is reported.

Limits, each checked before the thing it guards is built:
- a file is at most MAX_FILE_BYTES bytes (checked before it is read);
- a file holds at most MAX_YAML_NODES YAML nodes and MAX_YAML_TEXT_BYTES bytes of scalar text,
  counting every alias as the nodes and text it repeats, and nests at most MAX_DEPTH collections
  deep (checked on the event stream, before any node exists, so an alias bomb costs a few
  milliseconds); an alias inside its own anchor is refused;
- explicit YAML tags (`!!python/...`, `!!str`, `!custom`) are refused, never resolved;
- one tensor value holds at most MAX_TENSOR_ELEMENTS elements (checked from the YAML list
  lengths before any element is read);
- integers anywhere (opsets, dims, attributes, int64 data) must fit in int64 or their own type.
The limits are budgets, all in `_core/budgets.py`.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from pathlib import Path

import numpy as np
import yaml

from .._core import operators
from .._core.budgets import (
    MAX_DEPTH,
    MAX_FILE_BYTES,
    MAX_TENSOR_ELEMENTS,
    MAX_YAML_NODES,
    MAX_YAML_TEXT_BYTES,
)
from .._core.cases import Case, DataSet, Expansion, Graph, Initializer, Node, ValueDecl
from .._core.elements import ELEMENTS, ScalarError, int_hint
from .._core.problems import CaseFileError, Problems, Where
from .._core.value_types import (
    OptionalType,
    SequenceType,
    TensorType,
    TypeTextError,
    ValueType,
    innermost,
    parse_type,
)
from .discovery import case_files, read_case_file
from .vocabulary import (
    ATTRIBUTE_FORMS,
    CASE_KEYS,
    DATA_SET_KEYS,
    EMPTY_MARKER_KEY,
    EMPTY_MARKER_VALUE,
    FOR_EACH_KEYS,
    GRAPH_KEYS,
    INITIALIZER_KEYS,
    NODE_KEYS,
    PLACEHOLDER,
    TOLERANCE_KEYS,
    TYPE_GROUPS,
    VALUE_KEYS,
)

NAME_PATTERN = re.compile(r"[a-z0-9_]+")
_INT64 = (-(2**63), 2**63 - 1)
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_BAD = object()  # a value that could not be read; the problem is already recorded


def load_cases(paths) -> list[Case]:
    """Every case in `paths`, sorted by name; raises CaseFileError listing all mistakes."""
    problems = Problems()
    cases: list[Case] = []
    files = case_files(paths)
    if not files:
        problems.add(Where(", ".join(map(str, paths)) or ".", 1, 1),
                     "no case files found; give .yaml files or folders holding them")
    for path in files:
        cases.extend(load_file(path, problems))
    seen: dict[str, Case] = {}
    for case in cases:
        if case.name in seen:
            first = seen[case.name]
            problems.add(case.where, f"case name '{case.name}' is already used at {first.where}; "
                                     "case names must be unique across all files")
        else:
            seen[case.name] = case
    problems.raise_if_any()
    return sorted(cases, key=lambda c: c.name)


def compose_file(path: Path, problems: Problems) -> tuple[bool, yaml.Node | None]:
    """A YAML file as nodes, read with the checks and limits of case files (size, UTF-8, tags,
    nesting, aliases): (True, root node or None for an empty document), or (False, None) with
    the problem added to `problems` as file:line:col."""
    shown = str(path)
    try:
        raw = read_case_file(path)
    except OSError as error:
        problems.add(Where(shown, 1, 1), f"cannot read the file: {error.strerror}")
        return False, None
    if len(raw) > MAX_FILE_BYTES:
        problems.add(Where(shown, 1, 1), f"the file is larger than {MAX_FILE_BYTES} bytes, the "
                                         "limit for one case file; split it into several files")
        return False, None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        column = error.start - (raw.rfind(b"\n", 0, error.start) + 1) + 1
        problems.add(Where(shown, line, column),
                     f"invalid UTF-8 (byte 0x{raw[error.start]:02x}); save the file as UTF-8")
        return False, None
    try:
        if not _check_events(text, shown, problems):
            return False, None
        root = yaml.compose(text, Loader=_LOADER)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        problems.add(*_yaml_problem(error, mark, text, shown))
        return False, None
    except yaml.reader.ReaderError:  # its position counts bytes or characters: find it again
        found = yaml.reader.Reader.NON_PRINTABLE.search(text)
        at = found.start() if found else 0
        code = ord(text[at]) if found else 0
        problems.add(Where(shown, text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)),
                     f"control character U+{code:04X} is not allowed in YAML; remove it, or "
                     f"write it as \\u{code:04X} inside a double-quoted string")
        return False, None
    except yaml.YAMLError as error:
        problems.add(Where(shown, 1, 1), f"not valid YAML: {error}")
        return False, None
    return True, root


def load_file(path: Path, problems: Problems) -> list[Case]:
    """The cases of one file; mistakes go to `problems`."""
    shown = str(path)
    ok, root = compose_file(path, problems)
    if not ok:
        return []
    if root is None:
        problems.add(Where(shown, 1, 1), "the file holds no cases; write a YAML list of cases")
        return []
    reader = _Reader(shown, problems)
    case_nodes = reader.sequence(root, "the file (a list of cases)")
    cases = []
    for node in case_nodes or ():
        cases.extend(reader.cases(node))
    return cases


def _yaml_problem(error: yaml.MarkedYAMLError, mark, text: str, path: str):
    """(where, message) for a YAML syntax error; a tab in the indentation is named as such."""
    problem = error.problem or "syntax error"
    lines = text.split("\n")
    line = lines[mark.line] if mark.line < len(lines) else ""
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    if "\t" in indent or "tab" in problem or line[mark.column:mark.column + 1] == "\t":
        column = line.index("\t") if "\t" in indent else mark.column
        return (Where(path, mark.line + 1, column + 1),
                "a tab character in the indentation; YAML indents with spaces only, replace "
                "the tab with spaces")
    context = f" ({error.context})" if error.context else ""
    hint = ""
    if "mapping values are not allowed" in problem:
        hint = "; a ': ' inside a plain value starts a mapping, quote the value"
    elif "expected a single document" in problem:
        hint = "; a case file is one YAML document (a list of cases), remove the '---'"
    elif "flow" in (error.context or ""):
        hint = ("; inside [...] or {...} quote a value that holds ',', ':', '[', ']', '{' or "
                "'}', such as \"tensor({type})\"")
    elif "cannot start any token" in problem:
        hint = "; quote a value that starts with this character"
    return Where(path, mark.line + 1, mark.column + 1), f"not valid YAML: {problem}{context}{hint}"


def _tag_text(tag: str) -> str:
    prefix = "tag:yaml.org,2002:"
    return "!!" + tag[len(prefix):] if tag.startswith(prefix) else tag


def _check_events(text: str, path: str, problems: Problems) -> bool:
    """Refuse tags, deep nesting, recursive aliases and alias bombs from the event stream.

    Runs before any node is built: each anchor's size (nodes, aliases expanded) and depth is
    known when it closes, so an alias adds its full expansion in one step.
    """
    sizes: dict[str, tuple[int, int, int]] = {}  # anchor -> (nodes, depth, text), expanded
    stack: list[list] = []  # open collections: [anchor, nodes, text before it, deepest inside]
    count = text_bytes = 0

    def refuse(event, message: str) -> bool:
        mark = event.start_mark
        problems.add(Where(path, mark.line + 1, mark.column + 1), message)
        return False

    for event in yaml.parse(text, Loader=_LOADER):
        level = len(stack)  # collections around this event
        if isinstance(event, yaml.AliasEvent):
            if any(entry[0] == event.anchor for entry in stack):
                return refuse(event, f"alias *{event.anchor} sits inside its own anchor "
                                     f"&{event.anchor}; a case file cannot be recursive")
            if event.anchor not in sizes:
                continue  # composing reports the undefined alias
            nodes, inner_depth, text = sizes[event.anchor]
            count += nodes
            text_bytes += text
            deepest = level + inner_depth
        elif isinstance(event, (yaml.ScalarEvent, yaml.SequenceStartEvent,
                                yaml.MappingStartEvent)):
            if event.tag is not None:
                return refuse(event, f"YAML tag '{_tag_text(event.tag)}' is not allowed; case "
                                     "files hold plain data only, remove the tag (quote a value "
                                     "to make it a string)")
            count += 1
            if isinstance(event, yaml.ScalarEvent):
                deepest = level
                size = len(event.value.encode("utf-8", "surrogatepass"))
                text_bytes += size
                if event.anchor is not None:
                    sizes[event.anchor] = (1, 0, size)
            else:
                deepest = level + 1
                stack.append([event.anchor, count - 1, text_bytes, deepest])
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            anchor, before, text_before, inner = stack.pop()
            if anchor is not None:
                sizes[anchor] = (count - before, inner - len(stack), text_bytes - text_before)
            deepest = inner
        else:
            continue
        if stack:
            stack[-1][3] = max(stack[-1][3], deepest)
        if deepest > MAX_DEPTH:
            return refuse(event, f"lists and mappings nest more than {MAX_DEPTH} deep here "
                                 "(aliases followed), the limit for case files")
        if count > MAX_YAML_NODES:
            return refuse(event, f"the file holds more than {MAX_YAML_NODES} YAML nodes once "
                                 "aliases are expanded (an alias bomb?), the limit for one "
                                 "case file; split it or repeat fewer aliases")
        if text_bytes > MAX_YAML_TEXT_BYTES:
            return refuse(event, f"the file's values add up to more than {MAX_YAML_TEXT_BYTES} "
                                 "bytes of text once aliases are expanded (the budget "
                                 "MAX_YAML_TEXT_BYTES of onnx_seq_tests/_core/budgets.py); "
                                 "repeat fewer aliases of long strings, or raise the budget")
    return True


def _where(path: str, node: yaml.Node) -> Where:
    return Where(path, node.start_mark.line + 1, node.start_mark.column + 1)


def _misspelled(node, keys) -> set[str]:
    """The keys that a did-you-mean for one of `node`'s unknown keys points to."""
    if not isinstance(node, yaml.MappingNode):
        return set()
    found = set()
    for key_node, _ in node.value:
        if isinstance(key_node, yaml.ScalarNode) and key_node.value not in keys:
            found.update(difflib.get_close_matches(key_node.value, list(keys), n=1, cutoff=0.6))
    return found


def _did_you_mean(word: str, choices) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


class _Reader:
    """Reads one file's nodes; `binding` fills `{type}`/`{opset}` while expanding `for_each`."""

    def __init__(self, path: str, problems: Problems, binding: dict[str, str] | None = None):
        self.path = path
        self.problems = problems
        self.binding = binding or {}

    # -- generic shapes ----------------------------------------------------------------------

    def where(self, node: yaml.Node) -> Where:
        return _where(self.path, node)

    def fail(self, node: yaml.Node, message: str):
        self.problems.add(self.where(node), message)
        return None

    def mapping(self, node, what: str, keys, required=()) -> dict[str, yaml.Node] | None:
        if not isinstance(node, yaml.MappingNode):
            return self.fail(node, f"{what} must be a mapping (key: value), not {_kind(node)}")
        found: dict[str, yaml.Node] = {}
        suggested = _misspelled(node, keys)  # a did-you-mean already points to these
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            if not isinstance(key, str):
                self.fail(key_node, f"keys in {what} must be plain words")
            elif key in found:
                self.fail(key_node, f"key '{key}' appears twice in {what}; keep one")
            elif key not in keys:
                allowed = "; allowed: " + ", ".join(keys) if keys else ""
                self.fail(key_node, f"unknown key '{key}' in {what}"
                                    f"{_did_you_mean(key, keys)}{allowed}")
            else:
                found[key] = value_node
        for key in required:
            if key not in found and key not in suggested:
                self.fail(node, f"{what} is missing the required key '{key}'")
        return found

    def keyed(self, node, what: str, names) -> tuple[dict, set[str]] | None:
        """A mapping whose keys are `names` ({} when `node` is absent), with the names that a
        did-you-mean for an unknown key already points to and that are missing (so they are not
        reported again); None when `node` is not a mapping."""
        if node is None:
            return {}, set()
        fields = self.mapping(node, what, names)
        if fields is None:
            return None
        return fields, _misspelled(node, names) - set(fields)

    def sequence(self, node, what: str) -> list | None:
        if not isinstance(node, yaml.SequenceNode):
            return self.fail(node, f"{what} must be a list, not {_kind(node)}")
        return list(node.value)

    def text(self, node, what: str) -> str | None:
        if not isinstance(node, yaml.ScalarNode):
            return self.fail(node, f"{what} must be a single value, not {_kind(node)}")
        if _is_null(node):
            return self.fail(node, f"{what} is empty; give a value")
        return self.fill(node.value)

    def fill(self, text: str) -> str:
        if not self.binding:
            return text
        return PLACEHOLDER.sub(lambda m: self.binding.get(m.group(1), m.group(0)), text)

    def integer(self, node, what: str) -> int | None:
        text = self.text(node, what)
        if text is None:
            return None
        if not _plain(node) and not PLACEHOLDER.search(node.value):  # "{dtype}" needs quotes
            return self.fail(node, f"{what} must be an integer, not the string {text!r}; "
                                   "remove the quotes")
        if not re.fullmatch(r"[-+]?(0|[1-9][0-9]*)", text):
            hint = int_hint(text)
            if PLACEHOLDER.search(text):
                hint = "placeholders such as {dtype} are filled only in a case with for_each"
            return self.fail(node, f"{what} must be an integer, not {text!r}; {hint}")
        if len(text) > 40 or not _INT64[0] <= int(text) <= _INT64[1]:
            return self.fail(node, f"{what} {text[:24]}{'...' if len(text) > 24 else ''} is "
                                   f"outside the int64 range ({_INT64[0]}..{_INT64[1]})")
        return int(text)

    def number(self, node, what: str) -> float | None:
        text = self.text(node, what)
        if text is None:
            return None
        if not _plain(node):
            return self.fail(node, f"{what} must be a number, not the string {text!r}; "
                                   "remove the quotes")
        try:
            return ELEMENTS["double"].parse(text, quoted=False)
        except ScalarError as error:
            return self.fail(node, f"{what}: {error}")

    # -- cases -------------------------------------------------------------------------------

    def cases(self, node) -> list[Case]:
        fields = self.mapping(node, "a case", CASE_KEYS,
                              required=("name", "outputs", "nodes", "data_sets"))
        if fields is None:
            return []
        if "for_each" not in fields:
            case = self.case(node, fields)
            return [] if case is None else [case]
        if "opset" in fields:
            self.fail(fields["opset"], "a case with for_each takes its opsets from for_each; "
                                       "remove 'opset' or list it under for_each.opsets")
            return []
        bindings = self.for_each(fields["for_each"])
        if bindings and not self.name_varies(fields.get("name"), bindings):
            return []
        expanded = []
        for binding in bindings or ():
            reader = _Reader(self.path, self.problems, binding)
            case = reader.case(node, fields, opset=int(binding["opset"]))
            if case is not None:
                origin = Expansion(self.where(fields["for_each"]), binding["type"],
                                   int(binding["opset"]))
                expanded.append(dataclasses.replace(case, expanded_from=origin))
        return expanded

    def name_varies(self, name_node, bindings) -> bool:
        """A for_each case name must hold each placeholder whose value the expansion varies."""
        if not isinstance(name_node, yaml.ScalarNode):
            return True  # reading the name reports it
        ok = True
        for key in ("type", "opset"):
            values = sorted({b[key] for b in bindings})
            if len(values) > 1 and "{" + key + "}" not in name_node.value:
                ok = self.fail(name_node, f"for_each expands this case over {len(values)} "
                                          f"{key}s ({', '.join(values[:4])}"
                                          f"{', ...' if len(values) > 4 else ''}) but its name "
                                          f"has no {{{key}}}; add {{{key}}} so every expanded "
                                          "case gets its own name")
        return bool(ok)

    def for_each(self, node) -> list[dict[str, str]] | None:
        fields = self.mapping(node, "for_each", FOR_EACH_KEYS, required=("op", "param"))
        if fields is None or "op" not in fields or "param" not in fields:
            return None
        op_type = self.text(fields["op"], "for_each.op")
        param = self.text(fields["param"], "for_each.param")
        if op_type is None or param is None:
            return None
        versions = operators.versions(op_type)
        if not versions:
            return self.fail(fields["op"], f"unknown operator '{op_type}'"
                             f"{_did_you_mean(op_type, operators.all_operator_names())}")
        opsets = list(versions)
        if "opsets" in fields:
            opsets = self.opset_list(fields["opsets"], op_type, versions)
            if opsets is None:
                return None
        unreleased = [o for o in opsets if o not in operators.released_opsets()]
        if unreleased:
            return self.fail(fields.get("opsets", fields["op"]),
                             f"{op_type} changed at opset {unreleased[0]}: "
                             f"{_unreleased(unreleased[0])}; list the released ones under "
                             "for_each.opsets")
        wanted = self.type_filter(fields.get("types"), "for_each.types")
        excluded = self.type_filter(fields.get("exclude_types"), "for_each.exclude_types") or ()
        bindings = []
        for opset in opsets:
            allowed = operators.constraint_types(operators.schema(op_type, opset), param)
            if allowed is None:
                return self.fail(fields["param"], f"{op_type}-{opset} has no type parameter "
                                 f"'{param}'; its parameters: " + ", ".join(
                                     c.type_param_str for c in
                                     operators.schema(op_type, opset).type_constraints))
            for name in operators.element_names(allowed):
                if (wanted is None or name in wanted) and name not in excluded:
                    bindings.append({"opset": str(opset), "type": name,
                                     "dtype": str(ELEMENTS[name].proto)})
        if not bindings:
            return self.fail(node, "for_each selects no (opset, type) pair; check its lists")
        return bindings

    def opset_list(self, node, op_type: str, versions) -> list[int] | None:
        if isinstance(node, yaml.ScalarNode) and node.value == "all":
            return list(versions)
        items = self.sequence(node, "for_each.opsets (a list of versions, or all)")
        if items is None:
            return None
        opsets = []
        for item in items:
            opset = self.integer(item, "an opset")
            if opset is None:
                continue
            if opset not in versions:
                self.fail(item, f"{op_type} did not change at opset {opset}; its versions: "
                          + ", ".join(map(str, versions)))
                continue
            opsets.append(opset)
        return opsets

    def type_filter(self, node, what: str) -> set[str] | None:
        if node is None:
            return None
        if isinstance(node, yaml.ScalarNode) and node.value == "all":
            if what == "for_each.types":
                return None
            self.fail(node, f"{what} must be a list of element types ('all' would exclude "
                            "every type)")
            return set()
        names = set()
        for item in self.sequence(node, f"{what} (a list of element types)") or ():
            name = self.text(item, "an element type")
            if name is None:
                continue
            if name not in ELEMENTS:
                self.fail(item, f"unknown element type '{name}'{_did_you_mean(name, ELEMENTS)}")
            names.add(name)
        return names

    def case(self, node, fields, opset: int | None = None) -> Case | None:
        before = len(self.problems.found)
        name = self.text(fields["name"], "the case name") if "name" in fields else None
        if name is not None and not NAME_PATTERN.fullmatch(name):
            self.fail(fields["name"], f"case name {name!r} may hold only lowercase letters, "
                                      "digits and underscores (it becomes the folder test_<name>)")
        if opset is None:
            if "opset" not in fields:
                return self.fail(node, "the case needs 'opset' (the ai.onnx opset version to "
                                       "import), or a for_each with opsets")
            opset = self.integer(fields["opset"], "opset")
            if opset is not None and not 1 <= opset <= operators.newest_opset():
                self.fail(fields["opset"], f"opset {opset} is not one the installed onnx knows "
                                           f"(1..{operators.newest_opset()})")
                opset = None
            elif opset is not None and opset not in operators.released_opsets():
                self.fail(fields["opset"], _unreleased(opset))
                opset = None
        doc = self.text(fields["doc"], "doc") if "doc" in fields else ""
        graph = None
        if opset is not None and "outputs" in fields and "nodes" in fields:
            graph = self.graph(fields, opset, "the case", top_level=True)
        if graph is not None and "initializers" in fields:
            initializers = self.initializers(fields["initializers"], graph)
            graph = None if initializers is None else dataclasses.replace(
                graph, initializers=tuple(initializers))
        atol, rtol = self.tolerance(fields.get("tolerance"))
        data_sets = None
        if graph is not None and "data_sets" in fields:
            data_sets = self.data_sets(fields["data_sets"], graph)
        if len(self.problems.found) > before or graph is None or data_sets is None:
            return None
        return Case(name=name, where=self.where(node), opset=opset, graph=graph,
                    data_sets=tuple(data_sets), atol=atol, rtol=rtol, doc=doc or "")

    def tolerance(self, node) -> tuple[float, float]:
        if node is None:
            return 0.0, 0.0
        fields = self.mapping(node, "tolerance", TOLERANCE_KEYS) or {}
        values = []
        for key in TOLERANCE_KEYS:
            value = self.number(fields[key], f"tolerance.{key}") if key in fields else 0.0
            if value is not None and not value >= 0:
                self.fail(fields[key], f"tolerance.{key} must be a number >= 0")
                value = None
            values.append(value or 0.0)
        return values[0], values[1]

    # -- graphs and nodes --------------------------------------------------------------------

    def graph(self, fields, opset: int, what: str, top_level: bool = False) -> Graph | None:
        inputs = self.value_decls(fields.get("inputs"), f"inputs of {what}")
        outputs = self.value_decls(fields.get("outputs"), f"outputs of {what}")
        node_list = self.sequence(fields["nodes"], f"nodes of {what}") if "nodes" in fields \
            else self.fail(fields.get("outputs"), f"{what} needs 'nodes'")
        nodes = [self.node(n, opset) for n in node_list or ()]
        if top_level and node_list == []:
            self.fail(fields["nodes"], "a case needs at least one node")
        if top_level and outputs == []:
            self.fail(fields["outputs"], "a case needs at least one graph output")
        elif outputs == [] and "outputs" in fields:
            self.fail(fields["outputs"], f"{what} needs at least one output")
        if inputs is None or outputs is None or node_list is None or None in nodes:
            return None
        first: dict[str, Where] = {}
        for decl in inputs + outputs:
            if decl.name in first:
                self.problems.add(decl.where, f"'{decl.name}' is declared twice among the inputs "
                                              f"and outputs of {what} (first at line "
                                              f"{first[decl.name].line}); rename one")
            first.setdefault(decl.name, decl.where)
        return Graph(tuple(inputs), tuple(outputs), tuple(nodes))

    def initializers(self, node, graph: Graph) -> list[Initializer] | None:
        """`initializers:` constant tensors {name, type, shape, value}, read by name."""
        items = self.sequence(node, "initializers (a list of {name, type, shape, value})")
        if items is None:
            return None
        taken = {d.name: d.where for d in graph.inputs + graph.outputs}
        found, ok = [], True
        for item in items:
            fields = self.mapping(item, "an initializer", INITIALIZER_KEYS,
                                  required=("name", "type", "value"))
            if fields is None or not {"name", "type", "value"} <= set(fields):
                ok = False
                continue
            name = self.text(fields["name"], "an initializer name")
            value_type = self.type(fields["type"], fields.get("shape"))
            if name is None or value_type is None:
                ok = False
                continue
            if name == "" or name in taken:
                where = taken.get(name)
                ok = self.fail(fields["name"], "an initializer needs a non-empty name of its own"
                               if name == "" else f"'{name}' is already a graph value (line "
                               f"{where.line}); an initializer is not a graph input, rename "
                               "one")
                continue
            if not isinstance(value_type, TensorType):
                ok = self.fail(fields["type"], f"an initializer is a tensor; {value_type} is "
                                               "not: write tensor(T)")
                continue
            if value_type.shape is not None and not all(isinstance(d, int)
                                                        for d in value_type.shape):
                ok = self.fail(fields["shape"], "an initializer's shape is fixed: give integer "
                                                "dims, or leave 'shape' out")
                continue
            value = self.value(fields["value"], value_type, f"initializer '{name}'",
                               top_level=True)
            if value is _BAD:
                ok = False
                continue
            taken[name] = self.where(item)
            found.append(Initializer(name, TensorType(value_type.element, value.shape), value,
                                     self.where(item)))
        return found if ok else None

    def value_decls(self, node, what: str) -> list[ValueDecl] | None:
        if node is None:
            return []
        items = self.sequence(node, what)
        if items is None:
            return None
        decls = [self.value_decl(item, what) for item in items]
        return None if None in decls else decls

    def value_decl(self, node, what: str) -> ValueDecl | None:
        fields = self.mapping(node, f"an entry of {what}", VALUE_KEYS, required=("name", "type"))
        if fields is None or "name" not in fields or "type" not in fields:
            return None
        name = self.text(fields["name"], "a value name")
        value_type = self.type(fields["type"], fields.get("shape"))
        if name is None or value_type is None:
            return None
        if name == "":
            return self.fail(fields["name"], "a graph value needs a non-empty name")
        return ValueDecl(name, value_type, self.where(node))

    def type(self, type_node, shape_node) -> ValueType | None:
        text = self.text(type_node, "a type")
        shape = self.shape(shape_node) if shape_node is not None else None
        if text is None or shape is _BAD:
            return None
        try:
            return parse_type(text, shape)
        except TypeTextError as error:
            return self.fail(type_node, str(error))

    def shape(self, node):
        items = self.sequence(node, "shape (a list of dims: integers, names, or ~ for unknown)")
        if items is None:
            return _BAD
        dims = []
        for item in items:
            if not isinstance(item, yaml.ScalarNode):
                self.fail(item, "a dim must be an integer, a name, or ~ for unknown")
                return _BAD
            if _is_null(item):
                dims.append(None)
            elif _plain(item) and re.fullmatch(r"[-+]?[0-9]+", item.value):
                dim = self.integer(item, "a dim")
                if dim is None or dim < 0:
                    self.fail(item, "a fixed dim must be an integer >= 0")
                    return _BAD
                dims.append(dim)
            elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", self.fill(item.value)):
                dims.append(self.fill(item.value))
            else:
                self.fail(item, f"dim {item.value!r} is not an integer, a name "
                                "([A-Za-z_][A-Za-z0-9_]*), or ~ for unknown")
                return _BAD
        return tuple(dims)

    def node(self, node, opset: int) -> Node | None:
        fields = self.mapping(node, "a node", NODE_KEYS, required=("op_type",))
        if fields is None or "op_type" not in fields:
            return None
        op_type = self.text(fields["op_type"], "op_type")
        if op_type is None:
            return None
        op_schema = operators.schema(op_type, opset)
        if op_schema is None:
            versions = operators.versions(op_type)
            if not versions:
                return self.fail(fields["op_type"], f"unknown op_type '{op_type}'"
                                 f"{_did_you_mean(op_type, operators.all_operator_names())}")
            return self.fail(fields["op_type"], f"{op_type} is not defined at opset {opset}; it "
                             "exists from opset " + str(versions[0]))
        label = f"{op_type}-{op_schema.since_version}"
        inputs = self.formal_values(fields.get("inputs"), op_schema.inputs, f"{label} inputs",
                                    node)
        outputs = self.formal_values(fields.get("outputs"), op_schema.outputs,
                                     f"{label} outputs", node)
        attributes = self.attributes(fields.get("attributes"), op_schema, label, opset, node)
        if "name" in fields:
            self.text(fields["name"], "a node name")
        if inputs is None or outputs is None or attributes is None:
            return None
        if "" in outputs:
            self.fail(fields["outputs"], f"{label}: an output name cannot be empty")
            return None
        return Node(op_type, tuple(inputs), tuple(outputs), tuple(attributes), self.where(node))

    def formal_values(self, node, formals, what: str, owner) -> list[str] | None:
        """Node inputs or outputs keyed by the schema's formal names, to a positional list."""
        keyed = self.keyed(node, what, [f.name for f in formals])
        if keyed is None:
            return None
        fields, misspelled = keyed
        positional: list[str] = []
        pending: list[str] = []  # formal names left off that a later one would need as ""
        ok = True
        for formal in formals:
            if formal.name in misspelled:
                ok = None  # reported as an unknown key with a did-you-mean
                continue
            if formal.name not in fields:
                if formal.option == operators.OPTIONAL:
                    pending.append(formal.name)
                    continue
                if formal.option == operators.VARIADIC and formal.min_arity == 0:
                    continue
                ok = self.fail(node if node is not None else owner,
                               f"{what}: '{formal.name}' is required")
                continue
            value_node = fields[formal.name]
            if pending:
                ok = self.fail(value_node, f"{what}: '{pending[0]}' comes before "
                                           f"'{formal.name}'; write {pending[0]}: \"\" to omit it")
                pending = []
            if formal.option == operators.VARIADIC:
                items = self.sequence(value_node, f"{what}: '{formal.name}' (variadic)")
                if items is None:
                    ok = None
                    continue
                values = [self.text(i, f"a value in '{formal.name}'") for i in items]
                if None in values:
                    ok = None
                    continue
                if "" in values:
                    ok = self.fail(value_node, f"{what}: '{formal.name}' cannot hold \"\"")
                if len(values) < formal.min_arity:
                    ok = self.fail(value_node, f"{what}: '{formal.name}' needs at least "
                                               f"{formal.min_arity} value(s)")
                positional.extend(values)
            else:
                value = self.text(value_node, f"{what}: '{formal.name}'")
                if value is None:
                    ok = None
                    continue
                if value == "" and formal.option != operators.OPTIONAL:
                    ok = self.fail(value_node, f"{what}: '{formal.name}' is required and cannot "
                                               "be omitted with \"\"")
                positional.append(value)
        return positional if ok is not None else None

    def attributes(self, node, op_schema, label: str, opset: int, owner):
        if node is not None and not op_schema.attributes:
            return self.fail(node, f"{label} has no attributes; remove 'attributes'")
        fields = {} if node is None else self.mapping(node, f"{label} attributes",
                                                      sorted(op_schema.attributes))
        if fields is None:
            return None
        ok = True
        attributes = []
        misspelled = set() if node is None else _misspelled(node, op_schema.attributes)
        for name, attribute in sorted(op_schema.attributes.items()):
            if name not in fields:
                if attribute.required and name not in misspelled:
                    ok = self.fail(node if node is not None else owner,
                                   f"{label}: attribute '{name}' is required")
                continue
            value = self.attribute(fields[name], int(attribute.type.value), f"{label} attribute "
                                   f"'{name}'", opset)
            if value is _BAD:
                ok = None
            else:
                attributes.append((name, value))
        return attributes if ok is not None else None

    def attribute(self, node, kind: int, what: str, opset: int):
        form, item = ATTRIBUTE_FORMS.get(kind, (None, None))
        scalar = {"integer": self.integer, "number": self.number, "text": self.text}
        if form in scalar:
            value = scalar[form](node, what)
        elif form == "list":
            items = self.sequence(node, what)
            if items == []:
                items = self.fail(node, f"{what} is an empty list; empty list attributes are "
                                        "not supported in case files, leave the attribute out")
            value = None if items is None else [scalar[item](i, f"an item of {what}")
                                                for i in items]
            if value is not None and None in value:
                value = None
        elif form == "graph":
            fields = self.mapping(node, f"{what} (a graph)", GRAPH_KEYS,
                                  required=("outputs", "nodes"))
            value = None if fields is None or "nodes" not in fields else self.graph(
                fields, opset, what)
        elif form == "type":
            value = self.type_attribute(node, what)
        else:
            self.fail(node, f"{what}: attributes of this kind are not supported in case files")
            return _BAD
        return _BAD if value is None else value

    def type_attribute(self, node, what: str):
        if isinstance(node, yaml.ScalarNode):
            return self.type(node, None)
        fields = self.mapping(node, f"{what} (a type, or type and shape)", ("type", "shape"),
                              required=("type",))
        if fields is None or "type" not in fields:
            return None
        return self.type(fields["type"], fields.get("shape"))

    # -- data --------------------------------------------------------------------------------

    def data_sets(self, node, graph: Graph) -> list[DataSet] | None:
        items = self.sequence(node, "data_sets")
        if items is None:
            return None
        if not items:
            return self.fail(node, "a case needs at least one data set")
        data_sets = []
        for item in items:
            fields = self.mapping(item, "a data set", DATA_SET_KEYS, required=("outputs",))
            if fields is None or "outputs" not in fields:
                continue
            inputs = self.values(fields.get("inputs"), graph.inputs, "inputs", item)
            outputs = self.values(fields["outputs"], graph.outputs, "outputs", item)
            if inputs is not None and outputs is not None:
                data_sets.append(DataSet(tuple(inputs), tuple(outputs), self.where(item)))
        return data_sets if len(data_sets) == len(items) else None

    def values(self, node, decls, what: str, owner) -> list | None:
        keyed = self.keyed(node, f"the data set's {what}", [d.name for d in decls])
        if keyed is None:
            return None
        fields, misspelled = keyed
        ok = True
        values = []
        for decl in decls:
            if decl.name in misspelled:
                ok = None  # reported as an unknown key with a did-you-mean
                continue
            if decl.name not in fields:
                ok = self.fail(node if node is not None else owner,
                               f"the data set's {what} lack '{decl.name}'; every graph "
                               f"{what[:-1]} needs a value")
                continue
            value = self.value(fields[decl.name], decl.type, f"'{decl.name}'", top_level=True)
            if value is _BAD:
                ok = None
            values.append(value)
        return values if ok is not None else None

    def value(self, node, value_type: ValueType, what: str, top_level: bool = False):
        if top_level and isinstance(node, yaml.MappingNode) and _keys(node) == ["by_type"]:
            node = self.by_type(node.value[0][1], value_type, what)
            if node is None:
                return _BAD
        if isinstance(value_type, OptionalType):
            if isinstance(node, yaml.MappingNode):
                return None if self.empty_marker(node, what) else _BAD
            return self.value(node, value_type.element, what)
        if isinstance(node, yaml.MappingNode):
            if _keys(node) == [EMPTY_MARKER_KEY]:
                self.fail(node, f"{what} is {value_type}, not an optional; the empty-optional "
                                "marker {optional: empty} is only for optional values")
            else:
                self.fail(node, f"{what} must be {_value_words(value_type)}, not a mapping")
            return _BAD
        if isinstance(value_type, SequenceType):
            items = self.sequence(node, f"{what} ({value_type}, a list of tensors)")
            if items is None:
                return _BAD
            items = [self.by_type_element(item, value_type, what) for item in items]
            elements = [_BAD if item is None else
                        self.tensor(item, value_type.element, f"element {i} of {what}")
                        for i, item in enumerate(items)]
            return _BAD if any(e is _BAD for e in elements) else elements
        return self.tensor(node, value_type, what)

    def by_type_element(self, node, value_type: ValueType, what: str):
        """A sequence element may be {by_type: ...} too, so per-type tensors compose into
        sequences (`[*a, *b]`); None when no value fits."""
        if isinstance(node, yaml.MappingNode) and _keys(node) == ["by_type"]:
            return self.by_type(node.value[0][1], value_type, what)
        return node

    def empty_marker(self, node, what: str) -> bool:
        pairs = node.value
        if (len(pairs) == 1 and pairs[0][0].value == EMPTY_MARKER_KEY
                and isinstance(pairs[0][1], yaml.ScalarNode)
                and pairs[0][1].value == EMPTY_MARKER_VALUE):
            return True
        self.fail(node, f"{what}: the only mapping allowed for an optional value is the "
                        "empty marker {optional: empty}; write a present value as the value itself")
        return False

    def by_type(self, node, value_type: ValueType, what: str):
        element = innermost(value_type).element
        if "type" not in self.binding:
            return self.fail(node, f"{what}: by_type needs a case with for_each")
        groups = [element.name, TYPE_GROUPS[element.kind], "default"]
        if not isinstance(node, yaml.MappingNode):
            return self.fail(node, f"{what}: by_type must be a mapping of element type or group "
                                   "(integers, floats, complexes, default) to value")
        choices = {}
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                allowed = set(ELEMENTS) | set(TYPE_GROUPS.values()) | {"default"}
                if key.value not in allowed:
                    self.fail(key, f"unknown by_type key '{key.value}'"
                                   f"{_did_you_mean(key.value, allowed)}")
                choices[key.value] = value
        for group in groups:
            if group in choices:
                return choices[group]
        return self.fail(node, f"{what}: by_type has no value for {element.name}; add "
                               f"'{element.name}', '{TYPE_GROUPS[element.kind]}' or 'default'")

    def tensor(self, node, tensor_type: TensorType, what: str):
        element = tensor_type.element
        count, nominal = _nominal_size(node)
        if count > MAX_TENSOR_ELEMENTS:
            self.fail(node, f"{what} has {count} elements (shape {list(nominal)}), more than "
                            f"{MAX_TENSOR_ELEMENTS}, the limit for one tensor value")
            return _BAD
        leaves: list = []
        shape = self.nested(node, element, leaves, what)
        if shape is _BAD:
            return _BAD
        try:
            array = np.array(leaves, dtype=element.dtype).reshape(shape)
        except (ValueError, OverflowError) as error:
            self.fail(node, f"{what}: cannot hold these values as {element.name}: {error}")
            return _BAD
        declared = tensor_type.shape
        if declared is not None and not _shape_matches(shape, declared):
            self.fail(node, f"{what} has shape {list(shape)} but its type declares "
                            f"{_shape_text(declared)}")
            return _BAD
        return array

    def nested(self, node, element, leaves: list, what: str):
        """Collect leaves depth first; return the shape, or _BAD (ragged, bad scalar, too big)."""
        if isinstance(node, yaml.ScalarNode):
            if _is_null(node):
                self.fail(node, f"{what}: empty value; for an empty string write '', for an "
                                "empty optional write {optional: empty}")
                return _BAD
            try:
                leaves.append(element.parse(node.value, quoted=not _plain(node)))
            except ScalarError as error:
                self.fail(node, f"{what}: {error}")
                return _BAD
            if len(leaves) > MAX_TENSOR_ELEMENTS:
                self.fail(node, f"{what} has more than {MAX_TENSOR_ELEMENTS} elements, the "
                                "limit for one value")
                return _BAD
            return ()
        if not isinstance(node, yaml.SequenceNode):
            self.fail(node, f"{what} must be a number, a string or nested lists")
            return _BAD
        shapes = []
        for item in node.value:
            shape = self.nested(item, element, leaves, what)
            if shape is _BAD:
                return _BAD
            if shapes and shape != shapes[0]:
                self.fail(item, f"{what} is ragged: this item has shape {list(shape)}, the first "
                                f"has {list(shapes[0])}; a tensor's rows must all be alike")
                return _BAD
            shapes.append(shape)
        return (len(node.value),) + (shapes[0] if shapes else ())


def _unreleased(opset: int) -> str:
    return (f"no onnx release has ai.onnx opset {opset}, so no IR version goes with it; "
            "released opsets: " + ", ".join(map(str, sorted(operators.released_opsets()))))


def _nominal_size(node) -> tuple[int, tuple[int, ...]]:
    """Element count and shape of nested lists judged by first items only: no leaf is read."""
    shape = []
    while isinstance(node, yaml.SequenceNode):
        shape.append(len(node.value))
        if not node.value:
            break
        node = node.value[0]
    return int(np.prod(shape, dtype=object)) if shape else 1, tuple(shape)


def _plain(node: yaml.ScalarNode) -> bool:
    """An unquoted, non-block scalar (PyYAML says None, libyaml says '')."""
    return node.style in (None, "")


def _is_null(node: yaml.ScalarNode) -> bool:
    """A plain null: `~`, `null` or nothing at all."""
    return node.tag.endswith(":null") and _plain(node)


def _keys(node: yaml.MappingNode) -> list:
    return [k.value for k, _ in node.value]


def _shape_matches(actual: tuple, declared: tuple) -> bool:
    if len(actual) != len(declared):
        return False
    return all(not isinstance(d, int) or d == a for a, d in zip(actual, declared, strict=False))


def _shape_text(shape) -> str:
    return "[" + ", ".join("~" if d is None else str(d) for d in shape) + "]"


def _value_words(value_type: ValueType) -> str:
    if isinstance(value_type, SequenceType):
        return f"a list of tensors ({value_type})"
    return f"a number, string or nested list ({value_type})"


def _kind(node) -> str:
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    if node is None:
        return "nothing"
    if _is_null(node):
        return "an empty value"
    return f"the value {node.value!r}"


__all__ = ["CaseFileError", "case_files", "load_cases", "load_file"]
