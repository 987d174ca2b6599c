"""Values in case files: each value kind reads its own form (`ValueType.read_case`: a sequence
as a list, an optional's empty marker, `{map: [[key, value], ...]}`) with the primitives of
DataReader (value_kinds.forms.FormReader): tensors as nested lists, the empty-optional marker,
`by_type` choices, read into numpy arrays (None: an empty optional).

Scalars follow `_core/elements.py`'s rules for their element type; one tensor value holds at
most MAX_TENSOR_ELEMENTS elements (checked from the YAML list lengths before any element is
read); a declared shape must match the value's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import yaml

from .._core.budgets import MAX_TENSOR_ELEMENTS
from .._core.elements import ELEMENTS
from .._core.errors import ScalarError
from .._core.problems import quote
from .._core.value_kinds import CASE_KEYS, TensorType, ValueType, innermost
from .nodes import INVALID, NodeReader, did_you_mean, is_null, keys, plain
from .vocabulary import EMPTY_MARKER_KEY, EMPTY_MARKER_VALUE, TYPE_GROUPS


class DataReader(NodeReader):
    """Reads the values of data sets and initializers; INVALID for a value it cannot read."""

    def values(self, node, decls, what: str, owner):
        """The values of a data set's `inputs` or `outputs` mapping, in the order of `decls`."""
        keyed = self.keyed(node, f"the data set's {what}", [d.name for d in decls])
        if keyed is INVALID:
            return INVALID
        fields, misspelled = keyed
        ok = True
        values = []
        for decl in decls:
            if decl.name in misspelled:
                ok = False  # reported as an unknown key with a did-you-mean
                continue
            if decl.name not in fields:
                self.fail(node if node is not None else owner,
                          f"the data set's {what} lack {quote(decl.name)}; every graph "
                          f"{what[:-1]} needs a value")
                ok = False
                continue
            value = self.value(fields[decl.name], decl.type, f"{quote(decl.name)}", top_level=True)
            if value is INVALID:
                ok = False
            values.append(value)
        return values if ok else INVALID

    def value(self, node, value_type: ValueType, what: str, top_level: bool = False):
        """One value of `value_type` as its kind reads its form (`ValueType.read_case`, with
        this reader's primitives): an array, a list, a dict, or None (empty optional)."""
        if top_level and isinstance(node, yaml.MappingNode) and keys(node) == ["by_type"]:
            node = self.by_type(node.value[0][1], value_type, what)
            if node is INVALID:
                return INVALID
        return value_type.read_case(node, self, what)

    # -- the primitives a kind reads its form with (value_kinds.forms.FormReader) ----------------

    INVALID = INVALID

    def items(self, node) -> list | None:
        """The item nodes of a list; None when `node` is not a list."""
        return list(node.value) if isinstance(node, yaml.SequenceNode) else None

    def scalar(self, node) -> tuple[str, bool] | None:
        """A scalar's text and whether it was quoted; None when `node` is not a scalar."""
        return (node.value, not plain(node)) if isinstance(node, yaml.ScalarNode) else None

    def unwrap(self, node, key: str):
        """The node of `{key: node}`; None when `node` is not a mapping of that one key."""
        if isinstance(node, yaml.MappingNode) and keys(node) == [key]:
            return node.value[0][1]
        return None

    def other_mapping(self, node) -> bool:
        """Whether `node` is a mapping, but of none of the kinds' keys (CASE_KEYS)."""
        return isinstance(node, yaml.MappingNode) and not (
            len(node.value) == 1 and keys(node)[0] in CASE_KEYS)

    def refuse_mapping(self, node, value_type: ValueType, words: str, what: str) -> bool:
        """Whether `node` is a mapping where a value of `value_type`, written as `words`, is
        due (the empty-optional marker there is named as such); the problem is recorded."""
        if not isinstance(node, yaml.MappingNode):
            return False
        if keys(node) == [EMPTY_MARKER_KEY]:
            self.fail(node, f"{what} is {value_type}, not an optional; the empty-optional "
                            "marker {optional: empty} is only for optional values")
        else:
            self.fail(node, f"{what} must be {words}, not a mapping")
        return True

    def by_type_element(self, node, value_type: ValueType, what: str):
        """A sequence element may be {by_type: ...} too, so per-type tensors compose into
        sequences (`[*a, *b]`); INVALID when no value fits."""
        if isinstance(node, yaml.MappingNode) and keys(node) == ["by_type"]:
            return self.by_type(node.value[0][1], value_type, what)
        return node

    def empty_marker(self, node, what: str) -> bool:
        """Whether a mapping is the empty-optional marker (a problem is recorded if not)."""
        pairs = node.value
        if (len(pairs) == 1 and pairs[0][0].value == EMPTY_MARKER_KEY
                and isinstance(pairs[0][1], yaml.ScalarNode)
                and pairs[0][1].value == EMPTY_MARKER_VALUE):
            return True
        self.fail(node, f"{what}: the only mapping allowed for an optional value is the "
                        "empty marker {optional: empty}; write a present value as the value itself")
        return False

    def by_type(self, node, value_type: ValueType, what: str):
        """The node `by_type` chooses for this expansion's element type, or INVALID."""
        element = innermost(value_type).element
        if "type" not in self.binding:
            return self.fail(node, f"{what}: by_type needs a case with for_each")
        groups = [element.name, TYPE_GROUPS[element.kind], "default"]
        if not isinstance(node, yaml.MappingNode):
            return self.fail(node, f"{what}: by_type must be a mapping of element type or group "
                                   "(integers, floats, complexes, default) to value")
        choices = {}
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                allowed = set(ELEMENTS) | set(TYPE_GROUPS.values()) | {"default"}
                if key.value not in allowed:
                    self.fail(key, f"unknown by_type key {quote(key.value)}"
                                   f"{did_you_mean(key.value, allowed)}")
                choices[key.value] = value
        for group in groups:
            if group in choices:
                return choices[group]
        return self.fail(node, f"{what}: by_type has no value for {element.name}; add "
                               f"'{element.name}', '{TYPE_GROUPS[element.kind]}' or 'default'")

    def tensor(self, node, tensor_type: TensorType, what: str):
        """A tensor as an array of the element's dtype, or INVALID. `[]` fills any fixed
        declared shape of no elements, also those nested lists cannot give ([0, 3])."""
        element = tensor_type.element
        declared = tensor_type.shape
        if isinstance(node, yaml.SequenceNode) and not node.value and declared and all(
                isinstance(d, int) for d in declared) and 0 in declared:
            return np.zeros(declared, dtype=element.dtype)
        count, nominal = _nominal_size(node)
        if count > MAX_TENSOR_ELEMENTS:
            return self.fail(node, f"{what} has {count} elements (shape {list(nominal)}), more "
                                   f"than {MAX_TENSOR_ELEMENTS}, the limit for one tensor value")
        leaves: list = []
        shape = self.nested(node, element, leaves, what)
        if shape is INVALID:
            return INVALID
        try:
            array = np.array(leaves, dtype=element.dtype).reshape(shape)
        except (ValueError, OverflowError) as error:
            return self.fail(node, f"{what}: cannot hold these values as {element.name}: {error}")
        if declared is not None and not _shape_matches(shape, declared):
            return self.fail(node, f"{what} has shape {list(shape)} but its type declares "
                                   f"{_shape_text(declared)}")
        return array

    def nested(self, node, element, leaves: list, what: str):
        """Collect leaves depth first; return the shape, or INVALID (ragged, bad scalar, too
        big)."""
        if isinstance(node, yaml.ScalarNode):
            if is_null(node):
                return self.fail(node, f"{what}: empty value; for an empty string write '', for "
                                       "an empty optional write {optional: empty}")
            try:
                leaves.append(element.parse(node.value, quoted=not plain(node)))
            except ScalarError as error:
                return self.fail(node, f"{what}: {error}")
            if len(leaves) > MAX_TENSOR_ELEMENTS:
                return self.fail(node, f"{what} has more than {MAX_TENSOR_ELEMENTS} elements, "
                                       "the limit for one value")
            return ()
        if not isinstance(node, yaml.SequenceNode):
            return self.fail(node, f"{what} must be a number, a string or nested lists")
        shapes: list[Any] = []
        for item in node.value:
            shape = self.nested(item, element, leaves, what)
            if shape is INVALID:
                return INVALID
            if shapes and shape != shapes[0]:
                return self.fail(item, f"{what} is ragged: this item has shape {list(shape)}, "
                                       f"the first has {list(shapes[0])}; a tensor's rows must "
                                       "all be alike")
            shapes.append(shape)
        return (len(node.value),) + (shapes[0] if shapes else ())


def _nominal_size(node) -> tuple[int, tuple[int, ...]]:
    """Element count and shape of nested lists judged by first items only: no leaf is read."""
    shape = []
    while isinstance(node, yaml.SequenceNode):
        shape.append(len(node.value))
        if not node.value:
            break
        node = node.value[0]
    return int(np.prod(shape, dtype=object)) if shape else 1, tuple(shape)


def _shape_matches(actual: tuple, declared: tuple) -> bool:
    if len(actual) != len(declared):
        return False
    return all(not isinstance(d, int) or d == a for a, d in zip(actual, declared, strict=False))


def _shape_text(shape) -> str:
    return "[" + ", ".join("~" if d is None else str(d) for d in shape) + "]"

