"""The messages between verify and its workers are typed records that survive the pipe as what
they are, and a run leaves the SIGTERM handler as it found it."""

from __future__ import annotations

import pickle
import signal

import pytest

from onnx_seq_tests._core.differences import Difference
from onnx_seq_tests._run import messages
from onnx_seq_tests._run.verifier import verify

RECORDS = [
    messages.CaseTask("suite/test_x", ("onnxruntime", "reference"), ("reference",)),
    messages.Group(),
    messages.ProbeReport([None, "--backend x: prepare failed"]),
    messages.Ready(),
    messages.Broken("BackendSpecError: --backend x: cannot import x"),
    messages.CaseRead({"element": "float", "operators": ["SequenceAt"], "opset": 11}, 42),
    messages.BackendVerdict("onnxruntime", "fail", "data set 0: output 0: expected 1, got 2",
                            0.012, (Difference("value", "1", "2", output=0, data_set=0),)),
    messages.ForkDied(-6),
]


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: type(r).__name__)
def test_a_message_crosses_the_pipe_as_its_own_type(record):
    """What the worker sends is decoded by its type and its fields' names, not by position:
    every kind is a distinct type, and pickling (what the pipe does) keeps type and fields."""
    back = pickle.loads(pickle.dumps(record))
    assert type(back) is type(record)
    assert back._asdict() == record._asdict()
    assert sum(isinstance(back, type(other)) for other in RECORDS) == 1


def test_no_two_kinds_share_a_type():
    assert len({type(r) for r in RECORDS}) == len(RECORDS) == len(messages.__all__)


@pytest.mark.parametrize("handler", ["default", "custom"])
def test_a_run_leaves_the_sigterm_handler_as_it_found_it(mini_suite, handler):
    def custom(signum, frame):  # pragma: no cover - never delivered
        pass

    before = signal.SIG_DFL if handler == "default" else custom
    previous = signal.signal(signal.SIGTERM, before)
    try:
        results = verify(mini_suite, ["onnxruntime"])
        assert signal.getsignal(signal.SIGTERM) is before
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert results and all(r.backend == "onnxruntime" for r in results)
