"""Value's ops beyond the lecture: x ** y of two Values (and x ** k where the lecture's rule fails),
log, sigmoid and dot. engine.py's Value takes them in as its methods, below its marked line.

Each is written as the lecture's ops in engine.py are: make the output, define `_backward(grad)`
right beneath it with the derivative in a comment, attach it with `out._backward = _backward`,
return the output. The output is made with type(self) (dot: cls), the Value the op was called on:
engine.py imports this module, so this one cannot import engine.py. A new op goes here, after dot,
in the same shape (this file stays within its 100 lines); see CONTRIBUTING.md.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from micrograd import ieee, weighted_sum

__all__ = ['_power', 'log', 'sigmoid', 'dot']


def _power(self: Any, other: Any) -> Any:  # x ** y, and x ** k at its edges: errors, inf slopes
    two = hasattr(other, '_prev') and not hasattr(other, 'shape')  # x ** y of two Values
    x, y, data = ieee.checked_pow(self.data, other.data if two else other)
    out = type(self)(data, (self, other) if two else (self,), '**' if two else f'**{other}')
    def _backward(grad: float) -> None:  # d(x**y)/dx = y * x**(y-1) (0 for y = 0: PyTorch's)
        self.grad += y * ieee.power(x, y - 1, not two) * grad if y else 0.0  # (inf at x = 0, y < 1)
        if two:  # d(x**y)/dy = x**y * log(x), 0 at x = 0 as in PyTorch
            other.grad += ieee.times_log(data, x) * grad
    out._backward = _backward
    return out


def log(self: Any) -> Any:
    x = ieee.positive(self.data, 'Value.log')  # log is defined only for x > 0
    out = type(self)(math.log(x), (self,), 'log')
    def _backward(grad: float) -> None:
        self.grad += grad / x  # d log(x)/dx = 1/x
    out._backward = _backward
    return out


def sigmoid(self: Any) -> Any:
    e = math.exp(-math.fabs(self.data))  # e**-|x| is in (0, 1]: it never overflows
    s = 1 / (1 + e) if self.data >= 0 else e / (1 + e)  # 1/(1 + e**-x), in either sign
    out = type(self)(s, (self,), 'sigmoid')
    def _backward(grad: float) -> None:
        self.grad += s * (1 - s) * grad  # d sigmoid(x)/dx = s (1 - s)
    out._backward = _backward
    return out


@classmethod  # type: ignore[misc]  # Value.dot(ws, xs): bias + w1*x1 + w2*x2 + ... as one node
def dot(cls: Any, ws: Sequence[Any], xs: Sequence[Any], bias: Any = None) -> Any:
    ws, xs, b, total = weighted_sum.operands(ws, xs, bias, cls)  # (sum() would make 2n nodes)
    out = cls(total, (*ws, *xs, b), 'dot')
    def _backward(grad: float) -> None:
        for w, x in zip(ws, xs):
            w.grad += x.data * grad  # d/dw_i = x_i
            x.grad += w.data * grad  # d/dx_i = w_i
        b.grad += grad  # d/dbias = 1
    out._backward = _backward
    return out
