"""Comparing the learner's numbers with the right ones, and printing them as a learner reads them."""
from __future__ import annotations

import math
from collections.abc import Callable


def close(a: object, b: object, rel: float = 1e-6, abs_: float = 1e-9) -> bool:
    """Equal up to rounding (NaN equals NaN: a NaN where the library has one is no mistake)."""
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return False
    return math.isnan(a) and math.isnan(b) or math.isclose(a, b, rel_tol=rel, abs_tol=abs_)


def central_difference(f: Callable[[float], float], x: float) -> float:
    """df/dx at x from f alone: (f(x + h) - f(x - h)) / 2h, h relative to x (a fixed step suits no x far from 1)."""
    h = 1e-6 * (abs(x) or 1.0)
    return (f(x + h) - f(x - h)) / (2 * h)


def same(a: dict[str, float] | None, b: dict[str, float] | None) -> bool:
    """The same names with close numbers."""
    return a is not None and b is not None and a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)


def number(v: object) -> str:
    """A float as Python prints it, unless that takes more than 12 significant digits."""
    text = repr(v)
    return f"{v:.12g}" if isinstance(v, float) and len(text) > 14 else text


def grads(values: dict[str, float] | None) -> str:
    """{'x': 1.5} as 'x.grad = 1.5'."""
    return ', '.join(f"{leaf}.grad = {number(g)}" for leaf, g in (values or {}).items())
