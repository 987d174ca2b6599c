"""verify's arguments are checked once, in one place the command line and the API share
(verifier.check_arguments), and the workers' fork server is started from that one place."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from onnx_seq_tests._cli import main
from onnx_seq_tests._core.errors import one_line
from onnx_seq_tests._core.problems import ArgumentError
from onnx_seq_tests._run import fork_server
from onnx_seq_tests._run.verifier import verify
from onnx_seq_tests._runtimes import backends
from onnx_seq_tests._runtimes.backends import BackendSpecError

sys.path.insert(0, str(Path(__file__).parent))  # module:attr backends from faulty_backends

#: A -k regex no other code compiles, so its compilations can be counted.
PATTERN = "sequence_empty_default_dtyp[e]"


def counting(monkeypatch, owner, name: str, counted=lambda *args: True) -> list:
    """Count the calls of owner.name (those `counted` accepts), still calling it."""
    calls: list = []
    original = getattr(owner, name)

    def wrapper(*args, **kwargs):
        if counted(*args):
            calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, wrapper)
    return calls


def test_the_command_line_checks_each_argument_once(mini_suite, monkeypatch):
    """One `gen-seq-tests verify`: the backend spec is loaded once in the parent (it was
    twice: the command's check, then verify's), the -k regex compiled once (twice: the
    command's check, then the selection), and the fork server started once (three times:
    the command, verify and the pool)."""
    loads = counting(monkeypatch, backends, "load_backend")
    starts = counting(monkeypatch, fork_server, "start_fork_server")
    compiles = counting(monkeypatch, re, "compile", lambda pattern, *rest: pattern == PATTERN)
    done = CliRunner().invoke(main, ["verify", str(mini_suite), "-b",
                                     "faulty_backends:ChangeValue", "-k", PATTERN])
    assert done.exit_code == 0, done.output
    assert (len(loads), len(starts), len(compiles)) == (1, 1, 1)


def test_the_api_checks_each_argument_once(mini_suite, monkeypatch):
    loads = counting(monkeypatch, backends, "load_backend")
    starts = counting(monkeypatch, fork_server, "start_fork_server")
    compiles = counting(monkeypatch, re, "compile", lambda pattern, *rest: pattern == PATTERN)
    results = verify(mini_suite, ["faulty_backends:ChangeValue"], select=[PATTERN])
    assert [r.name for r in results] == [f"test_{PATTERN.replace('[e]', 'e')}"]
    assert (len(loads), len(starts), len(compiles)) == (1, 1, 1)


@pytest.mark.parametrize("spec", ["faulty_backends:NoSuchThing", "no_such_module_here"])
def test_a_bad_spec_is_the_same_one_line_from_the_command_line_and_the_api(mini_suite, spec):
    with pytest.raises(BackendSpecError) as raised:
        verify(mini_suite, [spec])
    done = CliRunner().invoke(main, ["verify", str(mini_suite), "-b", spec])
    assert done.exit_code == 2
    assert f"Invalid value for --backend: {one_line(str(raised.value))}\n" in done.output
    assert "Traceback" not in done.output


@pytest.mark.parametrize("args, kwargs, option, text", [
    (["-b", "onnxruntime", "-b", "onnxruntime"], {"specs": ["onnxruntime", "onnxruntime"]},
     "--backend", "onnxruntime given more than once"),
    (["-b", "onnxruntime", "-k", "test_("], {"specs": ["onnxruntime"], "select": ["test_("]},
     "-k", "'test_(' is not a valid regex: missing ), unterminated subpattern at position 5"),
])
def test_a_bad_argument_is_the_same_text_from_the_command_line_and_the_api(mini_suite, args,
                                                                          kwargs, option, text):
    """The API refuses what the command line refuses, with the same text (the API's says
    `verify:` first, the command line's names the option)."""
    with pytest.raises(ArgumentError) as raised:
        verify(mini_suite, **kwargs)
    assert str(raised.value) == f"verify: {text}"
    done = CliRunner().invoke(main, ["verify", str(mini_suite), *args])
    assert done.exit_code == 2
    assert f"Invalid value for {option}: {text}\n" in done.output
    assert "Traceback" not in done.output
