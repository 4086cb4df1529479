"""Karpathy's micrograd engine, op for op: read it instead of his. Comments say where it differs;
the type hints (`-> Value`) are for a type checker: Python runs the code the same without them."""
from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterable
from typing import Any, ClassVar


class Value:
    """A number, its gradient, and the op and parents that made it, as in the lecture. Unlike his,
    an op's _backward is handed the output's gradient instead of reading out.grad, so it does not
    keep the output alive and a dropped graph is freed at once; backward() sorts any depth, and a
    second call does not double the gradients; a bad number is refused by an error naming the op."""
    def __init__(self, data: float, _children: Iterable[Value] = (), _op: str = '', label: str = ''
                 ) -> None:
        # A number that is not a Python float yet is made one here, or refused naming the op.
        self.data = data if type(data) is float else _checked(data, _children, _op)
        self._prev = tuple(_children) if _recording.get() else ()  # none inside `with no_grad():`
        self.grad, self._op, self.label = 0.0, _op, label  # (a tuple, not his set: a*a keeps both)
        self._grad_fn: Callable[[float], None] | None = None  # the op's _backward, once attached
    def __repr__(self) -> str:
        return f"Value(data={self.data}, grad={self.grad})"
    def __add__(self, other: Value | float) -> Value:
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), '+')
        def _backward(grad: float) -> None:  # grad is out.grad, handed over by backward()
            self.grad += grad  # d(x+y)/dx = 1
            other.grad += grad  # d(x+y)/dy = 1
        out._backward = _backward
        return out
    def __mul__(self, other: Value | float) -> Value:
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), '*')
        def _backward(grad: float) -> None:
            self.grad += other.data * grad  # d(xy)/dx = y
            other.grad += self.data * grad  # d(xy)/dy = x
        out._backward = _backward
        return out
    def __pow__(self, other: Value | float) -> Value:
        # The lecture's power rule, for a number k. Below the line: x ** y of two Values, a NumPy
        # number, and x < 1 with k < 1 or nan (a slope too steep for a float is inf, or complex).
        if (isinstance(other, Value) or type(other) not in (int, float)
                or type(self.data) is not float or not other >= 1 and not self.data >= 1):
            return self._power(other)
        out = Value(self.data**other, (self,), f'**{other}')
        def _backward(grad: float) -> None:
            self.grad += other * self.data**(other - 1) * grad  # d x**k/dx = k * x**(k-1)
        out._backward = _backward
        return out
    def tanh(self) -> Value:
        t = math.tanh(self.data)  # the lecture's (e**2x - 1)/(e**2x + 1) overflows for x > 355
        out = Value(t, (self,), 'tanh')
        def _backward(grad: float) -> None:
            self.grad += (1 - t * t) * grad  # d tanh(x)/dx = 1 - tanh(x)**2
        out._backward = _backward
        return out
    def exp(self) -> Value:
        e = math.exp(self.data)  # an OverflowError for x > 709.78, as Python's math.exp gives
        out = Value(e, (self,), 'exp')
        def _backward(grad: float) -> None:
            self.grad += e * grad  # d e**x/dx = e**x
        out._backward = _backward
        return out
    def relu(self) -> Value:
        out = Value(0.0 if self.data < 0 else self.data, (self,), 'ReLU')
        def _backward(grad: float) -> None:  # chosen, not multiplied by 0 or 1: 0 * inf is nan
            self.grad += 0.0 if self.data <= 0 else grad  # d relu(x)/dx = 0 for x <= 0, else 1
        out._backward = _backward
        return out
    def __neg__(self) -> Value:  # -self
        return self * -1.0
    __radd__ = __add__  # other + self is self + other
    __rmul__ = __mul__  # other * self is self * other
    def __sub__(self, other: Value | float) -> Value:  # self + (-other)
        k = other if isinstance(other, (Value, float)) else Value(other).data  # -np.uint8(1) is 255
        return self + (-k)
    def __rsub__(self, other: float) -> Value:  # other - self
        return -self + Value(other)
    def __truediv__(self, other: Value | float) -> Value:  # self / other (y = 0: Python's error)
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data / other.data, (self, other), '/')
        def _backward(grad: float) -> None:  # its own op: his self * other**-1 fails at y = 1e-310
            self.grad += grad / other.data  # d(x/y)/dx = 1/y
            other.grad -= grad * (self.data / other.data / other.data)  # -x/y**2, as (x/y)/y
        out._backward = _backward
        return out
    def __rtruediv__(self, other: float) -> Value:  # other / self
        return Value(other) / self
    def __rpow__(self, other: float) -> Value:  # other ** self
        return Value(other) ** self
    def backward(self) -> None:  # d(self)/d(node) into each node's .grad (leaves add to theirs)
        topo = self._topological_order()
        for node in topo:
            node.grad = 0.0  # so a second backward() does not double these, as the lecture's does
        self.grad += 1.0  # d(self)/d(self), added: a leaf's backward() accumulates too
        for node in reversed(topo):
            if node._grad_fn:  # (None for a node built by hand from parents, with no _backward)
                node._grad_fn(node.grad)  # the op's _backward(grad), handed this node's gradient
    def _topological_order(self) -> list[Value]:  # the nodes ops made, each after its parents
        # The lecture's build_topo with a list for its stack, not recursion, so any depth sorts: a
        # node goes back under a None, its parents on top; once the None is popped, it is listed.
        topo, visited = [], set()
        stack: list[Any] = [self]
        while stack:
            node = stack.pop()
            if node is None:
                topo.append(stack.pop())  # the node beneath the None: its parents are listed
            elif node._prev and node not in visited:  # a leaf takes no place: it only receives
                visited.add(node)
                stack += node, None, *node._prev
        return topo

    # --- the rest: beyond the lecture -------------------------------------------------------------
    # The ops beyond the lecture are written in more_ops.py (a new op goes there): imported here, in
    # the class, they are methods of Value. (A type checker reads their types from these two lines.)
    _power: ClassVar[Callable[[Value, Value | float], Value]]
    dot: ClassVar[Callable[..., Value]]
    from micrograd.copying import __deepcopy__, __reduce_ex__  # type: ignore[misc]  # as PyTorch's
    from micrograd.more_ops import _power, dot, log, sigmoid  # type: ignore[misc]
    def _get_backward(self) -> Callable[[], None]:  # o._backward() by hand, as the lecture calls it
        fn = getattr(self, '_grad_fn', None)  # (getattr: a subclass's __init__ may skip Value's)
        return (lambda: fn(self.grad)) if fn else (lambda: None)  # a leaf's does nothing
    def _set_backward(self, fn: Callable[..., None]) -> None:  # out._backward = fn: in _grad_fn
        lecture = type(fn) is not _function or fn.__code__.co_argcount != 1  # it reads out.grad
        fn_of_grad = (lambda grad: fn()) if lecture else fn  # as backward() calls it
        self._grad_fn = fn_of_grad if getattr(self, '_prev', ()) else None  # a leaf keeps none
    _backward = property(_get_backward, _set_backward)
    def detach(self) -> Value:  # a new leaf with the same data, cut off from this graph
        return Value(self.data)
    def item(self) -> float:
        return self.data
    __array_ufunc__ = None  # so `np.float64(2) * v` asks Value.__rmul__ instead of NumPy
    __slots__ = ('data', 'grad', 'label', '_prev', '_op', '_grad_fn', '__dict__')  # v.color = 'red'

from micrograd import grad_mode, numeric  # noqa: E402  (the rest's imports: below the lecture)
from micrograd.grad_mode import is_grad_enabled, no_grad  # noqa: E402

__all__ = ['Value', 'no_grad', 'is_grad_enabled', 'topological_order']
_recording, _function = grad_mode.recording, type(lambda: None)
topological_order = Value._topological_order  # the one sort, for any engine's nodes with ._prev

def _checked(data: object, children: Iterable[Value], op: str) -> float:
    """Value()'s one check (numeric.py): data becomes a float, or an error names the op."""
    caller = sys._getframe(2)  # the code that called Value(): one of this file's ops, or not
    ours = caller.f_globals is globals()  # a number given to an op (x + 'a'): that op's name
    name = caller.f_code.co_name if ours and not children and not op else ''
    return numeric.checked(data, children, op or name, ours)
