# ruff: noqa: F821 - onnxscript reads "N" in FLOAT["N", 3] as a dim name, not a Python name
"""onnxscript functions of scripts/exporter_corpus.py whose graphs carry sequences, optionals and
loops. onnxscript reads a function's source, so they live in a file; imported only inside
`.venv-exporters/`. onnxscript has no sequence type annotation: sequences stay inside."""

from onnxscript import BOOL, FLOAT, INT64, script
from onnxscript import opset18 as op


@script()
def split_concat(x: FLOAT["N", 3]) -> FLOAT[1, "M"]:
    parts = op.SplitToSequence(x, axis=0)
    return op.ConcatFromSequence(parts, axis=1)


@script()
def split_stack(x: FLOAT["N", 3]) -> FLOAT[3, "N", 1]:
    parts = op.SplitToSequence(x, axis=0, keepdims=0)
    return op.Unsqueeze(op.ConcatFromSequence(parts, axis=1, new_axis=1), op.Constant(
        value_ints=[2]))


@script()
def split_sizes_at(x: FLOAT[4, 3], sizes: INT64[2]) -> FLOAT["K", 3]:
    parts = op.SplitToSequence(x, sizes, axis=0)
    return op.SequenceAt(parts, op.Constant(value_int=-1))


@script()
def construct_at(x: FLOAT[2, 3], y: FLOAT[2, 3]) -> FLOAT[2, 3]:
    pair = op.SequenceConstruct(x, y)
    return op.Add(op.SequenceAt(pair, op.Constant(value_int=1)),
                  op.SequenceAt(pair, op.Constant(value_int=0)))


@script()
def insert_length(x: FLOAT[2, 3], y: FLOAT[2, 3]) -> INT64:
    items = op.SequenceConstruct(x)
    items = op.SequenceInsert(items, y)
    items = op.SequenceInsert(items, x, op.Constant(value_int=0))
    return op.SequenceLength(items)


@script()
def erase_concat(x: FLOAT[4, 2]) -> FLOAT["M", 2]:
    parts = op.SplitToSequence(x, axis=0)
    parts = op.SequenceErase(parts, op.Constant(value_int=1))
    return op.ConcatFromSequence(parts, axis=0)


@script()
def empty_insert(x: FLOAT[3]) -> FLOAT[2, 3]:
    items = op.SequenceEmpty(dtype=1)
    items = op.SequenceInsert(items, x)
    items = op.SequenceInsert(items, op.Neg(x))
    return op.ConcatFromSequence(items, axis=0, new_axis=1)


@script()
def loop_build(x: FLOAT[2], n: INT64) -> FLOAT["N", 2]:
    items = op.SequenceEmpty(dtype=1)
    for i in range(n):
        items = op.SequenceInsert(items, op.Mul(x, op.Cast(i, to=1)))
    return op.ConcatFromSequence(items, axis=0, new_axis=1)


@script()
def loop_sum(x: FLOAT["N", 3]) -> FLOAT[1, 3]:
    parts = op.SplitToSequence(x, axis=0)
    total = op.SequenceAt(parts, op.Constant(value_int=0))
    for i in range(op.Sub(op.SequenceLength(parts), op.Constant(value_int=1))):
        total = op.Add(total, op.SequenceAt(parts, op.Add(i, op.Constant(value_int=1))))
    return total


@script()
def if_sequence(x: FLOAT["N", 2], split: BOOL) -> INT64:
    if split:
        parts = op.SplitToSequence(x, axis=0)
    else:
        parts = op.SequenceConstruct(x)
    return op.SequenceLength(parts)


@script()
def optional_present(x: FLOAT[2, 2]) -> FLOAT[2, 2]:
    maybe = op.Optional(x)
    if op.OptionalHasElement(maybe):
        result = op.OptionalGetElement(maybe)
    else:
        result = op.Neg(x)
    return result


@script()
def optional_has(x: FLOAT[2, 2]) -> BOOL:
    return op.OptionalHasElement(op.Optional(x))


FUNCTIONS = [("split_concat", split_concat, [("f", (3, 3))]),
             ("split_stack", split_stack, [("f", (4, 3))]),
             ("split_sizes_at", split_sizes_at, [("f", (4, 3)), ("sizes", None)]),
             ("construct_at", construct_at, [("f", (2, 3)), ("f", (2, 3))]),
             ("insert_length", insert_length, [("f", (2, 3)), ("f", (2, 3))]),
             ("erase_concat", erase_concat, [("f", (4, 2))]),
             ("empty_insert", empty_insert, [("f", (3,))]),
             ("loop_build", loop_build, [("f", (2,)), ("n", None)]),
             ("loop_sum", loop_sum, [("f", (4, 3))]),
             ("if_sequence", if_sequence, [("f", (3, 2)), ("b", None)]),
             ("optional_present", optional_present, [("f", (2, 2))]),
             ("optional_has", optional_has, [("f", (2, 2))])]
