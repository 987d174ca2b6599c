"""IR-level checks of a case's values against its declared types (onnx_seq_tests/_core/ir_checks):
kind, element type and rank inside sequences and optionals, and named dims bound once."""

from __future__ import annotations

import numpy as np

from onnx_seq_tests._core import ir_checks
from onnx_seq_tests._core.cases import Case, DataSet, Graph, Initializer, ValueDecl
from onnx_seq_tests._core.problems import Where
from onnx_seq_tests._core.value_kinds import parse_type

HERE = Where("cases/x.yaml", 3, 5)


def case(inputs, outputs, in_values, out_values, initializers=()) -> Case:
    graph = Graph(tuple(ValueDecl(n, parse_type(t, s), HERE) for n, t, s in inputs),
                  tuple(ValueDecl(n, parse_type(t, s), HERE) for n, t, s in outputs), (),
                  tuple(initializers))
    return Case("x", HERE, 16, graph, (DataSet(tuple(in_values), tuple(out_values), HERE),))


def messages(c: Case) -> list[str]:
    return [f"{p.line}:{p.column}: {p.message}" for p in ir_checks.check_case(c)]


def test_values_that_match_pass():
    c = case([("s", "seq(tensor(int64))", ("N",))], [("o", "optional(tensor(int64))", ("N",))],
             [[np.array([1, 2]), np.array([3, 4])]], [np.array([5, 6])])
    assert messages(c) == []


def test_element_type_inside_a_sequence():
    c = case([("s", "seq(tensor(int64))", None)], [("o", "tensor(int64)", None)],
             [[np.array([1], np.int64), np.array([2], np.int32)]], [np.array(1)])
    assert messages(c) == ["3:5: case 'x': data set 0: input 's', element 1 is declared "
                           "tensor(int64), but its value holds int32"]


def test_kind_and_rank_inside_an_optional():
    c = case([("o", "optional(tensor(float))", (2,))], [("p", "optional(seq(tensor(float)))",
                                                         None)],
             [np.zeros((2, 1), np.float32)], [np.zeros(2, np.float32)])
    assert messages(c) == [
        "3:5: case 'x': data set 0: input 'o' has rank 2, its type declares rank 1",
        "3:5: case 'x': data set 0: output 'p' is declared seq(tensor(float)), but its value "
        "is not a sequence"]


def test_empty_optional_binds_nothing_and_named_dims_bind_across_values():
    c = case([("a", "optional(tensor(int8))", ("N",)), ("b", "tensor(int8)", ("N",))],
             [("c", "seq(tensor(int8))", ("N",))],
             [None, np.zeros(2, np.int8)], [[np.zeros(2, np.int8), np.zeros(3, np.int8)]])
    assert messages(c) == [
        "3:5: case 'x': data set 0: dim 'N' is 2 in input 'b' but 3 in output 'c', element 1 "
        "(axis 0); a named dim stands for one size in every tensor of a sequence and across a "
        "data set's inputs and outputs (ONNX IR.md); declare the dim as ~ (unknown) where sizes "
        "differ"]


def test_initializer_element_type():
    bad = Initializer("k", parse_type("tensor(int64)", (1,)), np.array([1], np.int32), HERE)
    c = case([], [("o", "tensor(int64)", None)], [], [np.array(1)], initializers=[bad])
    assert messages(c) == ["3:5: case 'x': initializer 'k' is declared tensor(int64), but its "
                           "value holds int32"]
