"""Case files (YAML) to validated `Case` objects, every mistake reported as `file:line:col`.

The entries: `load_cases(paths)` (every case of files and folders, sorted by name, names
unique), `load_file(path, problems)` and `load_text(text, name)`. The work is split by job:
`nodes.py` composes YAML within the limits and reads typed scalars, lists and mappings (unknown
keys with a did-you-mean); `cases.py` and `graphs.py` hold the case grammar; `tensors.py` reads
values. `writer.py` writes cases back as YAML on the same tables (`vocabulary.py`).

Error format, one line per mistake, sorted by file, line and column, at most
`problems.MAX_REPORTED` shown (then a count of the rest):

    cases/sequence_at.yaml:14:9: unknown key 'optype' in a node (did you mean 'op_type'?); ...

Line and column are 1-based and point at the YAML node at fault (a missing key: the mapping that
lacks it). Every file of a run is read and every mistake collected before anything is reported.
"""

from __future__ import annotations

from pathlib import Path

from .._core.cases import Case
from .._core.problems import Problems, Where, paths_argument, quote
from .cases import CaseReader
from .discovery import CaseSource, case_files
from .nodes import INVALID, compose_file, compose_source, compose_text


def load_cases(paths) -> list[Case]:
    """Every case in `paths` (a path or paths, str or os.PathLike, of case files or folders),
    sorted by name; raises CaseFileError listing all mistakes, ArgumentError for a bad
    argument."""
    paths = paths_argument(paths)
    problems = Problems()
    cases: list[Case] = []
    files = case_files(paths)
    if not files:
        problems.add(Where(", ".join(map(str, paths)) or ".", 1, 1),
                     "no case files found; give .yaml files or folders holding them")
    for path in files:
        cases.extend(load_file(path, problems))
    return _checked(cases, problems)


def load_file(path: Path, problems: Problems) -> list[Case]:
    """The cases of one file, in file order; mistakes go to `problems`."""
    return _cases_of(compose_file(path, problems), str(path), problems)


def load_source(source: CaseSource) -> list[Case]:
    """The cases of one case file already read (`discovery.read_sources`), sorted by name;
    CaseFileError lists every mistake (as `load_cases`)."""
    problems = Problems()
    return _checked(_cases_of(compose_source(source, problems), str(source.path), problems),
                    problems)


def load_text(text: str, name: str, problems: Problems | None = None) -> list[Case]:
    """The cases of case-file text, `name` standing for its file in problems. With `problems`,
    mistakes go there and the cases read are returned in text order; without, the cases are
    returned sorted by name and CaseFileError lists every mistake (as `load_cases`)."""
    if problems is not None:
        return _cases_of(compose_text(text, name, problems), name, problems)
    problems = Problems()
    return _checked(_cases_of(compose_text(text, name, problems), name, problems), problems)


def _cases_of(root, shown: str, problems: Problems) -> list[Case]:
    if root is INVALID:
        return []
    if root is None:
        problems.add(Where(shown, 1, 1), "the file holds no cases; write a YAML list of cases")
        return []
    reader = CaseReader(shown, problems)
    case_nodes = reader.sequence(root, "the file (a list of cases)")
    cases = []
    for node in [] if case_nodes is INVALID else case_nodes:
        cases.extend(reader.cases(node))
    return cases


def _checked(cases: list[Case], problems: Problems) -> list[Case]:
    """`cases` sorted by name, once every name is known unique; CaseFileError otherwise."""
    name_duplicates([(case.name, case.where) for case in cases], problems)
    problems.raise_if_any()
    return sorted(cases, key=lambda c: c.name)


def name_duplicates(named: list[tuple[str, Where]], problems: Problems) -> None:
    """Add to `problems`, in one pass over `named` (each case's name and where it is written,
    in the order the files were read), each case whose name an earlier one has, naming both
    places."""
    seen: dict[str, Where] = {}
    for name, where in named:
        if name in seen:
            problems.add(where, f"case name {quote(name)} is already used at {seen[name]}; "
                                "case names must be unique across all files")
        else:
            seen[name] = where
