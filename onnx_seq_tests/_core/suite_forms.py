"""The forms a built suite holds each case in, named once: the cases as written, and their
tensor-boundary form (`_suite/tensor_io.py`: only tensors at the graph's boundary).

Each form has its value (what reports and the JSON report call it), its folder under the output
root, its `form` in the manifest's case entries (None: the cases as written carry none), and
how the README and the scoreboards name it. A form is a `str` (its value), so it is written to
JSON, compared and printed as that text.
"""

from __future__ import annotations

from enum import Enum

#: The tensor-boundary form's name in a manifest: a variant's `form`, and the key of its
#: original's entry that lists its variants (manifest.TENSOR_IO).
TENSOR_IO = "tensor_io"


class SuiteForm(str, Enum):
    """One form of the suite (see the module docstring)."""

    AS_WRITTEN = "original"
    TENSOR_BOUNDARY = "tensor-boundary"

    __str__ = str.__str__
    __format__ = str.__format__  # type: ignore[assignment]  # format as the plain str

    @property
    def folder(self) -> str:
        """Its folder under the output root."""
        return _FOLDERS[self]

    @property
    def manifest_form(self) -> str | None:
        """Its `form` in a manifest case entry; None for the cases as written."""
        return TENSOR_IO if self is SuiteForm.TENSOR_BOUNDARY else None

    @property
    def title(self) -> str:  # type: ignore[override]  # str.title is not used on a form
        """How the README's table of runtimes names it."""
        return "cases as written" if self is SuiteForm.AS_WRITTEN else "tensor-boundary form"

    @property
    def short(self) -> str:
        """Its column heading in the scoreboards: `orig.` or `tensors`."""
        return "orig." if self is SuiteForm.AS_WRITTEN else "tensors"

    @classmethod
    def of_manifest(cls, form: str | None) -> SuiteForm:
        """The form a manifest entry's `form` names (None: the cases as written)."""
        return cls.TENSOR_BOUNDARY if form == cls.TENSOR_BOUNDARY.manifest_form \
            else cls.AS_WRITTEN

    @classmethod
    def of_case(cls, case: str) -> SuiteForm:
        """The form of a case by its key (`folder/test_x`, relative to the suite root), for a
        case no manifest describes: the tensor-boundary form when it lies in that form's
        folder."""
        return cls.TENSOR_BOUNDARY if cls.TENSOR_BOUNDARY.folder in case.split("/")[:-1] \
            else cls.AS_WRITTEN


_FOLDERS = {SuiteForm.AS_WRITTEN: "sequence_optional",
            SuiteForm.TENSOR_BOUNDARY: "sequence_optional_tensor_io"}
