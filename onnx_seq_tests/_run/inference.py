"""Type and shape inference judged: what onnx's shape inference and a runtime's session say a
case's outputs are, held against the types the case declares and the values the spec gives.

Inference is judged from scratch: each graph output's type and every value_info are cleared
first, so the inferrer cannot echo what the case wrote. A finding is an output where
- the kind or element type inferred differs from the declared one (`type`), or
- a dimension inferred as a number differs from the expected value's in some data set, or the
  rank differs (`shape`): the expected values are the spec's answer (the oracle computed them
  when the suite was built), so no case file's spelling of a shape decides, or
- the inferrer raised on the model without output types though it takes the case's own
  model (`raised`).
An output inferred with no type, or with fewer known dimensions, is not a finding: inference may
know less than the run, never something else.

Inferrers: `onnx` (onnx.shape_inference.infer_shapes, strict mode, with data propagation) and
`onnxruntime` (the types an InferenceSession reports for its outputs; its Python API reports a
shape it does not know as [], like a scalar's, so only its types are judged).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
import onnx
from onnx import ModelProto

from .._core.errors import NotJudged, one_line
from .._core.problems import shorten
from .._core.value_kinds import (
    OptionalType,
    SequenceType,
    ValueType,
    from_type_proto,
    innermost,
    parse_type,
)
from .._published.case_folder import CaseFolder
from .._published.discovery import CaseRef
from .verifier import Result
from .worker_main import read

KINDS = ("type", "shape", "raised")


@dataclass(frozen=True)
class InferenceFinding:
    """One output of one case where an inferrer disagrees with the spec."""

    case: str  # the case folder's name
    inferrer: str  # "onnx" or "onnxruntime"
    output: str  # the graph output's name ("" when the inferrer raised)
    kind: str  # one of KINDS
    message: str  # what was inferred against what was expected, on one line


def _stripped(model: ModelProto) -> ModelProto:
    """A copy of `model` with no output type and no value_info: nothing to echo."""
    bare = ModelProto()
    bare.CopyFrom(model)
    for output in bare.graph.output:
        output.ClearField("type")
    del bare.graph.value_info[:]
    return bare


def onnx_inferred(model: ModelProto) -> list[ValueType | None]:
    """The output types onnx infers for `model` from scratch (None where it infers none)."""
    inferred = onnx.shape_inference.infer_shapes(_stripped(model), strict_mode=True,
                                                 data_prop=True)
    return [_type_of(output.type) for output in inferred.graph.output]


def onnxruntime_reported(model: ModelProto) -> list[ValueType | None]:
    """The output types an onnxruntime CPU session reports for `model` from scratch (shapes
    left unknown: see the module's docstring); NotJudged when it refuses the case's own model
    as well (an operator or type it does not implement is a refusal, not an inference)."""
    try:
        session = _session(_stripped(model))
    except Exception:
        try:
            _session(model)
        except Exception as error:
            raise NotJudged(str(error)) from None
        raise
    return [_parsed(output.type) for output in session.get_outputs()]


def _session(model: ModelProto):
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.log_severity_level = 4
    return onnxruntime.InferenceSession(model.SerializeToString(), options,
                                        providers=["CPUExecutionProvider"])


INFERRERS: dict[str, Callable[[ModelProto], list[ValueType | None]]] = {
    "onnx": onnx_inferred, "onnxruntime": onnxruntime_reported}


def _type_of(proto: onnx.TypeProto) -> ValueType | None:
    try:
        return from_type_proto(proto)
    except (TypeError, KeyError):  # no type inferred, or no element type
        return None


def _parsed(text: str) -> ValueType | None:
    try:
        return parse_type(text)
    except ValueError:
        return None


def judge(folder: CaseFolder, inferrer: str) -> list[InferenceFinding]:
    """The findings of one inferrer on one case folder; NotJudged when the inferrer refuses
    the case's own model."""
    try:
        inferred = INFERRERS[inferrer](folder.model)
    except NotJudged:
        raise
    except Exception as error:  # an inferrer can fail in any way: that is the finding
        lines = str(error).strip().splitlines() or [type(error).__name__]
        return [InferenceFinding(folder.name, inferrer, "", "raised",
                                 shorten(one_line(lines[0]), 300))]
    names = [output.name for output in folder.model.graph.output]
    if len(inferred) != len(names):
        return [InferenceFinding(folder.name, inferrer, "", "type", f"infers {len(inferred)} "
                                 f"outputs, the model has {len(names)}")]
    found = []
    outputs = zip(names, folder.output_types, inferred, strict=True)
    for j, (name, declared, got) in enumerate(outputs):
        if got is None:
            continue
        message = _type_disagreement(got, declared)
        kind = "type"
        if message is None and inferrer == "onnx":
            kind, message = "shape", _shape_disagreement(
                got, [(k, outputs[j]) for k, (_, outputs) in enumerate(folder.data_sets)])
        if message:
            found.append(InferenceFinding(folder.name, inferrer, name, kind, message))
    return found


def _type_disagreement(got: ValueType, declared: ValueType) -> str | None:
    if str(got) == str(declared):
        return None
    return f"infers {got}, the case declares {declared}"


def _shape_disagreement(got: ValueType, values: Iterable[tuple[int, object]]) -> str | None:
    """The first data set whose expected value has a shape `got` does not admit."""
    for k, value in values:
        for shape in _shapes(got, value):
            tensor = innermost(got)
            if tensor.shape is None:
                continue
            if len(tensor.shape) != len(shape) or any(isinstance(d, int) and d != s for d, s
                                                      in zip(tensor.shape, shape, strict=True)):
                return (f"infers shape {_text(tensor.shape)}, data set {k} expects "
                        f"{_text(shape)}")
    return None


def _shapes(value_type: ValueType, value: object) -> list[tuple[int, ...]]:
    """The shapes of the tensors of an expected value, by its type."""
    if isinstance(value_type, OptionalType):
        return [] if value is None else _shapes(value_type.element, value)
    if isinstance(value_type, SequenceType):
        return [tuple(np.shape(item)) for item in value] if isinstance(value, list) else []
    return [tuple(np.shape(value))]  # type: ignore[call-overload]  # an expected tensor


def _text(shape: tuple) -> str:
    return "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"



def run_inference(refs: Iterable[CaseRef], inferrers: Iterable[str]) -> list[Result]:
    """Each inferrer on each case folder of `refs` (found by `find_cases`) as a verify Result,
    so every report, the notes and `gen-seq-tests report` take them as they take a runtime's:
    the subject is `<inferrer>-inference` (subject_of); `pass` when nothing disagrees, `fail`
    with each finding (`output: message`, `; `-joined), `refused` when the inferrer refuses
    the case's own model; a folder that cannot be read is what verify makes of it (unread)."""
    inferrers = tuple(inferrers)
    results = []
    for ref in refs:
        folder, info = read(ref.path, strict=True)  # what the case is about: once
        operators = ref.operators if ref.operators is not None else tuple(info["operators"])
        for inferrer in inferrers:
            outcome, message = info["unread"][:2] if folder is None else _outcome(folder,
                                                                                  inferrer)
            results.append(Result(ref.case, ref.name, subject_of(inferrer), outcome, message,
                                  operators, info["element"], 0.0, ref.opset, ref.source,
                                  form=ref.form))
    return results


def subject_of(inferrer: str) -> str:
    """How reports, xfail files and notes name an inferrer's results: `onnx-inference`."""
    return f"{inferrer}-inference"


def described(inferrer: str) -> str:
    """What an inferrer runs, with its version, for a report's header."""
    from importlib.metadata import version

    if inferrer == "onnx":
        return f"onnx {version('onnx')} shape inference (strict, data propagation)"
    return f"onnxruntime {version('onnxruntime')} session output types (CPU)"


def _outcome(folder: CaseFolder, inferrer: str) -> tuple[str, str]:
    try:
        findings = judge(folder, inferrer)
    except NotJudged as refusal:
        return "refused", shorten(one_line((str(refusal).strip() or "refused").splitlines()[0]),
                                  300)
    if not findings:
        return "pass", ""
    if findings[0].kind == "raised":
        return "error", findings[0].message
    return "fail", "; ".join(f"{f.output}: {f.message}" for f in findings)
