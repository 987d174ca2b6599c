"""The case part of the case grammar: a case's fields, `for_each` expansion (opsets, type
filters, placeholders), tolerance and data sets; graphs come from `graphs.py`, values from
`tensors.py`.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import yaml

from .._core import operators
from .._core.budgets import MAX_CASE_NAME
from .._core.cases import Case, DataSet, Expansion, Graph
from .._core.elements import ELEMENTS
from .._core.operators import Opsets
from .._core.problems import quote
from .graphs import GraphReader
from .nodes import INVALID, did_you_mean
from .vocabulary import CASE_KEYS, DATA_SET_KEYS, FOR_EACH_KEYS, TOLERANCE_KEYS

NAME_PATTERN = re.compile(r"[a-z0-9_]+")


class CaseReader(GraphReader):
    """Reads the cases of one file's nodes."""

    def cases(self, node) -> list[Case]:
        """The cases one entry of the file gives: one, or one per `for_each` binding."""
        fields = self.mapping(node, "a case", CASE_KEYS,
                              required=("name", "outputs", "nodes", "data_sets"))
        if fields is INVALID:
            return []
        if "for_each" not in fields:
            case = self.case(node, fields)
            return [] if case is INVALID else [case]
        if "opset" in fields:
            self.fail(fields["opset"], "a case with for_each takes its opsets from for_each; "
                                       "remove 'opset' or list it under for_each.opsets")
            return []
        bindings = self.for_each(fields["for_each"])
        if bindings is INVALID or not self.name_varies(fields.get("name"), bindings):
            return []
        expanded = []
        for binding in bindings:
            reader = type(self)(self.path, self.problems, binding)
            case = reader.case(node, fields, opset=int(binding["opset"]))
            if case is not INVALID:
                origin = Expansion(self.where(fields["for_each"]), binding["type"],
                                   int(binding["opset"]))
                expanded.append(dataclasses.replace(case, expanded_from=origin))
        return expanded

    def name_varies(self, name_node, bindings) -> bool:
        """A for_each case name must hold each placeholder whose value the expansion varies."""
        if not isinstance(name_node, yaml.ScalarNode):
            return True  # reading the name reports it
        ok = True
        for key in ("type", "opset"):
            values = sorted({b[key] for b in bindings})
            if len(values) > 1 and "{" + key + "}" not in name_node.value:
                self.fail(name_node, f"for_each expands this case over {len(values)} "
                                     f"{key}s ({', '.join(values[:4])}"
                                     f"{', ...' if len(values) > 4 else ''}) but its name "
                                     f"has no {{{key}}}; add {{{key}}} so every expanded "
                                     "case gets its own name")
                ok = False
        return ok

    def for_each(self, node):
        """The bindings ({opset, type, dtype} texts) a `for_each` expands to, never empty."""
        fields = self.mapping(node, "for_each", FOR_EACH_KEYS, required=("op", "param"))
        if fields is INVALID or "op" not in fields or "param" not in fields:
            return INVALID
        op_type = self.text(fields["op"], "for_each.op")
        param = self.text(fields["param"], "for_each.param")
        if INVALID in (op_type, param):
            return INVALID
        versions = operators.versions(op_type)
        if not versions:
            return self.fail(fields["op"], f"unknown operator {quote(op_type)}"
                             f"{did_you_mean(op_type, operators.all_operator_names())}")
        opsets = list(versions)
        if "opsets" in fields:
            opsets = self.opset_list(fields["opsets"], op_type, versions)
            if opsets is INVALID:
                return INVALID
        unreleased = [o for o in opsets if o not in operators.released_opsets()]
        if unreleased:
            return self.fail(fields.get("opsets", fields["op"]),
                             f"{op_type} changed at opset {unreleased[0]}: "
                             f"{unreleased_text(unreleased[0])}; list the released ones under "
                             "for_each.opsets")
        wanted = self.type_filter(fields.get("types"), "for_each.types")
        excluded = self.type_filter(fields.get("exclude_types"), "for_each.exclude_types") or ()
        bindings = []
        for opset in opsets:
            allowed = operators.constraint_types(operators.defined_schema(op_type, opset), param)
            if allowed is None:
                return self.fail(fields["param"], f"{op_type}-{opset} has no type parameter "
                                 f"{quote(param)}; its parameters: " + ", ".join(
                                     c.type_param_str for c in
                                     operators.defined_schema(op_type, opset).type_constraints))
            for name in operators.element_names(allowed):
                if (wanted is None or name in wanted) and name not in excluded:
                    bindings.append({"opset": str(opset), "type": name,
                                     "dtype": str(ELEMENTS[name].proto)})
        if not bindings:
            return self.fail(node, "for_each selects no (opset, type) pair; check its lists")
        return bindings

    def opset_list(self, node, op_type: str, versions):
        """for_each.opsets: `all`, or a list of versions at which `op_type` changed."""
        if isinstance(node, yaml.ScalarNode) and node.value == "all":
            return list(versions)
        items = self.sequence(node, "for_each.opsets (a list of versions, or all)")
        if items is INVALID:
            return INVALID
        opsets = []
        for item in items:
            opset = self.integer(item, "an opset")
            if opset is INVALID:
                continue
            if opset not in versions:
                self.fail(item, f"{op_type} did not change at opset {opset}; its versions: "
                          + ", ".join(map(str, versions)))
                continue
            opsets.append(opset)
        return opsets

    def type_filter(self, node, what: str) -> set[str] | None:
        """The element type names a filter lists; None for no filter (absent, or types: all)."""
        if node is None:
            return None
        if isinstance(node, yaml.ScalarNode) and node.value == "all":
            if what == "for_each.types":
                return None
            self.fail(node, f"{what} must be a list of element types ('all' would exclude "
                            "every type)")
            return set()
        items = self.sequence(node, f"{what} (a list of element types)")
        names = set()
        for item in [] if items is INVALID else items:
            name = self.text(item, "an element type")
            if name is INVALID:
                continue
            if name not in ELEMENTS:
                self.fail(item, f"unknown element type {quote(name)}{did_you_mean(name, ELEMENTS)}")
            names.add(name)
        return names

    def case(self, node, fields, opset: int | None = None):
        """One case from its fields; `opset` is given by a for_each expansion."""
        before = len(self.problems.found)
        name: Any = self.text(fields["name"], "the case name") if "name" in fields else INVALID
        if name is not INVALID and not NAME_PATTERN.fullmatch(name):
            self.fail(fields["name"], f"case name {quote(name)} may hold only lowercase letters, "
                                      "digits and underscores (it becomes the folder test_<name>)")
        elif name is not INVALID and len(name) > MAX_CASE_NAME:
            self.fail(fields["name"], f"case name {quote(name)} is longer than the budget "
                                      f"MAX_CASE_NAME ({MAX_CASE_NAME}) of onnx_seq_tests/_core/"
                                      "budgets.py (it becomes the folder test_<name>); shorten it")
        if opset is None:
            opset = self.opset(node, fields)
        ml_opset = self.ml_opset(fields["ml_opset"]) if "ml_opset" in fields else None
        doc = self.text(fields["doc"], "doc") if "doc" in fields else ""
        graph: Any = INVALID
        if INVALID not in (opset, ml_opset) and "outputs" in fields and "nodes" in fields:
            graph = self.graph(fields, Opsets(opset, ml_opset), "the case", top_level=True)
        if graph is not INVALID and "initializers" in fields:
            initializers = self.initializers(fields["initializers"], graph)
            graph = INVALID if initializers is INVALID else dataclasses.replace(
                graph, initializers=tuple(initializers))
        atol, rtol = self.tolerance(fields.get("tolerance"))
        data_sets: Any = INVALID
        if graph is not INVALID and "data_sets" in fields:
            data_sets = self.data_sets(fields["data_sets"], graph)
        if len(self.problems.found) > before or graph is INVALID or data_sets is INVALID:
            return INVALID
        return Case(name=name, where=self.where(node), opset=opset, graph=graph,
                    data_sets=tuple(data_sets), atol=atol, rtol=rtol, doc=doc,
                    ml_opset=ml_opset)

    def ml_opset(self, node):
        """`ml_opset`: a released ai.onnx.ml opset, for a case with nodes of that domain."""
        opset = self.integer(node, "ml_opset")
        if opset is INVALID:
            return INVALID
        released = sorted(operators.released_ml_opsets())
        if opset not in released:
            return self.fail(node, f"no onnx release has ai.onnx.ml opset {opset}; released "
                                   "ones: " + ", ".join(map(str, released)))
        return opset

    def opset(self, node, fields):
        """A plain case's `opset`: a released ai.onnx opset the installed onnx knows."""
        if "opset" not in fields:
            return self.fail(node, "the case needs 'opset' (the ai.onnx opset version to "
                                   "import), or a for_each with opsets")
        opset = self.integer(fields["opset"], "opset")
        if opset is INVALID:
            return INVALID
        if not 1 <= opset <= operators.newest_opset():
            return self.fail(fields["opset"], f"opset {opset} is not one the installed onnx "
                                              f"knows (1..{operators.newest_opset()})")
        if opset not in operators.released_opsets():
            return self.fail(fields["opset"], unreleased_text(opset))
        return opset

    def tolerance(self, node) -> tuple[float, float]:
        """(atol, rtol), 0.0 each when not given."""
        if node is None:
            return 0.0, 0.0
        fields = self.mapping(node, "tolerance", TOLERANCE_KEYS)
        values = []
        for key in TOLERANCE_KEYS:
            value: Any = 0.0
            if fields is not INVALID and key in fields:
                value = self.number(fields[key], f"tolerance.{key}")
            if value is not INVALID and not value >= 0:
                self.fail(fields[key], f"tolerance.{key} must be a number >= 0")
                value = INVALID
            values.append(0.0 if value is INVALID or value == 0 else value)
        return values[0], values[1]

    def data_sets(self, node, graph: Graph):
        """The data sets, at least one, each with a value for every graph input and output."""
        items = self.sequence(node, "data_sets")
        if items is INVALID:
            return INVALID
        if not items:
            return self.fail(node, "a case needs at least one data set")
        data_sets = []
        for item in items:
            fields = self.mapping(item, "a data set", DATA_SET_KEYS, required=("outputs",))
            if fields is INVALID or "outputs" not in fields:
                continue
            inputs = self.values(fields.get("inputs"), graph.inputs, "inputs", item)
            outputs = self.values(fields["outputs"], graph.outputs, "outputs", item)
            if inputs is not INVALID and outputs is not INVALID:
                data_sets.append(DataSet(tuple(inputs), tuple(outputs), self.where(item)))
        return data_sets if len(data_sets) == len(items) else INVALID


def unreleased_text(opset: int) -> str:
    """Why an unreleased opset is refused, with the released ones."""
    return (f"no onnx release has ai.onnx opset {opset}, so no IR version goes with it; "
            "released opsets: " + ", ".join(map(str, sorted(operators.released_opsets()))))
