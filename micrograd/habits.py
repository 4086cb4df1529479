"""The lecture's own habits with a node's backward, on this engine: `o._backward()` called by hand, and
`out._backward = _backward` for a custom op whose zero-argument closure reads out.grad.

engine.py's ops hand Value() a closure `_backward(grad)` (kept as _grad_fn) that is given the output's grad,
so it never holds the output. Value._backward is this property: reading it gives a zero-argument function that
runs the op's backward as it is at that moment (so a wrapper may call the one it replaced), and setting it to a
zero-argument closure (which reads out.grad, and so holds out: the garbage collector frees that cycle) makes
backward() call it. A leaf keeps none: it has no parents to give a gradient to (inside no_grad() too).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _get(v: Any) -> Callable[[], None]:
    fn = getattr(v, '_grad_fn', None)  # getattr: a subclass's own __init__ may skip Value's
    return (lambda: fn(v.grad)) if fn else (lambda: None)  # a leaf's does nothing


def _set(v: Any, backward: Callable[[], None]) -> None:
    v._grad_fn = (lambda grad: backward()) if getattr(v, '_prev', ()) else None


backward = property(_get, _set, doc="The node's backward as the lecture calls it: o._backward()")
