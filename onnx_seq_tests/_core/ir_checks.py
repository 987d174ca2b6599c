"""IR-level checks of a case's values against its declared types, at build time.

ONNX IR.md: a dim variable (a named dim) stands for one size; it "must be the same" in every
place it appears, across all tensors of a sequence and across the graph's inputs and outputs
in one run (a data set). A value's kind, element type and rank must be those declared,
inside sequences and optionals too (each kind's `check`, value_kinds/). Each problem is
reported at the place of the data set (or initializer) that holds the value.
"""

from __future__ import annotations

from .cases import Case
from .problems import Problem, quote


def check_case(case: Case) -> list[Problem]:
    """Every data set (and initializer) whose values break the IR rules above."""
    problems: list[Problem] = []
    for initializer in case.graph.initializers:
        messages: list[str] = []
        initializer.type.check(initializer.value, f"initializer {quote(initializer.name)}", {},
                               messages)
        where = initializer.where
        problems.extend(Problem(where.path, where.line, where.column,
                                f"case {quote(case.name)}: {m}") for m in messages)
    for k, data_set in enumerate(case.data_sets):
        bindings: dict[str, tuple[int, str]] = {}
        messages = []
        for side, decls, values in (("input", case.graph.inputs, data_set.inputs),
                                    ("output", case.graph.outputs, data_set.outputs)):
            for decl, value in zip(decls, values, strict=True):
                decl.type.check(value, f"{side} {quote(decl.name)}", bindings, messages)
        where = data_set.where
        problems.extend(Problem(where.path, where.line, where.column,
                                f"case {quote(case.name)}: data set {k}: {m}") for m in messages)
    return problems
