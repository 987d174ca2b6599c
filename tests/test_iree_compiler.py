"""IREE's compiler kept in a child process (`_runtimes/iree_compiler.py`): what it gives is what
iree-compile as a process gives, byte for byte and message for message; a compiler crash costs
the child, not the caller, and the verdict is then iree-compile's own; a process forked from
the child's owner does not use its pipes."""

import multiprocessing

import numpy as np
import pytest
from onnx import TensorProto, helper

from onnx_seq_tests._core.errors import CompileError
from onnx_seq_tests._runtimes import iree, iree_compiler


def _model(nodes, inputs, outputs, opset=18):
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _tensor(name, elem_type, shape):
    return helper.make_tensor_value_info(name, elem_type, shape)


#: A model iree-compile compiles, one it refuses (a sequence inserted into, the insert left
#: as a torch.operator), and one on which it crashes (a string sequence read by SequenceAt:
#: a segmentation fault after its first error). The adapter refuses string inputs before any
#: compile; `_compile` is given the MLIR here.
COMPILED = _model([helper.make_node("Neg", ["x"], ["y"])], [_tensor("x", TensorProto.FLOAT, [3])],
                  [_tensor("y", TensorProto.FLOAT, [3])])
REFUSED = _model([helper.make_node("SequenceConstruct", ["x"], ["q"]),
                  helper.make_node("SequenceInsert", ["q", "x"], ["r"]),
                  helper.make_node("SequenceLength", ["r"], ["y"])],
                 [_tensor("x", TensorProto.FLOAT, [2])], [_tensor("y", TensorProto.INT64, [])])
CRASHES = _model([helper.make_node("SequenceConstruct", ["x", "x"], ["q"]),
                  helper.make_node("SequenceAt", ["q", "i"], ["y"])],
                 [_tensor("x", TensorProto.STRING, []), _tensor("i", TensorProto.INT64, [])],
                 [_tensor("y", TensorProto.STRING, [])])


def _verdict(model, monkeypatch, how: str):
    """(the module, or the CompileError's message) of `model` compiled `how`: "kept" (the
    child) or "process" (iree-compile)."""
    monkeypatch.setenv("ONNX_SEQ_TESTS_IREE_COMPILER", how)
    numbered, places = iree._numbered(model)
    try:
        return iree._compile(iree._imported(numbered, places), 60.0, places)
    except CompileError as error:
        return str(error)


def _child_pid():
    child = iree_compiler.KEPT.child
    return None if child is None or child.process.poll() is not None else child.process.pid


def _negated(module: bytes) -> list[float]:
    """What COMPILED's module gives for [1.5, -0.0, 2] on IREE's runtime."""
    import iree.runtime as rt

    config = rt.Config(iree.DRIVER)
    context = rt.SystemContext(config=config)
    context.add_vm_module(rt.VmModule.copy_buffer(context.instance, module))
    result = context.modules.module["g"](np.array([1.5, -0.0, 2], np.float32))
    return np.asarray(result.to_host()).tolist()


def test_the_kept_compiler_gives_what_iree_compile_gives(monkeypatch):
    """The same diagnostics; a module of the same size that computes the same (iree-compile's
    own modules differ from run to run in a few bytes of their embedded library's archive)."""
    kept, process = (_verdict(COMPILED, monkeypatch, how) for how in ("kept", "process"))
    assert len(kept) == len(process) > 1000
    assert _negated(kept) == _negated(process) == [-1.5, 0.0, -2.0]
    assert _verdict(REFUSED, monkeypatch, "kept") == _verdict(REFUSED, monkeypatch, "process")
    refused = _verdict(REFUSED, monkeypatch, "kept")
    assert refused.startswith("iree-compile: failed to legalize operation 'torch.operator'")
    assert refused.endswith("(onnx.SequenceInsert)")
    pid = _child_pid()
    _verdict(COMPILED, monkeypatch, "kept")
    assert pid is not None and _child_pid() == pid, "one child for many models"


def test_a_compiler_crash_costs_the_child_and_the_verdict_is_iree_compiles(monkeypatch):
    _verdict(COMPILED, monkeypatch, "kept")
    before = _child_pid()
    crashed = _verdict(CRASHES, monkeypatch, "kept")
    assert crashed == _verdict(CRASHES, monkeypatch, "process")
    assert crashed.startswith("iree-compile: unimplemented: conversion of dtype '!torch.str'")
    assert _child_pid() is None, "the crashed child is gone"
    assert isinstance(_verdict(COMPILED, monkeypatch, "kept"), bytes)
    assert _child_pid() not in (None, before), "the next model got a new child"


def _in_fork(queue):
    numbered, places = iree._numbered(COMPILED)
    source = iree._imported(numbered, places).encode()
    queue.put(iree_compiler.kept_compile(source, iree.FLAGS, 60.0))


def test_a_process_forked_from_the_owner_does_not_use_its_child(monkeypatch):
    _verdict(COMPILED, monkeypatch, "kept")
    pid = _child_pid()
    assert pid is not None
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    forked = context.Process(target=_in_fork, args=(queue,))
    forked.start()
    assert queue.get(timeout=60) is None  # iree-compile as a process, then
    forked.join(60)
    assert _child_pid() == pid and isinstance(_verdict(COMPILED, monkeypatch, "kept"), bytes)


def test_a_child_that_overruns_is_ended(monkeypatch):
    numbered, places = iree._numbered(COMPILED)
    source = iree._imported(numbered, places)
    monkeypatch.setenv("ONNX_SEQ_TESTS_IREE_COMPILER", "kept")
    with pytest.raises(RuntimeError, match=r"iree-compile gave no result within 0.001 s"):
        iree._compile(source, 0.001, places)
    assert _child_pid() is None
    assert isinstance(iree._compile(source, 60.0, places), bytes)


def test_an_importer_error_names_its_node_when_the_node_has_a_name_of_its_own():
    for name, suffix in (("cast", " at node 'cast'"), ("", "")):
        model = _model([helper.make_node("Cast", ["x"], ["u"], to=TensorProto.UINT2, name=name),
                        helper.make_node("Cast", ["u"], ["y"], to=TensorProto.FLOAT)],
                       [_tensor("x", TensorProto.FLOAT, [2])],
                       [_tensor("y", TensorProto.FLOAT, [2])], opset=25)
        numbered, places = iree._numbered(model)
        with pytest.raises(CompileError) as raised:
            iree._imported(numbered, places)
        assert str(raised.value) == ("importer: Unknown ONNX tensor element type: "
                                     f"{TensorProto.UINT2}{suffix}")


def test_an_error_located_nowhere_names_the_nodes_left_unconverted(monkeypatch):
    """iree-compile reports the constant 1 that SplitToSequence's split and axis share once
    folded (located nowhere); the IR printed after the failed pass still holds that program's
    list operations, at its nodes: the message names them (a pack's refusal is then located at
    its program), and not the program beside it; kept and process alike."""
    nodes = [helper.make_node("Neg", ["p0_x"], ["p0_y"], name="p0_y"),
             helper.make_node("SplitToSequence", ["p1_x", "p1_k"], ["p1_s"], axis=1,
                              name="p1_s"),
             helper.make_node("SequenceLength", ["p1_s"], ["p1_n"], name="p1_n")]
    graph = helper.make_graph(
        nodes, "g", [_tensor("p0_x", TensorProto.FLOAT, [3]),
                     _tensor("p1_x", TensorProto.INT32, [1, 1])],
        [_tensor("p0_y", TensorProto.FLOAT, [3]), _tensor("p1_n", TensorProto.INT64, [])],
        [helper.make_tensor("p1_k", TensorProto.INT64, [1], [1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    expected = ("iree-compile: failed to legalize operation 'torch.constant.int' "
                "(left unconverted: node 'p1_s', node 'p1_n')")
    assert _verdict(model, monkeypatch, "kept") == expected
    assert _verdict(model, monkeypatch, "process") == expected
    for node in model.graph.node:
        node.name = ""
    assert _verdict(model, monkeypatch, "kept") == (
        "iree-compile: failed to legalize operation 'torch.constant.int'")
