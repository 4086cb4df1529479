"""Which of the engine's ops made a Value, read from the Value itself.

A drawing or a caption may say what an op's backward computes only when the engine's own backward is the
one that runs: a custom op written the lecture's way may be called 'dot' or '**2', and a Value built by
hand may have any op name and no backward at all. So the op's name and parents are not enough: the
Value's _grad_fn must also be the closure the engine's method made (Python names it after the method,
`Value.__mul__.<locals>._backward`). Everything else is drawn by its name and captioned by what its
backward did to each parent's grad.
"""
from __future__ import annotations

from micrograd.engine import Value

__all__ = ['engine_op', 'exponent']

# The engine's method that makes each op, by the op's name (x ** k spells k in it: '**2.0').
_METHODS = {'+': '__add__', '*': '__mul__', '/': '__truediv__', '**': '__pow__', 'relu': 'relu', 'tanh': 'tanh',
            'exp': 'exp', 'log': 'log', 'sigmoid': 'sigmoid', 'dot': 'dot'}
_PARENTS = {'+': 2, '*': 2, '/': 2, '**': 2, 'relu': 1, 'tanh': 1, 'exp': 1, 'log': 1, 'sigmoid': 1}


def exponent(op: object) -> float | None:
    """k of x ** k as the engine spells the op ('**2.0', '**-0.5'), or None for any other op."""
    if not isinstance(op, str) or not op.startswith('**') or op == '**':
        return None
    try:
        return float(op[2:])
    except ValueError:
        return None


def engine_op(v: Value) -> str | None:
    """The op of the engine that made v: '+', '*', '/', '**' (x ** y of two Values), '**k' (x ** k of a
    number k: see exponent), 'relu', 'tanh', 'exp', 'log', 'sigmoid' or 'dot'; None for a leaf, a Value
    built by hand, or a custom op."""
    op, parents = v._op, len(v._prev)
    if not isinstance(op, str):
        return None
    k = exponent(op)
    name = '**' if k is not None else op
    if name not in _METHODS or not _made_by(v, _METHODS[name]):
        return None
    if k is not None:
        return '**k' if parents == 1 else None
    if op == 'dot':
        return op if parents % 2 == 1 else None  # (*ws, *xs, bias)
    return op if parents == _PARENTS[op] else None


def _made_by(v: Value, method: str) -> bool:
    """Whether v's _grad_fn is the backward closure that Value.<method> of micrograd.engine defines."""
    grad_fn = v._grad_fn
    return (getattr(grad_fn, '__module__', None) == Value.__module__
            and getattr(grad_fn, '__qualname__', None) == f'Value.{method}.<locals>._backward')
