"""Cases back to case-file YAML, on the reader's tables: what `load_text` reads from this text
is the case written (a test holds it over the whole suite).

`case_data(case)` is the mapping of a `Case`; `cases_text` dumps mappings, each under its
comment lines. The parts (`value_data`, `tensor_data`, `attribute_data`, `formal_data`,
`decl_data`) serve the importer too, which maps protos to the same mappings. Element values
are spelled as `_core/elements.py` reads them (shortest exact floats, `nan`, `inf`, `-inf`, a
NaN of other bits as `nan(0x...)`, complex values as '1.5-2j'), attributes by
`vocabulary.ATTRIBUTE_FORMS`, an empty optional by `vocabulary.EMPTY_MARKER_*`, a value as its
kind writes it (`ValueType.case_data`, on this module's primitives). What the case format
cannot hold raises NotExpressible.
"""

from __future__ import annotations

import math
from typing import cast

import numpy as np
import yaml
from onnx import defs

from .._core import operators
from .._core.cases import Case, Graph, Node
from .._core.elements import BY_DTYPE, nan_bits, nan_text
from .._core.errors import NotExpressible
from .._core.operators import Opsets
from .._core.problems import quote
from .._core.value_kinds import TensorType, ValueType, innermost
from .vocabulary import ATTRIBUTE_FORMS, EMPTY_MARKER_KEY, EMPTY_MARKER_VALUE

# -- cases ----------------------------------------------------------------------------------------

def case_data(case: Case) -> dict:
    """The case-file mapping of a case (a `for_each` case is written as the case it expanded
    to: its opset and element type filled in)."""
    data: dict = {"name": case.name}
    if case.doc:
        data["doc"] = case.doc
    data["opset"] = case.opset
    if case.ml_opset is not None:
        data["ml_opset"] = case.ml_opset
    graph = graph_data(case.graph, case.opsets)
    if graph["inputs"]:
        data["inputs"] = graph["inputs"]
    if case.graph.initializers:
        data["initializers"] = [initializer_data(i.name, i.value, f"initializer {quote(i.name)}")
                                for i in case.graph.initializers]
    data["outputs"] = graph["outputs"]
    data["nodes"] = graph["nodes"]
    if case.atol or case.rtol:
        data["tolerance"] = {"atol": float(case.atol), "rtol": float(case.rtol)}
    data["data_sets"] = [{
        "inputs": {d.name: value_data(v, d.type, f"input {quote(d.name)}")
                   for d, v in zip(case.graph.inputs, data_set.inputs, strict=True)},
        "outputs": {d.name: value_data(v, d.type, f"output {quote(d.name)}")
                    for d, v in zip(case.graph.outputs, data_set.outputs, strict=True)},
    } for data_set in case.data_sets]
    return data


def graph_data(graph: Graph, opsets: Opsets) -> dict:
    """{inputs, outputs, nodes} of a graph (initializers are the case's, see `case_data`)."""
    return {"inputs": [decl_data(d.name, d.type) for d in graph.inputs],
            "outputs": [decl_data(d.name, d.type) for d in graph.outputs],
            "nodes": [node_data(n, opsets) for n in graph.nodes]}


def node_data(node: Node, opsets: Opsets) -> dict:
    """A node keyed by its schema's formal names at its domain's opset, attributes by kind."""
    op_schema = operators.defined_schema(node.op_type, opsets.of(node.domain) or 0, node.domain)
    data: dict = {"op_type": node.op_type}
    if node.domain not in operators.DEFAULT_DOMAINS:
        data["domain"] = node.domain
    inputs = formal_data(list(node.inputs), op_schema.inputs, node.op_type, "inputs")
    if inputs:
        data["inputs"] = inputs
    data["outputs"] = formal_data(list(node.outputs), op_schema.outputs, node.op_type, "outputs")
    if node.attributes:
        data["attributes"] = {
            name: attribute_data(value, _kind(op_schema.attributes[name]), opsets,
                                 f"{node.op_type} attribute {quote(name)}")
            for name, value in node.attributes}
    return data


def formal_data(values: list[str], formals, op_type: str, side: str) -> dict:
    """Positional node inputs or outputs keyed by the schema's formal names (a variadic one
    takes the rest as a list)."""
    found = FlowMap()
    at = 0
    for formal in formals:
        if at >= len(values):
            break
        if formal.option == operators.VARIADIC:
            found[formal.name] = Flow(values[at:])
            at = len(values)
        else:
            found[formal.name] = values[at]
            at += 1
    if at < len(values):
        raise NotExpressible(f"{op_type} has {len(values)} {side}, more than its schema's "
                             "formal parameters take")
    return found


def decl_data(name: str, value_type: ValueType) -> dict:
    """A graph input or output: {name, type} and the innermost tensor's shape if known."""
    decl = FlowMap(name=name, type=str(value_type))
    shape = innermost(value_type).shape
    if shape is not None:
        decl["shape"] = Flow(shape)
    return decl


def _kind(attribute: defs.OpSchema.Attribute) -> int:
    """An attribute's kind as AttributeProto's enum (onnx's stubs leave out pybind's .value)."""
    return int(attribute.type.value)  # type: ignore[attr-defined]


def type_data(value_type: ValueType):
    """A type attribute: its text, or {type, shape} when the innermost shape is known."""
    shape = innermost(value_type).shape
    return str(value_type) if shape is None else {"type": str(value_type), "shape": list(shape)}


def attribute_data(value, kind: int, opsets: Opsets, what: str):
    """An attribute value as `ATTRIBUTE_FORMS` writes its kind (the kind as AttributeProto's
    enum); a graph's value is a `Graph`, a type's a ValueType."""
    form, item = ATTRIBUTE_FORMS.get(kind, (None, None))
    if form == "list":
        if not len(value):
            raise NotExpressible(f"{what} is an empty list; case files cannot write one")
        return [_scalar(v, cast(str, item)) for v in value]
    if form == "graph":
        return graph_data(value, opsets)
    if form == "type":
        return type_data(value)
    if form == "tensor":
        return constant_data(value, what)
    if form is None:
        raise NotExpressible(f"{what} is of a kind case files cannot write")
    return _scalar(value, form)


def _scalar(value, form: str):
    if form == "integer":
        return int(value)
    if form == "number":
        return Float(value)
    return value.decode("utf-8") if isinstance(value, bytes) else value


def initializer_data(name: str, array: np.ndarray, what: str) -> dict:
    """An initializer: {name, type, shape, value}."""
    return FlowMap(name=name, **constant_data(array, what))


def constant_data(array: np.ndarray, what: str) -> dict:
    """A tensor written in full (`vocabulary.TENSOR_KEYS`): {type, shape, value}."""
    array = np.asarray(array)
    value_type = TensorType(BY_DTYPE[array.dtype], tuple(array.shape))
    return FlowMap(type=str(value_type), shape=Flow(array.shape),
                   value=value_data(array, value_type, what))


# -- values ---------------------------------------------------------------------------------------

class Float(float):
    """A float written as its shortest exact text (nan, inf, -inf for the special ones)."""


class NanBits(str):
    """A NaN written by its bit pattern, plain (unquoted): `nan(0x7fa00001)`."""


class Flow(list):
    """A list written in flow style: `[1, 2, 3]`."""


class FlowMap(dict):
    """A mapping written in flow style: `{name: x, type: tensor(float)}`."""


def value_data(value, value_type: ValueType, what: str):
    """A value as a case file writes it, as its kind writes its form (`ValueType.case_data`,
    with this writer's primitives); an empty optional as the empty-optional marker."""
    return value_type.case_data(value, _WRITER, what)


class _Writer:
    """The primitives a kind writes its form with (value_kinds.forms.FormWriter)."""

    @staticmethod
    def flow(items: list) -> Flow:
        return Flow(items)

    @staticmethod
    def empty() -> dict:
        return {EMPTY_MARKER_KEY: EMPTY_MARKER_VALUE}

    @staticmethod
    def tensor(value, tensor_type: ValueType, what: str):
        array = np.asarray(value)
        if cast(TensorType, tensor_type).shape == array.shape and not _nests(array.shape):
            return Flow()  # no elements in a fixed shape such as [0, 3]: `[]` fills it
        return tensor_data(array, what)


_WRITER = _Writer()


def tensor_data(array: np.ndarray, what: str):
    """A tensor as nested lists (a scalar as itself)."""
    array = np.asarray(array)
    shape = array.shape
    if not _nests(shape):
        raise NotExpressible(f"{what} has shape {list(shape)}: nested lists cannot give a 0 "
                             "before another dim")
    kind = array.dtype.kind
    if kind in "OSU":
        leaves = np.vectorize(_text, otypes=[object])(array) if array.size else array
    elif kind == "b":
        leaves = array.astype(bool)
    elif kind in "iu":
        leaves = array.astype(object)
        leaves = np.vectorize(int, otypes=[object])(array) if array.size else leaves
    elif kind == "c":
        leaves = np.vectorize(_complex_text, otypes=[object])(array) if array.size else array
    elif kind == "f":
        leaves = _float_leaves(array)
    else:  # ml_dtypes: bfloat16, float8/6/4 kinds (exact in float32) and narrow ints
        wide = array.astype(np.float32)
        if np.all(np.isnan(wide) | (wide == np.round(wide))) and "int" in array.dtype.name:
            leaves = np.vectorize(int, otypes=[object])(wide) if array.size else wide
        else:
            leaves = _float_leaves(array) if array.size else wide
    return _nest(leaves)


def _nests(shape) -> bool:
    """Whether nested lists give `shape`: not when a 0 comes before another dim."""
    shape = tuple(shape)
    return not (0 in shape and any(shape[shape.index(0) + 1:]))


def _float_leaves(array: np.ndarray):
    """Each float element as written (`_float_leaf`), read from the array in its own dtype
    (np.vectorize would widen an ml_dtypes element first and lose a NaN's bits)."""
    if not array.size:
        return array
    leaves = np.empty(array.shape, dtype=object)
    for index in np.ndindex(array.shape):
        leaves[index] = _float_leaf(array[index])
    return leaves


def _float_leaf(value):
    """A float element as written: a NaN of unusual bits as its `nan(0x...)` text."""
    if nan_bits(value) is not None:
        return NanBits(nan_text(value))
    with np.errstate(invalid="ignore"):
        return Float(float(np.asarray(value).astype(np.float64)))


def _nest(array):
    if isinstance(array, np.ndarray) and array.ndim == 0:
        array = array[()]
    if not isinstance(array, np.ndarray):
        return bool(array) if isinstance(array, (bool, np.bool_)) else array
    return Flow(_nest(array[i]) for i in range(array.shape[0]))


def _text(item) -> str:
    return item.decode("utf-8", "surrogateescape") if isinstance(item, bytes) else str(item)


def _complex_text(value) -> str:
    return repr(complex(value)).strip("()")


# -- YAML text ------------------------------------------------------------------------------------

class _Dumper(yaml.SafeDumper):
    pass


def _float_representer(dumper, value):
    if math.isnan(value):
        text = "nan"
    elif math.isinf(value):
        text = "inf" if value > 0 else "-inf"
    else:
        text = repr(float(value))
    # tagged as what the text reads as in YAML 1.1 (`nan`, `1e-05`: str), so it stays plain;
    # the case-file reader reads a plain number by its own rules
    tag = dumper.resolve(yaml.ScalarNode, text, (True, False))
    return dumper.represent_scalar(tag, text)


def _flow_representer(dumper, value):
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=True)


_Dumper.add_representer(Float, _float_representer)
_Dumper.add_representer(Flow, _flow_representer)
_Dumper.add_representer(NanBits, lambda dumper, value: dumper.represent_scalar(
    "tag:yaml.org,2002:str", str(value)))
_Dumper.add_representer(FlowMap, lambda dumper, value: dumper.represent_mapping(
    "tag:yaml.org,2002:map", value, flow_style=True))


def cases_text(entries, header: str = "") -> str:
    """A case file of `entries`, (comment lines, case mapping) each: the comments as `# ...`
    lines above the case; `header` (text as is) first."""
    parts = [header] if header else []
    for comments, case in entries:
        text = yaml.dump([case], Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                         width=100, default_flow_style=False)
        parts.append("".join(f"# {line}\n" for line in comments) + text)
    return "\n".join(parts)


def write_cases(cases: list[Case]) -> str:
    """The case file of `cases`, each under a comment naming where it was read."""
    return cases_text([([f"from {case.where}"], case_data(case)) for case in cases])
