"""What docs/safety.md promises under "Bounded" and for the API's arguments: the oracle's budgets
bound work, not steps (a run that would cost too much is one line at the data set's place naming
the budget, soon, whatever makes it costly); a message quotes a bounded prefix of a huge name;
every public function raises only SeqTestsError subclasses, ArgumentError for a bad argument.

Cases are built through the CLI, in this process; the budgets' own arithmetic through the
oracle's API.
"""

from __future__ import annotations

import inspect
import time
from pathlib import Path

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from conftest import GENERATED
from onnx import TensorProto, helper

import onnx_seq_tests
from onnx_seq_tests._cli import main
from onnx_seq_tests._core import budgets, work
from onnx_seq_tests._core.cases import Graph, Node
from onnx_seq_tests._core.errors import ArgumentError, BudgetError, SeqTestsError
from onnx_seq_tests._core.problems import Where
from onnx_seq_tests._oracle import oracle
from onnx_seq_tests._published.case_folder import read_case_folder
from onnx_seq_tests._suite.layout import SUITE

#: A for-loop that inserts the iteration number into the sequence it carries: every turn copies
#: a sequence one tensor longer than the last, so the cost grows with the square of the turns.
GROWING_LOOP = """
- name: growing_loop
  opset: 13
  inputs:
    - {name: trip_count, type: tensor(int64), shape: []}
    - {name: initial, type: seq(tensor(int64)), shape: []}
  outputs:
    - {name: final, type: seq(tensor(int64)), shape: []}
  nodes:
    - op_type: Loop
      inputs: {M: trip_count, cond: "", v_initial: [initial]}
      outputs: {v_final_and_scan_outputs: [final]}
      attributes:
        body:
          inputs:
            - {name: iteration, type: tensor(int64), shape: []}
            - {name: cond_in, type: tensor(bool), shape: []}
            - {name: sequence_in, type: seq(tensor(int64)), shape: []}
          outputs:
            - {name: cond_out, type: tensor(bool), shape: []}
            - {name: sequence_out, type: seq(tensor(int64)), shape: []}
          nodes:
            - op_type: Identity
              inputs: {input: cond_in}
              outputs: {output: cond_out}
            - op_type: SequenceInsert
              inputs: {input_sequence: sequence_in, tensor: iteration}
              outputs: {output_sequence: sequence_out}
  data_sets:
    - inputs: {trip_count: 3, initial: [7]}
      outputs: {final: [7, 0, 1, 2]}
    - inputs: {trip_count: 1000000000000, initial: []}
      outputs: {final: []}
"""


def test_a_loop_growing_the_sequence_it_carries_is_refused_within_seconds(tmp_path):
    """A Loop of 10**12 turns, each inserting into the sequence it carries, reached the
    10,000-turn budget only after 93 s (each turn copies a longer sequence): the budgets
    counted steps, not cost. It is now refused by MAX_WORK, at the data set's place."""
    cases_file = tmp_path / "growing.yaml"
    cases_file.write_text(GROWING_LOOP)
    out = tmp_path / "out"
    started = time.monotonic()
    result = CliRunner().invoke(main, ["build", str(cases_file), "-o", str(out)])
    seconds = time.monotonic() - started
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert lines[0].startswith(f"{cases_file}:32:7: case 'growing_loop': data set 1: "
                               "SequenceInsert brings the work of this run to "), lines
    assert "MAX_WORK (200000000) of onnx_seq_tests/_core/budgets.py" in lines[0]
    assert lines[1:] == ["1 problem(s) found; nothing was written."]
    assert "Traceback" not in result.output
    assert not out.exists()
    assert seconds < 10, f"refused after {seconds:.1f} s"


def _node(op_type, inputs, outputs, **attributes) -> Node:
    return Node(op_type, tuple(inputs), tuple(outputs), tuple(sorted(attributes.items())),
                Where("t.yaml", 1, 1))


def test_every_node_counts_what_it_reads_and_writes():
    """The work of a run: NODE_WORK per node run, and per value read or written its elements
    and TENSOR_WORK per tensor (a sequence: each of its tensors); a graph run adds its scope."""
    graph = Graph((), (), (_node("SequenceConstruct", ["a", "b"], ["s"]),
                           _node("SequenceLength", ["s"], ["n"])))
    spent = []
    original = work.Spent.__init__

    def keep(self):
        original(self)
        spent.append(self)

    values = {"a": np.zeros((2, 3), np.float32), "b": np.zeros(5, np.float32)}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(work.Spent, "__init__", keep)
        oracle.run_graph(graph, 11, [], values)
    tensor, node = budgets.TENSOR_WORK, budgets.NODE_WORK
    construct = node + 2 * (11 + 2 * tensor)  # reads a and b, writes both as s
    length = node + (11 + 2 * tensor) + (1 + tensor)  # reads s, writes a scalar
    assert spent[0].work == len(values) + construct + length


def test_a_run_over_its_cpu_seconds_is_refused_naming_the_budget(monkeypatch):
    """The last guard, for work MAX_WORK would price too low: CPU seconds of one run, read
    each time the work passes another 2**20."""
    monkeypatch.setattr(work, "MAX_CPU_SECONDS", 0)
    graph = Graph((), (), (_node("Identity", ["big"], ["copy"]),))
    big = np.zeros(2 << 20, np.uint8)  # work over 2**20 at the first node
    with pytest.raises(BudgetError, match=r"Identity: this run has taken more CPU time "
                       r"than the oracle's budget MAX_CPU_SECONDS \(0\)"):
        oracle.run_graph(graph, 16, [], {"big": big})


def test_the_work_budget_is_checked_after_every_node_from_the_first(monkeypatch):
    """The CPU clock is read only every 2**20 of work, but MAX_WORK is checked after every node,
    whatever its value: lowered to 10, the first node of a run is over it (a first draft
    skipped the check until the work reached 2**20)."""
    monkeypatch.setattr(work, "MAX_WORK", 10)
    graph = Graph((), (), (_node("Identity", ["x"], ["y"]),))
    with pytest.raises(BudgetError, match=r"^Identity brings the work of this run to 1203 "
                       r"element operations .* MAX_WORK \(10\)"):
        oracle.run_graph(graph, 16, [], {"x": np.zeros((), np.int64)})


# -- the Python API: a bad argument is an ArgumentError naming it --------------------------------

BAD_ARGUMENTS = [None, 42, b"x", object()]
INVALID_CASES = Path(__file__).parent / "invalid_cases"


def _baselines(tmp_path: Path) -> dict[str, dict]:
    """Good arguments for each public function of the API; the test swaps one for a bad one."""
    case = INVALID_CASES / "valid.yaml"
    folder = next((GENERATED / SUITE).iterdir())
    same = {"expected": [np.array(1.0)], "actual": [np.array(1.0)]}
    return {
        "load_cases": {"paths": case},
        "build": {"paths": case, "out_root": tmp_path / "built"},
        "check": {"paths": case, "out_root": tmp_path / "built"},
        "verify": {"root": tmp_path, "specs": ["oracle"], "select": ["nothing"]},
        "read_case_folder": {"path": folder},
        "compare": same,
        "assert_outputs_match": same,
        "backend_test": {"backend": "reference", "data_dir": tmp_path},
        "suite_dir": {},
    }


def _functions() -> list[str]:
    return sorted(name for name in onnx_seq_tests.__all__
                  if inspect.isfunction(getattr(onnx_seq_tests, name)))


def test_every_public_function_has_baseline_arguments(tmp_path):
    assert sorted(_baselines(tmp_path)) == _functions()


@pytest.mark.parametrize("bad", BAD_ARGUMENTS, ids=["None", "42", "bytes", "object"])
@pytest.mark.parametrize("name", _functions())
def test_a_bad_argument_to_the_api_is_an_argument_error(tmp_path, name, bad):
    """load_cases(None | 42 | b"x") and assert_outputs_match(None, None) raised raw
    TypeErrors (read_case_folder and verify a bare ValueError): every public function now
    raises only SeqTestsError subclasses, an ArgumentError naming the argument for a value of
    the wrong kind, whichever argument it is."""
    function = getattr(onnx_seq_tests, name)
    baseline = _baselines(tmp_path)[name]
    for parameter in inspect.signature(function).parameters:
        arguments = {**baseline, parameter: bad}
        try:
            function(**arguments)
        except ArgumentError as error:
            assert str(error).startswith(parameter) or f" {parameter} " in f" {error} ", (
                parameter, str(error))
        except SeqTestsError:
            pass  # refused for what the argument names (no cases under it, no such folder)
        except BaseException as error:  # noqa: BLE001 - the point: nothing else comes out
            pytest.fail(f"{name}({parameter}={bad!r}) raised {type(error).__name__}: {error}")
    with pytest.raises(ArgumentError, match=r"^paths must be a path or a list of paths"):
        onnx_seq_tests.load_cases(bad)


def test_a_huge_name_in_a_read_case_folder_is_quoted_as_a_bounded_prefix(tmp_path):
    """A case folder is untrusted too: a graph value named with 100,000 characters, whose
    input_0.pb is missing, is one short line that says how much of the name it shows (the
    whole name once)."""
    name = "x" * 100_000
    graph = helper.make_graph(
        [helper.make_node("Identity", [name], ["y"])], "g",
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    folder = tmp_path / "test_huge_name"
    (folder / "test_data_set_0").mkdir(parents=True)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)]),
              str(folder / "model.onnx"))
    with pytest.raises(SeqTestsError) as caught:
        read_case_folder(folder)
    message = str(caught.value)
    assert "'" + "x" * 60 + "...' (100,000 characters, first 60 shown)" in message, message[:500]
    assert len(message) < 500
