"""Values in case files: tensors as nested lists, sequences as lists of tensors, the
empty-optional marker, and `by_type` choices, read into numpy arrays (None: an empty optional).

Scalars follow `_core/elements.py`'s rules for their element type; one tensor value holds at
most MAX_TENSOR_ELEMENTS elements (checked from the YAML list lengths before any element is
read); a declared shape must match the value's.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import yaml

from .._core.budgets import MAX_TENSOR_ELEMENTS
from .._core.elements import ELEMENTS
from .._core.errors import ScalarError
from .._core.problems import quote
from .._core.value_kinds import (
    MapType,
    OptionalType,
    SequenceType,
    TensorType,
    ValueType,
    innermost,
)
from .nodes import INVALID, NodeReader, did_you_mean, is_null, keys, plain
from .vocabulary import EMPTY_MARKER_KEY, EMPTY_MARKER_VALUE, MAP_KEY, TYPE_GROUPS


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
        """One value of `value_type`: an array, a list of arrays, or None (empty optional)."""
        if top_level and isinstance(node, yaml.MappingNode) and keys(node) == ["by_type"]:
            node = self.by_type(node.value[0][1], value_type, what)
            if node is INVALID:
                return INVALID
        if isinstance(value_type, OptionalType):
            if isinstance(node, yaml.MappingNode) and keys(node) != [MAP_KEY]:
                return None if self.empty_marker(node, what) else INVALID
            return self.value(node, value_type.element, what)
        if isinstance(value_type, MapType):
            return self.map(node, value_type, what)
        if isinstance(node, yaml.MappingNode):
            if keys(node) == [EMPTY_MARKER_KEY]:
                self.fail(node, f"{what} is {value_type}, not an optional; the empty-optional "
                                "marker {optional: empty} is only for optional values")
            else:
                self.fail(node, f"{what} must be {_value_words(value_type)}, not a mapping")
            return INVALID
        if isinstance(value_type, SequenceType):
            items = self.sequence(node, f"{what} ({value_type}, a list of tensors)")
            if items is INVALID:
                return INVALID
            items = [self.by_type_element(item, value_type, what) for item in items]
            elements = [INVALID if item is INVALID else
                        self.value(item, value_type.element, f"element {i} of {what}")
                        if isinstance(value_type.element, MapType) else
                        self.tensor(item, cast(TensorType, value_type.element),
                                    f"element {i} of {what}")
                        for i, item in enumerate(items)]
            return INVALID if any(e is INVALID for e in elements) else elements
        return self.tensor(node, cast(TensorType, value_type), what)

    def map(self, node, map_type: MapType, what: str):
        """A map, `{map: [[key, value], ...]}`, as a dict in the pairs' order; INVALID when a
        pair, a key (of the key type, once) or a value is not right."""
        if not (isinstance(node, yaml.MappingNode) and keys(node) == [MAP_KEY]):
            return self.fail(node, f"{what} is {map_type}: write it {{{MAP_KEY}: [[key, value], "
                                   "...]}")
        pairs = self.sequence(node.value[0][1], f"{what} ({map_type}, a list of [key, value])")
        if pairs is INVALID:
            return INVALID
        found: dict = {}
        ok = True
        for i, pair in enumerate(pairs):
            if not (isinstance(pair, yaml.SequenceNode) and len(pair.value) == 2
                    and isinstance(pair.value[0], yaml.ScalarNode)):
                self.fail(pair, f"entry {i} of {what} must be a pair [key, value]")
                ok = False
                continue
            key_node, value_node = pair.value
            try:
                key = map_type.key.parse(key_node.value, quoted=not plain(key_node))
            except ScalarError as error:
                self.fail(key_node, f"key of entry {i} of {what}: {error}")
                ok = False
                continue
            key = key if isinstance(key, str) else int(key)  # type: ignore[call-overload]
            if key in found:
                self.fail(key_node, f"{what} has the key {key!r} twice")
                ok = False
                continue
            found[key] = self.value(value_node, map_type.value, f"the value of key {key!r} of "
                                                                f"{what}")
            ok = ok and found[key] is not INVALID
        return found if ok else INVALID

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


def _value_words(value_type: ValueType) -> str:
    if isinstance(value_type, SequenceType):
        return f"a list of tensors ({value_type})"
    return f"a number, string or nested list ({value_type})"
