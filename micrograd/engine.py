"""Karpathy's micrograd engine, op for op: read it instead of his. Comments say where it differs;
the type hints (`-> Value`) are for a type checker: Python runs the code the same without them."""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from micrograd import copying, habits, ieee, weighted_sum
from micrograd.grad_mode import is_grad_enabled, no_grad, recording
from micrograd.numeric import checked

__all__ = ['Value', 'no_grad', 'is_grad_enabled', 'topological_order']

class Value:
    """A scalar, its grad, the op and parents that made it; _backward(grad) never holds out."""
    def __init__(self, data: float, _children: Iterable[Value] = (), _op: str = '', label: str = '',
                 *, _grad_fn: Any = None, _for: str = ''):  # _grad_fn(grad): the op's _backward
        # the one check (numeric.py): no float made one, or refused naming its op (or _for's: x + 2)
        self.data = data if type(data) is float else checked(data, _children, _op or _for, _grad_fn)
        self._prev = tuple(_children) if recording.get() else ()  # none in `with no_grad():`
        self._grad_fn = _grad_fn if self._prev else None  # (a tuple, not his set: a*a keeps both)
        self.grad, self._op, self.label = 0.0, _op, label

    def __repr__(self) -> str:
        return f"Value(data={self.data}, grad={self.grad})"

    def __add__(self, other: Value | float) -> Value:
        other = other if isinstance(other, Value) else Value(other, _for='__add__')
        def _backward(grad: float) -> None:  # grad: the output's, the lecture's out.grad
            self.grad += grad  # d(x+y)/dx = 1
            other.grad += grad  # d(x+y)/dy = 1
        return Value(self.data + other.data, (self, other), '+', _grad_fn=_backward)

    def __mul__(self, other: Value | float) -> Value:
        other = other if isinstance(other, Value) else Value(other, _for='__mul__')
        def _backward(grad: float) -> None:
            self.grad += other.data * grad  # d(xy)/dx = y
            other.grad += self.data * grad  # d(xy)/dy = x
        return Value(self.data * other.data, (self, other), '*', _grad_fn=_backward)

    def __pow__(self, other: Value | float) -> Value:
        if (isinstance(other, Value) or type(other) not in (int, float) or not other >= 1  # (nan)
                or type(self.data) is not float):  # x ** y, k < 1 (slope inf at 0), NumPy: below
            return self._power(other)
        def _backward(grad: float) -> None:  # the lecture's x ** k, for an int or float k >= 1
            self.grad += other * self.data**(other - 1) * grad  # d x**k/dx = k * x**(k-1)
        return Value(self.data**other, (self,), f'**{other}', _grad_fn=_backward)

    def tanh(self) -> Value:
        t = math.tanh(self.data)  # the lecture's (e**2x - 1)/(e**2x + 1) overflows for x > 355
        def _backward(grad: float) -> None:
            self.grad += (1 - t * t) * grad  # d tanh(x)/dx = 1 - tanh(x)**2
        return Value(t, (self,), 'tanh', _grad_fn=_backward)

    def exp(self) -> Value:
        e = math.exp(self.data)  # (an OverflowError for x > 709.78, as Python's math.exp)
        def _backward(grad: float) -> None:
            self.grad += e * grad  # d e**x/dx = e**x
        return Value(e, (self,), 'exp', _grad_fn=_backward)

    def relu(self) -> Value:
        def _backward(grad: float) -> None:  # his (out.data > 0) * grad as a choice (0 * inf: nan)
            self.grad += 0.0 if self.data <= 0 else grad  # d relu(x)/dx = 0 for x <= 0, else 1
        return Value(0.0 if self.data < 0 else self.data, (self,), 'ReLU', _grad_fn=_backward)

    def __neg__(self) -> Value:  # -self
        return self * -1.0
    __radd__ = __add__  # other + self is self + other
    __rmul__ = __mul__  # other * self is self * other
    def __sub__(self, other: Value | float) -> Value:  # self + (-other), -k a float (-uint8 wraps)
        k = other if isinstance(other, (Value, float)) else Value(other, _for='__sub__').data
        return self + (-k)
    def __rsub__(self, other: float) -> Value:  # other - self
        return -self + Value(other, _for='__rsub__')
    def __truediv__(self, other: Value | float) -> Value:  # self / other, its own op (y = 0: error)
        other = other if isinstance(other, Value) else Value(other, _for='__truediv__')
        def _backward(grad: float) -> None:  # (the lecture's self * other**-1 overflows at 1e-310)
            self.grad += grad / other.data  # d(x/y)/dx = 1/y
            other.grad -= grad * (self.data / other.data / other.data)  # -x/y**2, as (x/y)/y
        return Value(self.data / other.data, (self, other), '/', _grad_fn=_backward)
    def __rtruediv__(self, other: float) -> Value:  # other / self
        return Value(other, _for='__rtruediv__') / self
    def backward(self) -> None:  # d(self)/d(node) into each node's .grad (leaves add to theirs)
        topo = self._topological_order()
        for node in topo:
            node.grad = 0.0  # unlike the lecture's, a second backward() does not double these
        self.grad += 1.0  # d(self)/d(self), added: a leaf's backward() accumulates too
        for node in reversed(topo):
            if node._grad_fn:  # (None for a node built by hand from parents, with no _backward)
                node._grad_fn(node.grad)  # the chain rule: grad * local derivative, to parents

    def _topological_order(self) -> list[Value]:  # the nodes ops made, each after its parents
        # The lecture's build_topo, with a stack (any depth): a node goes back under a None marker
        topo, visited = [], set()
        stack: list[Any] = [self]  # Values, and the None markers
        while stack:
            node = stack.pop()
            if node is None:
                topo.append(stack.pop())  # the node beneath the None: its parents are listed
            elif node._prev and node not in visited:  # a leaf takes no place: it only receives
                visited.add(node)
                stack += node, None, *node._prev
        return topo

    # --- the rest: beyond the lecture -------------------------------------------------------------
    def _power(self, other: Value | float) -> Value:  # x ** y; its errors and inf slopes: ieee.py
        x, y, out = ieee.checked_pow(self.data, other.data if isinstance(other, Value) else other)
        def _backward(grad: float) -> None:  # d(x**y)/dx = y * x**(y-1) (0 for y = 0: PyTorch's)
            self.grad += y * ieee.power(x, y - 1) * grad if y else 0.0  # (inf at x = 0 for y < 1)
            if isinstance(other, Value):  # d(x**y)/dy = x**y * log(x), 0 at x = 0 as in PyTorch
                other.grad += ieee.times_log(out, x) * grad
        parents, op = ((self, other), '**') if isinstance(other, Value) else ((self,), f'**{other}')
        return Value(out, parents, op, _grad_fn=_backward)  # (k as the user wrote it)
    def __rpow__(self, other: float) -> Value:  # other ** self
        return Value(other, _for='__rpow__') ** self
    def log(self) -> Value:
        x = ieee.positive(self.data, 'Value.log')  # log is defined only for x > 0
        def _backward(grad: float) -> None:
            self.grad += grad / x  # d log(x)/dx = 1/x
        return Value(math.log(x), (self,), 'log', _grad_fn=_backward)
    def sigmoid(self) -> Value:
        e = math.exp(-math.fabs(self.data))  # e**-|x| is in (0, 1]: it never overflows
        s = 1 / (1 + e) if self.data >= 0 else e / (1 + e)  # 1/(1 + e**-x), in either sign
        def _backward(grad: float) -> None:
            self.grad += s * (1 - s) * grad  # d sigmoid(x)/dx = s (1 - s)
        return Value(s, (self,), 'sigmoid', _grad_fn=_backward)
    @staticmethod  # bias + w1*x1 + w2*x2 + ... as one node (sum() makes 2n): nn.Neuron's fast path
    def dot(ws: Sequence[Any], xs: Sequence[Any], bias: Value | float | None = None) -> Value:
        ws, xs, b, total = weighted_sum.operands(ws, xs, bias, Value)  # b + w1*x1 + w2*x2 + ...
        def _backward(grad: float) -> None:
            for w, x in zip(ws, xs):
                w.grad += x.data * grad  # d/dw_i = x_i
                x.grad += w.data * grad  # d/dx_i = w_i
            b.grad += grad  # d/dbias = 1
        return Value(total, (*ws, *xs, b), 'dot', _grad_fn=_backward)
    _backward = habits.backward  # the lecture's o._backward() by hand, and out._backward = f
    def detach(self) -> Value:  # a new leaf with the same data, cut off from this graph
        return Value(self.data)
    def item(self) -> float:
        return self.data
    __deepcopy__ = copying.deepcopy  # copy.deepcopy() copies leaves only, as PyTorch's does
    __reduce_ex__ = copying.reduce_ex  # pickle gives back a leaf of the same number, as PyTorch's
    __array_ufunc__ = None  # so `np.float64(2) * v` asks Value.__rmul__ instead of NumPy
    __slots__ = ('data', 'grad', 'label', '_prev', '_op', '_grad_fn', '__dict__')  # v.color = 'red'

topological_order = Value._topological_order  # the one sort, for any engine's nodes with ._prev
