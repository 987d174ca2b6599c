"""Scan, the control-flow operator exporters use for recurrences (torch's loops over a tensor,
RNN cells), as the oracle runs it at every version onnx.defs has, inside its schema's type rules
(tensor_ops.typed); its body runs through the context's `subgraph`, like Loop in oracle.py.
math_ops.py merges it into its table.

Where the spec gives no result (scan inputs of different lengths, a state or scan output whose
shape changes across iterations, a scan output of no iteration, Scan-8's padding of a shorter
sequence, 'an undefined value') the oracle raises OracleError.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._core.budgets import MAX_LOOP_ITERATIONS
from .._core.cases import Node
from .._core.errors import BudgetError, OracleError
from .._core.work import MISSING, budget_text, check_elements, elements_of
from .tensor_ops import Entry, axis_index, ints, typed

Body = Callable[[list[Any]], list[Any]]


def _flags(attributes: dict[str, Any], name: str, count: int, default: int = 0) -> list[int]:
    flags = list(attributes.get(name, [default] * count))
    if len(flags) != count:
        raise OracleError(f"Scan {name} {flags}: 'An optional list of {count} flags', one per "
                          "scan input or output")
    return flags


def _axes(axes: list[int], ranks: list[int], version: int, what: str) -> list[int]:
    """scan_input_axes, scan_output_axes: 'Negative value for an axis means counting dimensions
    from the back. Accepted range is [-r, r-1]' from 11; non-negative before."""
    if version < 11 and any(a < 0 for a in axes):
        raise OracleError(f"Scan-{version} {what} {axes}: negative axes come at Scan-11")
    return [axis_index(a, r, f"Scan {what}") for a, r in zip(axes, ranks, strict=True)]


def _iterate(body: Body, spent: Any, states: list[Any], elements: list[list[Any]]
             ) -> tuple[list[Any], list[list[Any]]]:
    """The loop of the spec's pseudo-code: 'st_1, ..., st_n, so_1, ..., so_k =
    loop-body(st_1, ..., st_n, si_1, ..., si_m)' once per element of the scan inputs; 'All the
    output tensors (state_variables as well as scan_output_element tensors) are required to
    have the same shape in each iteration of the loop'."""
    outputs: list[list[Any]] = []
    shapes: list[tuple[int, ...]] | None = None
    for turn in elements:
        spent.turns += 1
        if spent.turns > MAX_LOOP_ITERATIONS:
            raise BudgetError("Scan iterations (nested ones included) would go over "
                              + budget_text("MAX_LOOP_ITERATIONS", MAX_LOOP_ITERATIONS))
        result = [np.asarray(o) for o in body([*states, *turn])]
        if shapes is not None and shapes != [r.shape for r in result]:
            raise OracleError("Scan: an output of the body changed shape; 'All the output "
                              "tensors... are required to have the same shape in each "
                              "iteration of the loop'")
        shapes = [r.shape for r in result]
        states = result[:len(states)]
        outputs.append(result[len(states):])
    return states, outputs


def scan(node: Node, args: list[Any], attributes: dict[str, Any], version: int,
         body: Body, spent: Any) -> list[Any]:
    """Scan from 9: 'si_1 = scan_1<axis=axis_1>[t]; ... st_1, ..., st_n, so_1, ..., so_k =
    loop-body(st_1, ..., st_n, si_1, ..., si_m); scan_out_1 = Concat<axis=0>(scan_out_1,
    so_1)'; 'scan_i.shape[axis_i] is required to be equal to scan_j.shape[axis_j] for all
    i,j'; scan_input_directions '0 indicates forward direction and 1 indicates reverse
    direction'; scan_output_directions '0 indicates appending and 1 indicates prepending';
    scan_output_axes: 'The scan outputs are accumulated along the specified axis'."""
    if version == 8:
        return _scan_8(node, args, attributes, body, spent)
    count = attributes["num_scan_inputs"]
    states = [np.asarray(a) for a in args[:len(args) - count]]
    inputs = [np.asarray(a) for a in args[len(args) - count:]]
    k = len(node.outputs) - len(states)
    if count < 1 or k < 0:
        raise OracleError(f"Scan with {len(args)} input(s), num_scan_inputs {count} and "
                          f"{len(node.outputs)} output(s): no N states and M >= 1 scan inputs")
    axes = _axes(_flags(attributes, "scan_input_axes", count), [i.ndim for i in inputs],
                 version, "scan_input_axes")
    reverse = _flags(attributes, "scan_input_directions", count)
    lengths = {i.shape[a] for i, a in zip(inputs, axes, strict=True)}
    if len(lengths) > 1:
        raise OracleError(f"Scan inputs of sequence lengths {sorted(lengths)}: "
                          "'scan_i.shape[axis_i] is required to be equal to "
                          "scan_j.shape[axis_j] for all i,j'")
    length = lengths.pop()
    elements = [[np.take(i, length - 1 - t if r else t, axis=a)
                 for i, a, r in zip(inputs, axes, reverse, strict=True)] for t in range(length)]
    states, outputs = _iterate(body, spent, states, elements)
    if k and not outputs:
        raise OracleError("Scan ran no iteration, so its scan outputs have no defined shape")
    prepend = _flags(attributes, "scan_output_directions", k)
    ranks = [o.ndim + 1 for o in outputs[0]] if outputs else []
    out_axes = _axes(_flags(attributes, "scan_output_axes", k), ranks, version,
                     "scan_output_axes")
    for j in range(k):
        check_elements(sum(elements_of(turn[j]) for turn in outputs), f"Scan scan output {j}")
    stacked = [np.stack([turn[j] for turn in (outputs[::-1] if prepend[j] else outputs)],
                        axis=out_axes[j]) for j in range(k)]
    return [*states, *stacked]


def _scan_8(node: Node, args: list[Any], attributes: dict[str, Any], body: Body,
            spent: Any) -> list[Any]:
    """Scan-8: 'the batch-axis is required to be 0... The sequence axis or scan axis is
    required to be 1'; per batch 'N = (sequence_lengths specified) ? sequence_lengths[batch] :
    max_sequence_length', states and scan outputs gathered per batch ('bst_1[batch] = st_1');
    'scan-outputs will have size max_sequence_length, but only first N values will be
    meaningful. The remaining values have an undefined value' (no result: OracleError).
    directions '0 indicates forward direction and 1 indicates reverse direction'."""
    count = attributes["num_scan_inputs"]
    rest = [np.asarray(a) for a in args[1:]]
    states, inputs = rest[:len(rest) - count], rest[len(rest) - count:]
    k = len(node.outputs) - len(states)
    if count < 1 or k < 0 or any(t.ndim == 0 for t in states) or any(
            i.ndim < 2 for i in inputs):
        raise OracleError("Scan-8 needs batched states (rank >= 1) and scan inputs of rank "
                          ">= 2, M >= 1 of them")
    if len({t.shape[0] for t in rest}) > 1 or len({i.shape[1] for i in inputs}) > 1:
        raise OracleError("Scan-8 inputs differ in batch size or maximum sequence length: "
                          + ", ".join(str(list(t.shape)) for t in rest))
    batch, longest = inputs[0].shape[0], inputs[0].shape[1]
    lengths = [longest] * batch if args[0] is MISSING else ints(args[0], "Scan-8 sequence_lens")
    if len(lengths) != batch or any(not 0 <= n <= longest for n in lengths):
        raise OracleError(f"Scan-8 sequence_lens {lengths}: one per batch, within [0, "
                          f"{longest}]")
    if k and any(n < longest for n in lengths):
        raise OracleError(f"Scan-8 sequence_lens {lengths} shorter than {longest}: the padding "
                          "of the scan outputs 'have an undefined value'")
    reverse = _flags(attributes, "directions", count)
    finals, scans = [], []
    for b in range(batch):
        elements = [[i[b][n - 1 - t if r else t] for i, r in zip(inputs, reverse, strict=True)]
                    for n in (lengths[b],) for t in range(n)]
        last, outputs = _iterate(body, spent, [t[b] for t in states], elements)
        if k and not outputs:
            raise OracleError("Scan ran no iteration, so its scan outputs have no defined shape")
        finals.append(last)
        scans.append([np.stack([turn[j] for turn in outputs]) for j in range(k)])
    if not batch:
        raise OracleError("Scan-8 of batch size 0: its outputs have no defined shape")
    return [np.stack([f[i] for f in finals]) for i in range(len(states))] + [
        np.stack([s[j] for s in scans]) for j in range(k)]


def _scan_entry(node: Node, args: list[Any], attributes: dict[str, Any],
                context: Any) -> list[Any]:
    body = context.subgraph(attributes["body"])
    return typed(lambda n, a, at, version: scan(n, a, at, version, body, context.spent))(
        node, args, attributes, context)


#: Scan, as an entry of the oracle's table (merged into math_ops.MATH_OPERATORS).
SCAN_OPERATORS: dict[str, Entry] = {"Scan": _scan_entry}
