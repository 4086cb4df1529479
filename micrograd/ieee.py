"""IEEE arithmetic where Python's floats raise: the power rule's slope where it is infinite, and the checked
x ** y that Value's ops beyond the lecture use (x ** y of two Values, x ** k for k < 1, log's domain).

Python raises where IEEE 754 (and so PyTorch) gives an infinity: 0.0 ** -0.5, 1e-300 ** -2.0. A forward result
that is no real float is an error naming the op; a slope too steep for a float is inf, as PyTorch's, so that
backward() never fails half-way.
"""
from __future__ import annotations

import math

from micrograd.numeric import real


def positive(x: float, op: str) -> float:
    """x as a float, checked to be > 0 (the domain of log)."""
    if not x > 0:
        raise ValueError(f"{op}: {op.split('.')[-1]} is defined only for data > 0, got {x}")
    return real(x, op)


def checked_pow(base: object, exponent: object) -> tuple[float, float, float]:
    """x and y (base and exponent as floats: a NumPy number or a number written into .data is taken as its
    float) and x ** y, checked: an operand that is no real number, or a result that is not real or not
    finite, is an error naming **."""
    x, y = real(base, 'Value.__pow__'), real(exponent, 'Value.__pow__')
    if x < 0 and not (y.is_integer() or math.isinf(y)):  # (-2) ** inf is inf, as in Python
        raise ValueError(f"Value.__pow__: {x} ** {y} is not real (a fractional power of a "
                         "negative base)")
    if x == 0 and y < 0:
        raise ZeroDivisionError(f"Value.__pow__: {x} ** {y} divides by zero")
    try:
        out: float = x ** y
    except OverflowError:
        raise OverflowError(f"Value.__pow__: {x} ** {y} is too large for a float") from None
    return x, y, out


def power(x: float, e: float, number: bool = False) -> float:
    """x ** e of two floats in IEEE arithmetic, as PyTorch computes it: where Python raises, it is infinite
    (0.0 ** -0.5 and 1e-300 ** -2.0 are inf), with the sign x ** e has (negative for a negative x and an odd
    whole e, and at x = -0.0 for e = -0.5 when e is a number, not a Value's data). The power rule's
    x**(y-1) in the backward of x ** y: a slope too steep for a float is inf."""
    try:
        out: float = x ** e
        return out
    except (OverflowError, ZeroDivisionError):
        odd = e.is_integer() and e % 2 == 1
        rsqrt = number and e == -0.5  # PyTorch's x ** -0.5 of a number is 1 / sqrt(x): -inf at x = -0.0
        # (sqrt(-0.0) is -0.0); of a tensor exponent it is IEEE pow's +inf
        return math.copysign(math.inf, x) if odd or rsqrt else math.inf


def times_log(out: float, x: float) -> float:
    """out * log(x): the derivative of out = x**y by its exponent y, as PyTorch computes it: 0 where
    x is 0 (x**y is flat there for y > 0), NaN where x < 0 (x**y is real only at whole y)."""
    if x > 0:
        return out * math.log(x)
    if x == 0:
        return math.nan if math.isnan(out) else 0.0  # (0 ** nan is nan)
    return math.nan
