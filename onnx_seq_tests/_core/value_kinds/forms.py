"""What a kind gets from the rooms above `_core` when it reads or writes its case-file form: the
case reader's and writer's primitives, as protocols (nodes are the reader's, opaque here), so a
kind spells its own form (`{map: [[key, value], ...]}`) without importing the case-file room.
"""

from __future__ import annotations

from typing import Any, Protocol


class FormReader(Protocol):
    """The case reader (`_casefile/tensors.py`'s DataReader) as a kind's reading sees it. Each
    method that fails records a problem at its node (file:line:col) and gives INVALID."""

    #: What a value that cannot be read is; falsy.
    INVALID: Any

    def fail(self, node: Any, message: str) -> Any:
        """Record `message` at `node`; INVALID."""

    def sequence(self, node: Any, what: str) -> Any:
        """The item nodes of a list, or INVALID."""

    def items(self, node: Any) -> list[Any] | None:
        """The item nodes of a list; None when `node` is not a list (nothing recorded)."""

    def scalar(self, node: Any) -> tuple[str, bool] | None:
        """A scalar's text and whether it was quoted; None when `node` is not a scalar."""

    def unwrap(self, node: Any, key: str) -> Any:
        """The node of `{key: node}`; None when `node` is not a mapping of that one key."""

    def other_mapping(self, node: Any) -> bool:
        """Whether `node` is a mapping but none a kind writes its values as (`{map: ...}`):
        the empty-optional marker, or a mistake."""

    def refuse_mapping(self, node: Any, value_type: Any, words: str, what: str) -> bool:
        """Whether `node` is a mapping, where a value of `value_type` (a ValueType, written as
        `words`) cannot be one; the problem is recorded."""

    def empty_marker(self, node: Any, what: str) -> bool:
        """Whether a mapping is the empty-optional marker (a problem is recorded if not)."""

    def by_type_element(self, node: Any, value_type: Any, what: str) -> Any:
        """The node a `{by_type: ...}` element chooses, `node` when it is none, or INVALID."""

    def tensor(self, node: Any, tensor_type: Any, what: str) -> Any:
        """A tensor of a TensorType written as nested lists, as an array of its element's
        dtype, or INVALID."""


class FormWriter(Protocol):
    """The case writer (`_casefile/writer.py`) as a kind's writing sees it."""

    def flow(self, items: list[Any]) -> Any:
        """A list written in flow style: `[1, 2, 3]`."""

    def empty(self) -> Any:
        """The empty-optional marker, `{optional: empty}`."""

    def tensor(self, value: Any, tensor_type: Any, what: str) -> Any:
        """A tensor of a TensorType as nested lists (a scalar as itself)."""
