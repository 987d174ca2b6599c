"""The tensor-boundary form of a case: the same graph, with only tensors as graph inputs and
outputs, for runtimes whose API passes tensors only.

From a validated case, each variant is a new case whose graph
  - builds each sequence input inside the graph: one tensor graph input per element feeding
    SequenceConstruct, or SequenceEmpty (`dtype` = the element type) for an empty one;
  - builds each optional input: Optional(value), or Optional with the `type` attribute and no
    input when empty (an optional of a sequence: the sequence is built first);
  - takes each sequence output apart: SequenceLength (`<name>_length`) and SequenceAt at
    0..n-1 (`<name>_<k>`, positions are Constant nodes);
  - takes each optional output apart: OptionalHasElement (`<name>_has_element`) and, when
    present, OptionalGetElement, its value taken apart the same way (`<name>_value`, or
    `<name>_value_length` and `<name>_value_<k>` for a sequence).
Every boundary tensor of a variant declares the most specific shape the variant's data sets
allow (a dim fixed where they agree, a named dim where they differ; see `specific_type`), so a
runtime's handling of unknown dims, pinned by cases of its own, does not stand in front of the
operators a variant tests. Each new graph input and output says in its doc string what it
is: `element 2 of input 's'`, `value of input 'o'`, `length of output 's'`, `presence of
output 'o'`, `element 0 of the value of output 'o'` (a name already taken gets a `_` appended).
The case's own values stay graph inputs, never constants. The number of graph inputs and
outputs depends on the lengths and presence of the sequence and optional values, so a case is
split into one variant per distinct signature of its data sets, named
`<name>__<part>_<part>...` with one part per sequence or optional graph input, then output, in
graph order: `len<n>` (a sequence of n), `some`/`none` (an optional tensor), `somelen<n>`/`none`
(an optional sequence); `<name>__tensors` when the case has no sequence or optional boundary
value. Expected values are the original case's, taken apart the same way.

The wrapping operators' schemas (onnx.defs) decide: the case's opset is kept, raised only to the
first opset at which every wrapping node is allowed (said in the doc), and a case for which no
opset allows them (SequenceConstruct/At/Length/Empty exist only at version 11, whose types leave
out bfloat16, the float8/6/4 kinds and int4/uint4/int2/uint2) has no tensor-boundary form: its
reason is given instead.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from typing import cast

import numpy as np

from .._core import operators as schemas
from .._core.cases import Case, DataSet, Graph, Node, ValueDecl, graphs
from .._core.elements import ELEMENTS
from .._core.value_kinds import OptionalType, SequenceType, TensorType, ValueType

_INT64 = TensorType(ELEMENTS["int64"], ())
_BOOL = TensorType(ELEMENTS["bool"], ())


@dataclass(frozen=True)
class TensorIO:
    """The tensor-boundary form of one case: its variants, or why it has none."""

    variants: tuple[Case, ...]
    reason: str = ""  # why there is no form; "" when there are variants


def derive(case: Case) -> TensorIO:
    """The tensor-boundary variants of `case`, one per distinct signature of its data sets."""
    for decl in [*case.graph.inputs, *case.graph.outputs]:
        if decl.type.untensorable():
            return TensorIO((), decl.type.untensorable())
    groups: dict[tuple, list[int]] = {}
    for k, data_set in enumerate(case.data_sets):
        groups.setdefault(signature(case, data_set), []).append(k)
    variants = []
    for shape, members in groups.items():
        variant, reason = _variant(case, shape, [case.data_sets[k] for k in members], members,
                                   len(groups) > 1)
        if variant is None:
            return TensorIO((), reason)
        variants.append(variant)
    return TensorIO(tuple(variants))


def signature(case: Case, data_set: DataSet) -> tuple:
    """Per sequence or optional graph input, then output: a sequence's length, an optional's
    presence (None when empty, else its value's signature, True for a tensor)."""
    found = []
    for decls, values in ((case.graph.inputs, data_set.inputs),
                          (case.graph.outputs, data_set.outputs)):
        for decl, value in zip(decls, values, strict=True):
            if not isinstance(decl.type, TensorType):
                found.append(_shape_of(decl.type, value))
    return tuple(found)


def _shape_of(value_type: ValueType, value):
    if isinstance(value_type, SequenceType):
        return len(value)
    if isinstance(value_type, OptionalType):
        return None if value is None else _shape_of(value_type.element, value)
    return True


def _part(value_type: ValueType, shape) -> str:
    if isinstance(value_type, SequenceType):
        return f"len{shape}"
    if shape is None:
        return "none"
    return "some" if shape is True else f"somelen{shape}"


def variant_name(case: Case, shape: tuple) -> str:
    """`<name>__<part>_...`, or `<name>__tensors` without sequence or optional values."""
    types = [d.type for d in (*case.graph.inputs, *case.graph.outputs)
             if not isinstance(d.type, TensorType)]
    parts = [_part(t, s) for t, s in zip(types, shape, strict=True)]
    return f"{case.name}__{'_'.join(parts) or 'tensors'}"


class BoundaryBuilder:
    """Collects the new graph's boundary values, wrapping nodes and values, with fresh names."""

    def __init__(self, case: Case):
        self.case = case
        self.used = set(_names(case.graph))
        self.inputs: list[ValueDecl] = []
        self.outputs: list[ValueDecl] = []
        self.before: list[Node] = []  # nodes that build inputs, before the case's nodes
        self.after: list[Node] = []  # nodes that take outputs apart
        self.typed: list[tuple[str, list, list]] = []  # (op_type, input types, output types)

    def fresh(self, wanted: str) -> str:
        name = wanted
        while name in self.used:
            name += "_"
        self.used.add(name)
        return name

    def node(self, into: list, op_type, inputs, outputs, in_types, out_types, **attributes):
        into.append(Node(op_type, tuple(inputs), tuple(outputs),
                         tuple(sorted(attributes.items())), self.case.where))
        self.typed.append((op_type, list(in_types), list(out_types)))

    def decl(self, name: str, value_type: ValueType, doc: str = "") -> ValueDecl:
        return ValueDecl(name, value_type, self.case.where, doc)

    # -- inputs: tensors in, values built in the graph

    def leaf(self, name: str, value_type: TensorType, value: list, values: list,
             doc: str = "") -> None:
        """A tensor a built value is made of: a new graph input `name` (its value in each data
        set: `value`, appended to `values`), declared with the most specific shape."""
        self.inputs.append(self.decl(name, specific_type(value_type, [[v] for v in value], name),
                                     doc))
        values.append(value)

    def build(self, name: str, value_type: ValueType, value, values: list, of: str) -> None:
        """Make `name` hold `value` (its value in each data set) of `value_type`, from new
        tensor graph inputs whose values (one list per data set) are appended to `values`;
        `of` says what it is ("input 'x'"), for the new inputs' doc strings."""
        if isinstance(value_type, TensorType):  # a tensor graph input stays, its shape fixed
            self.leaf(name, value_type, list(value), values)
        elif isinstance(value_type, SequenceType):
            element = cast(TensorType, value_type.element)  # a sequence holds tensors
            if not value[0]:
                self.node(self.before, "SequenceEmpty", [], [name], [], [value_type],
                          dtype=element.element.proto)
                return
            sources = []
            for k in range(len(value[0])):
                source = self.fresh(f"{name}_{k}")
                self.leaf(source, element, [v[k] for v in value], values, f"element {k} of {of}")
                sources.append(source)
            self.node(self.before, "SequenceConstruct", sources, [name],
                      [element] * len(sources), [value_type])
        else:
            value_type = cast(OptionalType, value_type)
            if value[0] is None:
                self.node(self.before, "Optional", [], [name], [], [value_type],
                          type=value_type.element)
                return
            inner = self.fresh(f"{name}_value")
            if isinstance(value_type.element, TensorType):
                self.leaf(inner, value_type.element, list(value), values, f"value of {of}")
            else:
                self.build(inner, value_type.element, value, values, f"the value of {of}")
            self.node(self.before, "Optional", [inner], [name], [value_type.element],
                      [value_type])

    # -- outputs: values taken apart into tensors

    def take_apart(self, name: str, value_type: ValueType, value, expected: list,
                   of: str) -> None:
        """Make graph outputs of the tensors `name` holds; their expected values (one list per
        data set) go to `expected`. `value` is its value in each data set; `of` says what it
        is ("output 'x'"), for the new outputs' doc strings."""
        if isinstance(value_type, TensorType):  # a tensor graph output stays, its shape fixed
            self.outputs.append(self.decl(name, specific_type(value_type, [[v] for v in value],
                                                          name)))
            expected.append(list(value))
        elif isinstance(value_type, SequenceType):
            length = self.fresh(f"{name}_length")
            self.node(self.after, "SequenceLength", [name], [length], [value_type], [_INT64])
            self.outputs.append(self.decl(length, _INT64, f"length of {of}"))
            expected.append([np.array(len(v), dtype=np.int64) for v in value])
            for k in range(len(value[0])):
                position, element = self.fresh(f"{name}_position_{k}"), self.fresh(f"{name}_{k}")
                self.node(self.after, "Constant", [], [position], [], [_INT64],
                          value=np.array(k, dtype=np.int64))
                self.node(self.after, "SequenceAt", [name, position], [element],
                          [value_type, _INT64], [value_type.element])
                self.outputs.append(self.decl(element, _element_type(
                    cast(TensorType, value_type.element), value, k, name),
                                              f"element {k} of {of}"))
                expected.append([v[k] for v in value])
        else:
            value_type = cast(OptionalType, value_type)
            has = self.fresh(f"{name}_has_element")
            self.node(self.after, "OptionalHasElement", [name], [has], [value_type], [_BOOL])
            self.outputs.append(self.decl(has, _BOOL, f"presence of {of}"))
            expected.append([np.array(v is not None) for v in value])
            if value[0] is None:
                return
            inner = self.fresh(f"{name}_value")
            self.node(self.after, "OptionalGetElement", [name], [inner], [value_type],
                      [value_type.element])
            if isinstance(value_type.element, TensorType):
                fixed = specific_type(value_type.element, [[v] for v in value], inner)
                self.outputs.append(self.decl(inner, fixed, f"value of {of}"))
                expected.append(list(value))
            else:
                self.take_apart(inner, value_type.element, value, expected,
                                f"the value of {of}")


def _element_type(element: TensorType, value: list, k: int, name: str) -> TensorType:
    """The type of element `k` of a sequence output taken apart (`value`: the sequence in each
    data set): described with every element of the sequence, as onnx infers one element type
    per sequence, unless the elements differ in rank (onnx then infers none)."""
    every = [list(v) for v in value]
    if len({np.ndim(e) for group in every for e in group}) > 1:
        every = [[v[k]] for v in value]
    return specific_type(element, every, f"{name}_element")


def specific_type(declared: TensorType, groups: list[list], name: str) -> TensorType:
    """The most specific type that the values of one new boundary tensor allow. `groups` holds,
    per data set, the values the type must describe (one for an input; every element of the
    sequence for an output taken apart, as onnx infers one element type per sequence). A dim
    is fixed where all values have one size; else a named dim (the declared one, or
    `<name>_dim<axis>`) where each data set's values have one size; else unknown. The rank is
    left unknown only when the values differ in rank. So a runtime is given every shape it can
    know, and its handling of unknown dims (pinned by cases of their own) no longer stands in
    front of the operators a variant tests."""
    values = [v for group in groups for v in group]
    ranks = {np.ndim(v) for v in values}
    if len(ranks) != 1:
        return declared
    rank = ranks.pop()
    dims = declared.shape if declared.shape is not None else (None,) * rank
    shape = []
    for axis, dim in enumerate(dims):
        sizes = {np.shape(v)[axis] for v in values}
        if len(sizes) == 1:
            shape.append(sizes.pop())
        elif all(len({np.shape(v)[axis] for v in group}) <= 1 for group in groups):
            shape.append(dim if isinstance(dim, str) else f"{name}_dim{axis}")
        else:
            shape.append(None)
    return TensorType(declared.element, tuple(shape))


def _variant(case: Case, shape: tuple, data_sets: list[DataSet], members: list[int],
             split: bool) -> tuple[Case | None, str]:
    builder = BoundaryBuilder(case)
    inputs: list[list] = []  # per new graph input, its value in each data set
    for j, decl in enumerate(case.graph.inputs):
        builder.build(decl.name, decl.type, [d.inputs[j] for d in data_sets], inputs,
                      f"input '{decl.name}'")
    expected: list[list] = []
    for j, decl in enumerate(case.graph.outputs):
        builder.take_apart(decl.name, decl.type, [d.outputs[j] for d in data_sets], expected,
                           f"output '{decl.name}'")
    opset, reason = first_opset(case.opset, builder.typed)
    if opset is None:
        return None, reason
    doc = case.doc.strip()
    note = (f"Tensor-boundary form of test_{case.name}"
            + (f" (its data set(s) {', '.join(map(str, members))})" if split else "")
            + ": sequence and optional graph inputs are built in the graph from tensors, "
              "sequence and optional graph outputs are taken apart into tensors.")
    if opset != case.opset:
        note += (f" Opset raised from {case.opset} to {opset}: the wrapping operators need it.")
    # replace, not a new Graph: whatever else the case's graph holds is carried over
    graph = dataclasses.replace(case.graph, inputs=tuple(builder.inputs),
                                outputs=tuple(builder.outputs),
                                nodes=(*builder.before, *case.graph.nodes, *builder.after))
    new_sets = tuple(
        DataSet(tuple(values[i] for values in inputs), tuple(values[i] for values in expected),
                data_set.where)
        for i, data_set in enumerate(data_sets))
    variant = dataclasses.replace(case, name=variant_name(case, shape), opset=opset,
                                  graph=graph, data_sets=new_sets,
                                  doc=f"{doc}\n\n{note}" if doc else note)
    return variant, ""


def first_opset(opset: int, typed: list[tuple[str, list, list]]) -> tuple[int | None, str]:
    """The first opset from `opset` on at which every wrapping node's types are allowed, or
    None and the reason."""
    candidates = sorted({opset} | {v for op, _, _ in typed for v in schemas.versions(op)
                                   if opset < v <= schemas.newest_opset()})
    first_refusal = ""
    for candidate in candidates:
        refusal = next((r for r in (_refusal(op, candidate, ins, outs) for op, ins, outs in typed)
                        if r), "")
        if not refusal:
            return candidate, ""
        first_refusal = first_refusal or refusal
    return None, first_refusal


def _refusal(op_type: str, opset: int, in_types: list, out_types: list) -> str:
    """Why `op_type` at `opset` does not take these types ("" when it does)."""
    op_schema = schemas.schema(op_type, opset)
    if op_schema is None:
        return f"{op_type} is not defined at opset {opset}"
    refused = schemas.type_refusal(op_schema, [str(t) for t in in_types],
                                   [str(t) for t in out_types])
    if refused is None:
        return ""
    side, position = refused
    value_type = (in_types if side == "input" else out_types)[position]
    later = [v for v in schemas.versions(op_type) if v > op_schema.since_version]
    return (f"{op_type}-{op_schema.since_version} does not allow {value_type}"
            + (" (nor does any later version)" if later else " (its only version)"))


def _names(graph: Graph) -> Iterator[str]:
    """Every value name in a graph and its subgraphs."""
    for each in graphs(graph):
        yield from (d.name for d in (*each.inputs, *each.outputs))
        yield from (i.name for i in each.initializers)
        for node in each.nodes:
            yield from node.inputs
            yield from node.outputs
