"""Backends judged in this process, with no worker and no file: `oracle` (the spec oracle) and
`mutant:NAME` (a mutant of the catalogue, `_oracle/mutants/`: the oracle with one plausible
runtime bug). Both are oracle operator tables, so a program's case (and each tensor-boundary
variant) is run straight from the case model with `mutation.run_mutant` and judged with the
project's comparator, as verify would judge a runtime's outputs.

Outcomes: pass; fail (the comparator's messages, one line per data set, `data set K: ...`);
error (the backend raised where the spec gives a result: a mutant modelling a runtime that
fails).
"""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np

from .._core.cases import Case
from .._core.compare import differences
from .._core.errors import UnknownMutant
from .._oracle.mutants import CATALOGUE
from .._oracle.mutants.kit import Mutant
from .._run.judged import Judged
from .._run.mutation import run_mutant

ORACLE = "oracle"
MUTANT_PREFIX = "mutant:"


def handles(spec: str) -> bool:
    """Whether `spec` is judged in this process (`oracle`, `mutant:NAME`)."""
    return spec == ORACLE or spec.startswith(MUTANT_PREFIX)


def mutant_of(spec: str) -> Mutant | None:
    """The mutant `spec` names (None for `oracle`); UnknownMutant if there is none."""
    if spec == ORACLE:
        return None
    name = spec[len(MUTANT_PREFIX):]
    for mutant in CATALOGUE:
        if mutant.name == name:
            return mutant
    raise UnknownMutant(f"{spec}: no such mutant; `gen-seq-tests mutation` lists the "
                        f"{len(CATALOGUE)} mutants of the catalogue (write mutant:NAME)")


def judge_case(case: Case, mutant: Mutant | None) -> Judged:
    """How `case` fares on the mutant (None: the plain oracle): every data set run and
    compared; the first data set that differs or raises decides."""
    input_types = [d.type for d in case.graph.inputs]
    output_types = [d.type for d in case.graph.outputs]
    names = [d.name for d in case.graph.outputs]
    for k, data_set in enumerate(case.data_sets):
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                actual = run_mutant(mutant, case.graph, case.opset, list(data_set.inputs),
                                    input_types, output_types, case.ml_opset)
        except Exception as error:  # noqa: BLE001 - a backend failing is an outcome
            return Judged("error", f"data set {k}: {type(error).__name__}: {error}", (),
                          type(error).__name__)
        found = [replace(d, data_set=k) for d in differences(
            list(data_set.outputs), actual, atol=case.atol, rtol=case.rtol, names=names,
            types=output_types)]
        if found:
            return Judged("fail", "\n".join(d.message() for d in found), tuple(found))
    return Judged("pass", "")
