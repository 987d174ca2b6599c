"""The documented bugs of the reference evaluator and onnxruntime that a random program can meet,
told from the program's own trace on the spec oracle: how the judge's proof (tests/test_fuzzer.py,
benchmarks/bench_fuzz.py) explains a disagreement of a backend with the oracle.

Each rule returns the title of the note in docs/conformance-notes.yaml that describes the bug (a
test checks every title is there, for that backend), and `classify` tells a whole judged batch;
a disagreement no rule explains is either a new runtime bug (write its note and its rule) or an
oracle bug (fix it).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from .._core.cases import Case, outer_names
from .._oracle import oracle
from .._suite.tensor_io import derive


def trace(case: Case) -> list[tuple]:
    """(node, input values, output values) of every node the oracle runs for the case's first
    data set, subgraphs included, in the order they run."""
    seen: list[tuple] = []
    oracle.run_graph(case.graph, case.opset, list(case.data_sets[0].inputs),
                     trace=lambda node, args, results: seen.append((node, args, results)))
    return seen


def _reference(node, args) -> str | None:
    if node.op_type == "SequenceMap" and outer_names(dict(node.attributes)["body"]):
        return "SequenceMap's body cannot read a value of the enclosing graph"
    if node.op_type == "Optional":
        return "Optional returns a list"
    if node.op_type == "SequenceInsert" and len(args) > 2 \
            and args[2] is not oracle.MISSING and int(args[2]) == len(args[0]):
        return "SequenceInsert at position n"
    if node.op_type == "SequenceMap" and (len(args) > 2 or not args[0]):
        return ("SequenceMap does not zip two or more additional inputs, and fails on an "
                "empty input")
    if node.op_type == "Loop" and args[1] is oracle.MISSING and int(args[0]) > 0:
        return "Loop with the condition omitted runs no iteration"
    if node.op_type == "Loop" and len(node.outputs) > len(args) - 2:
        return "Loop stacks 0-d scan outputs into shape [N, 1]"
    return None


def _onnxruntime(node, args) -> str | None:
    if node.op_type == "SplitToSequence" and len(args) > 1 and args[1] is not oracle.MISSING \
            and np.ndim(args[1]) == 0 and dict(node.attributes).get("keepdims", 1) == 0:
        return "SplitToSequence applies keepdims with a 'split' input"
    return None


#: Per backend, the rule telling which documented bug a node meets.
RULES = {"reference": _reference, "onnxruntime": _onnxruntime}


def documented_bug(backend: str, case: Case) -> str | None:
    """The title of the documented bug of `backend` that the program `case` meets, or None."""
    rule = RULES.get(backend)
    if rule is None:
        return None
    for node, args, _ in trace(case):
        title = rule(node, args)
        if title:
            return title
    return None


def classify(built, verdicts: dict, ignored=("pass", "refused")):
    """The judged programs' verdicts (judge.run's), each whose outcome is not `ignored` told
    by the documented bug that explains it: a Counter of (backend, note title), and a line for
    each verdict no rule explains (`backend outcome folder: message`)."""
    explained: Counter[tuple[str, str]] = Counter()
    unexplained: list[str] = []
    for item in built:
        forms = {item.case.folder: item.case}
        forms.update({v.folder: v for v in derive(item.case).variants})
        for verdict in verdicts[item.case.name]:
            if verdict.outcome in ignored:
                continue
            title = documented_bug(verdict.backend, forms[verdict.folder])
            if title is None:
                first = verdict.message.splitlines()[0] if verdict.message else ""
                unexplained.append(f"{verdict.backend} {verdict.outcome} {verdict.folder}: "
                                   f"{first[:160]}")
            else:
                explained[verdict.backend, title] += 1
    return explained, unexplained
