"""The constant form of a case: the same graph with no graph inputs, each data set's input values
written into the model, so constant folding (an optimizer's, a runtime's at load time) evaluates
the sequence and optional operators instead of leaving them to run time.

From a validated case, one variant per data set (`<name>__constant<k>`, or `<name>__constant`
for a case with one data set) whose graph
  - holds each tensor input as an initializer of the same name;
  - builds each sequence input from initializers: SequenceConstruct of one initializer per
    element (`<name>_<k>`), or SequenceEmpty (`dtype` = the element type) for an empty one;
  - builds each optional input: Optional of an initializer (`<name>_value`, or a sequence built
    as above), or Optional with the `type` attribute and no input when empty;
and keeps the case's nodes and outputs, with that data set's expected values, twice: two data
sets, the same, that a runner runs one after the other on the one model it prepared, so a runtime
that keeps state from one run to the next (a folded constant mutated in place, a cached
sequence) gives a different second answer and fails data set 1. The wrapping
operators are the tensor-boundary form's (tensor_io.py), and so is the opset rule: the case's
opset is kept, raised only to the first at which every wrapping node allows its types; a case
for which no opset does, that has no graph input (it is its own constant form), or whose input
no operator builds from tensors (a map), has no
constant form: its reason is given instead. Its folder and its name in the manifest are
SuiteForm.CONSTANT's (`_core/suite_forms.py`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .._core.cases import Case, DataSet, Initializer
from .._core.value_kinds import TensorType
from .tensor_io import BoundaryBuilder, first_opset, specific_type

#: Data sets of a constant variant: the same one, run again on the same prepared model.
RUNS = 2


@dataclass(frozen=True)
class ConstantForm:
    """The constant form of one case: its variants, or why it has none."""

    variants: tuple[Case, ...]
    reason: str = ""  # why there is no form; "" when there are variants


class _ConstantBuilder(BoundaryBuilder):
    """The tensor-boundary form's builder, with initializers where it makes graph inputs."""

    def __init__(self, case: Case):
        super().__init__(case)
        self.initializers: list[Initializer] = []

    def leaf(self, name: str, value_type: TensorType, value: list, values: list,
             doc: str = "") -> None:
        self.initializers.append(Initializer(
            name, specific_type(value_type, [[v] for v in value], name), value[0],
            self.case.where))


def derive(case: Case) -> ConstantForm:
    """The constant variants of `case`, one per data set."""
    if not case.graph.inputs:
        return ConstantForm((), "the case has no graph input: it is its own constant form")
    for decl in case.graph.inputs:
        if decl.type.untensorable():  # an initializer is a tensor: the value is built of them
            return ConstantForm((), decl.type.untensorable())
    variants = []
    for k, data_set in enumerate(case.data_sets):
        builder = _ConstantBuilder(case)
        for j, decl in enumerate(case.graph.inputs):
            builder.build(decl.name, decl.type, [data_set.inputs[j]], [],
                          f"input '{decl.name}'")
        opset, reason = first_opset(case.opset, builder.typed)
        if opset is None:
            return ConstantForm((), reason)
        variants.append(_variant(case, k, builder, opset))
    return ConstantForm(tuple(variants))


def _variant(case: Case, k: int, builder: _ConstantBuilder, opset: int) -> Case:
    one = len(case.data_sets) == 1
    note = (f"Constant form of test_{case.name}"
            + ("" if one else f" (its data set {k})")
            + ": the graph has no inputs; the input values are initializers, sequences and "
              "optionals are built from them in the graph. Its two data sets are the same: run "
              "one after the other on one prepared model, they must give the same answer.")
    if opset != case.opset:
        note += f" Opset raised from {case.opset} to {opset}: the wrapping operators need it."
    doc = case.doc.strip()
    graph = dataclasses.replace(
        case.graph, inputs=(), initializers=(*case.graph.initializers, *builder.initializers),
        nodes=(*builder.before, *case.graph.nodes))
    data_set = case.data_sets[k]
    return dataclasses.replace(
        case, name=f"{case.name}__constant" + ("" if one else str(k)), opset=opset,
        graph=graph, data_sets=(DataSet((), data_set.outputs, data_set.where),) * RUNS,
        doc=f"{doc}\n\n{note}" if doc else note)
