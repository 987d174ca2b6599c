"""YAML text to nodes within the case-file limits, and typed accessors that report mistakes.

The YAML is composed into nodes (never constructed into Python objects, so no tag can run code)
and read with our own rules for scalars, which sidesteps YAML 1.1's guesses: `no` is not a bool,
`010` is not octal, `1e-3` is a number wherever a number belongs. Every file the project reads
as YAML (case files, the findings notes) goes through here, so each mistake reads the same:
`file:line:col: what is wrong and how to fix it`, the position 1-based at the node at fault (a
missing key: the mapping that lacks it).

Limits, each checked before the thing it guards is built (budgets in `_core/budgets.py`):
- a file is at most MAX_FILE_BYTES bytes (checked before it is read);
- a file holds at most MAX_YAML_NODES YAML nodes and MAX_YAML_TEXT_BYTES bytes of scalar text,
  counting every alias as the nodes and text it repeats, and nests at most MAX_DEPTH collections
  deep (checked on the event stream, before any node exists, so an alias bomb costs a few
  milliseconds); an alias inside its own anchor is refused;
- explicit YAML tags (`!!python/...`, `!!str`, `!custom`) are refused, never resolved;
- integers must be plain decimals that fit in int64 (`_core/elements.py`'s rules).

A reading method returns the value read, or INVALID once the mistake is recorded: INVALID is
the one "could not be read" marker of this layer (None stays an ordinary value, such as an
empty optional), and it refuses to be used as a truth value so a forgotten check fails loudly.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import yaml

from .._core.budgets import MAX_DEPTH, MAX_FILE_BYTES, MAX_YAML_NODES, MAX_YAML_TEXT_BYTES
from .._core.elements import ELEMENTS, INT_TEXT, MAX_INT_DIGITS, int_hint, int_range
from .._core.errors import ScalarError
from .._core.problems import Problems, Where, quote
from .discovery import CaseSource, read_case_file
from .vocabulary import PLACEHOLDER

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Invalid:
    """The type of INVALID; using it as a bool is a bug (test it with `is INVALID`)."""

    _made = None

    def __new__(cls):
        if cls._made is None:
            cls._made = super().__new__(cls)
        return cls._made

    def __bool__(self):
        raise TypeError("INVALID has no truth value; test it with `is INVALID`")

    def __repr__(self) -> str:
        return "INVALID"


#: What a reading method returns when it could not read its node; the problem is recorded.
INVALID = _Invalid()


# -- composing ------------------------------------------------------------------------------------

def compose_file(path: Path, problems: Problems):
    """The root node of a YAML file read with the checks and limits of case files (size, UTF-8,
    tags, nesting, aliases); None for an empty document, INVALID (the problem added to
    `problems`) when the file cannot be read."""
    try:
        raw = read_case_file(path)
    except OSError as error:
        return compose_source(CaseSource(path, None, None, error.strerror), problems)
    return compose_source(CaseSource(path, raw, None), problems)


def compose_source(source: CaseSource, problems: Problems) -> yaml.Node | _Invalid | None:
    """`compose_file` of a case file already read (`discovery.read_sources`)."""
    shown, raw = str(source.path), source.data
    if raw is None:
        problems.add(Where(shown, 1, 1), f"cannot read the file: {source.error}")
        return INVALID
    if len(raw) > MAX_FILE_BYTES:
        return _too_large(shown, problems)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        column = error.start - (raw.rfind(b"\n", 0, error.start) + 1) + 1
        problems.add(Where(shown, line, column),
                     f"invalid UTF-8 (byte 0x{raw[error.start]:02x}); save the file as UTF-8")
        return INVALID
    return compose_text(text, shown, problems, sized=True)


def compose_text(text: str, shown: str, problems: Problems, sized: bool = False):
    """`compose_file` for text already read; `shown` names it in problems. `sized`: its size
    was checked already."""
    if not sized and len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
        return _too_large(shown, problems)
    try:
        if not _check_events(text, shown, problems):
            return INVALID
        return yaml.compose(text, Loader=_LOADER)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        problems.add(*_yaml_problem(error, mark, text, shown))
    except yaml.reader.ReaderError:  # its position counts bytes or characters: find it again
        found = yaml.reader.Reader.NON_PRINTABLE.search(text)
        at = found.start() if found else 0
        code = ord(text[at]) if found else 0
        problems.add(Where(shown, text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)),
                     f"control character U+{code:04X} is not allowed in YAML; remove it, or "
                     f"write it as \\u{code:04X} inside a double-quoted string")
    except yaml.YAMLError as error:
        problems.add(Where(shown, 1, 1), f"not valid YAML: {error}")
    return INVALID


def _too_large(shown: str, problems: Problems):
    problems.add(Where(shown, 1, 1), f"the file is larger than {MAX_FILE_BYTES} bytes, the "
                                     "limit for one case file; split it into several files")
    return INVALID


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
            nodes, inner_depth, size = sizes[event.anchor]
            count += nodes
            text_bytes += size
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
        over = _over_budget(deepest, count, text_bytes)
        if over:
            return refuse(event, over)
    return True


def _over_budget(depth: int, nodes: int, text_bytes: int) -> str | None:
    """Which limit a case file's event stream went over so far (depth, YAML nodes, bytes of
    text, aliases expanded), as the message; None within them all."""
    if depth > MAX_DEPTH:
        return (f"lists and mappings nest more than {MAX_DEPTH} deep here (aliases followed), "
                "the limit for case files")
    if nodes > MAX_YAML_NODES:
        return (f"the file holds more than {MAX_YAML_NODES} YAML nodes once aliases are "
                "expanded (an alias bomb?), the limit for one case file; split it or repeat "
                "fewer aliases")
    if text_bytes > MAX_YAML_TEXT_BYTES:
        return (f"the file's values add up to more than {MAX_YAML_TEXT_BYTES} bytes of text "
                "once aliases are expanded (the budget MAX_YAML_TEXT_BYTES of "
                "onnx_seq_tests/_core/budgets.py); repeat fewer aliases of long strings, or "
                "raise the budget")
    return None


# -- facts about one node -------------------------------------------------------------------------

def misspelled(node, keys) -> set[str]:
    """The keys that a did-you-mean for one of `node`'s unknown keys points to."""
    if not isinstance(node, yaml.MappingNode):
        return set()
    found = set()
    for key_node, _ in node.value:
        if isinstance(key_node, yaml.ScalarNode) and key_node.value not in keys:
            found.update(difflib.get_close_matches(key_node.value, list(keys), n=1, cutoff=0.6))
    return found


def did_you_mean(word: str, choices) -> str:
    """` (did you mean 'x'?)` for the choice closest to `word`, or ""."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def plain(node: yaml.ScalarNode) -> bool:
    """An unquoted, non-block scalar (PyYAML says None, libyaml says '')."""
    return node.style in (None, "")


def is_null(node: yaml.ScalarNode) -> bool:
    """A plain null: `~`, `null` or nothing at all."""
    return node.tag.endswith(":null") and plain(node)


def keys(node: yaml.MappingNode) -> list:
    """The key texts of a mapping node, in order."""
    return [k.value for k, _ in node.value]


def kind(node) -> str:
    """What a node is, in the words of a message."""
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    if node is None:
        return "nothing"
    if is_null(node):
        return "an empty value"
    return f"the value {quote(node.value)}"


# -- typed accessors ------------------------------------------------------------------------------

class NodeReader:
    """Reads nodes of one file into plain values, each mistake added to `problems` at its node.

    `binding` fills the `{type}`/`{opset}`/`{dtype}` placeholders of text (a `for_each` case).
    """

    def __init__(self, path: str, problems: Problems, binding: dict[str, str] | None = None):
        self.path = path
        self.problems = problems
        self.binding = binding or {}

    def where(self, node: yaml.Node) -> Where:
        return Where(self.path, node.start_mark.line + 1, node.start_mark.column + 1)

    def fail(self, node: yaml.Node, message: str):
        """Record `message` at `node`; INVALID."""
        self.problems.add(self.where(node), message)
        return INVALID

    def mapping(self, node, what: str, names, required=()):
        """The value nodes of a mapping by key, every key one of `names` (an unknown key is
        named with a did-you-mean and the allowed keys), each of `required` present (unless a
        did-you-mean already points to it); INVALID when `node` is not a mapping."""
        if not isinstance(node, yaml.MappingNode):
            return self.fail(node, f"{what} must be a mapping (key: value), not {kind(node)}")
        found: dict[str, yaml.Node] = {}
        suggested = misspelled(node, names)  # a did-you-mean already points to these
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            if not isinstance(key, str):
                self.fail(key_node, f"keys in {what} must be plain words")
            elif key in found:
                self.fail(key_node, f"key {quote(key)} appears twice in {what}; keep one")
            elif key not in names:
                allowed = "; allowed: " + ", ".join(names) if names else ""
                self.fail(key_node, f"unknown key {quote(key)} in {what}"
                                    f"{did_you_mean(key, names)}{allowed}")
            else:
                found[key] = value_node
        for key in required:
            if key not in found and key not in suggested:
                self.fail(node, f"{what} is missing the required key {quote(key)}")
        return found

    def keyed(self, node, what: str, names):
        """A mapping whose keys are `names` ({} when `node` is absent), with the names that a
        did-you-mean for an unknown key already points to and that are missing (so they are not
        reported again); INVALID when `node` is not a mapping."""
        if node is None:
            return {}, set()
        fields = self.mapping(node, what, names)
        if fields is INVALID:
            return INVALID
        return fields, misspelled(node, names) - set(fields)

    def sequence(self, node, what: str):
        """The item nodes of a list, or INVALID."""
        if not isinstance(node, yaml.SequenceNode):
            return self.fail(node, f"{what} must be a list, not {kind(node)}")
        return list(node.value)

    def text(self, node, what: str):
        """A scalar's text with placeholders filled, or INVALID (not a scalar, or null)."""
        if not isinstance(node, yaml.ScalarNode):
            return self.fail(node, f"{what} must be a single value, not {kind(node)}")
        if is_null(node):
            return self.fail(node, f"{what} is empty; give a value")
        return self.fill(node.value)

    def fill(self, text: str) -> str:
        if not self.binding:
            return text
        return PLACEHOLDER.sub(lambda m: self.binding.get(m.group(1), m.group(0)), text)

    def integer(self, node, what: str):
        """A plain decimal int64 (elements' integer rules), or INVALID."""
        text = self.text(node, what)
        if text is INVALID:
            return INVALID
        if not plain(node) and not PLACEHOLDER.search(node.value):  # "{dtype}" needs quotes
            return self.fail(node, f"{what} must be an integer, not the string {quote(text)}; "
                                   "remove the quotes")
        if not INT_TEXT.fullmatch(text):
            hint = int_hint(text)
            if PLACEHOLDER.search(text):
                hint = "placeholders such as {dtype} are filled only in a case with for_each"
            return self.fail(node, f"{what} must be an integer, not {quote(text)}; {hint}")
        low, high = int_range(ELEMENTS["int64"])
        if len(text) > MAX_INT_DIGITS or not low <= int(text) <= high:
            return self.fail(node, f"{what} {text[:24]}{'...' if len(text) > 24 else ''} is "
                                   f"outside the int64 range ({low}..{high})")
        return int(text)

    def number(self, node, what: str):
        """A plain number read as a double (elements' float rules), or INVALID."""
        text = self.text(node, what)
        if text is INVALID:
            return INVALID
        if not plain(node):
            return self.fail(node, f"{what} must be a number, not the string {quote(text)}; "
                                   "remove the quotes")
        try:
            return ELEMENTS["double"].parse(text, quoted=False)
        except ScalarError as error:
            return self.fail(node, f"{what}: {error}")


__all__ = ["INVALID", "NodeReader", "compose_file", "compose_text", "did_you_mean", "is_null",
           "keys", "kind", "misspelled", "plain"]
