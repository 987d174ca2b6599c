"""What the comparator (compare.py) finds, as records: one Difference per difference, with its
kind, where it is (data set, output, sequence elements, tensor index) and short texts of what
was expected and what came; the message a user reads is rendered from the record (`text`).

The records are small (the texts are the comparator's bounded summaries, at most a few hundred
characters), immutable and picklable: verify's workers send them over their pipes
(`_run/messages.py`) beside the message, and the fuzzer's signatures and the reports read
their kinds instead of parsing the messages. Nothing here imports numpy or onnx.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Every kind of difference, each with the word of the fuzzer's signatures for it (a finding's
#: signature names its file, so these stay as they were when they were read from the messages):
#: the comparator's own,
#:   outputs   the outputs are not a list at all (`got` describes what came)
#:   count     a different number of outputs
#:   kind      another value kind (a tensor for a sequence, a str for a tensor, ...)
#: then each value kind's (its DIFFERENCES, which the registry `value_kinds/__init__.py`
#: declares here): optional, length, keys, dtype, shape, value, bits.
SIGNATURE_KIND = {"outputs": "count", "count": "count", "kind": "kind"}


def declare(kinds: dict[str, tuple[str, str]]) -> None:
    """Add a value kind's kinds of difference: kind -> (its signature word, the template of
    its message over {e} and {g}, the expected and got texts)."""
    for kind, (word, template) in kinds.items():
        SIGNATURE_KIND[kind] = word
        _TEMPLATES[kind] = template


#: Where inside an output a difference is, outermost first: a sequence element (its int
#: position) or a map entry (a str, `key 0` or `key 'a'`).
Place = tuple[int | str, ...]


@dataclass(frozen=True)
class Difference:
    """One difference between an expected value and the one a backend gave."""

    kind: str  # one of SIGNATURE_KIND
    expected: str  # a short text of what was expected (a description, a dtype, a value...)
    got: str  # a short text of what came, alike
    output: int | None = None  # the output's position; None: the list of outputs as a whole
    name: str = ""  # the output's graph name, when known
    elements: Place = ()  # the sequence elements and map entries it is inside
    index: tuple[int, ...] = ()  # kind value or bits: the first differing value's index
    differ: int = 0  # kind value or bits: how many values differ
    size: int = 0  # kind value or bits: how many values the tensor has
    data_set: int | None = None  # the data set it was found in, when one is known

    def __post_init__(self) -> None:
        if self.kind not in SIGNATURE_KIND:
            raise ValueError(f"Difference.kind must be one of {', '.join(SIGNATURE_KIND)}, "
                             f"not {self.kind!r}")

    def where(self, base: str | None = None) -> str:
        """Where it is, as messages say it: `output 0 (seq), element 2, index [1, 0]`; `base`
        stands for `output 0 (seq)` when given (compare_value's `where`)."""
        if base is None:
            if self.output is None:
                return ""
            base = f"output {self.output} ({self.name})" if self.name else \
                f"output {self.output}"
        place = base + "".join(f", element {k}" if isinstance(k, int) else f", {k}"
                               for k in self.elements)
        if self.index:
            place += f", index {list(self.index)}"
        return place

    def text(self, base: str | None = None) -> str:
        """The message of this difference, without its data set; `base` as for where."""
        what = _TEMPLATES[self.kind].format(e=self.expected, g=self.got)
        if self.differ > 1:
            what += f" ({self.differ} of {self.size} values differ)"
        where = self.where(base)
        return f"{where}: {what}" if where else what

    def message(self) -> str:
        """The message as verify reports it: `data set K: ` first when the data set is
        known."""
        return self.text() if self.data_set is None else f"data set {self.data_set}: " \
            f"{self.text()}"

    def signature_kind(self) -> str:
        """The word the fuzzer's signatures use for this kind (SIGNATURE_KIND)."""
        return SIGNATURE_KIND[self.kind]


_TEMPLATES = {
    "outputs": "expected a list of {e} output(s), got {g}",
    "count": "expected {e} output(s), got {g}",
    "kind": "expected {e}, got {g}",
}
