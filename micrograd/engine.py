"""Karpathy's micrograd engine, changed where a comment says why; numeric.py checks numbers."""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from micrograd import copying, grad_mode, numeric
from micrograd.grad_mode import is_grad_enabled, no_grad

__all__ = ['Value', 'no_grad', 'is_grad_enabled']


class Value:
    """A scalar, its gradient, and the op and parents that made it. One change from the lecture: an
    op's _backward is given out's grad (his reads out.grad), so it never holds out: no cycles."""
    def __init__(self, data: float, _children: Iterable[Value] = (), _op: str = '', label: str = '',
                 *, _grad_fn: Any = None):  # _grad_fn(grad): the op's _backward
        self.data = data if type(data) is float else numeric.data(data, _children, _op, _grad_fn)
        self.grad, self.label, self._op = 0.0, label, _op
        recording = grad_mode.recording.get()  # False inside `with no_grad():`: build no graph
        self._prev = tuple(_children) if recording else ()  # not a set: a*a keeps both edges
        self._grad_fn: Any = _grad_fn if recording else None  # (a leaf has none)

    def __repr__(self) -> str:
        return f"Value(data={self.data}, grad={self.grad})"

    def __add__(self, other: Value | float) -> Value:
        other = other if isinstance(other, Value) else Value(numeric.real(other, '__add__'))
        def _backward(grad: float) -> None:  # grad: the output's, the lecture's out.grad
            self.grad += grad  # d(x+y)/dx = 1
            other.grad += grad  # d(x+y)/dy = 1
        return Value(self.data + other.data, (self, other), '+', _grad_fn=_backward)

    def __mul__(self, other: Value | float) -> Value:
        other = other if isinstance(other, Value) else Value(numeric.real(other, '__mul__'))
        def _backward(grad: float) -> None:
            self.grad += other.data * grad  # d(xy)/dx = y
            other.grad += self.data * grad  # d(xy)/dy = x
        return Value(self.data * other.data, (self, other), '*', _grad_fn=_backward)

    def __pow__(self, other: Value | float) -> Value:  # x ** k, the lecture's; or x ** y of Values
        x = numeric.real(self.data, '__pow__')
        y = numeric.real(other.data if isinstance(other, Value) else other, '__pow__')
        out = numeric.checked_pow(x, y)  # x ** y, checked: a real, finite number (or an error)
        def _backward(grad: float) -> None:  # d(x**y)/dx = y * x**(y-1) (0 for y = 0: PyTorch's)
            self.grad += y * numeric.ieee_pow(x, y - 1) * grad if y else 0.0  # (inf, not an error)
            if isinstance(other, Value):  # d(x**y)/dy = x**y * log(x), 0 at x = 0 as in PyTorch
                other.grad += numeric.times_log(out, x) * grad
        if isinstance(other, Value):
            return Value(out, (self, other), '**', _grad_fn=_backward)
        return Value(out, (self,), f'**{other}', _grad_fn=_backward)  # k as the user wrote it

    def tanh(self) -> Value:
        t = math.tanh(self.data)  # the lecture's (e**2x - 1)/(e**2x + 1) overflows for x > 355
        def _backward(grad: float) -> None:
            self.grad += (1 - t * t) * grad  # d tanh(x)/dx = 1 - tanh(x)**2
        return Value(t, (self,), 'tanh', _grad_fn=_backward)

    def exp(self) -> Value:
        e = numeric.checked(math.exp, self.data, 'Value.exp')  # an overflow names the op
        def _backward(grad: float) -> None:
            self.grad += e * grad  # d e**x/dx = e**x
        return Value(e, (self,), 'exp', _grad_fn=_backward)

    def relu(self) -> Value:
        def _backward(grad: float) -> None:  # 0 for x <= 0 (at 0 too), else 1
            self.grad += 0.0 if self.data <= 0 else grad  # selects, never multiplies (NaN: grad)
        return Value(0.0 if self.data < 0 else self.data, (self,), 'ReLU', _grad_fn=_backward)

    def __neg__(self) -> Value:  # -self
        return self * -1.0
    __radd__ = __add__  # other + self is self + other
    __rmul__ = __mul__  # other * self is self * other
    def __sub__(self, other: Value | float) -> Value:  # self - other (-k as a float: -uint8 wraps)
        return self + (-other if isinstance(other, Value) else -numeric.real(other, '__sub__'))
    def __rsub__(self, other: float) -> Value:  # other - self
        return Value(numeric.real(other, '__rsub__')) - self

    def __truediv__(self, other: Value | float) -> Value:  # self / other, as its own op: see below
        other = other if isinstance(other, Value) else Value(numeric.real(other, '__truediv__'))
        q = self.data / numeric.divisor(other.data, self.data)  # (x / 0 is an error naming /)
        def _backward(grad: float) -> None:  # the lecture's self * other**-1 overflows at 1e-310
            self.grad += grad / other.data  # d(x/y)/dx = 1/y
            other.grad -= grad * (self.data / other.data / other.data)  # -x/y**2, as (x/y)/y
        return Value(q, (self, other), '/', _grad_fn=_backward)
    def __rtruediv__(self, other: float) -> Value:  # other / self
        return Value(numeric.real(other, '__rtruediv__')) / self

    def backward(self) -> None:  # d(self)/d(node) into each node's .grad (leaves add to theirs)
        topo = self._topological_order()
        for node in topo:
            node.grad = 0.0  # unlike the lecture's, a second backward() does not double these
        self.grad += 1.0  # d(self)/d(self), added: a leaf's backward() accumulates too
        for node in reversed(topo):
            if node._grad_fn:  # (None for a node built by hand from parents, with no _backward)
                node._grad_fn(node.grad)  # the chain rule: grad * local derivative, to parents

    def _topological_order(self) -> list[Value]:  # the nodes ops made, each after its parents
        # The lecture's build_topo, its recursion a stack (so any depth works): a node goes back on
        # the stack under a None and its parents; when the None comes off, they are all listed.
        topo, visited = [], set()
        stack: list[Any] = [self]  # Values, and the None markers
        while stack:
            node = stack.pop()
            if node is None:
                topo.append(stack.pop())  # the node beneath the None: its parents are listed
            elif node._prev and id(node) not in visited:  # a leaf takes no place: it only receives
                visited.add(id(node))
                stack += node, None, *node._prev
        return topo

    # --- the rest: beyond the lecture (out._backward = f and o._backward() are at the end) -----
    def log(self) -> Value:
        x = numeric.positive(self.data, 'Value.log')  # log is defined only for x > 0
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
        ws, xs, b, total = numeric.dot(ws, xs, bias, Value)  # Values, and b + w1*x1 + w2*x2 + ...
        def _backward(grad: float) -> None:
            for w, x in zip(ws, xs):
                w.grad += x.data * grad  # d/dw_i = x_i
                x.grad += w.data * grad  # d/dx_i = w_i
            b.grad += grad  # d/dbias = 1
        return Value(total, (*ws, *xs, b), 'dot', _grad_fn=_backward)
    def __rpow__(self, other: float) -> Value:  # other ** self
        return Value(numeric.real(other, '__rpow__')) ** self

    @property  # the lecture's o._backward() by hand: runs the op's backward as it is right now
    def _backward(self) -> Callable[[], None]:  # (so a wrapper may call the one it replaced)
        fn = getattr(self, '_grad_fn', None)  # getattr: a subclass's own __init__ may skip ours
        return (lambda: fn(self.grad)) if fn else (lambda: None)  # a leaf's does nothing
    @_backward.setter  # the lecture's out._backward = f: f reads out.grad (holds out: gc frees it)
    def _backward(self, backward: Callable[[], None]) -> None:  # a leaf keeps none (no_grad's too)
        self._grad_fn = (lambda grad: backward()) if getattr(self, '_prev', ()) else None
    def detach(self) -> Value:  # a new leaf with the same data, cut off from this graph
        return Value(self.data)
    def item(self) -> float:
        return self.data
    __deepcopy__ = copying.deepcopy  # copy.deepcopy() copies leaves only, as PyTorch's does
    __array_ufunc__ = None  # so `np.float64(2) * v` asks Value.__rmul__ instead of NumPy
    __slots__ = ('data', 'grad', 'label', '_prev', '_op', '_grad_fn', '__dict__')  # v.color = 'red'


topological_order = Value._topological_order  # the one sort, for any engine's nodes (with ._prev)
