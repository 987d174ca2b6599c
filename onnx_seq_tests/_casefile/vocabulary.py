"""The words of the case format, one table each, read by the case reader and the JSON Schema.

Keys of each mapping, the `for_each` placeholders, the empty-optional marker, the `by_type`
groups, the type grammar and how each attribute kind is written all live here, so the reader
and the schema editors see cannot drift apart.
"""

from __future__ import annotations

import re

from onnx import AttributeProto as A

from .._core.value_kinds import FORM_LETTERS, TYPE_FORMS

CASE_KEYS = ("name", "doc", "opset", "ml_opset", "for_each", "inputs", "initializers",
             "outputs", "nodes", "data_sets", "tolerance")
#: A constant tensor written in full: its type `tensor(T)`, its fixed shape (optional: the value's
#: shape) and its value; a tensor attribute is written so, an initializer adds its name.
TENSOR_KEYS = ("type", "shape", "value")
INITIALIZER_KEYS = ("name", *TENSOR_KEYS)
FOR_EACH_KEYS = ("op", "param", "opsets", "types", "exclude_types")
VALUE_KEYS = ("name", "type", "shape")
NODE_KEYS = ("op_type", "domain", "name", "inputs", "outputs", "attributes")
#: The opset domains a node may name (`domain:`); left out, a node is of ai.onnx.
NODE_DOMAINS = ("ai.onnx", "ai.onnx.ml")
GRAPH_KEYS = ("inputs", "outputs", "nodes")
DATA_SET_KEYS = ("inputs", "outputs")
TOLERANCE_KEYS = ("atol", "rtol")

#: `{type}`, `{opset}`, `{dtype}` in a for_each case; {dtype} is the TensorProto enum number of
#: {type}, for attributes such as SequenceEmpty's dtype.
PLACEHOLDER_TEXT = r"\{(type|opset|dtype)\}"
PLACEHOLDER = re.compile(PLACEHOLDER_TEXT)

#: A symbolic dim's name: an opaque identifier (onnx takes any string as a dim_param); `.` and
#: `/` too, as exporters name dims after values (`Looptotal.7_dim_0`, `Mul/Mul_output_0_dim_0`).
#: The first character keeps it apart from YAML's numbers and `.inf`; (first, rest) for patterns.
DIM_NAME_CHARACTERS = ("A-Za-z_", "A-Za-z0-9_./")
DIM_NAME = re.compile("[{}][{}]*".format(*DIM_NAME_CHARACTERS))

EMPTY_MARKER_KEY = "optional"
EMPTY_MARKER_VALUE = "empty"
#: by_type groups: element kind -> the group key that covers it.
TYPE_GROUPS = {"bool": "bool", "string": "string", "int": "integers", "float": "floats",
               "complex": "complexes"}

#: How a case file writes an attribute of each kind: a scalar ("integer", "number", "text"),
#: a non-empty list of scalars ("list", scalar), a graph mapping, a type, or a tensor (a
#: mapping of TENSOR_KEYS). Kinds not here (sparse tensors, lists of graphs, types or tensors)
#: are not written in case files.
ATTRIBUTE_FORMS: dict[int, tuple[str, str | None]] = {
    A.INT: ("integer", None),
    A.FLOAT: ("number", None),
    A.STRING: ("text", None),
    A.INTS: ("list", "integer"),
    A.FLOATS: ("list", "number"),
    A.STRINGS: ("list", "text"),
    A.GRAPH: ("graph", None),
    A.TYPE_PROTO: ("type", None),
    A.TENSOR: ("tensor", None),
}


def type_pattern(element_names, type_forms=TYPE_FORMS) -> str:
    """A regex (JSON Schema flavour) for the type strings of `type_forms` (of TYPE_FORMS) over
    `element_names` (regex alternatives, such as `\\{type\\}`), spaces allowed around
    parentheses and commas; a letter of FORM_LETTERS (a map's key type K) one of its names, V
    (any type) a tensor type here (the loader takes any type)."""
    elements = "|".join(element_names)
    forms = []
    for form in type_forms:
        text = re.escape(form.replace("V", "tensor(T)")).replace("T", f"({elements})")
        for letter, names in FORM_LETTERS.items():
            text = text.replace(letter, f"({'|'.join(names)})")
        text = text.replace(r",\ ", " *, *")
        text = text.replace(r"\(", r" *\( *").replace(r"\)", r" *\) *")
        forms.append(text.replace(" * *", " *").strip(" *"))
    return rf"^ *({'|'.join(forms)}) *$"
