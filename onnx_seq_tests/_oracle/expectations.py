"""A case's authored expectations checked against the spec oracle, data set by data set, with
the verifier's own comparator: the build refuses a case whose expected outputs are not what the
spec gives."""

from __future__ import annotations

from .._core.cases import Case
from .._core.compare import compare_outputs
from .._core.errors import BudgetError, OracleError
from .._core.problems import Problem, quote
from .oracle import run_graph


def check_case(case: Case) -> list[Problem]:
    """Every data set whose expected outputs differ from the oracle's, as problems at the data
    set's place, compared by the verifier's own comparator: `case 'x': data set k disagrees with
    the spec oracle: output 0 (y), element 2, index [1, 0]: expected ..., got ...`."""
    problems = []
    for k, data_set in enumerate(case.data_sets):
        where = data_set.where
        try:
            answers = run_graph(case.graph, case.opset, list(data_set.inputs),
                                ml_opset=case.ml_opset)
        except BudgetError as error:
            problems.append(Problem(where.path, where.line, where.column,
                                    f"case {quote(case.name)}: data set {k}: {error}"))
            continue
        except OracleError as error:
            problems.append(Problem(where.path, where.line, where.column,
                                    f"case {quote(case.name)}: data set {k}: the spec gives no "
                                    f"result: {error}"))
            continue
        except (ValueError, TypeError, IndexError) as error:
            problems.append(Problem(where.path, where.line, where.column,
                                    f"case {quote(case.name)}: data set {k}: the spec oracle "
                                    f"cannot evaluate these inputs: {error}"))
            continue
        differences = compare_outputs(
            list(data_set.outputs), answers, atol=case.atol, rtol=case.rtol,
            names=[d.name for d in case.graph.outputs], types=[d.type for d in case.graph.outputs])
        if differences:
            more = f"; and {len(differences) - 1} more" if len(differences) > 1 else ""
            problems.append(Problem(where.path, where.line, where.column,
                                    f"case {quote(case.name)}: data set {k} disagrees with the "
                                    f"spec oracle (expected: the case file, got: the oracle): "
                                    f"{differences[0]}{more}"))
    return problems

