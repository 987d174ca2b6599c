"""The declaration part of the case grammar: graph inputs and outputs with their types and
shapes, initializers, and constant tensors written in full (initializers and tensor attributes).
"""

from __future__ import annotations

import re

import yaml

from .._core.cases import Graph, Initializer, ValueDecl
from .._core.elements import BY_DTYPE
from .._core.errors import TypeTextError
from .._core.problems import Where, quote
from .._core.value_kinds import TensorType, parse_type
from .nodes import INVALID, is_null, plain
from .tensors import DataReader
from .vocabulary import DIM_NAME, INITIALIZER_KEYS, VALUE_KEYS


class DeclarationReader(DataReader):
    """Reads value declarations, types, shapes and constant tensors; INVALID for a part it
    cannot read."""

    def initializers(self, node, graph: Graph):
        """`initializers:` constant tensors {name, type, shape, value}, read by name."""
        items = self.sequence(node, "initializers (a list of {name, type, shape, value})")
        if items is INVALID:
            return INVALID
        taken = {d.name: d.where for d in graph.inputs + graph.outputs}
        found = [self.initializer(item, taken) for item in items]
        return INVALID if any(i is INVALID for i in found) else found

    def initializer(self, item, taken: dict[str, Where]):
        """One initializer; its name joins `taken`."""
        fields = self.mapping(item, "an initializer", INITIALIZER_KEYS,
                              required=("name", "type", "value"))
        if fields is INVALID or not {"name", "type", "value"} <= set(fields):
            return INVALID
        name = self.text(fields["name"], "an initializer name")
        if name is INVALID or self.type(fields["type"], fields.get("shape")) is INVALID:
            return INVALID
        if name == "" or name in taken:
            return self.fail(fields["name"], "an initializer needs a non-empty name of its own"
                             if name == "" else f"{quote(name)} is already a graph value (line "
                             f"{taken[name].line}); an initializer is not a graph input, "
                             "rename one")
        value = self.constant_tensor(fields, "an initializer", f"initializer {quote(name)}")
        if value is INVALID:
            return INVALID
        taken[name] = self.where(item)
        return Initializer(name, TensorType(BY_DTYPE[value.dtype], value.shape), value,
                           self.where(item))

    def constant_tensor(self, fields, noun: str, what: str):
        """The array of a tensor written in full, `{type, shape, value}` (`TENSOR_KEYS`): an
        initializer's or a tensor attribute's. `type` is tensor(T); `shape`, when given, has
        fixed dims (without it the value's shape is the shape); a value `[]` fills any shape
        of no elements ([0, 3] too). `noun` names the thing in messages about its type, `what`
        in messages about its value."""
        value_type = self.type(fields["type"], fields.get("shape"))
        if value_type is INVALID:
            return INVALID
        if not isinstance(value_type, TensorType):
            return self.fail(fields["type"], f"{noun} is a tensor; {value_type} is not: write "
                                             "tensor(T)")
        shape = value_type.shape
        if shape is not None and not all(isinstance(d, int) for d in shape):
            return self.fail(fields["shape"], f"{noun} has a fixed shape: give integer dims, or "
                                              "leave 'shape' out")
        return self.value(fields["value"], value_type, what, top_level=True)

    def value_decls(self, node, what: str):
        """Graph inputs or outputs ([] when `node` is absent)."""
        if node is None:
            return []
        items = self.sequence(node, what)
        if items is INVALID:
            return INVALID
        decls = [self.value_decl(item, what) for item in items]
        return INVALID if any(d is INVALID for d in decls) else decls

    def value_decl(self, node, what: str):
        fields = self.mapping(node, f"an entry of {what}", VALUE_KEYS, required=("name", "type"))
        if fields is INVALID or "name" not in fields or "type" not in fields:
            return INVALID
        name = self.text(fields["name"], "a value name")
        value_type = self.type(fields["type"], fields.get("shape"))
        if INVALID in (name, value_type):
            return INVALID
        if name == "":
            return self.fail(fields["name"], "a graph value needs a non-empty name")
        return ValueDecl(name, value_type, self.where(node))

    def type(self, type_node, shape_node):
        """A value type from its text and optional shape list."""
        text = self.text(type_node, "a type")
        shape = self.shape(shape_node) if shape_node is not None else None
        if INVALID in (text, shape):
            return INVALID
        try:
            return parse_type(text, shape)
        except TypeTextError as error:
            return self.fail(type_node, str(error))

    def shape(self, node):
        """Dims: integers >= 0, names, or None (`~`)."""
        items = self.sequence(node, "shape (a list of dims: integers, names, or ~ for unknown)")
        if items is INVALID:
            return INVALID
        dims = []
        for item in items:
            if not isinstance(item, yaml.ScalarNode):
                return self.fail(item, "a dim must be an integer, a name, or ~ for unknown")
            if is_null(item):
                dims.append(None)
            elif plain(item) and re.fullmatch(r"[-+]?[0-9]+", item.value):
                dim = self.integer(item, "a dim")
                if dim is INVALID or dim < 0:
                    return self.fail(item, "a fixed dim must be an integer >= 0")
                dims.append(dim)
            elif DIM_NAME.fullmatch(self.fill(item.value)):
                dims.append(self.fill(item.value))
            else:
                return self.fail(item, f"dim {quote(item.value)} is not an integer, a name "
                                       f"({DIM_NAME.pattern}), or ~ for unknown")
        return tuple(dims)
