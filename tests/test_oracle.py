"""The spec oracle: hand-written spec examples per operator (those onnx's ReferenceEvaluator gets
wrong included), the interpreter, and the build-time check of authored expectations. (Its
agreement with onnx's own node cases is in test_coverage.py, with the other users of those.)"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from onnx_seq_tests._casefile.reader import load_cases
from onnx_seq_tests._cli import main
from onnx_seq_tests._core.compare import compare_value
from onnx_seq_tests._core.errors import OracleError
from onnx_seq_tests._oracle import expectations, oracle
from onnx_seq_tests._oracle.oracle import MISSING

ROOT = Path(__file__).resolve().parent.parent


def t(values, dtype=np.float32):
    return np.array(values, dtype=dtype)


def same(expected, actual) -> bool:
    """Exactly equal: kind, length, dtype, shape and every value, the sign of zero included
    (the oracle is exact, so no tolerance); NaN equals NaN."""
    return compare_value(expected, actual, "value", atol=0.0, rtol=0.0) == []


def test_same_is_exact():
    assert same(t([1.0, -0.0]), t([1.0, -0.0])) and same(t([np.nan]), t([np.nan]))
    assert not same(t([1.0]), t([1.0 + 2.0**-23]))
    assert not same(t([0.0]), t([-0.0]))
    assert not same(t([1.0]), t([1.0], np.float64))
    assert not same([A, B], [A, t([3.0 + 2.0**-22])])


def test_oracle_keeps_the_sign_of_zero():
    signed = t([-0.0, 0.0])
    assert same(oracle.sequence_at([signed], np.array(0, np.int64)), signed)
    assert not same(oracle.sequence_at([signed], np.array(0, np.int64)), t([0.0, 0.0]))
    assert same(oracle.concat_from_sequence([signed, signed], axis=0), t([-0.0, 0.0] * 2))


A, B, C = t([1.0, 2.0]), t([3.0]), t([[4.0, 5.0]])


# -- sequence operators -----------------------------------------------------------------------

def test_sequence_construct_keeps_order_and_copies():
    a = t([1.0])
    built = oracle.sequence_construct(a, B, C)
    a[0] = 9.0
    assert same(built, [t([1.0]), B, C])


def test_sequence_construct_refuses_mixed_types():
    with pytest.raises(OracleError, match="differ in data type"):
        oracle.sequence_construct(A, t([1], np.int64))


def test_sequence_empty_is_an_empty_list():
    assert oracle.sequence_empty() == []


@pytest.mark.parametrize("position, expected", [(0, A), (1, B), (2, C), (-1, C), (-3, A)])
def test_sequence_at_counts_negative_positions_from_the_back(position, expected):
    assert same(oracle.sequence_at([A, B, C], np.array(position, np.int64)), expected)


@pytest.mark.parametrize("position", [3, -4])
def test_sequence_at_out_of_range_has_no_result(position):
    with pytest.raises(OracleError, match=r"out of the accepted range \[-3, 2\]"):
        oracle.sequence_at([A, B, C], np.array(position, np.int32))


def test_sequence_at_position_must_be_an_integer_scalar():
    with pytest.raises(OracleError, match="must be a scalar"):
        oracle.sequence_at([A, B], np.array([0], np.int64))
    with pytest.raises(OracleError, match="int32 or int64"):
        oracle.sequence_at([A, B], np.array(0.0, np.float32))


@pytest.mark.parametrize("position, expected", [
    (3, [A, B, C, t([7.0])]),   # n appends (the ReferenceEvaluator puts it first)
    (2, [A, B, t([7.0]), C]),   # n-1 goes before the last
    (-1, [A, B, t([7.0]), C]),
    (-3, [t([7.0]), A, B, C]),  # -n goes first
    (0, [t([7.0]), A, B, C]),
])
def test_sequence_insert_positions(position, expected):
    got = oracle.sequence_insert([A, B, C], t([7.0]), np.array(position, np.int64))
    assert same(got, expected)


def test_sequence_insert_without_position_appends():
    assert same(oracle.sequence_insert([A], B), [A, B])
    assert same(oracle.sequence_insert([A], B, MISSING), [A, B])


def test_sequence_insert_into_empty_at_position_0():
    # The ReferenceEvaluator raises ZeroDivisionError here.
    assert same(oracle.sequence_insert([], A, np.array(0, np.int64)), [A])


@pytest.mark.parametrize("position", [4, -4])
def test_sequence_insert_out_of_range_has_no_result(position):
    with pytest.raises(OracleError, match=r"\[-3, 3\]"):
        oracle.sequence_insert([A, B, C], A, np.array(position, np.int64))


def test_sequence_erase_default_and_positions():
    assert same(oracle.sequence_erase([A, B, C]), [A, B])
    assert same(oracle.sequence_erase([A, B, C], np.array(-3, np.int32)), [B, C])
    assert same(oracle.sequence_erase([A], np.array(0, np.int64)), [])
    with pytest.raises(OracleError, match="no last tensor"):
        oracle.sequence_erase([])
    with pytest.raises(OracleError, match="out of the accepted range"):
        oracle.sequence_erase([A, B], np.array(2, np.int64))


def test_sequence_length_is_an_int64_scalar():
    length = oracle.sequence_length([A, B, C])
    assert length.dtype == np.int64 and length.shape == () and int(length) == 3
    assert int(oracle.sequence_length([])) == 0


# -- SplitToSequence ----------------------------------------------------------------------------

X = t([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])


def test_split_default_is_chunks_of_one_keeping_the_axis():
    assert same(oracle.split_to_sequence(X), [X[0:1], X[1:2], X[2:3]])


def test_split_keepdims_0_removes_the_axis_without_split():
    assert same(oracle.split_to_sequence(X, keepdims=0), [X[0], X[1], X[2]])
    assert same(oracle.split_to_sequence(X, axis=-1, keepdims=0), [X[:, 0], X[:, 1]])


def test_split_keepdims_is_ignored_when_split_is_given():
    # onnxruntime 1.32 squeezes here (scalar split 1) or fails (scalar split 2).
    assert same(oracle.split_to_sequence(X, np.array(1, np.int64), keepdims=0),
                [X[0:1], X[1:2], X[2:3]])
    assert same(oracle.split_to_sequence(X, np.array(3, np.int64), keepdims=0), [X])


def test_split_scalar_gives_a_smaller_last_chunk():
    x = t([1, 2, 3, 4, 5], np.int32)
    assert same(oracle.split_to_sequence(x, np.array(2, np.int64)),
                [t([1, 2], np.int32), t([3, 4], np.int32), t([5], np.int32)])


def test_split_1d_gives_uneven_parts_and_must_add_up():
    x = t([1, 2, 3, 4, 5, 6], np.int64)
    parts = oracle.split_to_sequence(x, np.array([1, 3, 2], np.int32))
    assert same(parts, [x[:1], x[1:4], x[4:]])
    with pytest.raises(OracleError, match="adds up to 5"):
        oracle.split_to_sequence(x, np.array([1, 4], np.int64))
    with pytest.raises(OracleError, match="positive"):
        oracle.split_to_sequence(x, np.array([0, 6], np.int64))


def test_split_of_a_0d_tensor_has_no_result():
    with pytest.raises(OracleError, match="0-d"):
        oracle.split_to_sequence(t(1.0))


# -- ConcatFromSequence -------------------------------------------------------------------------

def test_concat_joins_tensors_that_differ_along_the_axis():
    got = oracle.concat_from_sequence([t([[1.0], [2.0]]), t([[3.0, 4.0], [5.0, 6.0]])], axis=-1)
    assert same(got, t([[1.0, 3.0, 4.0], [2.0, 5.0, 6.0]]))


def test_concat_new_axis_stacks_and_accepts_axis_r_and_negative():
    parts = [t([1.0, 2.0]), t([3.0, 4.0])]
    assert same(oracle.concat_from_sequence(parts, axis=0, new_axis=1), t([[1, 2], [3, 4]]))
    assert same(oracle.concat_from_sequence(parts, axis=1, new_axis=1), t([[1, 3], [2, 4]]))
    assert same(oracle.concat_from_sequence(parts, axis=-1, new_axis=1), t([[1, 3], [2, 4]]))
    assert same(oracle.concat_from_sequence(parts, axis=-2, new_axis=1), t([[1, 2], [3, 4]]))
    with pytest.raises(OracleError, match="out of the accepted range"):
        oracle.concat_from_sequence(parts, axis=2, new_axis=1)


def test_concat_new_axis_makes_0d_tensors_1d():
    assert same(oracle.concat_from_sequence([t(1.0), t(2.0)], axis=0, new_axis=1), t([1, 2]))
    with pytest.raises(OracleError, match="0-d"):
        oracle.concat_from_sequence([t(1.0), t(2.0)], axis=0)


def test_concat_has_no_result_on_an_empty_sequence_or_mismatched_shapes():
    with pytest.raises(OracleError, match="empty sequence"):
        oracle.concat_from_sequence([], axis=0)
    with pytest.raises(OracleError, match="outside the axis"):
        oracle.concat_from_sequence([t([[1.0, 2.0]]), t([[3.0]])], axis=0)


# -- SequenceMap --------------------------------------------------------------------------------

def test_sequence_map_zips_several_sequences_and_passes_tensors_whole():
    # The ReferenceEvaluator does not zip two or more extra sequence inputs.
    def body(inputs):
        x, y, z = inputs
        return [x + y + z, y]

    samples = oracle.sequence_map(body, [t([1.0]), t([2.0])], [t([10.0]), t([20.0])], t([100.0]))
    assert same(samples, [[t([111.0]), t([10.0])], [t([122.0]), t([20.0])]])


def test_sequence_map_over_an_empty_sequence_has_no_samples():
    # The ReferenceEvaluator raises here.
    assert oracle.sequence_map(lambda inputs: inputs, [], []) == []


def test_sequence_map_refuses_sequences_of_other_lengths():
    with pytest.raises(OracleError, match="has 1 tensors"):
        oracle.sequence_map(lambda inputs: inputs, [A, B], [A])


# -- optionals ----------------------------------------------------------------------------------

def test_optional_without_input_is_empty_and_needs_a_type():
    # The ReferenceEvaluator gives [None], which OptionalHasElement then calls present.
    assert oracle.optional(MISSING, type=object()) is None
    with pytest.raises(OracleError, match="'type'"):
        oracle.optional()


def test_optional_of_a_value_is_the_value_itself():
    # The ReferenceEvaluator gives [x], so OptionalGetElement returns a list.
    assert oracle.optional(A) is A
    assert same(oracle.optional_get_element(oracle.optional([A, B])), [A, B])


@pytest.mark.parametrize("value, expected", [
    (MISSING, False), (None, False), ([], True), ([A], True), (A, True), (t([]), True)])
def test_optional_has_element(value, expected):
    got = oracle.optional_has_element(value)
    assert got.dtype == np.bool_ and got.shape == () and bool(got) is expected


def test_optional_get_element_of_an_empty_optional_has_no_result():
    with pytest.raises(OracleError, match="empty optional"):
        oracle.optional_get_element(None)
    assert oracle.optional_get_element([]) == []


# -- the interpreter: If, Loop, scopes, tracing -------------------------------------------------

def run_yaml(tmp_path, text: str, *inputs):
    path = tmp_path / "case.yaml"
    path.write_text(text, encoding="utf-8")
    [case] = load_cases([path])
    return case, oracle.run_graph(case.graph, case.opset, list(inputs))


LOOP = """
- name: loop
  opset: 16
  inputs:
    - {name: trip_count, type: tensor(int64), shape: []}
    - {name: initial, type: seq(tensor(int64)), shape: []}
  outputs:
    - {name: final, type: seq(tensor(int64)), shape: []}
    - {name: scanned, type: tensor(int64), shape: [~]}
  nodes:
    - op_type: Loop
      inputs: {M: trip_count, cond: "", v_initial: [initial]}
      outputs: {v_final_and_scan_outputs: [final, scanned]}
      attributes:
        body:
          inputs:
            - {name: i, type: tensor(int64), shape: []}
            - {name: cond_in, type: tensor(bool), shape: []}
            - {name: s_in, type: seq(tensor(int64)), shape: []}
          outputs:
            - {name: cond_out, type: tensor(bool), shape: []}
            - {name: s_out, type: seq(tensor(int64)), shape: []}
            - {name: i_out, type: tensor(int64), shape: []}
          nodes:
            - {op_type: Constant, outputs: {output: f}, attributes: {value_int: 0}}
            - {op_type: Less, inputs: {A: i, B: f}, outputs: {C: cond_out}}
            - {op_type: SequenceInsert, inputs: {input_sequence: s_in, tensor: i},
               outputs: {output_sequence: s_out}}
            - {op_type: Identity, inputs: {input: i}, outputs: {output: i_out}}
  data_sets:
    - inputs: {trip_count: 3, initial: []}
      outputs: {final: [0, 1, 2], scanned: [0, 1, 2]}
"""


def test_loop_with_condition_omitted_runs_the_trip_count(tmp_path):
    # The body's condition is false from the first turn, but with cond omitted it is ignored;
    # the ReferenceEvaluator runs no turn at all. 0-d scan outputs stack to shape [N] (the
    # ReferenceEvaluator gives [N, 1]).
    _, (final, scanned) = run_yaml(tmp_path, LOOP, np.array(3, np.int64), [])
    assert same(final, [np.array(i, np.int64) for i in range(3)])
    assert same(scanned, np.array([0, 1, 2], np.int64))


def test_loop_without_turns_returns_the_initial_values_and_no_scan(tmp_path):
    with pytest.raises(OracleError, match="no iteration"):
        run_yaml(tmp_path, LOOP, np.array(0, np.int64), [np.array(5, np.int64)])


FOREVER = """
- name: forever
  opset: 16
  inputs: [{name: x, type: tensor(float), shape: [1]}]
  outputs: [{name: y, type: tensor(float), shape: [1]}]
  nodes:
    - op_type: Loop
      inputs: {M: "", cond: "", v_initial: [x]}
      outputs: {v_final_and_scan_outputs: [y]}
      attributes:
        body:
          inputs:
            - {name: i, type: tensor(int64), shape: []}
            - {name: cond_in, type: tensor(bool), shape: []}
            - {name: x_in, type: tensor(float), shape: [1]}
          outputs:
            - {name: cond_out, type: tensor(bool), shape: []}
            - {name: x_out, type: tensor(float), shape: [1]}
          nodes:
            - {op_type: Identity, inputs: {input: cond_in}, outputs: {output: cond_out}}
            - {op_type: Identity, inputs: {input: x_in}, outputs: {output: x_out}}
  data_sets:
    - inputs: {x: [1.0]}
      outputs: {y: [1.0]}
"""


def test_loop_without_trip_count_or_condition_never_ends(tmp_path):
    with pytest.raises(OracleError, match="never ends"):
        run_yaml(tmp_path, FOREVER, t([1.0]))


IF = """
- name: branch
  opset: 16
  inputs:
    - {name: cond, type: tensor(bool), shape: []}
    - {name: a, type: tensor(float), shape: [1]}
  outputs:
    - {name: out, type: optional(tensor(float)), shape: [1]}
  nodes:
    - op_type: If
      inputs: {cond: cond}
      outputs: {outputs: [out]}
      attributes:
        then_branch:
          outputs: [{name: some, type: optional(tensor(float)), shape: [1]}]
          nodes: [{op_type: Optional, inputs: {input: a}, outputs: {output: some}}]
        else_branch:
          outputs: [{name: none, type: optional(tensor(float)), shape: [1]}]
          nodes: [{op_type: Optional, outputs: {output: none},
                   attributes: {type: tensor(float)}}]
  data_sets:
    - inputs: {cond: true, a: [1.5]}
      outputs: {out: [1.5]}
"""


def test_if_runs_the_chosen_branch_with_the_enclosing_scope(tmp_path):
    _, (then,) = run_yaml(tmp_path, IF, np.array(True), t([1.5]))
    _, (otherwise,) = run_yaml(tmp_path, IF, np.array(False), t([1.5]))
    assert same(then, t([1.5])) and otherwise is None


def test_trace_sees_every_node_subgraphs_included(tmp_path):
    seen = []
    case, _ = run_yaml(tmp_path, IF, np.array(True), t([1.5]))
    oracle.run_graph(case.graph, case.opset, [np.array(False), t([1.5])],
                     trace=lambda node, args, results: seen.append((node.op_type, results)))
    assert seen == [("Optional", [None]), ("If", [None])]


def test_unknown_operator_is_named(tmp_path):
    text = IF.replace("op_type: Optional, inputs: {input: a}", "op_type: Sin, inputs: {input: a}")
    with pytest.raises(OracleError, match="does not implement Sin"):
        run_yaml(tmp_path, text, np.array(True), t([1.5]))


CONSTANTS = """
- name: constants
  opset: 13
  inputs:
    - {name: seq, type: seq(tensor(int64)), shape: [1]}
  outputs:
    - {name: at, type: tensor(int64), shape: [1]}
    - {name: position, type: tensor(int32), shape: []}
    - {name: filled, type: tensor(bool), shape: [2, 1]}
    - {name: zeros, type: tensor(float), shape: [3]}
  nodes:
    - {op_type: Constant, outputs: {output: position},
       attributes: {value: {type: tensor(int32), shape: [], value: -3}}}
    - {op_type: SequenceAt, inputs: {input_sequence: seq, position: position},
       outputs: {tensor: at}}
    - {op_type: Constant, outputs: {output: shape},
       attributes: {value: {type: tensor(int64), shape: [2], value: [2, 1]}}}
    - {op_type: ConstantOfShape, inputs: {input: shape}, outputs: {output: filled},
       attributes: {value: {type: tensor(bool), shape: [1], value: [true]}}}
    - {op_type: Constant, outputs: {output: three}, attributes: {value_ints: [3]}}
    - {op_type: ConstantOfShape, inputs: {input: three}, outputs: {output: zeros}}
  data_sets:
    - inputs: {seq: [[10], [20], [30]]}
      outputs: {at: [10], position: -3, filled: [[true], [true]], zeros: [0, 0, 0]}
"""


def test_constant_value_tensor_keeps_its_type_and_constant_of_shape_fills(tmp_path):
    """Constant's `value` 'The value for the elements of the output tensor': an int32 scalar
    stays int32 (not widened to value_int's int64), and -3 counts from the back; ConstantOfShape
    repeats its one-element `value` to the shape, float 0 when left out."""
    seq = [t([10], np.int64), t([20], np.int64), t([30], np.int64)]
    _, (at, position, filled, zeros) = run_yaml(tmp_path, CONSTANTS, seq)
    assert same(at, t([10], np.int64))
    assert same(position, np.array(-3, np.int32))
    assert same(filled, np.array([[True], [True]]))
    assert same(zeros, np.zeros(3, np.float32))


def test_constant_of_shape_has_no_result_for_a_negative_dim_or_a_longer_value(tmp_path):
    seq = [t([10], np.int64), t([20], np.int64), t([30], np.int64)]
    negative = CONSTANTS.replace("value: [2, 1]}", "value: [2, -1]}")
    with pytest.raises(OracleError, match="negative dim"):
        run_yaml(tmp_path, negative, seq)
    longer = CONSTANTS.replace("shape: [1], value: [true]}", "shape: [2], value: [true, false]}")
    with pytest.raises(OracleError, match="one-element tensor"):
        run_yaml(tmp_path, longer, seq)


# -- checking authored expectations at build time ------------------------------------------------

WRONG = """\
- name: wrong_insert
  opset: 11
  inputs:
    - {name: sequence, type: seq(tensor(float)), shape: [2]}
    - {name: tensor, type: tensor(float), shape: [2]}
    - {name: position, type: tensor(int64), shape: []}
  outputs:
    - {name: inserted, type: seq(tensor(float)), shape: [2]}
  nodes:
    - op_type: SequenceInsert
      inputs: {input_sequence: sequence, tensor: tensor, position: position}
      outputs: {output_sequence: inserted}
  data_sets:
    - inputs: {sequence: [[1.0, 2.0]], tensor: [3.0, 4.0], position: 1}
      outputs: {inserted: [[1.0, 2.0], [3.0, 4.0]]}
    - inputs: {sequence: [[1.0, 2.0], [5.0, 6.0]], tensor: [3.0, 4.0], position: 2}
      outputs: {inserted: [[3.0, 4.0], [1.0, 2.0], [5.0, 6.0]]}
    - inputs: {sequence: [[1.0, 2.0]], tensor: [3.0, 4.0], position: 5}
      outputs: {inserted: [[1.0, 2.0], [3.0, 4.0]]}
"""


def test_check_case_reports_each_disagreement_at_its_data_set(tmp_path):
    path = tmp_path / "wrong.yaml"
    path.write_text(WRONG)
    [case] = load_cases([path])
    assert [str(p) for p in expectations.check_case(case)] == [
        f"{path}:16:7: case 'wrong_insert': data set 1 disagrees with the spec oracle "
        "(expected: the case file, got: the oracle): output 0 (inserted), element 0, index [0]: "
        "expected 3.0, got 1.0 (2 of 2 values differ); and 2 more",
        f"{path}:18:7: case 'wrong_insert': data set 2: the spec gives no result: "
        "SequenceInsert position 5 is out of the accepted range [-1, 1] for a sequence of 1 "
        "tensor(s)",
    ]


def test_build_fails_on_a_disagreement_and_writes_nothing(tmp_path):
    (tmp_path / "wrong.yaml").write_text(WRONG)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["build", str(tmp_path / "wrong.yaml"), "-o", str(out)])
    assert result.exit_code == 2
    assert "case 'wrong_insert': data set 1 disagrees with the spec oracle" in result.output
    assert "output 0 (inserted), element 0, index [0]: expected 3.0, got 1.0" in result.output
    assert "Traceback" not in result.output
    assert not out.exists()


def test_every_project_case_agrees_with_the_oracle():
    cases = load_cases([ROOT / "cases"])
    assert len(cases) > 700
    problems = [str(p) for case in cases for p in expectations.check_case(case)]
    assert problems == []
