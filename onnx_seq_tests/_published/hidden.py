"""Hidden properties: what a runtime can get wrong that no output shows as it stands, each with
the case whose graph turns it into a value the comparator sees (cases/hidden_properties.yaml),
and those no graph can turn into a value, with the spec's reason.

At a Python API an empty sequence is an empty list and an empty optional is None, whatever
their types: a runtime that loses the element type of an empty sequence passes every case that
only outputs it. Each case below inserts a tensor of the spec's element type into the empty
sequence and concatenates the result, so a lost type shows as a refused insert or as a tensor
of another type.
"""

from __future__ import annotations

from .._core.suite_forms import SuiteForm
from .discovery import read_manifest

#: (the property, the case that makes it a value), in the report's order.
HIDDEN = (
    ("the element type of an empty sequence from SequenceEmpty without dtype (float)",
     "hidden_empty_sequence_type_sequence_empty_default"),
    ("the element type of an empty sequence from SequenceEmpty(dtype)",
     "sequence_empty_dtype_seen_after_insert"),
    ("the element type of an empty sequence of strings",
     "hidden_empty_sequence_type_string"),
    ("the element type of a sequence emptied by SequenceErase",
     "hidden_empty_sequence_type_after_erase"),
    ("the element type of the empty sequence SplitToSequence makes of a size-0 axis",
     "hidden_empty_sequence_type_from_split_of_size_0"),
    ("the element type of an empty sequence fed as a graph input",
     "hidden_empty_sequence_type_graph_input"),
    ("the element type of an empty sequence an If branch returns",
     "hidden_empty_sequence_type_through_if"),
    ("the element type of an empty sequence a Loop of no turn returns",
     "hidden_empty_sequence_type_through_loop_of_no_turn"),
    ("the element type of an empty sequence taken out of an optional",
     "hidden_empty_sequence_type_through_optional"),
)

#: Properties no graph can turn into a value: the property -> why (the spec's words).
NOT_OBSERVABLE = {
    "the type of an empty optional": "no operator reads it: OptionalHasElement gives false "
    "whatever the type, and of OptionalGetElement the spec says 'It is an error if the input "
    "is an empty optional-type (i.e. does not have an element) and the behavior is undefined "
    "in this case'; an empty optional crosses a Python API as None",
}


def hidden_markdown(root) -> list[str]:
    """The report's "Hidden properties" section: each property of HIDDEN with its case in
    each form of the suite at `root` (from its manifest: the case and its variants)."""
    manifest = read_manifest(root)
    entries = manifest.by_name if manifest is not None else {}
    forms = SuiteForm.derived()
    lines = ["", "## Hidden properties", "",
             "What a runtime can get wrong that no output shows as it stands (an empty "
             "sequence crosses a Python API as an empty list, whatever its element type), "
             "each with the case whose graph turns it into a value: it inserts a tensor of the "
             "spec's element type and concatenates, so a lost type shows as a refused insert "
             "or a tensor of another type (onnx_seq_tests/_published/hidden.py).", "",
             "| property | case | cases as written | " + " | ".join(f.title for f in forms)
             + " |", "| --- | --- | --- |" + " --- |" * len(forms)]
    for what, case in HIDDEN:
        entry = entries.get(case)
        cells = ["yes" if entry is not None else "**missing**"]
        for form in forms:
            variants = entry.variants(form) if entry is not None else ()
            why = entry.no_form(form) if entry is not None else None
            cells.append(f"{len(variants)} variant(s)" if variants else f"**no** ({why})"
                         if why else "**no**")
        lines.append(f"| {what} | `test_{case}` | {' | '.join(cells)} |")
    lines += ["", "No graph can turn these into a value:", ""]
    lines += [f"- {what}: {why}." for what, why in NOT_OBSERVABLE.items()]
    return lines
