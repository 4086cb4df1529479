"""A scalar that remembers how it was made, and backpropagation through it."""
from __future__ import annotations

import contextlib
import math
import numbers
import threading

_grad_mode = threading.local()  # per thread, so one thread evaluating never stops another from training


def is_grad_enabled() -> bool:
    """False inside no_grad() (in this thread): ops then build no graph."""
    return getattr(_grad_mode, 'enabled', True)


class no_grad(contextlib.ContextDecorator):
    """`with no_grad():` or `@no_grad()`: ops inside build no graph, as for evaluation or plotting."""

    def __enter__(self) -> None:
        self.was_enabled, _grad_mode.enabled = is_grad_enabled(), False

    def __exit__(self, *exc_info: object) -> None:
        _grad_mode.enabled = self.was_enabled


def _is_real(x: object) -> bool:
    # `numbers` knows ints, floats, bools and most NumPy scalars, but not np.bool_.
    return isinstance(x, numbers.Real) or (
        getattr(x, 'shape', None) == () and getattr(getattr(x, 'dtype', None), 'kind', None) in ('b', 'i', 'u', 'f'))


def _constant(x: object, op: str) -> Value:
    """A number taking part in an op, as a Value that no op made."""
    if _is_real(x):
        return Value(x)
    raise TypeError(f"unsupported operand for {op}: Value and {type(x).__name__} ({x!r})")


class Value:
    """A scalar, its gradient, and the op and parents that produced it.

    Each op returns a new Value whose `_backward(grad)` adds grad * (local derivative)
    to its parents' `.grad`. The closure holds the parents, never the Value it belongs
    to, so a graph has no reference cycles and is freed as soon as it is dropped.
    """
    __slots__ = ('data', 'grad', 'label', '_prev', '_op', '_backward')
    __array_ufunc__ = None  # so `np.float64(2) * v` asks Value.__rmul__ instead of NumPy

    def __init__(self, data: float, _children: tuple[Value, ...] = (), _op: str = '', label: str = ''):
        if type(data) is not float:
            if not _is_real(data):
                raise TypeError(f"Value() takes a real number, got {type(data).__name__}: {data!r}")
            data = float(data)
        self.data = data
        self.grad = 0.0
        self.label = label
        self._prev = tuple(_children)  # a tuple, so a*a keeps both edges to a
        self._op = _op
        self._backward = None

    @staticmethod
    def _result(data: float, parents: tuple[Value, ...], op: str, backward) -> Value:
        """The output of an op; under no_grad() it forgets its parents."""
        out = Value(data)
        if is_grad_enabled():
            out._prev, out._op, out._backward = parents, op, backward
        return out

    def __add__(self, other: Value | float) -> Value:
        other = other if isinstance(other, Value) else _constant(other, '+')

        def _backward(grad: float) -> None:  # d(x+y)/dx = d(x+y)/dy = 1
            self.grad += grad
            other.grad += grad
        return Value._result(self.data + other.data, (self, other), '+', _backward)

    def __mul__(self, other: Value | float) -> Value:
        other = other if isinstance(other, Value) else _constant(other, '*')

        def _backward(grad: float) -> None:  # d(xy)/dx = y, d(xy)/dy = x
            self.grad += other.data * grad
            other.grad += self.data * grad
        return Value._result(self.data * other.data, (self, other), '*', _backward)

    def __truediv__(self, other: Value | float) -> Value:  # self / other
        other = other if isinstance(other, Value) else _constant(other, '/')
        x, y = self.data, other.data
        if y == 0:
            raise ValueError(f"Value.__truediv__: division by zero ({x} / {y})")

        def _backward(grad: float) -> None:  # d(x/y)/dx = 1/y, d(x/y)/dy = -x/y**2
            self.grad += grad / y
            other.grad -= grad * x / (y * y)
        return Value._result(x / y, (self, other), '/', _backward)

    def __pow__(self, other: Value | float) -> Value:  # self ** other
        x = self.data
        if isinstance(other, Value):  # both base and exponent get a gradient
            if x <= 0:
                raise ValueError(f"Value.__pow__: a Value exponent needs a base > 0 (d/dk x**k = x**k log x), got {x}")
            k, out = other.data, x ** other.data

            def _backward_both(grad: float) -> None:  # d/dx = k x**(k-1), d/dk = x**k log(x)
                self.grad += k * x ** (k - 1) * grad
                other.grad += out * math.log(x) * grad
            return Value._result(out, (self, other), '**', _backward_both)
        k = _constant(other, '**').data
        if x < 0 and not k.is_integer():
            raise ValueError(f"Value.__pow__: {x} ** {other} is not real (a fractional power of a negative base)")
        if x == 0 and k < 1:
            raise ValueError(f"Value.__pow__: {x} ** {other} has no finite derivative at 0 (division by zero)")

        def _backward(grad: float) -> None:  # d(x**k)/dx = k x**(k-1)
            self.grad += k * x ** (k - 1) * grad
        return Value._result(x ** k, (self,), f'**{k:g}', _backward)

    def tanh(self) -> Value:
        t = math.tanh(self.data)  # saturates to +-1 instead of overflowing

        def _backward(grad: float) -> None:  # d tanh(x)/dx = 1 - tanh(x)**2
            self.grad += (1 - t * t) * grad
        return Value._result(t, (self,), 'tanh', _backward)

    def relu(self) -> Value:
        def _backward(grad: float) -> None:  # 1 for x > 0, else 0 (also at 0, as in PyTorch)
            if self.data > 0:
                self.grad += grad
        return Value._result(self.data if self.data > 0 else 0.0, (self,), 'relu', _backward)

    def exp(self) -> Value:
        try:
            e = math.exp(self.data)
        except OverflowError:
            raise OverflowError(f"Value.exp: exp({self.data}) is too large for a float") from None

        def _backward(grad: float) -> None:  # d e**x/dx = e**x
            self.grad += e * grad
        return Value._result(e, (self,), 'exp', _backward)

    def log(self) -> Value:
        x = self.data
        if x <= 0:
            raise ValueError(f"Value.log: log is defined only for data > 0, got {x}")

        def _backward(grad: float) -> None:  # d log(x)/dx = 1/x
            self.grad += grad / x
        return Value._result(math.log(x), (self,), 'log', _backward)

    def sigmoid(self) -> Value:
        x = self.data  # exp of a negative number never overflows, so pick the form that has one
        s = 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))

        def _backward(grad: float) -> None:  # d sigmoid(x)/dx = s (1 - s)
            self.grad += s * (1 - s) * grad
        return Value._result(s, (self,), 'sigmoid', _backward)

    @staticmethod
    def dot(ws: list[Value | float], xs: list[Value | float], bias: Value | float = 0.0) -> Value:
        """bias + w1*x1 + w2*x2 + ... as one node: a neuron's weighted sum.

        The same number as Karpathy's `sum((wi*xi for ...), bias)`, without a Value per step.
        """
        if len(ws) != len(xs):
            raise ValueError(f"Value.dot: {len(ws)} weights but {len(xs)} inputs")
        n = len(ws)
        # One tuple of parents, weights then inputs then bias; the closure keeps just that, so
        # a neuron adds few objects for the garbage collector to track.
        parents = tuple([v if isinstance(v, Value) else _constant(v, 'dot') for v in (*ws, *xs, bias)])

        def _backward(grad: float) -> None:  # d/dw_i = x_i, d/dx_i = w_i, d/dbias = 1
            ws, xs, bias = parents[:n], parents[n:-1], parents[-1]
            for w, x in zip(ws, xs):
                w.grad += x.data * grad
                x.grad += w.data * grad
            bias.grad += grad
        total = parents[-1].data
        for w, x in zip(parents[:n], parents[n:-1]):
            total += w.data * x.data
        return Value._result(total, parents, 'dot', _backward)

    def backward(self) -> None:
        """Fill in d(self)/d(node) in the .grad of every node self was made from.

        - Leaves (Values no op produced, e.g. parameters) accumulate: each call adds
          to .grad, so call zero_grad() between training steps.
        - Intermediate nodes hold the gradients of the latest call only.
        - A value used twice receives both contributions.
        """
        order = self._topological_order()
        for node in order:
            node.grad = 0.0  # intermediates hold this call's gradient only
        self.grad += 1.0  # d(self)/d(self)
        for node in reversed(order):
            node._backward(node.grad)  # the chain rule: pass grad on to the parents

    def _topological_order(self) -> list[Value]:
        """The Values that ops made on the way to self, each after the Values it was made from."""
        # An explicit stack instead of recursion, so graphs millions of nodes deep are fine.
        # Leaves take no place in the order: they only receive gradients.
        order, visited, stack = [], set(), [self]
        while stack:
            node = stack.pop()
            if node is None:  # the marker: all parents of the node beneath it are in order
                order.append(stack.pop())
            elif node._prev and node not in visited:
                visited.add(node)
                stack.append(node)
                stack.append(None)
                stack.extend(node._prev)
        return order

    def detach(self) -> Value:
        """A new leaf with the same data, cut off from this graph."""
        return Value(self.data)

    def item(self) -> float:
        return self.data

    def __neg__(self) -> Value:  # -self
        return self * -1.0

    def __radd__(self, other: float) -> Value:  # other + self
        return self + other

    def __sub__(self, other: Value | float) -> Value:  # self - other
        return self + (-other)

    def __rsub__(self, other: float) -> Value:  # other - self
        return other + (-self)

    def __rmul__(self, other: float) -> Value:  # other * self
        return self * other

    def __rtruediv__(self, other: float) -> Value:  # other / self
        return _constant(other, '/') / self

    def __rpow__(self, other: float) -> Value:  # other ** self
        return _constant(other, '**') ** self

    def __repr__(self) -> str:
        return f"Value(data={self.data}, grad={self.grad})"
