"""A scalar that remembers how it was made, and backpropagation through it.

Read it top to bottom: Value and its ops, then backward(), then the reflected ops. The supporting
pieces (numbers in ops, checking inputs, no_grad) come after, in a section of their own.
"""
from __future__ import annotations

import contextvars
import functools
import math
import numbers
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast


def _no_backward(grad: float) -> None:
    """A leaf's _backward (and a hand-made Value's, until one is given): nothing to pass grad to."""


class Value:
    """A scalar, its gradient, and the op and parents that produced it."""
    __slots__ = ('data', 'grad', 'label', '_prev', '_op', '_backward')
    __array_ufunc__ = None  # so `np.float64(2) * v` asks Value.__rmul__ instead of NumPy

    def __init__(self, data: float, _children: Any = (), _op: str = '',
                 _backward: Callable[[float], None] = _no_backward, label: str = ''):
        self.data = data if type(data) is float else _as_float(data, _children, _backward)
        self.grad, self.label, self._op = 0.0, label, _op
        record = _grad_enabled.get()  # False inside no_grad(): no graph then
        self._prev, self._backward = (tuple(_children), _backward) if record else ((), _no_backward)

    # Each op defines _backward(grad): the chain rule for that op, adding grad * (local derivative)
    # to each parent's .grad, where grad is the output's .grad. It holds the parents as default
    # arguments, and the output's parents are exactly those (see "How it is fast" below).

    def __add__(self, other: Value | float) -> Value:
        if not isinstance(other, Value):
            return self._add_number(other)  # x + 2 (see "Numbers in ops")
        def _backward(grad: float, self: Value = self, other: Value = other) -> None:
            self.grad += grad  # d(x+y)/dx = 1
            other.grad += grad  # d(x+y)/dy = 1
        return Value(self.data + other.data, _backward.__defaults__, '+', _backward)

    def __mul__(self, other: Value | float) -> Value:
        if not isinstance(other, Value):
            return self._mul_number(other)  # x * 2
        def _backward(grad: float, self: Value = self, other: Value = other) -> None:
            self.grad += other.data * grad  # d(xy)/dx = y
            other.grad += self.data * grad  # d(xy)/dy = x
        return Value(self.data * other.data, _backward.__defaults__, '*', _backward)

    def __pow__(self, other: Value | float) -> Value:  # self ** k, for a number k
        if isinstance(other, Value):
            return self._pow_value(other)  # x ** y
        k = _number(other, 'Value.__pow__')
        out, slope = _power(self.data, k)  # x**k and k * x**(k-1), checked
        def _backward(grad: float, self: Value = self, *, k: float = k,
                      slope: float = slope) -> None:
            self.grad += slope * grad  # d(x**k)/dx = k * x**(k-1)
        return Value(out, _backward.__defaults__, '**', _backward)

    def relu(self) -> Value:
        def _backward(grad: float, self: Value = self) -> None:  # 0 for x <= 0 (at 0 too), else 1
            self.grad += 0.0 if self.data <= 0 else grad  # selects, never multiplies (NaN: grad)
        return Value(0.0 if self.data < 0 else self.data, _backward.__defaults__, 'relu', _backward)

    def tanh(self) -> Value:
        t = math.tanh(self.data)  # saturates to +-1 instead of overflowing
        def _backward(grad: float, self: Value = self, *, t: float = t) -> None:
            self.grad += (1 - t * t) * grad  # d tanh(x)/dx = 1 - tanh(x)**2
        return Value(t, _backward.__defaults__, 'tanh', _backward)

    def exp(self) -> Value:
        e = _checked(math.exp, self.data, 'exp')
        def _backward(grad: float, self: Value = self, *, e: float = e) -> None:
            self.grad += e * grad  # d e**x/dx = e**x
        return Value(e, _backward.__defaults__, 'exp', _backward)

    def log(self) -> Value:
        if not self.data > 0:
            raise ValueError(f"Value.log: log is defined only for data > 0, got {self.data}")
        if type(self.data) is not float:  # a NumPy number written into .data: see _as_float
            self.data = _number(self.data, 'Value.log')
        def _backward(grad: float, self: Value = self) -> None:
            self.grad += grad / self.data  # d log(x)/dx = 1/x
        return Value(math.log(self.data), _backward.__defaults__, 'log', _backward)

    def sigmoid(self) -> Value:
        if type(self.data) is not float:  # a NumPy number written into .data: see _as_float
            self.data = _number(self.data, 'Value.sigmoid')  # (-z of a uint8 would wrap around)
        z = self.data  # exp of a negative number never overflows, so pick the form that has one
        s = 1 / (1 + math.exp(-z)) if z >= 0 else math.exp(z) / (1 + math.exp(z))
        def _backward(grad: float, self: Value = self, *, s: float = s) -> None:
            self.grad += s * (1 - s) * grad  # d sigmoid(x)/dx = s (1 - s)
        return Value(s, _backward.__defaults__, 'sigmoid', _backward)

    @staticmethod
    def dot(ws: Sequence[Value | float], xs: Sequence[Value | float],
            bias: Value | float | None = None) -> Value:
        """bias + w1*x1 + w2*x2 + ... as one node: `sum((wi*xi for ...), bias)`, to the last bit."""
        n = _dot_length(ws, xs)
        try:  # no check per operand on this hot path: a number has no .data
            total = 0.0 if bias is None else bias.data  # type: ignore[union-attr]
            for w, x in zip(ws, xs):
                total += w.data * x.data  # type: ignore[union-attr]
        except (AttributeError, TypeError):  # a number's (or a NumPy number's) .data
            total = None
        if type(total) is not float:  # a plain number among them, or a .data that is not a float
            return Value.dot(*_dot_operands(ws, xs, bias))
        parents = cast(tuple[Value, ...], (*ws, *xs) if bias is None else (*ws, *xs, bias))
        def _backward(grad: float, parents: tuple[Value, ...] = parents, *, n: int = n) -> None:
            for w, x in zip(parents[:n], parents[n:2 * n]):
                w.grad += x.data * grad  # d/dw_i = x_i
                x.grad += w.data * grad  # d/dx_i = w_i
            if len(parents) > 2 * n:
                parents[-1].grad += grad  # d/dbias = 1
        return Value(total, parents, 'dot', _backward)  # its parents: the one tuple _backward holds

    def backward(self) -> None:  # d(self)/d(node) into each node's .grad (leaves add to theirs)
        order = self._topological_order()
        for node in order:
            node.grad = 0.0  # a node an op made holds this call's gradient only
        self.grad += 1.0  # d(self)/d(self)
        for node in reversed(order):
            node._backward(node.grad)  # the chain rule: each _backward(grad) adds to its parents

    def _topological_order(self) -> list[Value]:  # the nodes ops made, each after its parents
        order, visited = [], set()
        stack: list[Any] = [self]  # a stack instead of recursion: graphs of any depth
        while stack:
            node = stack.pop()
            if node is None:  # a marker: every parent of the node beneath it is in order now
                order.append(stack.pop())
            elif node._prev and node not in visited:  # a leaf takes no place: it only receives
                visited.add(node)
                stack += node, None  # (a marker is faster than a second set of placed nodes)
                stack += node._prev
        return order

    # Derived ops: one-liners on the ops above, but for division, an op of its own.

    def __neg__(self) -> Value:  # -self
        return self * -1.0

    __radd__ = __add__  # other + self: addition commutes
    __rmul__ = __mul__  # other * self

    def __sub__(self, other: Value | float) -> Value:  # self - other
        return self + (-other if isinstance(other, Value) else -_number(other, 'Value.__sub__'))

    def __rsub__(self, other: float) -> Value:  # other - self
        return -self + _number(other, 'Value.__rsub__')

    def __truediv__(self, other: Value | float) -> Value:  # self / other, not self * other**-1,
        if not isinstance(other, Value):  # which overflows where other**-1 does (other = 1e-310)
            return self._div_number(other)
        q = self.data / _divisor(other.data, self.data)
        def _backward(grad: float, self: Value = self, other: Value = other, *,
                      q: float = q) -> None:
            self.grad += grad / other.data  # d(x/y)/dx = 1/y
            other.grad -= grad * (q / other.data)  # d(x/y)/dy = -x/y**2, as (x/y)/y: no overflow
        return Value(q, _backward.__defaults__, '/', _backward)

    def __rtruediv__(self, other: float) -> Value:  # other / self
        return Value(_number(other, 'Value.__rtruediv__')) / self

    def __rpow__(self, other: float) -> Value:  # other ** self
        return Value(_number(other, 'Value.__rpow__')) ** self

    def detach(self) -> Value:  # a new leaf with the same data, cut off from this graph
        return Value(self.data)

    def item(self) -> float:
        return self.data

    def __repr__(self) -> str:
        return f"Value(data={self.data}, grad={self.grad})"

    # Numbers in ops: x + 2, x * 2, x / 2, and x ** y. A number is no node of the graph: the op has
    # one parent, and its backward holds the number (k) as a keyword-only default, as drawings show.

    def _add_number(self, other: float) -> Value:
        k = _number(other, 'Value.__add__')
        def _backward(grad: float, self: Value = self, *, k: float = k) -> None:
            self.grad += grad  # d(x+k)/dx = 1
        return Value(self.data + k, _backward.__defaults__, '+', _backward)

    def _mul_number(self, other: float) -> Value:
        k = _number(other, 'Value.__mul__')
        def _backward(grad: float, self: Value = self, *, k: float = k) -> None:
            self.grad += k * grad  # d(kx)/dx = k
        return Value(self.data * k, _backward.__defaults__, '*', _backward)

    def _div_number(self, other: float) -> Value:
        k = _divisor(_number(other, 'Value.__truediv__'), self.data)
        def _backward(grad: float, self: Value = self, *, k: float = k) -> None:
            self.grad += grad / k  # d(x/k)/dx = 1/k
        return Value(self.data / k, _backward.__defaults__, '/', _backward)

    def _pow_value(self, other: Value) -> Value:  # self ** other: the exponent gets a gradient too
        if not self.data > 0:
            raise ValueError("Value.__pow__: a Value exponent needs a base > 0 (its gradient is "
                             f"x**y * log(x)), got {self.data}")
        out, slope = _power(self.data, other.data)
        def _backward(grad: float, self: Value = self, other: Value = other, *,
                      slope: float = slope, dy: float = out * math.log(self.data)) -> None:
            self.grad += slope * grad  # d(x**y)/dx = y * x**(y-1)
            other.grad += dy * grad  # d(x**y)/dy = x**y * log(x)
        return Value(out, _backward.__defaults__, '**', _backward)

    def __deepcopy__(self, memo: dict[int, Any]) -> Value:
        if self._prev:  # its _backward would still write into the original graph
            raise RuntimeError("Value.__deepcopy__: only leaves can be deep-copied (as in "
                               "PyTorch); detach() it, or copy the leaves and build it again")
        copy = Value(self.data, label=self.label)
        copy.grad = self.grad
        return copy


# How it is fast. An op's _backward binds its parents as default arguments instead of closing over
# them: no cell objects, and that one tuple of defaults (`_backward.__defaults__`) is the node's
# _prev. It never holds the output, so there are no reference cycles and a dropped graph is freed
# at once, without the garbage collector. The numbers a backward needs come after its `*`: they are
# no parents. Value.__init__ only checks data that is not a float already.


# Supporting pieces: numbers in ops, checks, no_grad.

def _number(x: object, op: str) -> float:
    """x as a Python float, before it takes part in op. NumPy numbers of every width are converted
    first: np.uint8(3) is 3.0 (so -x does not wrap around), np.float16 does not round the result."""
    if type(x) is float:
        return x
    if not isinstance(x, (int, numbers.Real)) and not _is_numpy_number(x):
        what = 'a Value (it takes part as itself)' if isinstance(x, Value) else type(x).__name__
        raise TypeError(f"{op}: expected a real number, got {what} ({x!r})")
    try:
        return float(x)  # type: ignore[arg-type]
    except OverflowError:
        raise OverflowError(f"{op}: {str(x)[:30]}... is too large for a float") from None
    except TypeError:  # a NumPy type that calls itself a number, as np.timedelta64 does
        raise TypeError(f"{op}: expected a real number, got {type(x).__name__} ({x!r})") from None


def _as_float(data: object, parents: Any, backward: Callable[..., None]) -> float:
    """Value()'s data as a Python float. An op computes in float64 even where a parent's .data is a
    number of another type (a NumPy float32 written into .data): that .data becomes a Python float,
    and the op runs again on it and passes its numbers to this backward. (PyTorch promotes a float32
    operand of a float64 op to float64 the same way.)"""
    stale = [p for p in parents if isinstance(p, Value) and type(p.data) is not float]
    name = backward.__qualname__.split('.')
    if not stale or name[0] != 'Value' or name[2:] != ['<locals>', '_backward']:
        return _number(data, 'Value()')  # a number given to Value(), or a Value made by hand
    for parent in stale:
        parent.data = _number(parent.data, f'Value.{name[1]}')
    numbers = backward.__kwdefaults__ or {}
    operands = (*(backward.__defaults__ or ()), *([numbers['k']] if 'k' in numbers else []))
    again = getattr(Value, name[1])(*operands)
    backward.__kwdefaults__ = again._backward.__kwdefaults__ or numbers  # (no_grad: no backward)
    return cast(float, again.data)


def _is_numpy_number(x: object) -> bool:
    """A NumPy bool, integer or float scalar, or a 0-d array of one (numbers.Real misses some)."""
    kind = getattr(getattr(x, 'dtype', None), 'kind', '')
    return kind in ('b', 'i', 'u', 'f') and getattr(x, 'shape', None) == ()


def _divisor(y: float, x: float) -> float:
    """y, checked as the divisor of x / y."""
    if y == 0:
        raise ZeroDivisionError(f"Value.__truediv__: division by zero ({x} / {y})")
    return y


def _power(x: float, k: float) -> tuple[float, float]:
    """x**k and its derivative k * x**(k-1) (0 for k = 0: x**0 is 1 everywhere). Results that are
    not real or not finite are errors; a derivative too steep for a float is infinite, as in IEEE
    arithmetic and PyTorch."""
    if x < 0 and not (k.is_integer() or math.isinf(k)):  # (-2) ** inf is inf, as in Python
        raise ValueError(f"Value.__pow__: {x} ** {k} is not real (a fractional power of a "
                         "negative base)")
    if x == 0 and k < 0:
        raise ZeroDivisionError(f"Value.__pow__: {x} ** {k} divides by zero")
    try:
        out = x ** k
    except OverflowError:
        raise OverflowError(f"Value.__pow__: {x} ** {k} is too large for a float") from None
    try:
        slope = k * x ** (k - 1) if k else 0.0
    except (OverflowError, ZeroDivisionError):  # |x| tiny and k < 1
        slope = math.copysign(math.inf, k * (out if x == 0 else out * x))
    return out, slope


def _checked(f: Callable[[float], float], x: float, op: str) -> float:
    """f(x), with a float overflow named after the op."""
    try:
        return f(x)
    except OverflowError:
        raise OverflowError(f"Value.{op}: the result for {x} is too large for a float") from None


def _dot_length(ws: Sequence[Value | float], xs: Sequence[Value | float]) -> int:
    """How many weight-input pairs Value.dot has: ws and xs must be sequences of one length."""
    if not (hasattr(ws, '__len__') and hasattr(xs, '__len__')):
        raise TypeError(f"Value.dot: ws and xs must be lists or tuples, got {type(ws).__name__} "
                        f"and {type(xs).__name__}")
    if len(ws) != len(xs):
        raise ValueError(f"Value.dot: {len(ws)} weights but {len(xs)} inputs")
    return len(ws)


def _dot_operands(ws: Sequence[Value | float], xs: Sequence[Value | float],
                  bias: Value | float | None) -> tuple[list[Value], list[Value], Value | None]:
    """Value.dot's operands with every number (and every Value whose .data is a NumPy number, which
    an update like `p.data -= lr * p.grad` with a NumPy lr leaves) as a leaf holding a float."""
    def leaf(v: Value | float) -> Value:
        if isinstance(v, Value):
            if type(v.data) is not float:
                v.data = _number(v.data, 'Value.dot')
            return v
        return Value(_number(v, 'Value.dot'))
    return [*map(leaf, ws)], [*map(leaf, xs)], None if bias is None else leaf(bias)


_grad_enabled = contextvars.ContextVar('grad_enabled', default=True)  # per thread and asyncio task

F = TypeVar('F', bound=Callable[..., Any])


def is_grad_enabled() -> bool:
    """Whether ops record the graph now (False inside `no_grad()`)."""
    return _grad_enabled.get()


class no_grad:
    """`with no_grad():` or `@no_grad()`: ops inside build no graph (for evaluation, plotting, or an
    update of the parameters). As a decorator it also covers a generator function's whole run."""

    def __enter__(self) -> None:
        self._token = _grad_enabled.set(False)

    def __exit__(self, *exc: object) -> None:
        _grad_enabled.reset(self._token)

    def __new__(cls, func: Callable[..., Any] | None = None) -> Any:  # @no_grad without ()
        return super().__new__(cls) if func is None else cls()(func)

    def __call__(self, func: F) -> F:
        import inspect  # here, not at the top: a decorator is rare, and inspect is slow to import
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def generator(*args: Any, **kwargs: Any) -> Any:  # each step runs without recording
                gen = func(*args, **kwargs)
                try:
                    with no_grad():
                        response = gen.send(None)
                    while True:
                        try:
                            request = yield response
                        except GeneratorExit:
                            with no_grad():
                                gen.close()
                            raise
                        except BaseException as error:
                            with no_grad():
                                response = gen.throw(error)
                        else:
                            with no_grad():
                                response = gen.send(request)
                except StopIteration as stop:
                    return stop.value
            return generator  # type: ignore[return-value]

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with no_grad():
                return func(*args, **kwargs)
        return wrapper  # type: ignore[return-value]
