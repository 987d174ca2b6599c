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

#: Every kind of difference, in the order the comparator checks them:
#:   outputs   the outputs are not a list at all (`got` describes what came)
#:   count     a different number of outputs
#:   optional  an empty optional where a value is expected, or a value where none is
#:   kind      another value kind (a tensor for a sequence, a str for a tensor, ...)
#:   length    a sequence of another length
#:   keys      a map of other keys (or keys of another type: 0 is not '0')
#:   dtype     a tensor of another element type
#:   shape     a tensor of another shape
#:   value     a tensor's values differ (`index` is the first, `differ` of `size` do)
#:   bits      as value, but the first differing value is equal as a number and differs in
#:             its bits only (the sign of a zero, a NaN's sign or payload)
KINDS = ("outputs", "count", "optional", "kind", "length", "keys", "dtype", "shape", "value",
         "bits")

#: The words of the fuzzer's signatures for each kind (`backend:outcome:KIND:...`): a finding's
#: signature names its file, so these stay as they were when they were read from the messages.
SIGNATURE_KIND = {"outputs": "count", "count": "count", "optional": "optional", "kind": "kind",
                  "length": "length", "keys": "keys", "dtype": "dtype", "shape": "shape",
                  "value": "value", "bits": "value"}


#: Where inside an output a difference is, outermost first: a sequence element (its int
#: position) or a map entry (a str, `key 0` or `key 'a'`).
Place = tuple[int | str, ...]


@dataclass(frozen=True)
class Difference:
    """One difference between an expected value and the one a backend gave."""

    kind: str  # one of KINDS
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
        if self.kind not in KINDS:
            raise ValueError(f"Difference.kind must be one of {', '.join(KINDS)}, "
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
        what = _TEMPLATES.get(self.kind, "expected {e}, got {g}").format(e=self.expected,
                                                                         g=self.got)
        if self.kind in ("value", "bits") and self.differ > 1:
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
    "length": "expected a sequence of length {e}, got length {g}",
    "keys": "expected a map of keys {e}, got keys {g}",
    "dtype": "expected dtype {e}, got {g}",
    "shape": "expected shape {e}, got {g}",
}
