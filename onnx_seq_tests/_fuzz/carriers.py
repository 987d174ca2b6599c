"""Carriers: a sequence or optional the draw made, passed through an Identity, an If (a branch
each) or a Loop (carried, each turn inserting a tensor at the back). Each returns the name of the
carried value after the carrier."""

from __future__ import annotations

from typing import cast

import numpy as np
from onnx import shape_inference

from .._core.cases import Graph, Node, ValueDecl
from .._core.errors import ModelError, NoResult
from .._core.value_kinds import SequenceType, TensorType
from .._suite.model import build_model
from . import schemas
from .draw import BOOL, INT64, Draw
from .recipes import WHERE, Recipe, to_case
from .schemas import tensor
from .values import draw_shape


def carry_identity(d: Draw, name: str) -> str:
    value_type = d.types[name]
    if not schemas.admits("Identity", d.opset, [value_type], [value_type]):
        raise NoResult(f"Identity at opset {d.opset} does not carry {value_type}")
    out = d.name("i")
    d.node("Identity", [name], [out], [value_type])
    return out


def carry_if(d: Draw, name: str) -> str:
    """If(cond) { then: Identity(name) } else { SequenceErase(name) or Identity(name) };
    sometimes a second output, a tensor each branch makes with a Constant node."""
    value_type = d.types[name]
    if not (schemas.admits("If", d.opset, [tensor(BOOL)], [value_type])
            and schemas.admits("Identity", d.opset, [value_type], [value_type])):
        raise NoResult(f"If at opset {d.opset} does not carry {value_type}")
    cond = d.source(tensor(BOOL), np.array(d.rng.random() < 0.5), "c",
                    initializer=d.wide(0.3))
    then_out, else_out = d.name("ti"), d.name("ei")
    out_decl = lambda n: (ValueDecl(n, value_type, WHERE),)  # noqa: E731
    then_nodes: tuple[Node, ...] = (Node("Identity", (name,), (then_out,), (), WHERE),)
    else_nodes: tuple[Node, ...]
    if isinstance(value_type, SequenceType) and d.values[name]:
        else_nodes = (Node("SequenceErase", (name,), (else_out,), (), WHERE),)
    else:
        else_nodes = (Node("Identity", (name,), (else_out,), (), WHERE),)
    then_decls: tuple[ValueDecl, ...] = out_decl(then_out)
    else_decls: tuple[ValueDecl, ...] = out_decl(else_out)
    outputs, out_types = [d.name("f")], [value_type]
    if d.opset >= 12 and d.rng.random() < 0.4:  # a branch output made by a Constant node
        made = []
        for _ in ("then", "else"):
            k = d.name("ck")
            made.append((Node("Constant", (), (k,), (("value_int", d.rng.randint(1, 9)),),
                              WHERE), ValueDecl(k, TensorType(INT64, ()), WHERE)))
        then_nodes, then_decls = then_nodes + (made[0][0],), then_decls + (made[0][1],)
        else_nodes, else_decls = else_nodes + (made[1][0],), else_decls + (made[1][1],)
        outputs.append(d.name("fk"))
        out_types.append(tensor(INT64))
    d.node("If", [cond], outputs, out_types, then_branch=Graph((), then_decls, then_nodes),
           else_branch=Graph((), else_decls, else_nodes))
    return outputs[0]


def carry_loop(d: Draw, name: str) -> str:
    """Loop(M, cond) carrying a sequence (each turn inserts a tensor at the back) or an
    optional (passed through). The condition is omitted, given (true or false), or given true
    with a body that stops after a drawn number of turns (`Less(i, k)`, k a Constant node);
    sometimes the iteration number is also a scan output (0-d values stacked to [N])."""
    value_type = d.types[name]
    if not schemas.admits("Loop", d.opset, [tensor(INT64), None, value_type], [value_type]):
        raise NoResult(f"Loop at opset {d.opset} does not carry {value_type}")
    if isinstance(value_type, SequenceType):
        item_type = value_type.element
        op, ins = "SequenceInsert", [value_type, item_type]
    else:
        op, ins = "Identity", [value_type]
    if not schemas.admits(op, d.opset, ins, [value_type]):
        raise NoResult(f"{op} at opset {d.opset} does not take {value_type} (Loop body)")
    rng = d.rng
    i, c, s_in, c_out, s_out = (d.name(x) for x in ("li", "lc", "ls", "lco", "lso"))
    if isinstance(value_type, SequenceType):
        element = cast(TensorType, value_type.element).element
        shape = _fitting(draw_shape(rng, d.rank_of(name, 1)), _inferred_elements(d, name))
        item = d.tensor_input(element, shape)
        carry = Node("SequenceInsert", (s_in, item), (s_out,), (), WHERE)
    else:
        carry = Node("Identity", (s_in,), (s_out,), (), WHERE)
    trips = d.source(tensor(INT64), np.array(rng.randint(0, 3), dtype=np.int64), "m",
                     initializer=d.wide(0.3))
    style = rng.choice(("omitted", "omitted", "given", "stop")) if d.opset >= 12 else "omitted"
    cond = "" if style == "omitted" else d.source(
        tensor(BOOL), np.array(style == "stop" or rng.random() < 0.5), "lcond",
        initializer=d.wide(0.3))
    stops: tuple[Node, ...] = (Node("Identity", (c,), (c_out,), (), WHERE),)
    if style == "stop":
        k = d.name("lk")
        stops = (Node("Constant", (), (k,), (("value_int", rng.randint(0, 2)),), WHERE),
                 Node("Less", (i, k), (c_out,), (), WHERE))
    body_outputs = [ValueDecl(c_out, TensorType(BOOL, ()), WHERE),
                    ValueDecl(s_out, value_type, WHERE)]
    nodes: tuple[Node, ...] = (*stops, carry)
    outputs, out_types = [d.name("l")], [value_type]
    if rng.random() < 0.3:  # the iteration number as a scan output
        scan = d.name("lsc")
        nodes += (Node("Identity", (i,), (scan,), (), WHERE),)
        body_outputs.append(ValueDecl(scan, TensorType(INT64, ()), WHERE))
        outputs.append(d.name("lscan"))
        out_types.append(TensorType(INT64, (None,)))
    body = Graph((ValueDecl(i, TensorType(INT64, ()), WHERE),
                  ValueDecl(c, TensorType(BOOL, ()), WHERE),
                  ValueDecl(s_in, value_type, WHERE)),
                 tuple(body_outputs), nodes)
    d.node("Loop", [trips, cond, name], outputs, out_types, body=body)
    return outputs[0]


def _inferred_elements(d: Draw, name: str):
    """The element shape onnx's shape inference gives sequence `name` in the program so far,
    its graph inputs declaring fixed dims (the most it can know): dims (None: unknown), or None
    where it knows no rank. onnx's Loop inference gives a carried sequence the type of the
    Loop's input, not widened by what the body inserts; a tensor the body inserts must fit it,
    else the tensor-boundary form (SequenceAt on the Loop's output) contradicts inference."""
    recipe = Recipe(d.opset, tuple(d.nodes), tuple(d.sources), (name,), dict(d.types),
                    fixed=True)
    try:
        model = build_model(to_case(recipe, "carried"))
    except (NoResult, ModelError):
        return None
    inferred = shape_inference.infer_shapes(model).graph.output[0].type
    element = inferred.sequence_type.elem_type.tensor_type
    if not element.HasField("shape"):
        return None
    return tuple(dim.dim_value if dim.HasField("dim_value") else None
                 for dim in element.shape.dim)


def _fitting(drawn: tuple, known) -> tuple:
    """`drawn`, made to fit the inferred element shape `known` (its rank, its fixed dims)."""
    if known is None:
        return drawn
    return tuple(k if k is not None else (drawn[i] if i < len(drawn) else 1)
                 for i, k in enumerate(known))


#: The carriers a drawn sequence or optional may go through.
CARRIERS = {"Identity": carry_identity, "If": carry_if, "Loop": carry_loop}
