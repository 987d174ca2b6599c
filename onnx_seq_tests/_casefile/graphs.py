"""The graph part of the case grammar: value declarations and types, initializers, nodes keyed by
their schema's formal names, and attributes written by kind (`vocabulary.ATTRIBUTE_FORMS`).

Schemas come from onnx.defs (`_core/operators.py`) at the case's opset.
"""

from __future__ import annotations

import re
from typing import cast

import yaml

from .._core import operators
from .._core.cases import Graph, Initializer, Node, ValueDecl
from .._core.elements import BY_DTYPE
from .._core.errors import TypeTextError
from .._core.problems import Where, quote
from .._core.value_kinds import TensorType, parse_type
from .nodes import INVALID, did_you_mean, is_null, keys, misspelled, plain
from .nodes import kind as kind_of
from .tensors import DataReader
from .vocabulary import (
    ATTRIBUTE_FORMS,
    DIM_NAME,
    GRAPH_KEYS,
    INITIALIZER_KEYS,
    NODE_KEYS,
    TENSOR_KEYS,
    VALUE_KEYS,
)


class GraphReader(DataReader):
    """Reads graphs and what they hold; INVALID for a part it cannot read."""

    def graph(self, fields, opset: int, what: str, top_level: bool = False):
        """A graph from the fields of its mapping (a case, or a graph attribute)."""
        inputs = self.value_decls(fields.get("inputs"), f"inputs of {what}")
        outputs = self.value_decls(fields.get("outputs"), f"outputs of {what}")
        node_list = self.sequence(fields["nodes"], f"nodes of {what}") if "nodes" in fields \
            else self.fail(fields.get("outputs"), f"{what} needs 'nodes'")
        nodes = [self.node(n, opset) for n in ([] if node_list is INVALID else node_list)]
        if top_level and node_list == []:
            self.fail(fields["nodes"], "a case needs at least one node")
        if top_level and outputs == []:
            self.fail(fields["outputs"], "a case needs at least one graph output")
        elif outputs == [] and "outputs" in fields:
            self.fail(fields["outputs"], f"{what} needs at least one output")
        if INVALID in (inputs, outputs, node_list) or any(n is INVALID for n in nodes):
            return INVALID
        first: dict[str, Where] = {}
        for decl in inputs + outputs:
            if decl.name in first:
                self.problems.add(decl.where, f"{quote(decl.name)} is declared twice among the "
                                              f"inputs and outputs of {what} (first at line "
                                              f"{first[decl.name].line}); rename one")
            first.setdefault(decl.name, decl.where)
        return Graph(tuple(inputs), tuple(outputs), tuple(nodes))

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

    def node(self, node, opset: int):
        """One node, checked against its schema at `opset`."""
        fields = self.mapping(node, "a node", NODE_KEYS, required=("op_type",))
        if fields is INVALID or "op_type" not in fields:
            return INVALID
        op_type = self.text(fields["op_type"], "op_type")
        if op_type is INVALID:
            return INVALID
        op_schema = operators.schema(op_type, opset)
        if op_schema is None:
            versions = operators.versions(op_type)
            if not versions:
                return self.fail(fields["op_type"], f"unknown op_type {quote(op_type)}"
                                 f"{did_you_mean(op_type, operators.all_operator_names())}")
            return self.fail(fields["op_type"], f"{op_type} is not defined at opset {opset}; it "
                             "exists from opset " + str(versions[0]))
        label = f"{op_type}-{op_schema.since_version}"
        inputs = self.formal_values(fields.get("inputs"), op_schema.inputs, f"{label} inputs",
                                    node)
        outputs = self.formal_values(fields.get("outputs"), op_schema.outputs,
                                     f"{label} outputs", node)
        attributes = self.attributes(fields.get("attributes"), op_schema, label, opset, node)
        if "name" in fields:
            self.text(fields["name"], "a node name")
        if INVALID in (inputs, outputs, attributes):
            return INVALID
        if "" in outputs:
            return self.fail(fields["outputs"], f"{label}: an output name cannot be empty")
        return Node(op_type, tuple(inputs), tuple(outputs), tuple(attributes), self.where(node))

    def formal_values(self, node, formals, what: str, owner):
        """Node inputs or outputs keyed by the schema's formal names, to a positional list."""
        keyed = self.keyed(node, what, [f.name for f in formals])
        if keyed is INVALID:
            return INVALID
        fields, misspelled_names = keyed
        positional: list[str] = []
        pending: list[str] = []  # formal names left off that a later one would need as ""
        ok = True
        for formal in formals:
            if formal.name in misspelled_names:
                ok = False  # reported as an unknown key with a did-you-mean
                continue
            if formal.name not in fields:
                if formal.option == operators.OPTIONAL:
                    pending.append(formal.name)
                elif formal.option != operators.VARIADIC or formal.min_arity != 0:
                    self.fail(node if node is not None else owner,
                              f"{what}: {quote(formal.name)} is required")
                    ok = False
                continue
            value_node = fields[formal.name]
            if pending:
                self.fail(value_node, f"{what}: {quote(pending[0])} comes before "
                                      f"{quote(formal.name)}; write {pending[0]}: \"\" to omit it")
                ok = False
                pending = []
            values = self.formal_value(value_node, formal, what)
            if values is INVALID:
                ok = False
            else:
                positional.extend(values)
        return positional if ok else INVALID

    def formal_value(self, node, formal, what: str):
        """The names one formal parameter takes: one, or a list for a variadic one."""
        if formal.option == operators.VARIADIC:
            items = self.sequence(node, f"{what}: {quote(formal.name)} (variadic)")
            if items is INVALID:
                return INVALID
            values = [self.text(i, f"a value in {quote(formal.name)}") for i in items]
            if INVALID in values:
                return INVALID
            if "" in values:
                self.fail(node, f"{what}: {quote(formal.name)} cannot hold \"\"")
            if len(values) < formal.min_arity:
                self.fail(node, f"{what}: {quote(formal.name)} needs at least "
                                f"{formal.min_arity} value(s)")
            return INVALID if "" in values or len(values) < formal.min_arity else values
        value = self.text(node, f"{what}: {quote(formal.name)}")
        if value is INVALID:
            return INVALID
        if value == "" and formal.option != operators.OPTIONAL:
            return self.fail(node, f"{what}: {quote(formal.name)} is required and cannot be "
                                   "omitted with \"\"")
        return [value]

    def attributes(self, node, op_schema, label: str, opset: int, owner):
        """(name, value) pairs, sorted by name; every required attribute present."""
        if node is not None and not op_schema.attributes:
            return self.fail(node, f"{label} has no attributes; remove 'attributes'")
        fields = {} if node is None else self.mapping(node, f"{label} attributes",
                                                      sorted(op_schema.attributes))
        if fields is INVALID:
            return INVALID
        ok = True
        attributes = []
        suggested = set() if node is None else misspelled(node, op_schema.attributes)
        for name, attribute in sorted(op_schema.attributes.items()):
            if name not in fields:
                if attribute.required and name not in suggested:
                    self.fail(node if node is not None else owner,
                              f"{label}: attribute {quote(name)} is required")
                    ok = False
                continue
            value = self.attribute(fields[name], int(attribute.type.value),
                                   f"{label} attribute {quote(name)}", opset)
            if value is INVALID:
                ok = False
            else:
                attributes.append((name, value))
        return attributes if ok else INVALID

    def attribute(self, node, kind: int, what: str, opset: int):
        """An attribute's value as `ATTRIBUTE_FORMS` says its kind is written."""
        form, item = ATTRIBUTE_FORMS.get(kind, (None, None))
        scalar = {"integer": self.integer, "number": self.number, "text": self.text}
        if form in (*scalar, "list") and isinstance(node, yaml.MappingNode) and \
                set(TENSOR_KEYS) >= set(keys(node)) >= {"value"}:
            written = f"a list of {item}s" if form == "list" else f"a single {form}"
            return self.fail(node, f"{what} is {written}, not a tensor; write it plainly (only "
                                   "tensor attributes, such as Constant's 'value', take "
                                   "{type, shape, value})")
        if form in scalar:
            return scalar[form](node, what)
        if form == "list":
            items = self.sequence(node, what)
            if items == []:
                return self.fail(node, f"{what} is an empty list; empty list attributes are "
                                       "not supported in case files, leave the attribute out")
            if items is INVALID:
                return INVALID
            value = [scalar[cast(str, item)](i, f"an item of {what}") for i in items]
            return INVALID if INVALID in value else value
        if form == "graph":
            fields = self.mapping(node, f"{what} (a graph)", GRAPH_KEYS,
                                  required=("outputs", "nodes"))
            if fields is INVALID or "nodes" not in fields:
                return INVALID
            return self.graph(fields, opset, what)
        if form == "type":
            return self.type_attribute(node, what)
        if form == "tensor":
            return self.tensor_attribute(node, what)
        return self.fail(node, f"{what}: attributes of this kind are not supported in case files")

    def type_attribute(self, node, what: str):
        if isinstance(node, yaml.ScalarNode):
            return self.type(node, None)
        fields = self.mapping(node, f"{what} (a type, or type and shape)", ("type", "shape"),
                              required=("type",))
        if fields is INVALID or "type" not in fields:
            return INVALID
        return self.type(fields["type"], fields.get("shape"))

    def tensor_attribute(self, node, what: str):
        """A tensor attribute, written as a mapping of `TENSOR_KEYS`: a plain value would
        leave its element type to a guess, and would read like an int or list attribute."""
        form = "{type: tensor(T), shape: [...], value: ...}"
        if not isinstance(node, yaml.MappingNode):
            return self.fail(node, f"{what} is a tensor: write it as {form}, not {kind_of(node)}")
        fields = self.mapping(node, what, TENSOR_KEYS, required=("type", "value"))
        if fields is INVALID or not {"type", "value"} <= set(fields):
            return INVALID
        return self.constant_tensor(fields, what, what)


__all__ = ["GraphReader"]
