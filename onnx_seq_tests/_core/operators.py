"""What onnx.defs says about operators: versions, formal inputs, attributes, allowed types.

Nothing here is a hand-kept list but `CARRIERS`: versions, formal names, optional inputs,
attribute types, allowed type strings and the set of sequence/optional operators all come from
the installed onnx's schemas, read once (`get_all_schemas_with_history` is slow).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from onnx import ModelProto, defs, helper

from .value_kinds import HOLDER_PREFIXES, from_schema_text

OPTIONAL = defs.OpSchema.FormalParameterOption.Optional
VARIADIC = defs.OpSchema.FormalParameterOption.Variadic

#: Operators whose schemas admit any value type, sequences and optionals among them (control
#: flow and Identity): they carry sequences and optionals, they are not sequence operators.
CARRIERS = ("Identity", "If", "Loop")

#: The opset domain of the classical machine-learning operators (ZipMap, CastMap, ...); a node
#: of the default domain has domain "" (or "ai.onnx", its other spelling).
ML_DOMAIN = "ai.onnx.ml"
DEFAULT_DOMAINS = ("", "ai.onnx")

_SEQUENCE_OR_OPTIONAL = ("seq(", "optional(")


@functools.cache
def _history() -> tuple[defs.OpSchema, ...]:
    return tuple(defs.get_all_schemas_with_history())


@functools.cache
def _versions_by_name(domain: str) -> dict[str, tuple[int, ...]]:
    found: dict[str, set[int]] = {}
    for s in _history():
        if s.domain == domain:
            found.setdefault(s.name, set()).add(s.since_version)
    return {name: tuple(sorted(v)) for name, v in found.items()}


@functools.cache
def newest_opset(domain: str = "") -> int:
    """The newest opset version of `domain` the installed onnx defines."""
    if domain == "":
        return defs.onnx_opset_version()
    return max(v for versions in _versions_by_name(domain).values() for v in versions)


@functools.cache
def newest_released_opset() -> int:
    """The newest ai.onnx opset of an onnx release (the last row of onnx's VERSION_TABLE): the
    ceiling for case opsets, in the builder and in the JSON Schema alike."""
    return max(released_opsets())


@functools.cache
def released_opsets() -> frozenset[int]:
    """The ai.onnx opsets some onnx release defines (so an IR version goes with each)."""
    return frozenset(row[2] for row in helper.VERSION_TABLE)


@functools.cache
def all_operator_names(domain: str = "") -> tuple[str, ...]:
    return tuple(sorted(_versions_by_name(domain)))


def versions(op_type: str, domain: str = "") -> tuple[int, ...]:
    """Every opset version at which `op_type` changed, oldest first."""
    return _versions_by_name(domain).get(op_type, ())


@functools.cache
def schema(op_type: str, opset: int, domain: str = "") -> defs.OpSchema | None:
    """The schema in force for `op_type` at `opset`, or None when it is not defined there."""
    try:
        return defs.get_schema(op_type, opset, domain)
    except defs.SchemaError:
        return None


def defined_schema(op_type: str, opset: int, domain: str = "") -> defs.OpSchema:
    """`schema` for an operator the caller knows is defined at `opset` (a version `versions`
    gave, a node onnx's checker passed); KeyError naming it where it is not."""
    found = schema(op_type, opset, domain)
    if found is None:
        raise KeyError(f"{op_type} is not defined at opset {opset}")
    return found


@functools.cache
def sequence_operators() -> tuple[str, ...]:
    """The ai.onnx operators made for sequences and optionals: those with a type constraint
    that admits `seq(...)` or `optional(...)` in some version, the `CARRIERS` excepted."""
    found = {s.name for s in _history() if s.domain == "" and s.name not in CARRIERS
             and any(admits_sequence_or_optional(c.allowed_type_strs)
                     for c in s.type_constraints)}
    return tuple(sorted(found))


def model_opset(model: ModelProto) -> int | None:
    """The ai.onnx opset `model` imports (domain "" or "ai.onnx"), None when it imports none."""
    return next((int(o.version) for o in model.opset_import if o.domain in DEFAULT_DOMAINS),
                None)


def model_ml_opset(model: ModelProto) -> int | None:
    """The ai.onnx.ml opset `model` imports, None when it imports none."""
    return next((int(o.version) for o in model.opset_import if o.domain == ML_DOMAIN), None)


@dataclass(frozen=True)
class Opsets:
    """The opsets a model imports: ai.onnx's, and ai.onnx.ml's when it has nodes of that domain."""

    onnx: int
    ml: int | None = None

    def of(self, domain: str) -> int | None:
        """The opset imported for `domain` ("" or "ai.onnx", or "ai.onnx.ml"); None if none."""
        return self.onnx if domain in DEFAULT_DOMAINS else self.ml if domain == ML_DOMAIN \
            else None


def domain_key(op_type: str, domain: str) -> str:
    """How an operator is named where domains meet (the oracle's table, coverage): `op_type`
    in the default domain, `domain.op_type` in another (`ai.onnx.ml.ZipMap`)."""
    return op_type if domain in DEFAULT_DOMAINS else f"{domain}.{op_type}"


def ml_opset_for(opset: int) -> int:
    """The ai.onnx.ml opset released with ai.onnx opset `opset` (onnx's VERSION_TABLE): the one
    a case's error messages suggest."""
    rows = [row for row in helper.VERSION_TABLE if row[2] >= opset]
    return int(min(rows, key=lambda row: row[2])[3] if rows else helper.VERSION_TABLE[-1][3])


@functools.cache
def released_ml_opsets() -> frozenset[int]:
    """The ai.onnx.ml opsets some onnx release defines."""
    return frozenset(row[3] for row in helper.VERSION_TABLE)


def domain_of(op_type: str) -> str:
    """The domain that defines `op_type`: "" (ai.onnx) or ML_DOMAIN; the two name no operator
    alike, so a name tells its domain."""
    return ML_DOMAIN if op_type in _versions_by_name(ML_DOMAIN) else ""


@functools.cache
def map_operators() -> tuple[str, ...]:
    """The ai.onnx.ml operators made for maps and sequences of maps: those with a type
    constraint that admits a type other than a tensor (ZipMap, CastMap, DictVectorizer)."""
    found = {s.name for s in _history() if s.domain == ML_DOMAIN
             and any(t.startswith(HOLDER_PREFIXES) for c in s.type_constraints
                     for t in c.allowed_type_strs)}
    return tuple(sorted(found))


@functools.cache
def sequence_only_operators() -> tuple[str, ...]:
    """The operators of `sequence_operators` made for sequences alone: no version of them
    admits an optional type (SequenceAt, ConcatFromSequence, SequenceMap, ...)."""
    with_optional = {s.name for s in _history() if s.domain == "" for c in s.type_constraints
                     if any(t.startswith("optional(") for t in c.allowed_type_strs)}
    return tuple(n for n in sequence_operators() if n not in with_optional)


def allowed_types(op_schema: defs.OpSchema, type_str: str) -> tuple[str, ...]:
    """The type strings a formal parameter accepts: its constraint's list, or the literal type."""
    return constraint_types(op_schema, type_str) or (type_str,)


def type_refusal(op_schema: defs.OpSchema, inputs: Sequence[str | None],
                 outputs: Sequence[str | None]) -> tuple[str, int] | None:
    """The first place where `op_schema` does not admit these types: ("input" or "output",
    position); None when it admits them all. The one test of "the schema admits these types".

    A type is a type string (`str(ValueType)`, e.g. `seq(tensor(float))`), judged against the
    allowed types of the formal parameter at its position (the last one for a variadic tail);
    None is a type not known, not judged; "" is an input left off, which its formal must mark
    optional."""
    for side, types, formals in (("input", inputs, op_schema.inputs),
                                 ("output", outputs, op_schema.outputs)):
        for position, type_str in enumerate(types):
            if type_str is None:
                continue
            formal = formals[min(position, len(formals) - 1)]
            if type_str == "":
                if formal.option != OPTIONAL:
                    return side, position
            elif type_str not in allowed_types(op_schema, formal.type_str):
                return side, position
    return None


def constraint_types(op_schema: defs.OpSchema, param: str) -> tuple[str, ...] | None:
    """The allowed type strings of type parameter `param`, or None if the schema has none such."""
    for constraint in op_schema.type_constraints:
        if constraint.type_param_str == param:
            return type_strs(constraint)
    return None


def type_strs(constraint: defs.OpSchema.TypeConstraintParam) -> tuple[str, ...]:
    """A type constraint's allowed type strings in this package's spelling (a map's tensor value
    written `tensor(T)`, as onnx's type protos and `str(ValueType)` have it:
    `value_kinds.from_schema_text`)."""
    return tuple(map(from_schema_text, constraint.allowed_type_strs))


def admits_sequence_or_optional(type_strs: Iterable[str]) -> bool:
    """Whether a list of type strings holds a sequence or optional type."""
    return any(t.startswith(_SEQUENCE_OR_OPTIONAL) for t in type_strs)


_ELEMENT_IN = re.compile(r"tensor\((\w+)\)")


def element_names(type_strs: Iterable[str]) -> tuple[str, ...]:
    """The element type names that occur in a list of type strings, sorted, once each."""
    return tuple(sorted({name for t in type_strs for name in _ELEMENT_IN.findall(t)[:1]}))
