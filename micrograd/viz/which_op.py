"""Which of the engine's ops made a Value, read from the Value itself and the engine's table of ops.

A drawing or a caption may say what an op's backward computes only when the engine's own backward is the
one that runs: a custom op written the lecture's way may be called 'dot' or '**2', and a Value built by
hand may have any op name and no backward at all. So the op's name and parents are not enough: the
Value's _grad_fn must also be a closure the engine's method made (its code is one of the method's own).
Everything else is drawn by its name and captioned by what its backward did to each parent's grad. The
names, methods and parents are micrograd.ops's.
"""
from __future__ import annotations

import inspect

from micrograd.engine import Value
from micrograd.ops import BY_NAME, Op

__all__ = ['engine_op', 'exponent']


def exponent(op: object) -> str | None:
    """k of x ** k as the engine spells the op, as the user wrote it ('2' of '**2', '-0.5' of '**-0.5'), or
    None for any other op (x ** y of two Values is '**')."""
    if not isinstance(op, str) or not op.startswith('**') or op == '**':
        return None
    try:
        float(op[2:])
    except ValueError:
        return None
    return op[2:]


def engine_op(v: Value) -> Op | None:
    """The record of micrograd.ops for the engine's op that made v (x ** k and x ** y alike have '**'s: x ** k
    has one parent), or None for a leaf, a Value built by hand, or a custom op."""
    op, parents = v._op, len(v._prev)
    if not isinstance(op, str):
        return None
    k = exponent(op)
    record = BY_NAME.get('**' if k is not None else op)
    if record is None or not any(_made_by(v, method) for method in record.methods):
        return None
    if k is not None:
        return record if parents == 1 else None
    if record.parents == 0:  # Value.dot: (*ws, *xs, bias)
        return record if parents % 2 == 1 else None
    return record if parents == record.parents else None


def _made_by(v: Value, method: str) -> bool:
    """Whether v's _grad_fn is the backward closure that Value.<method> defines (its code is one of the
    method's own: engine.py's, or more_ops.py's for the ops beyond the lecture)."""
    made = inspect.getattr_static(Value, method, None)
    code = getattr(getattr(made, '__func__', made), '__code__', None)
    closure = getattr(v._grad_fn, '__code__', None)
    return closure is not None and closure in getattr(code, 'co_consts', ())
