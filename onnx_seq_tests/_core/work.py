"""What one run of the spec oracle spends (Loop turns, work in element operations, CPU time)
and the checks of its budgets (budgets.py): going over one raises BudgetError, an OracleError
whose message names the budget, which the build reports at the data set's place."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .budgets import MAX_CPU_SECONDS, MAX_ELEMENTS, MAX_WORK, NODE_WORK, TENSOR_WORK
from .errors import BudgetError


class _Missing:
    """An input left off or omitted with "" (the oracle's `MISSING`)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()


def budget_text(name: str, value: int) -> str:
    return (f"the oracle's budget {name} ({value}) of onnx_seq_tests/_core/budgets.py; make the "
            "case smaller, or raise the budget")


def check_elements(count: int, what: str) -> None:
    """BudgetError when `what` would hold `count` elements, more than MAX_ELEMENTS."""
    if count > MAX_ELEMENTS:
        raise BudgetError(f"{what} would hold {count} elements, more than "
                          + budget_text("MAX_ELEMENTS", MAX_ELEMENTS))


class Spent:
    """What one run of a graph has spent so far, shared by every subgraph's context: Loop
    `turns`, `work` in element operations (budgets.py's MAX_WORK), and this thread's CPU time,
    read only each time the work passes another `_CLOCK_EVERY` (reading it costs a system
    call)."""

    __slots__ = ("turns", "work", "_clock_at", "_started")

    def __init__(self) -> None:
        self.turns = 0
        self.work = 0
        self._clock_at = min(_CLOCK_EVERY, MAX_WORK + 1)
        self._started = time.thread_time()

    def add(self, work: int, what: str) -> None:
        """Count `work` more; BudgetError naming `what` when the run goes over MAX_WORK or
        MAX_CPU_SECONDS."""
        self.work += work
        if self.work < self._clock_at:
            return
        if self.work > MAX_WORK:
            raise BudgetError(f"{what} brings the work of this run to {self.work} element "
                              f"operations (elements read and written, {TENSOR_WORK} per tensor, "
                              f"{NODE_WORK} per node), more than "
                              + budget_text("MAX_WORK", MAX_WORK))
        self._clock_at = min(self.work + _CLOCK_EVERY, MAX_WORK + 1)
        if time.thread_time() - self._started > MAX_CPU_SECONDS:
            raise BudgetError(f"{what}: this run has taken more CPU time than "
                              + budget_text("MAX_CPU_SECONDS", MAX_CPU_SECONDS))


#: How much work passes between two readings of the CPU clock.
_CLOCK_EVERY = 1 << 20


def measure(value: Any) -> tuple[int, int]:
    """The elements and tensors of a value: a tensor's, a sequence's tensors' together, none for
    an empty optional (one pass, cheap: it runs on every node's inputs and outputs)."""
    if type(value) is np.ndarray:
        return value.size, 1
    if isinstance(value, list):
        elements = tensors = 0
        for item in value:
            if type(item) is np.ndarray:
                elements += item.size
                tensors += 1
            else:
                more, count = measure(item)
                elements += more
                tensors += count
        return elements, tensors
    if value is None or value is MISSING:
        return 0, 0
    return int(np.size(value)), 1


def elements_of(value: object) -> int:
    """The elements of a value: a tensor's, a sequence's tensors' together, 0 for None."""
    return measure(value)[0]


def work_of(value: object) -> int:
    """What reading or writing a value adds to a run's work: its elements and TENSOR_WORK per
    tensor."""
    elements, tensors = measure(value)
    return elements + TENSOR_WORK * tensors
