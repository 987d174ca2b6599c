"""Transforms judged as subjects (verify --transform): for each backend B and the chain of
transforms T, T2 given, the subject `T>T2>B` runs each case's model through the chain in the
worker (under the case's --timeout, like a backend) before B prepares it.

A transform's own faults are outcomes of their own: `transform-failed` (it raised, or returned
no model) and `invalid-model` (onnx's full check refused what it made). The baseline rule: a
result of `T>B` counts against the transform only where B passes the untransformed case in the
same run; elsewhere it is `unjudged`, its own outcome kept in `raw_outcome`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from .._core.errors import InvalidModel, TransformFailed, one_line

if TYPE_CHECKING:
    from onnx import ModelProto

    from .._transforms import Transform

#: What joins the transforms of a chain and its backend in a subject's name: `onnxsim>onnxruntime`.
JOIN = ">"
#: The outcome of a transformed subject whose backend does not pass the untransformed case.
UNJUDGED = "unjudged"
#: Outcomes that are no disagreement to explain: a pass, and a subject not judged.
SETTLED = ("pass", UNJUDGED)
#: The outcomes only a transformed subject has.
OWN_OUTCOMES = ("transform-failed", "invalid-model", UNJUDGED)
#: The baseline rule, as every report states it once.
RULE = ("a transformed subject `T>B` is judged only on the cases B passes untransformed in the "
        "same run; elsewhere it is `unjudged` (its own outcome kept as raw_outcome)")


def subject(chain: Iterable[str], backend: str) -> str:
    """The name of backend `backend` run on models the chain of transforms made: `T>T2>B`."""
    return JOIN.join([*chain, backend])


def split(spec: str) -> tuple[tuple[str, ...], str]:
    """A subject's chain of transforms and its backend; a plain backend spec has no chain."""
    *chain, backend = spec.split(JOIN)
    return tuple(chain), backend


def is_transformed(spec: str) -> bool:
    """Whether `spec` names a transformed subject, not a backend."""
    return JOIN in spec


def subjects(specs: Iterable[str], chain: Iterable[str]) -> tuple[str, ...]:
    """Every subject of a run: each backend, followed by the chain on it when there is one."""
    chain = tuple(chain)
    return tuple(name for spec in specs
                 for name in ((spec, subject(chain, spec)) if chain else (spec,)))


def transformed_model(model: ModelProto, chain: list[Transform]) -> tuple[ModelProto | None,
                                                                          str, str]:
    """(the model the chain makes, "", "") or (None, outcome, message) when a transform of the
    chain failed (`transform-failed`) or made a model onnx's checker refuses
    (`invalid-model`); the message is the error's line, naming the transform."""
    from .._transforms import apply_transforms

    try:
        return apply_transforms(model, chain), "", ""
    except TransformFailed as error:
        return None, "transform-failed", one_line(str(error))
    except InvalidModel as error:
        return None, "invalid-model", one_line(str(error))


def described(spec: str) -> str:
    """What a transformed subject runs, with versions, for a report's header."""
    from .._runtimes.backends import describe as describe_backend
    from .._transforms import describe, load_transform

    chain, backend = split(spec)
    try:
        runs = describe_backend(backend)
    except Exception:  # noqa: BLE001 - a runtime not installed here is named as itself
        runs = backend
    return " > ".join([*(describe(load_transform(t)) for t in chain), runs])
