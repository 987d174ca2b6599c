"""One definition per fact (issue 30): each idea below lives in one place, and these checks fail
when a second copy is written beside it: a graph walked by hand, "the schema admits these types"
judged again, a copy of the oracle's Loop in the mutants, a second `model_opset`, and the type
checker left out of `make test`. (One selection of onnx's sequence node cases: test_coverage.py.)"""

import ast
import re
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper

from onnx_seq_tests._core import operators
from onnx_seq_tests._core.cases import Graph, Node, ValueDecl, graphs, walk
from onnx_seq_tests._core.problems import Where
from onnx_seq_tests._oracle import oracle

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "onnx_seq_tests"
W = Where("probe", 1, 1)


def _functions(path: Path):
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def _hand_walks(path: Path, package: Path = PACKAGE) -> list[str]:
    """Functions of `path` (in the package folder `package`) that recurse into what a node's
    attributes hold: a graph walked by hand."""
    found = []
    for function in _functions(path):
        recurses = any(isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
                       and c.func.id == function.name for c in ast.walk(function))
        reads_attributes = any(isinstance(a, ast.Attribute)
                               and a.attr in ("attributes", "attribute", "g", "graphs")
                               for a in ast.walk(function))
        if recurses and reads_attributes:
            found.append(f"{path.relative_to(package).as_posix()}:{function.name}")
    return found


#: The walks that are not a walk beside `cases.subgraphs`: the walk itself, the oracle's
#: translation of a proto into case objects and the fuzzer's packer renaming a program's values
#: (they build, they do not visit), and the structure features, which carry each subgraph's
#: context (the operator holding it) down.
NOT_HAND_WALKS = {"_core/cases.py:subgraphs", "_oracle/oracle.py:graph_from_proto",
                  "_published/structure.py:_static", "_fuzz/packing.py:renamed"}


def test_one_walk_of_a_graph():
    found = {w for path in sorted(PACKAGE.rglob("*.py")) for w in _hand_walks(path)}
    assert found == NOT_HAND_WALKS, (
        "walk a graph with _core/cases.py's subgraphs, graphs or walk (graph_protos for a "
        f"GraphProto): {sorted(found - NOT_HAND_WALKS)}")


def test_the_hand_walk_check_can_fail(tmp_path):
    # in a package folder of its own, never in the checkout: other workers read the package
    package = tmp_path / PACKAGE.name
    probe = package / "_core" / "_walk_probe.py"
    probe.parent.mkdir(parents=True)
    probe.write_text("def names(graph):\n"
                     "    for node in graph.nodes:\n"
                     "        for _, value in node.attributes:\n"
                     "            names(value)\n")
    assert _hand_walks(probe, package) == ["_core/_walk_probe.py:names"]


def test_the_walk_visits_subgraphs_depth_first():
    inner = Graph((), (), (Node("Identity", ("a",), ("b",), (), W),))
    outer = Graph((), (), (Node("If", ("c",), ("d",), (("then_branch", inner),
                                                         ("else_branch", inner)), W),))
    assert list(graphs(outer)) == [outer, inner, inner]
    assert [n.op_type for n in walk(outer)] == ["If", "Identity", "Identity"]


# -- "the schema admits these types" ------------------------------------------------------------

#: Who may read a formal parameter's allowed types: `operators.type_refusal` (the one judgement)
#: and what only shows them (model.py's message and its newer-version hint, the operator pages,
#: the coverage matrix).
ALLOWED_TYPE_READERS = {"_core/operators.py", "_suite/model.py", "_read/operator_pages.py",
                        "_published/case_features.py"}


def test_one_judgement_of_the_types_a_schema_admits():
    readers = {path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py")
               if re.search(r"\ballowed_types\(|\.allowed_type_strs\b", path.read_text())}
    assert readers <= ALLOWED_TYPE_READERS, (
        "judge types against a schema with operators.type_refusal: "
        f"{sorted(readers - ALLOWED_TYPE_READERS)}")


def test_type_refusal_names_the_first_refused_place():
    insert = operators.defined_schema("SequenceInsert", 11)
    fine = ["seq(tensor(float))", "tensor(float)", "tensor(int64)"]
    assert operators.type_refusal(insert, fine, ["seq(tensor(float))"]) is None
    assert operators.type_refusal(insert, ["seq(tensor(float))", "tensor(float)",
                                           "tensor(float)"], []) == ("input", 2)
    assert operators.type_refusal(insert, [None, None, None], ["tensor(float)"]) == ("output", 0)
    # "" is an input left off: the position may be, the tensor may not
    assert operators.type_refusal(insert, fine[:2] + [""], []) is None
    assert operators.type_refusal(insert, ["seq(tensor(float))", ""], []) == ("input", 1)


# -- one Loop ------------------------------------------------------------------------------------

def test_the_mutants_have_no_loop_of_their_own():
    """A mutant's Loop is the oracle's with `LoopRules` changed, not a copy of its loop."""
    copies = [f"{path.name}:{node.lineno}" for path in (PACKAGE / "_oracle" / "mutants").glob(
        "*.py") for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.While)]
    assert not copies, f"a while loop in the mutants (run the oracle's Loop instead): {copies}"


def test_loop_rules_change_one_step():
    body = Graph((ValueDecl("i", None, W), ValueDecl("c", None, W), ValueDecl("s", None, W)),
                 (ValueDecl("c", None, W), ValueDecl("t", None, W)),
                 (Node("SequenceInsert", ("s", "i"), ("t",), (), W),))
    node = Node("Loop", ("n", "", "s0"), ("s_final",), (("body", body),), W)

    def turns(rules: oracle.LoopRules, trips: int) -> int:
        context = oracle.Context(16, oracle.OPERATORS, {}, None, frozenset(), set())
        run = oracle.loop(rules)
        (final,) = run(node, [np.array(trips, np.int64), oracle.MISSING, []],
                       dict(node.attributes), context)
        return len(final)

    assert turns(oracle.LoopRules(), 3) == 3
    assert turns(oracle.LoopRules(trip_shift=-1), 3) == 2
    assert turns(oracle.LoopRules(zero_trips_run_once=True), 0) == 1
    assert turns(oracle.LoopRules(carried_sequences=False), 3) == 0


# -- model_opset ---------------------------------------------------------------------------------

def test_model_opset_has_one_definition_and_one_contract():
    defined = [f"{path.relative_to(PACKAGE)}:{f.lineno}" for path in PACKAGE.rglob("*.py")
               for f in _functions(path) if f.name == "model_opset"]
    assert defined == ["_core/operators.py:" + defined[0].split(":")[1]], defined
    graph = helper.make_graph([], "g", [], [])
    assert operators.model_opset(helper.make_model(
        graph, opset_imports=[helper.make_opsetid("ai.onnx.ml", 3),
                              helper.make_opsetid("", 16)])) == 16
    assert operators.model_opset(helper.make_model(
        graph, opset_imports=[helper.make_opsetid("ai.onnx.ml", 3)])) is None
    assert isinstance(operators.model_opset(onnx.ModelProto()), type(None))


def test_the_oracle_says_when_a_model_imports_no_ai_onnx_opset():
    """It raised StopIteration (from next() in its own model_opset), which no caller expects."""
    model = helper.make_model(helper.make_graph([], "g", [], []),
                              opset_imports=[helper.make_opsetid("ai.onnx.ml", 3)])
    with pytest.raises(oracle.OracleError, match="imports no ai.onnx opset"):
        oracle.run_model(model, [])


# -- the type checker ----------------------------------------------------------------------------

def test_make_test_runs_the_type_checker():
    makefile = (ROOT / "Makefile").read_text()
    recipe = makefile.split("\ntest:", 1)[1].split("\n\n", 1)[0]
    assert "$(BIN)/mypy" in recipe and "types=$$?" in recipe and "test $$types = 0" in recipe
    pyproject = (ROOT / "pyproject.toml").read_text()
    strict = pyproject.split('module = ["onnx_seq_tests._core.*", "onnx_seq_tests._oracle.*"]',
                             1)[1].split("[[tool.mypy.overrides]]", 1)[0]
    assert "disallow_untyped_defs = true" in strict and "disallow_any_generics = true" in strict
    setup = (ROOT / "setup.py").read_text()  # the dev extra, computed there
    assert re.search(r'^\s*"mypy==[0-9.]+",$', setup, re.M)

