"""The graph part of the case grammar: graphs, nodes keyed by their schema's formal names (of
the node's domain), and attributes written by kind (`vocabulary.ATTRIBUTE_FORMS`); value
declarations and constant tensors are read by `declarations.py`.

Schemas come from onnx.defs (`_core/operators.py`) at the case's opsets.
"""

from __future__ import annotations

from typing import cast

import yaml

from .._core import operators
from .._core.cases import Graph, Node
from .._core.operators import Opsets
from .._core.problems import Where, quote
from .declarations import DeclarationReader
from .nodes import INVALID, did_you_mean, keys, misspelled
from .nodes import kind as kind_of
from .vocabulary import (
    ATTRIBUTE_FORMS,
    GRAPH_KEYS,
    NODE_DOMAINS,
    NODE_KEYS,
    TENSOR_KEYS,
)


class GraphReader(DeclarationReader):
    """Reads graphs and what they hold; INVALID for a part it cannot read."""

    def graph(self, fields, opsets: Opsets, what: str, top_level: bool = False):
        """A graph from the fields of its mapping (a case, or a graph attribute)."""
        inputs = self.value_decls(fields.get("inputs"), f"inputs of {what}")
        outputs = self.value_decls(fields.get("outputs"), f"outputs of {what}")
        node_list = self.sequence(fields["nodes"], f"nodes of {what}") if "nodes" in fields \
            else self.fail(fields.get("outputs"), f"{what} needs 'nodes'")
        nodes = [self.node(n, opsets) for n in ([] if node_list is INVALID else node_list)]
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

    def node(self, node, opsets: Opsets):
        """One node, checked against its schema at its domain's opset in `opsets`."""
        fields = self.mapping(node, "a node", NODE_KEYS, required=("op_type",))
        if fields is INVALID or "op_type" not in fields:
            return INVALID
        op_type = self.text(fields["op_type"], "op_type")
        domain = self.domain(fields.get("domain"))
        if INVALID in (op_type, domain):
            return INVALID
        op_schema = self.node_schema(fields, op_type, domain, opsets)
        if op_schema is INVALID:
            return INVALID
        label = f"{op_type}-{op_schema.since_version}"
        inputs = self.formal_values(fields.get("inputs"), op_schema.inputs, f"{label} inputs",
                                    node)
        outputs = self.formal_values(fields.get("outputs"), op_schema.outputs,
                                     f"{label} outputs", node)
        attributes = self.attributes(fields.get("attributes"), op_schema, label, opsets, node)
        if "name" in fields:
            self.text(fields["name"], "a node name")
        if INVALID in (inputs, outputs, attributes):
            return INVALID
        if "" in outputs:
            return self.fail(fields["outputs"], f"{label}: an output name cannot be empty")
        return Node(op_type, tuple(inputs), tuple(outputs), tuple(attributes), self.where(node),
                    domain)

    def domain(self, node):
        """A node's `domain`: "" for ai.onnx (written or left out), or "ai.onnx.ml"."""
        if node is None:
            return ""
        domain = self.text(node, "a node's domain")
        if domain is INVALID:
            return INVALID
        if domain not in NODE_DOMAINS:
            return self.fail(node, f"unknown domain {quote(domain)}; a node's domain is one of "
                                   f"{', '.join(NODE_DOMAINS)} (leave it out for ai.onnx)")
        return "" if domain in operators.DEFAULT_DOMAINS else domain

    def node_schema(self, fields, op_type: str, domain: str, opsets: Opsets):
        """The schema in force for a node of `op_type` in `domain` at the case's opsets."""
        where = fields["op_type"]
        shown = domain or "ai.onnx"
        versions = operators.versions(op_type, domain)
        if not versions:
            others = [d for d in ("", operators.ML_DOMAIN)
                      if d != domain and operators.versions(op_type, d)]
            if others:
                return self.fail(fields.get("domain", where),
                                 f"{op_type} is an operator of {others[0] or 'ai.onnx'}, not of "
                                 f"{shown}; " + (f"write domain: {others[0]}" if others[0]
                                                 else "leave 'domain' out"))
            return self.fail(where, f"unknown op_type {quote(op_type)}"
                             f"{did_you_mean(op_type, operators.all_operator_names(domain))}")
        opset = opsets.of(domain)
        if opset is None:
            suggested = operators.ml_opset_for(opsets.onnx)
            return self.fail(where, f"{op_type} is an operator of {shown}: the case needs "
                                    f"'ml_opset' (the {shown} opset to import; {suggested} "
                                    f"goes with opset {opsets.onnx})")
        op_schema = operators.schema(op_type, opset, domain)
        if op_schema is None:
            at = f"{shown} opset" if domain else "opset"
            return self.fail(where, f"{op_type} is not defined at {at} {opset}; it exists "
                                    "from opset " + str(versions[0]))
        return op_schema

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

    def attributes(self, node, op_schema, label: str, opsets: Opsets, owner):
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
                                   f"{label} attribute {quote(name)}", opsets)
            if value is INVALID:
                ok = False
            else:
                attributes.append((name, value))
        return attributes if ok else INVALID

    def attribute(self, node, kind: int, what: str, opsets: Opsets):
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
            return self.graph(fields, opsets, what)
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
