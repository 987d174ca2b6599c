"""Transforms as subjects: the tools that rewrite a model between an exporter and a runtime
(optimizers, converters, IR libraries) run on each case's model before a backend runs it.

A transform is named by a spec: a built-in name (TRANSFORMS) or `module:function` naming any
`ModelProto -> ModelProto` callable on PYTHONPATH. `apply_transforms` runs a chain of them in
order and tells their faults apart from the runtime's: `TransformFailed` when a transform raises
or returns something else than a model, `InvalidModel` when onnx's checker (full check: strict
shape inference too) refuses the model it made. Every model of the suite passes that check
untransformed (tests/test_transforms.py holds it), so an invalid model is the transform's.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass

import onnx
from onnx import ModelProto

from .._core.errors import ArgumentError, InvalidModel, TransformFailed, one_line
from .._core.problems import shorten
from . import builtin


@dataclass(frozen=True)
class Transform:
    """One transform: its spec as written, the function, the distribution whose version the
    reports name (None for onnx itself, or for `module:function`: found by describe), and a
    line saying what it does."""

    name: str
    apply: Callable[[ModelProto], ModelProto]
    distribution: str | None
    summary: str


def _builtin(name: str, apply: Callable[[ModelProto], ModelProto],
             distribution: str | None) -> Transform:
    return Transform(name, apply, distribution, (apply.__doc__ or "").split("\n\n")[0]
                     .replace("\n", " "))


#: The built-in transforms by name, in the order the reports list them.
TRANSFORMS = {t.name: t for t in (
    _builtin("onnxsim", builtin.onnxsim, "onnxsim"),
    _builtin("onnxoptimizer", builtin.onnxoptimizer, "onnxoptimizer"),
    _builtin("onnxoptimizer-fuse", builtin.onnxoptimizer_fuse, "onnxoptimizer"),
    _builtin("onnxslim", builtin.onnxslim, "onnxslim"),
    _builtin("onnxscript-optimize", builtin.onnxscript_optimize, "onnxscript"),
    _builtin("onnxscript-rewrite", builtin.onnxscript_rewrite, "onnxscript"),
    _builtin("onnx-ir", builtin.onnx_ir_round_trip, "onnx-ir"),
    _builtin("onnx-ir-passes", builtin.onnx_ir_passes, "onnx-ir"),
    _builtin("onnx-text", builtin.onnx_text_round_trip, None),
    _builtin("onnx-inline", builtin.onnx_inline, None),
    _builtin("onnx-shape-inference", builtin.onnx_shape_inference, None),
    _builtin("version-newest", builtin.version_newest, None),
    _builtin("version-lowest", builtin.version_lowest, None),
    _builtin("onnxruntime-offline", builtin.onnxruntime_offline, "onnxruntime"),
)}

_TARGET = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


def load_transform(spec: str) -> Transform:
    """The transform a spec names: a built-in name or `module:function`; ArgumentError naming
    the spec and what it takes when it names nothing usable."""
    if not isinstance(spec, str):
        raise ArgumentError(f"a transform is named by a str, not {type(spec).__name__}")
    if spec in TRANSFORMS:
        return TRANSFORMS[spec]
    names = ", ".join(TRANSFORMS)
    if not _TARGET.fullmatch(spec):
        raise ArgumentError(f"--transform {spec!r}: not a transform name ({names}) nor "
                            "`module:function` naming a ModelProto -> ModelProto callable")
    module_name, _, path = spec.partition(":")
    try:
        target = importlib.import_module(module_name)
    except Exception as error:  # an import can fail in any way; report it, do not crash
        raise ArgumentError(f"--transform {spec!r}: cannot import module {module_name!r}: "
                            f"{_said(error)}; is its folder on PYTHONPATH?") from None
    for part in path.split("."):
        if not hasattr(target, part):
            raise ArgumentError(f"--transform {spec!r}: {module_name!r} has no attribute "
                                f"{path!r}")
        target = getattr(target, part)
    if not callable(target):
        raise ArgumentError(f"--transform {spec!r}: {path!r} is not callable")
    return Transform(spec, target, None, f"`{spec}`")


def _distribution(module_name: str) -> str:
    """The installed distribution that holds the module's top-level package, "" for none."""
    from importlib.metadata import packages_distributions

    return next(iter(packages_distributions().get(module_name.partition(".")[0], [])), "")


def apply_transforms(model: ModelProto, transforms: list[Transform]) -> ModelProto:
    """`model` as the chain of transforms leaves it, each run on a copy of what the one before
    made and its result checked; TransformFailed or InvalidModel naming the first that fails."""
    for transform in transforms:
        given = ModelProto()
        given.CopyFrom(model)
        try:
            made = transform.apply(given)
        except Exception as error:  # a tool can fail in any way: that is what is reported
            raise TransformFailed(transform.name, _said(error)) from None
        if not isinstance(made, ModelProto):
            raise TransformFailed(transform.name, f"returned {type(made).__name__}, not a "
                                                  "ModelProto")
        try:
            onnx.checker.check_model(made, full_check=True)
        except Exception as error:
            raise InvalidModel(transform.name, _said(error, named=False)) from None
        model = made
    return model


#: How deep `_said` follows an exception's causes.
CAUSES_FOLLOWED = 8
#: An object's address in its default repr (`<Pass object at 0x7f...>`): it differs from run to
#: run, and the same cases must give the same recorded verdicts.
_ADDRESS = re.compile(r" at 0x[0-9A-Fa-f]+")


def _said(error: BaseException, named: bool = True) -> str:
    """What an exception says, on one bounded line: its type (when `named`) and first line.
    A tool that wraps the error it met (`raise ... from`, as a pass manager's PassError) is
    named with the error at the root of its causes, `PassError from TypeError: ...`, so that
    reports group failures by their root; object addresses are left out, so the same failure
    says the same words."""
    root, depth = error, 0
    while depth < CAUSES_FOLLOWED and root.__cause__ is not None:  # `raise ... from`
        root, depth = root.__cause__, depth + 1
    lines = _ADDRESS.sub("", str(root)).strip().splitlines()
    said = one_line(lines[0].strip()) if lines else ""
    if named:
        kind = type(root).__name__ if root is error else \
            f"{type(error).__name__} from {type(root).__name__}"
        said = f"{kind}: {said}" if said else kind
    return shorten(said, 300)


def describe(transform: Transform) -> str:
    """The transform and the version of the tool that runs it, for a report's header."""
    from importlib.metadata import PackageNotFoundError, version

    distribution = transform.distribution or "onnx"
    if transform.name not in TRANSFORMS:  # module:function: the distribution holding it
        distribution = _distribution(transform.name.partition(":")[0])
        if not distribution:
            return f"{transform.name} (not from an installed distribution)"
    try:
        return f"{transform.name} ({distribution} {version(distribution)})"
    except PackageNotFoundError:
        return f"{transform.name} ({distribution} not installed)"
