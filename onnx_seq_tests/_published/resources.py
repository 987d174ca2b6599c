"""Where the suite, the case files, the JSON Schema and the xfail files are: the checkout's folders
when run inside a checkout of this project, else the copies installed with the package.

The wheel carries the repository's cases/, generated/ (every form of the suite, with its
manifest), schema/ and xfail/ under onnx_seq_tests/_data/ (setup.py maps them at build time).
Inside a checkout (the working folder or one above it has this project's pyproject.toml) the
repository's folders win. A packaged suite is checked against its manifest before it is used, so
a damaged installation is one clear error rather than wrong results.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from .._core.errors import SuiteError
from .._suite import manifest as manifests

#: The package data folder of an installed wheel.
DATA = Path(__file__).resolve().parent.parent / "_data"
#: The folders shipped as package data, by their repository names.
CASES, GENERATED, SCHEMA, XFAIL = "cases", "generated", "schema", "xfail"
SCHEMA_FILE = "case.schema.json"
_PROJECT_NAME = re.compile(r'^name\s*=\s*"onnx-seq-tests"\s*$', re.MULTILINE)


@dataclass(frozen=True)
class Suite:
    """A suite to run: its root, where it comes from, and what its manifest says."""

    root: Path
    origin: str  # "checkout", "packaged" or "given"
    version: str | None  # the generator version in its manifest
    manifest_sha256: str | None  # of its manifest.json, None when it has none

    def describe(self) -> str:
        """The one line naming the suite: path, origin, version and manifest sha256."""
        version = self.version or "unknown version"
        digest = self.manifest_sha256 or "none (no manifest.json)"
        return (f"suite: {self.root} ({self.origin}, onnx-seq-tests {version}, manifest sha256 "
                f"{digest})")


def is_checkout(folder: Path) -> bool:
    """Whether `folder` is the root of a checkout of this project."""
    try:
        text = (Path(folder) / "pyproject.toml").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return bool(_PROJECT_NAME.search(text))


def checkout_root(start: Path | None = None) -> Path | None:
    """The checkout holding `start` (default: the working folder), or None."""
    here = Path.cwd() if start is None else Path(start).absolute()
    for folder in (here, *here.parents):
        if is_checkout(folder):
            return folder
    return None


def _local(folder: Path) -> Path:
    """`folder` relative to the working folder when it is inside it (shorter messages)."""
    try:
        return Path(os.path.relpath(folder)) if folder.is_relative_to(Path.cwd()) else folder
    except ValueError:
        return folder


def packaged(name: str) -> Path | None:
    """The installed copy of the repository folder `name`, or None.

    An installed wheel has it under onnx_seq_tests/_data/; an editable install (a source tree
    on the path) has the source tree's own folder."""
    if (DATA / name).is_dir():
        return DATA / name
    source = DATA.parent.parent
    if is_checkout(source) and (source / name).is_dir():
        return source / name
    return None


def _folder(name: str) -> tuple[Path, str]:
    """The folder `name` to use and its origin: the checkout's, else the packaged one."""
    checkout = checkout_root()
    if checkout is not None and (checkout / name).is_dir():
        return _local(checkout / name), "checkout"
    found = packaged(name)
    if found is None:
        raise SuiteError(f"no {name}/ here: not inside a checkout of onnx-seq-tests, and the "
                         f"installed package holds no {name}/; reinstall onnx-seq-tests")
    return found, "packaged"


def suite_dir() -> Path:
    """The root of the suite installed with the package (its manifest.json is there)."""
    found = packaged(GENERATED)
    if found is None:
        raise SuiteError("the installed onnx-seq-tests holds no suite; reinstall it")
    return found


def cases_dir() -> Path:
    """The case files to build by default: the checkout's cases/, else the packaged ones."""
    return _folder(CASES)[0]


def cases_to_build(paths: tuple[Path, ...], out_root: Path, check: bool) -> tuple[Path, ...]:
    """What `build` compiles: `paths`, default `cases_dir()`. SuiteError for `build --check`
    with no paths outside a checkout and no suite at `out_root`: there is nothing to check."""
    if check and not paths and checkout_root() is None \
            and not (out_root / manifests.MANIFEST).is_file():
        raise SuiteError(f"nothing to check: no suite at {out_root} and not inside a checkout "
                         "of onnx-seq-tests (`build --check` compares a checkout's generated/ "
                         "with its cases/); the installed suite is checked against its manifest "
                         "by `gen-seq-tests verify`, and `gen-seq-tests pack` prints its "
                         "identity")
    return paths or (cases_dir(),)


def schema_file() -> Path:
    """The JSON Schema of case files: the checkout's, else the packaged one."""
    return _folder(SCHEMA)[0] / SCHEMA_FILE


def describe(root: Path, origin: str) -> Suite:
    """The Suite at `root`, with the version and sha256 of its manifest (the nearest suite
    manifest at or above `root`, so a form's folder finds its suite's) when it has one."""
    from .discovery import nearest_manifest  # onnx: only when a suite is described

    manifest = nearest_manifest(root)
    if manifest is None:
        return Suite(Path(root), origin, None, None)
    return Suite(Path(root), origin, manifest.version, manifest.sha256)


def manifest_problems(root: Path) -> list[str]:
    """What is wrong with the suite at `root` against its manifest; another form of the suite in
    a sub-folder with its own manifest.json is checked against that one."""
    nested = sorted(p.parent.name for p in root.glob(f"*/{manifests.MANIFEST}"))
    problems = [line for line in manifests.verify(root)
                if not (line.endswith(": not in the manifest")
                        and line.split("/", 1)[0] in nested)]
    for name in nested:
        problems += [f"{name}/{line}" for line in manifests.verify(root / name)]
    return problems


def check_packaged(root: Path) -> None:
    """SuiteError unless the packaged suite at `root` matches its manifest file for file."""
    problems = manifest_problems(Path(root))
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise SuiteError(f"the installed suite at {root} does not match its manifest: "
                         f"{problems[0]}{more}; reinstall onnx-seq-tests")


def default_suite() -> Suite:
    """The suite to run when none is named: the checkout's generated/, else the packaged one
    (checked against its manifest)."""
    root, origin = _folder(GENERATED)
    if origin == "packaged":
        check_packaged(root)
    return describe(root, origin)


def resolve_suite(given: Path | None) -> Suite:
    """The suite named by a SUITE_DIR argument (None: default_suite()).

    A checkout names its generated/; a folder with a manifest.json or case folders is a suite;
    anything else is a SuiteError."""
    if given is None:
        return default_suite()
    given = Path(given)
    if not given.is_dir():
        raise SuiteError(f"{given} is not a folder; name a suite folder or a checkout of "
                         "onnx-seq-tests, or give none to run the installed suite")
    if is_checkout(given) and (given / GENERATED).is_dir():
        return describe(given / GENERATED, "checkout")
    try:
        from .discovery import case_folders  # onnx: only when a folder must be searched

        empty = not (given / manifests.MANIFEST).is_file() and not case_folders(given)
    except OSError as error:
        raise SuiteError(f"cannot read {given}: {error.strerror or error}") from None
    if empty:
        raise SuiteError(f"no case folders (test_*/model.onnx) under {given}: it is neither a "
                         "suite nor a checkout of onnx-seq-tests")
    return describe(given, "given")


#: How a subject's name becomes the stem of its xfail file: a transformed subject's `>` and a
#: `module:function` spec's `:` cannot be in a file name on Windows (and the files ship in the
#: package), so `onnxsim>onnxruntime` is xfail/onnxsim+onnxruntime.txt.
XFAIL_NAME_CHARACTERS = {">": "+", ":": "."}


def xfail_stem(subject: str) -> str:
    """The stem of the xfail file of a subject (a backend spec or `T>B`): XFAIL_NAME_CHARACTERS
    replaced; `xfail-update` writes `<stem>.txt`, `--xfail NAME` finds it by the subject's name
    or by the stem."""
    return subject.translate({ord(k): v for k, v in XFAIL_NAME_CHARACTERS.items()})


def xfail_file(value: str | os.PathLike) -> Path:
    """An --xfail value: an existing file, or a subject's name (`onnxruntime`,
    `onnxsim>onnxruntime`) naming xfail/<xfail_stem(name)>.txt of the checkout, else of the
    package."""
    path = Path(value)
    if path.is_file():
        return path
    name = str(value)
    try:
        folder, _ = _folder(XFAIL)
    except SuiteError:
        folder = None
    known = sorted(p.stem for p in folder.glob("*.txt")) if folder is not None else []
    if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.:>+-]*", name) and not name.endswith(".txt"):
        if xfail_stem(name) in known and folder is not None:  # known: empty without a folder
            return folder / f"{xfail_stem(name)}.txt"
        raise SuiteError(f"--xfail {name}: no such file, and no xfail file of that name "
                         f"(known: {', '.join(known) or 'none'})")
    stem = path.name.removesuffix(".txt")
    hint = (f"; the known failures of {stem} installed with the package are named, not a path: "
            f"--xfail {stem}" if stem in known else "")
    raise SuiteError(f"--xfail {name}: no such file{hint}")
