"""The runtime findings (docs/findings/make_findings.py): the committed pages and models are what
the script writes, every model is valid, and every expected value a page gives is the spec's:
the suite's oracle computes it from the model and the feeds of the one-line reproduction."""

import re

import numpy as np
import onnx
import pytest
from findings_scripts import FINDINGS, assert_committed, load

from onnx_seq_tests._oracle import oracle


def _script():
    return load("make_findings")


@pytest.fixture(scope="module")
def found():
    return {f.name: f for f in _script().findings()}


def test_the_committed_models_and_pages_are_what_the_script_writes(found, tmp_path,
                                                                   monkeypatch):
    assert_committed("make_findings", list(found.values()), tmp_path, monkeypatch)


def test_every_runtime_has_a_page_and_every_finding_a_section(found):
    script = _script()
    for runtime in script.RUNTIMES:
        page = (FINDINGS / f"{runtime}.md").read_text(encoding="utf-8")
        for f in found.values():
            assert (f.runtime == runtime) == (f"`{f.name}.onnx`" in page), (runtime, f.name)
            assert f.runtime in script.RUNTIMES


def _oracle_outputs(f) -> list:
    model = onnx.load_from_string(f.model.SerializeToString())
    onnx.checker.check_model(model, full_check=True)
    feeds = eval(f.feeds, {"np": np})  # noqa: S307 - the script's own literal
    inputs = [feeds[i.name] for i in model.graph.input] if isinstance(feeds, dict) else feeds
    return oracle.run_model(model, inputs)


def _iree_text(values: list) -> str:
    """A result as iree-run-module prints its values: `[SHAPEx]TYPE=v v ...`."""
    (value,) = values
    kind = {np.dtype(np.int64): "i64", np.dtype(np.float32): "f32"}[value.dtype]
    shape = "".join(f"{d}x" for d in value.shape)
    return f"{shape}{kind}=" + " ".join(f"{v:g}" for v in value.reshape(-1).tolist())


@pytest.mark.parametrize("name", sorted(f.name for f in _script().findings()))
def test_the_expected_values_are_the_spec_oracles(found, name):
    f = found[name]
    computed = _oracle_outputs(f)
    if f.runtime == "iree":
        assert _iree_text(computed) == f.expected_values
        return
    expected = eval(f.expected_values, {"np": np})  # noqa: S307 - the script's own literal
    assert len(computed) == len(expected)
    for got, want in zip(computed, expected, strict=True):
        assert np.asarray(got).dtype == want.dtype or want.dtype.kind == "U"
        np.testing.assert_array_equal(np.asarray(got).astype(want.dtype), want)


def test_the_check_tells_a_fixed_bug_from_one_still_there(found, monkeypatch):
    """`--check`'s decision, on the one-liner's printed text: the spec's output is `fixed`, the
    recorded one `still there`, anything else `changed` (a real run: `python -c print(...)`)."""
    script = _script()
    f = found["openvino_loop_zero_trips"]
    for printed, status in ((f.fixed_text(), "fixed"), (f.got, "still there"),
                            ("[array(5)]", "changed")):
        monkeypatch.setattr(type(f), "command", lambda self, text=printed: (
            f"python -c {_quoted(text)}"))
        assert script.reproduce(f)[0] == status, printed


def _quoted(text: str) -> str:
    return "'print(" + re.sub(r"'", r"'\\''", repr(text)) + ")'"
