"""A scalar that remembers how it was made, and backpropagation through it."""
from __future__ import annotations

import contextlib
import contextvars
import math
import numbers
from collections.abc import Iterator, Sequence
from typing import Any, Protocol


class Backward(Protocol):  # what an op's _backward is: a function of the output's grad, holding its parents
    __defaults__: tuple[Any, ...] | None

    def __call__(self, grad: float) -> None: ...


_grad_enabled = contextvars.ContextVar('grad_enabled', default=True)  # one switch per thread (and asyncio task)


@contextlib.contextmanager
def no_grad() -> Iterator[None]:
    """`with no_grad():` or `@no_grad()`: ops inside build no graph, as for evaluation or plotting."""
    token = _grad_enabled.set(False)
    try:
        yield
    finally:
        _grad_enabled.reset(token)


def _as_float(x: object, op: str) -> float:
    """A plain number taking part in op (also np.bool_ and 0-d arrays, which numbers.Real misses)."""
    if isinstance(x, (float, int, numbers.Real)) or (
            getattr(x, 'shape', None) == () and getattr(getattr(x, 'dtype', None), 'kind', 'O') in 'biuf'):
        return float(x)  # type: ignore[arg-type]
    raise TypeError(f"{op}: expected a real number, got {type(x).__name__} ({x!r})")


def _leaf(v: Value | float) -> Value:
    return v if isinstance(v, Value) else Value(v)


def _output(data: float, op: str, backward: Backward, parents: tuple[Value, ...] | None = None) -> Value:
    """The Value an op returns. Its parents are the Values its backward holds, unless given: the default
    arguments before the `*` (numbers go after it). Under no_grad() it remembers neither."""
    out = Value.__new__(Value)  # not Value(data): data is a float already, so skip __init__'s checks
    out.data, out.grad, out.label, out._prev, out._op, out._backward = data, 0.0, '', (), '', None
    if _grad_enabled.get():
        out._prev = (backward.__defaults__ or ()) if parents is None else parents
        out._op, out._backward = op, backward
    return out


class Value:
    """A scalar, its gradient, and the op and parents that produced it."""
    __slots__ = ('data', 'grad', 'label', '_prev', '_op', '_backward')
    __array_ufunc__ = None  # so `np.float64(2) * v` asks Value.__rmul__ instead of NumPy

    def __init__(self, data: float, _children: Sequence[Value] = (), _op: str = '', label: str = ''):
        self.data = data if type(data) is float else _as_float(data, 'Value()')
        self.grad, self.label = 0.0, label
        self._prev, self._op = tuple(_children), _op  # a tuple, so a*a keeps both edges to a
        self._backward: Backward | None = None

    # Each op computes its output and, right beneath, defines _backward(grad): the chain rule for that op,
    # adding grad * (local derivative) to each parent's .grad. It binds the parents as default arguments,
    # and that one tuple is the node's _prev; a number it needs comes after the `*` and is no node.
    # It never holds the output: no reference cycles, so a dropped graph is freed at once.

    def __add__(self, other: Value | float) -> Value:
        if isinstance(other, Value):
            def _backward(grad: float, x: Value = self, y: Value = other) -> None:  # d(x+y)/dx = d(x+y)/dy = 1
                x.grad += grad
                y.grad += grad
            return _output(self.data + other.data, '+', _backward)
        k = _as_float(other, '+')

        def _backward_k(grad: float, x: Value = self) -> None:  # d(x+k)/dx = 1
            x.grad += grad
        return _output(self.data + k, f'+{k:g}', _backward_k)

    def __mul__(self, other: Value | float) -> Value:
        if isinstance(other, Value):
            def _backward(grad: float, x: Value = self, y: Value = other) -> None:  # d(xy)/dx = y, d(xy)/dy = x
                x.grad += y.data * grad
                y.grad += x.data * grad
            return _output(self.data * other.data, '*', _backward)
        k = _as_float(other, '*')

        def _backward_k(grad: float, x: Value = self, *, k: float = k) -> None:  # d(kx)/dx = k
            x.grad += k * grad
        return _output(self.data * k, f'*{k:g}', _backward_k)

    def __pow__(self, other: Value | float) -> Value:  # self ** other
        if isinstance(other, Value):  # x**k = exp(k log x), so the exponent gets its gradient too
            if self.data <= 0:
                raise ValueError(f"Value.__pow__: a Value exponent needs a base > 0 (log of the base), got {self.data}")
            return (self.log() * other).exp()
        k = _as_float(other, '**')
        if self.data < 0 and not k.is_integer():
            raise ValueError(f"Value.__pow__: {self.data} ** {k} is not real (a fractional power of a negative base)")
        if self.data == 0 and (k < 0 or 0 < k < 1):
            raise ValueError(f"Value.__pow__: {self.data} ** {k} has no finite derivative at 0 (division by zero)")
        try:
            out = self.data ** k
        except OverflowError:
            raise OverflowError(f"Value.__pow__: {self.data} ** {k} is too large for a float") from None

        def _backward(grad: float, x: Value = self, *, k: float = k) -> None:  # d(x**k)/dx = k x**(k-1); 0 for k = 0
            x.grad += (k * x.data ** (k - 1) if k else 0.0) * grad  # (x**0 is 1 everywhere, even at x = 0)
        return _output(out, f'**{k:g}', _backward)

    def tanh(self) -> Value:
        t = math.tanh(self.data)  # saturates to +-1 instead of overflowing

        def _backward(grad: float, x: Value = self, *, t: float = t) -> None:  # d tanh(x)/dx = 1 - tanh(x)**2
            x.grad += (1 - t * t) * grad
        return _output(t, 'tanh', _backward)

    def relu(self) -> Value:
        def _backward(grad: float, x: Value = self) -> None:  # 1 for x > 0, else 0 (also at 0, as in PyTorch)
            x.grad += (x.data > 0) * grad
        return _output(self.data if self.data > 0 else 0.0, 'relu', _backward)

    def exp(self) -> Value:
        try:
            e = math.exp(self.data)
        except OverflowError:
            raise OverflowError(f"Value.exp: exp({self.data}) is too large for a float") from None

        def _backward(grad: float, x: Value = self, *, e: float = e) -> None:  # d e**x/dx = e**x
            x.grad += e * grad
        return _output(e, 'exp', _backward)

    def log(self) -> Value:
        if self.data <= 0:
            raise ValueError(f"Value.log: log is defined only for data > 0, got {self.data}")

        def _backward(grad: float, x: Value = self) -> None:  # d log(x)/dx = 1/x
            x.grad += grad / x.data
        return _output(math.log(self.data), 'log', _backward)

    def sigmoid(self) -> Value:
        z = self.data  # exp of a negative number never overflows, so pick the form that has one
        s = 1 / (1 + math.exp(-z)) if z >= 0 else math.exp(z) / (1 + math.exp(z))

        def _backward(grad: float, x: Value = self, *, s: float = s) -> None:  # d sigmoid(x)/dx = s (1 - s)
            x.grad += s * (1 - s) * grad
        return _output(s, 'sigmoid', _backward)

    @staticmethod
    def dot(ws: Sequence[Value | float], xs: Sequence[Value | float], bias: Value | float | None = None) -> Value:
        """bias + w1*x1 + w2*x2 + ... as one node: Karpathy's `sum((wi*xi for ...), bias)`, to the last bit."""
        n = len(ws)
        if len(xs) != n:
            raise ValueError(f"Value.dot: {n} weights but {len(xs)} inputs")
        try:  # no check per operand on this hot path: a number has no .data, a NumPy one's is no float
            total = 0.0 if bias is None else bias.data  # type: ignore[union-attr]
            for w, x in zip(ws, xs):
                total += w.data * x.data  # type: ignore[union-attr]
        except (AttributeError, TypeError):
            total = None
        if type(total) is not float:  # plain numbers (say, a model's raw inputs) take part as leaves
            return Value.dot([*map(_leaf, ws)], [*map(_leaf, xs)], None if bias is None else _leaf(bias))
        parents: tuple[Value, ...] = (*ws, *xs) if bias is None else (*ws, *xs, bias)  # type: ignore[arg-type]

        def _backward(grad: float, parents: tuple[Value, ...] = parents) -> None:  # d/dw_i = x_i, d/dx_i = w_i
            for w, x in zip(parents[:n], parents[n:2 * n]):
                w.grad += x.data * grad
                x.grad += w.data * grad
            if len(parents) > 2 * n:  # d/dbias = 1
                parents[-1].grad += grad
        return _output(total, 'dot', _backward, parents)

    def backward(self) -> None:
        """d(self)/d(node) into the .grad of every node self was made from. Leaves (inputs, parameters)
        accumulate across calls, so zero them between steps; other nodes hold the latest call's."""
        order = self._topological_order()  # which also zeroes the grads of the nodes in it
        self.grad += 1.0  # d(self)/d(self)
        for node in reversed(order):
            node._backward(node.grad)  # type: ignore[misc]  # the chain rule: pass grad on to the parents

    def _topological_order(self) -> list[Value]:
        """The Values ops made on the way to self, each after its parents, grads zeroed. A stack: any depth."""
        order: list[Value] = []
        visited = set()
        stack: list[Value | None] = [self]
        while stack:
            node = stack.pop()
            if node is None:  # the marker: all parents of the node beneath it are in order
                order.append(stack.pop())  # type: ignore[arg-type]
            elif node._prev and node not in visited:  # leaves take no place: they only receive
                visited.add(node)
                node.grad = 0.0  # a node an op made holds the latest backward()'s gradient only
                stack.append(node)
                stack.append(None)
                stack.extend(node._prev)
        return order

    def detach(self) -> Value:  # a new leaf with the same data, cut off from this graph
        return Value(self.data)

    def item(self) -> float:
        return self.data

    def __neg__(self) -> Value:  # -self
        return self * -1.0

    __radd__ = __add__  # other + self: addition commutes
    __rmul__ = __mul__  # other * self

    def __sub__(self, other: Value | float) -> Value:  # self - other
        return self + (-other)

    def __rsub__(self, other: float) -> Value:  # other - self
        return -self + other

    def __truediv__(self, other: Value | float) -> Value:  # self / other = self * other**-1
        if not isinstance(other, Value) and _as_float(other, '/') == 0:
            raise ValueError(f"Value.__truediv__: division by zero ({self.data} / 0)")
        return self * other ** -1

    def __rtruediv__(self, other: float) -> Value:  # other / self
        return self ** -1 * other

    def __rpow__(self, other: float) -> Value:  # other ** self
        return Value(_as_float(other, '**')) ** self

    def __repr__(self) -> str:
        return f"Value(data={self.data}, grad={self.grad})"
