"""Transforms judged by `verify --transform` (onnx_seq_tests/_run/transformed.py): the subject
`T>B` beside each backend, run for real on a few case folders of the committed suite with
onnxruntime; a transform's own faults, the baseline rule, --xfail, a bad spec and the JSON
report read back by `report`."""

import json
import shutil
import textwrap

import pytest
from click.testing import CliRunner
from conftest import GENERATED

from onnx_seq_tests._cli import main
from onnx_seq_tests._reports.xfail_files import file_name

#: onnxruntime passes the first and refuses the second (it has no complex128 tensors).
PASSED, REFUSED = "test_sequence_construct_v11_float", "test_sequence_construct_v11_complex128"

#: Transforms of one's own, as a tool's repository would name them (`module:function`).
TOOLS = textwrap.dedent('''
    import os
    import time

    def hangs(model):
        time.sleep(60)

    def dies(model):
        os._exit(3)

    def gives_up(model):
        raise RuntimeError("the tool gave up")

    def breaks(model):
        model.graph.node[0].op_type = "NoSuchOp"
        return model

    def reverses(model):
        """Changes the values: a SequenceConstruct's items in reverse order."""
        for node in model.graph.node:
            if node.op_type == "SequenceConstruct":
                items = list(node.input)
                del node.input[:]
                node.input.extend(reversed(items))
        return model
''')


@pytest.fixture
def suite(tmp_path, monkeypatch):
    """Two case folders (one onnxruntime passes, one it refuses), and the module `tv_tools`
    (TOOLS) on PYTHONPATH."""
    root = tmp_path / "suite"
    for name in (PASSED, REFUSED):
        shutil.copytree(sorted(GENERATED.glob(f"*/{name}"))[0], root / name)
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "tv_tools.py").write_text(TOOLS)
    monkeypatch.syspath_prepend(str(tools))
    return root


def _verify(suite, *options: str):
    done = CliRunner().invoke(main, ["verify", str(suite), "-b", "onnxruntime", *options])
    assert "Traceback" not in done.output, done.output
    return done


def _outcomes(path) -> dict[tuple[str, str], tuple[str, str, str]]:
    report = json.loads(path.read_text())
    return {(r["backend"], r["name"]): (r["outcome"], r["raw_outcome"], r["message"])
            for r in report["results"]}


def test_a_builtin_transform_passes_where_its_backend_passes(suite, tmp_path):
    """onnx-text (print, parse): the case onnxruntime passes passes transformed; the one it
    refuses is unjudged, saying why, with the transformed run's own outcome kept."""
    report = tmp_path / "r.json"
    done = _verify(suite, "--transform", "onnx-text", "-k", "float|complex128", "--json",
                   str(report))
    assert done.exit_code == 1, done.output  # onnxruntime's own refusal
    outcomes = _outcomes(report)
    assert outcomes[("onnx-text>onnxruntime", PASSED)][0] == "pass"
    outcome, raw, message = outcomes[("onnx-text>onnxruntime", REFUSED)]
    assert (outcome, raw) == ("unjudged", "refused")
    assert message == ("not judged: onnxruntime itself gives refused on the untransformed "
                       "model")
    assert json.loads(report.read_text())["described"]["onnx-text>onnxruntime"].startswith(
        "onnx-text (onnx ")
    assert "1 unjudged" in done.output and "is judged only on the cases B passes" in done.output
    assert "[onnx-text>onnxruntime]" not in done.output  # an unjudged case is not listed


@pytest.mark.parametrize(("function", "outcome", "message"), [
    ("gives_up", "transform-failed", "tv_tools:gives_up: RuntimeError: the tool gave up"),
    ("breaks", "invalid-model", "tv_tools:breaks made an invalid model: "),
    ("reverses", "fail", "data set 0: "),
])
def test_a_transform_of_ones_own_is_judged_by_what_it_made(suite, function, outcome,
                                                            message):
    subject = f"tv_tools:{function}>onnxruntime"
    done = _verify(suite, "--transform", f"tv_tools:{function}", "-k", "float")
    assert done.exit_code == 1, done.output
    line = next(line for line in done.output.splitlines() if f"[{subject}]" in line)
    assert line.startswith(f"{outcome.upper():5} [{subject}] ")
    assert line.split(": ", 1)[1].startswith(message)
    assert "onnxruntime: 1 passed" in done.output


@pytest.mark.parametrize(("function", "outcome"), [("hangs", "timeout"), ("dies", "crash")])
def test_a_transform_that_hangs_or_dies_is_the_subjects_timeout_or_crash(suite, function,
                                                                        outcome):
    """The chain runs in the worker under the case's --timeout: its process is ended, and the
    backend itself is still judged."""
    subject = f"tv_tools:{function}>onnxruntime"
    done = _verify(suite, "--transform", f"tv_tools:{function}", "-k", "float",
                   "--timeout", "2")
    assert done.exit_code == 1, done.output
    line = next(line for line in done.output.splitlines() if f"[{subject}]" in line)
    assert line.startswith(f"{outcome.upper():5} [{subject}] ")
    assert ": the transform or the backend " in line
    assert "onnxruntime: 1 passed" in done.output


def test_a_chain_runs_in_order_and_an_xfail_line_names_the_subject(suite, tmp_path):
    subject = "onnx-text>tv_tools:reverses>onnxruntime"
    xfail, baseline = tmp_path / "xfail.txt", tmp_path / "baseline.txt"
    xfail.write_text(f"{subject} {PASSED.removeprefix('test_')}\n")
    baseline.write_text(f"onnxruntime {REFUSED}\n")  # --xfail repeats: every file's entries
    report = tmp_path / "r.json"
    done = _verify(suite, "--transform", "onnx-text", "--transform", "tv_tools:reverses",
                   "--xfail", str(baseline), "--xfail", str(xfail), "--strict-xfail",
                   "--json", str(report), "--markdown", str(tmp_path / "r.md"))
    assert done.exit_code == 0, done.output
    quoted = (tmp_path / "r.md").read_text()  # the command it quotes lists each file
    assert "--xfail baseline.txt --xfail xfail.txt" in quoted
    outcomes = _outcomes(report)
    assert outcomes[(subject, PASSED)][:2] == ("xfail", "fail")
    assert outcomes[(subject, REFUSED)][:2] == ("unjudged", "refused")
    update = CliRunner().invoke(main, ["xfail-update", str(report), "-b", subject,
                                       "-o", str(tmp_path / "x")])
    assert update.exit_code == 0, update.output
    written = (tmp_path / "x" / file_name(subject)).read_text()
    assert file_name(subject) == "onnx-text+tv_tools.reverses+onnxruntime.txt"
    assert f"\n{subject} {PASSED}\n" in written and REFUSED not in written
    assert "-b onnxruntime --transform onnx-text --transform tv_tools:reverses" in written


@pytest.mark.parametrize(("spec", "said"), [
    ("no-such-tool", "not a transform name (onnxsim, "),
    ("tv_tools:missing", "'tv_tools' has no attribute 'missing'"),
    ("no_such_module_here:optimize", "cannot import module 'no_such_module_here'"),
])
def test_a_bad_transform_is_a_usage_error_before_any_work(suite, spec, said):
    done = _verify(suite, "--transform", spec)
    assert done.exit_code == 2
    errors = [line for line in done.output.splitlines() if line.startswith("Error")]
    assert len(errors) == 1 and said in errors[0], done.output


def test_the_json_report_of_a_transformed_run_merges(suite, tmp_path):
    """`report` reads the subjects and the new outcomes back and renders them as columns."""
    report = tmp_path / "r.json"
    _verify(suite, "--transform", "tv_tools:gives_up", "--json", str(report))
    merged = tmp_path / "m.json"
    done = CliRunner().invoke(main, ["report", str(report), "--json", str(merged),
                                     "--markdown", str(tmp_path / "m.md"),
                                     "--html", str(tmp_path / "m.html")])
    assert done.exit_code == 0, done.output
    assert _outcomes(merged) == _outcomes(report)
    document = json.loads(merged.read_text())
    assert document["backends"] == ["onnxruntime", "tv_tools:gives_up>onnxruntime"]
    assert document["totals"]["tv_tools:gives_up>onnxruntime"]["transform-failed"] == 1
    assert "is judged only on the cases B passes" in document["baseline_rule"]
    markdown = (tmp_path / "m.md").read_text()
    assert "`tv_tools:gives_up>onnxruntime`" in markdown and "1T" in markdown
    assert "is judged only on the cases B passes" in markdown
    assert "tv_tools:gives_up&gt;onnxruntime" in (tmp_path / "m.html").read_text()


def test_the_python_api_takes_the_chain_too(suite):
    from onnx_seq_tests._core.errors import ArgumentError
    from onnx_seq_tests._run.verifier import verify

    results = verify(suite, ["onnxruntime"], transforms=["tv_tools:reverses"], select=["float"])
    assert [(r.backend, r.outcome) for r in results] == [
        ("onnxruntime", "pass"), ("tv_tools:reverses>onnxruntime", "fail")]
    with pytest.raises(ArgumentError, match="^verify: --transform 'nothing:here': cannot import"):
        verify(suite, ["onnxruntime"], transforms=["nothing:here"])
