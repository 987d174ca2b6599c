"""The forms a built suite holds each case in, named once: the cases as written, their
tensor-boundary form (`_suite/tensor_io.py`: only tensors at the graph's boundary) and their
constant form (`_suite/constant_form.py`: no graph input, the input values in the model).

Each form has its value (what reports and the JSON report call it), its folder under the output
root, its `form` in the manifest's case entries (None: the cases as written carry none; an
original's entry lists its variants of a form under that same key, and says why it has none
under `no_<form>_form`), and how the README and the scoreboards name it. A form is a `str` (its
value), so it is written to JSON, compared and printed as that text.
"""

from __future__ import annotations

from enum import Enum
from pathlib import PurePath
from typing import NamedTuple

#: The tensor-boundary form's name in a manifest: a variant's `form`, and the key of its
#: original's entry that lists its variants (manifest.TENSOR_IO).
TENSOR_IO = "tensor_io"
#: The constant form's name in a manifest, alike (manifest.CONSTANT).
CONSTANT = "constant"


#: What a form may lack, so that a runtime bug showing only there cannot show in it (a
#: mutant's `needs`, _oracle/mutants/kit.py): a value fed to the graph, or a sequence or
#: optional value crossing the graph's boundary.
GRAPH_INPUT = "a graph input"
SEQUENCE_AT_BOUNDARY = "a sequence or optional at the graph boundary"


class _Facts(NamedTuple):
    folder: str  # under the output root
    manifest_form: str | None  # a variant's `form` in the manifest
    title: str  # the README's table of runtimes
    short: str  # a scoreboard's column heading
    lacks: tuple[str, ...]  # GRAPH_INPUT, SEQUENCE_AT_BOUNDARY: what none of its models has


class SuiteForm(str, Enum):
    """One form of the suite (see the module docstring)."""

    AS_WRITTEN = "original"
    TENSOR_BOUNDARY = "tensor-boundary"
    CONSTANT = "constant"

    __str__ = str.__str__
    __format__ = str.__format__  # type: ignore[assignment]  # format as the plain str

    @property
    def folder(self) -> str:
        """Its folder under the output root."""
        return _FACTS[self].folder

    @property
    def manifest_form(self) -> str | None:
        """Its `form` in a manifest case entry; None for the cases as written."""
        return _FACTS[self].manifest_form

    @property
    def title(self) -> str:  # type: ignore[override]  # str.title is not used on a form
        """How the README's table of runtimes names it."""
        return _FACTS[self].title

    @property
    def lacks(self) -> tuple[str, ...]:
        """What none of its models has (GRAPH_INPUT, SEQUENCE_AT_BOUNDARY)."""
        return _FACTS[self].lacks

    @property
    def short(self) -> str:
        """Its column heading in the scoreboards: `orig.`, `tensors` or `const.`."""
        return _FACTS[self].short

    @classmethod
    def derived(cls) -> tuple[SuiteForm, ...]:
        """The forms derived from the cases as written, in order."""
        return tuple(form for form in cls if form is not cls.AS_WRITTEN)

    @classmethod
    def of_manifest(cls, form: str | None) -> SuiteForm:
        """The form a manifest entry's `form` names (None, or a form unknown: the cases as
        written)."""
        return next((f for f in cls.derived() if f.manifest_form == form), cls.AS_WRITTEN)

    @classmethod
    def of_case(cls, case: str) -> SuiteForm:
        """The form of a case by its key (`folder/test_x`, relative to the suite root), for a
        case no manifest describes: a derived form when the case lies in its folder."""
        parents = case.split("/")[:-1]
        return next((f for f in cls.derived() if f.folder in parents), cls.AS_WRITTEN)

    @classmethod
    def of_folder(cls, case_folder: PurePath) -> SuiteForm:
        """The form of a case folder by the folder holding it."""
        return next((f for f in cls.derived() if case_folder.parent.name == f.folder),
                    cls.AS_WRITTEN)


def is_derived_folder(name: str) -> bool:
    """Whether a folder of that name holds a derived form (copies of the cases as written,
    left out where the cases are counted once: coverage, operator pages, import)."""
    return any(name == form.folder for form in SuiteForm.derived())


_FACTS = {
    SuiteForm.AS_WRITTEN: _Facts("sequence_optional", None, "cases as written", "orig.", ()),
    SuiteForm.TENSOR_BOUNDARY: _Facts("sequence_optional_tensor_io", TENSOR_IO,
                                      "tensor-boundary form", "tensors",
                                      (SEQUENCE_AT_BOUNDARY,)),
    SuiteForm.CONSTANT: _Facts("sequence_optional_constant", CONSTANT, "constant form",
                               "const.", (GRAPH_INPUT,)),
}
