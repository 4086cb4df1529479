"""The Tensor: engine.py's Value over NumPy arrays, with its arithmetic and backward().

Read engine.py first. A Tensor is a Value whose data is an ndarray: each op computes
its output and, right beneath, states its local derivative in a closure
`_backward(grad)` that holds the parents (never the output), and `backward()` walks
the graph in topological order applying the chain rule. Three things are new:

- Broadcasting. `x + b` with x of shape (64, 10) and b of shape (10,) uses each b[j]
  64 times, so b's gradient is the sum of those 64 contributions. `_add_grad` does
  that sum for every op, in one place (node.py).
- Only tensors that need gradients build a graph. Data (requires_grad=False, the
  default) goes through ops as plain NumPy and keeps no parents.
- dtypes. A tensor holds bools, integers or floats (float64 unless you ask for another).
  An op's result gets the dtype PyTorch's type promotion gives (dtypes.py): a float32
  model times a Python number stays float32, an integer tensor times 1.5 is float,
  int / int is float. Every gradient has its tensor's dtype: a float32 model trains in
  float32 throughout. float16 computes in float32 and rounds each result once, as
  PyTorch's half-precision ops do.

The other op families sit in modules of their own, each a mixin of Tensor (node.py says how):
comparisons.py, reductions.py, shapes.py, unary.py, inplace.py (the rules of x += y), protocols.py.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np
import numpy.typing as npt

from micrograd import engine
from micrograd.engine import topological_order
from micrograd.tensor.checks import flag, number, real_array, real_dtype, refuse_value
from micrograd.tensor.comparisons import Comparisons
from micrograd.tensor.dtypes import (
    BOOL,
    HALF,
    Array,
    compute_dtype,
    float_dtype,
    is_number,
    operands,
    promoted,
    round_to,
    wide,
)
from micrograd.tensor.inplace import InPlace
from micrograd.tensor.kernels import power, select, unbroadcast
from micrograd.tensor.node import OUTPUT, ArrayLike, Node
from micrograd.tensor.protocols import Protocols
from micrograd.tensor.reductions import Reductions
from micrograd.tensor.unary import Unary

Op = TypeVar('Op', bound=Callable[..., Any])


def _named(op: str) -> Callable[[Op], Op]:
    """An elementwise op whose operands do not broadcast says so under its own name: NumPy's error ('operands
    could not be broadcast together with shapes (2,3) (4,)') names no op. (A decorator, so that the op's body
    stays as it is read; nothing is checked until NumPy refuses.)"""
    def decorate(method: Op) -> Op:
        @functools.wraps(method)
        def named(self: Tensor, other: Any) -> Any:
            try:
                return method(self, other)
            except ValueError as e:
                if 'broadcast' not in str(e):
                    raise
                raise ValueError(f"Tensor.{op}: {e}".rstrip()) from None
        return cast(Op, named)
    return decorate


class Tensor(Comparisons, Reductions, Unary, InPlace, Protocols):
    """An ndarray, its gradient, and the op and parents that produced it.

    `.data` is the ndarray and `.grad` is None until backward() reaches the tensor,
    then an ndarray of the same shape and dtype. Like Value, a leaf (a tensor you made,
    e.g. a weight) accumulates gradients across backward() calls; a tensor an op made
    holds the latest call's gradient only.

    A tensor holds its own copy of what it is given, as torch.tensor(a): a change you make
    to an array afterwards (a[0] = 100) is no change of the tensor, whose values a backward
    may read. A tensor given is copied too, and detached (Tensor(p) of a parameter p is a
    leaf of its own, that keeps p's values of now while p trains), as torch.tensor(t). To
    share an array's memory instead, use from_numpy(a), as torch.from_numpy; to share a
    tensor's, t.detach(). dtype=None keeps the dtype of the data given (an int32 array
    stays int32).
    """
    __slots__ = ()  # (the fields are Node's: data, grad, requires_grad, _prev, _op, _backward)
    __array_ufunc__ = None  # so `ndarray * tensor` asks Tensor.__rmul__ instead of NumPy

    def __init__(self, data: ArrayLike | Tensor, requires_grad: bool = False,
                 dtype: npt.DTypeLike | None = np.float64):
        if isinstance(data, Tensor):
            data = data.data  # (copied below, as any array)
        if not (isinstance(data, (np.ndarray, list, tuple)) or is_number(data)):
            refuse_value(data, 'Tensor')
            raise TypeError(f"Tensor() takes numbers, (nested) lists of numbers, an ndarray or a Tensor, "
                            f"got {type(data).__name__}")
        array = real_array(data, 'Tensor')
        kind = array.dtype if dtype is None else real_dtype(dtype, 'Tensor')
        copied = isinstance(data, np.ndarray)  # (an array made here from a list or a number is the tensor's own)
        self._fields(np.array(array, dtype=kind) if copied else np.asarray(array, dtype=kind))
        if requires_grad and self.data.dtype.kind != 'f':
            raise TypeError(f"Tensor: only floating-point tensors can require gradients, got dtype {self.data.dtype}")
        self.requires_grad = requires_grad

    # --- element-wise arithmetic, with broadcasting ---

    @_named('+')
    def __add__(self, other: Tensor | ArrayLike) -> Tensor:
        other = self._lift(other, '+')
        x, y = promoted(self.data, other.data)  # (not operands(): PyTorch's + rounds a number to float16 first)

        def _backward(grad: Array) -> None:  # d(x+y)/dx = d(x+y)/dy = 1
            if self.requires_grad:
                self._add_grad(grad)
            if other.requires_grad:
                other._add_grad(grad)
        return Tensor._result(x + y, (self, other), '+', _backward, reads=())

    @_named('-')
    def __sub__(self, other: Tensor | ArrayLike) -> Tensor:
        is_bool = isinstance(other, (bool, np.bool_))  # True - x is refused as a bool tensor is, as in PyTorch
        other = self._lift(other, '-')
        x, y = promoted(self.data, other.data)  # (as +)
        if is_bool or self.data.dtype == BOOL or other.data.dtype == BOOL:
            raise TypeError("Tensor.-: subtraction with a bool tensor is not supported, as in PyTorch "
                            "(to invert a mask, use ~mask)")

        def _backward(grad: Array) -> None:  # d(x-y)/dx = 1, d(x-y)/dy = -1
            if self.requires_grad:
                self._add_grad(grad)
            if other.requires_grad:
                other._add_grad(-grad)
        return Tensor._result(x - y, (self, other), '-', _backward, reads=())

    @_named('*')
    def __mul__(self, other: Tensor | ArrayLike) -> Tensor:
        other = self._lift(other, '*')
        x, y, rounded = operands(self.data, other.data)

        def _backward(grad: Array) -> None:  # d(xy)/dx = y, d(xy)/dy = x
            if self.requires_grad:
                self._add_grad(grad * y)
            if other.requires_grad:
                other._add_grad(grad * x)
        return Tensor._result(round_to(x * y, rounded), (self, other), '*', _backward, reads=((other,), (self,)))

    @_named('/')
    def __truediv__(self, other: Tensor | ArrayLike) -> Tensor:  # self / other; dividing by 0 gives inf, as in NumPy
        other = self._lift(other, '/')
        x, y, rounded = operands(self.data, other.data, float_dtype)  # int / int is a float, as in Python and PyTorch

        def _backward(grad: Array) -> None:  # d(x/y)/dx = 1/y, d(x/y)/dy = -x/y**2
            if self.requires_grad:
                self._add_grad(grad / y)
            if other.requires_grad:
                other._add_grad(-grad * x / (y * y))
        with np.errstate(divide='ignore', invalid='ignore'):  # 1/0 = inf and 0/0 = nan, as PyTorch
            return Tensor._result(round_to(x / y, rounded), (self, other), '/', _backward,
                                  reads=((other,), (self, other)))

    @_named('**')
    def __pow__(self, other: Tensor | ArrayLike) -> Tensor:  # self ** other
        a_number = is_number(other)
        if a_number and self.data.dtype == HALF and math.isfinite(e := number(other, '**')) and abs(e) > 65504:
            raise ValueError(f"Tensor.__pow__: the exponent {e!r} does not fit in float16, the tensor's dtype "
                             f"(as PyTorch refuses it)")
        other = self._lift(other, '**')
        x, k, rounded = operands(self.data, other.data)  # (x16 with a number: in float32, see operands and below)
        if self.data.dtype == BOOL and other.data.dtype == BOOL and not a_number:
            raise TypeError("Tensor.__pow__: a bool tensor to a bool tensor's power is not supported, as in PyTorch")
        if x.dtype.kind == 'f' and np.any((x < 0) & (k != np.round(k))):
            raise ValueError("Tensor.__pow__: a fractional power of a negative base is not real")
        if x.dtype.kind in 'iu' and np.any(k < 0):
            raise ValueError("Tensor.__pow__: integers to negative integer powers are not integers "
                             "(as in PyTorch); use a float tensor or exponent")
        with np.errstate(divide='ignore', over='ignore'):  # 0 ** -1 = inf, as PyTorch
            if rounded is None:
                out = power(x, k, rounded).astype(x.dtype, copy=False)  # (NumPy's bool ** bool is int8)
            else:  # float16: PyTorch's value takes the number as a float16 (1.0001 ** x16 is 1.0 there), its
                # gradient the number as given (1e-4): so the value here, and the gradient below from x and k
                x32, k32 = round_to(x, HALF).astype(np.float32), round_to(k, HALF).astype(np.float32)
                out = round_to(power(x32, k32, rounded), rounded)
        powered = out.astype(compute_dtype(out.dtype), copy=False)  # the exponent's gradient reads x**k (float16: wide)

        def _backward(grad: Array) -> None:  # d(x**k)/dx = k x**(k-1), d(x**k)/dk = x**k log(x)
            if self.requires_grad:
                with np.errstate(divide='ignore', invalid='ignore'):  # 0 ** (k-1) is inf for k < 1 ...
                    slope = k * power(x, k - 1, rounded)
                self._add_grad(grad * np.where(k == 0, 0, slope))  # ... but x**0 is constant: slope 0, as PyTorch
            if other.requires_grad:  # (0 at base 0 for k >= 0, where log is -inf, as PyTorch; nan below 0)
                with np.errstate(divide='ignore', invalid='ignore'):
                    other._add_grad(grad * np.where((x == 0) & (k >= 0), 0, powered * np.log(x)))
        return Tensor._result(out, (self, other), '**', _backward, reads=((self, other), (self, other, OUTPUT)))

    def __neg__(self) -> Tensor:  # -self
        if self.data.dtype == BOOL:
            raise TypeError("Tensor.neg: - of a bool tensor is not supported, as in PyTorch (to invert a mask, "
                            "use ~mask)")

        def _backward(grad: Array) -> None:  # d(-x)/dx = -1
            self._add_grad(-grad)
        return Tensor._result(-self.data, (self,), 'neg', _backward, reads=())

    def __pos__(self) -> Tensor:  # +t is t, as in PyTorch (which refuses it for bools too)
        if self.data.dtype == BOOL:
            raise TypeError("Tensor.+: + of a bool tensor is not supported, as in PyTorch")
        return self

    def __matmul__(self, other: Tensor | ArrayLike) -> Tensor:
        """Matrix product with NumPy's rules: batched over leading axes, 1-D operands as vectors.

        Operands of different dtypes are promoted as for `*` (PyTorch refuses to mix them)."""
        other = self._lift(other, '@')
        a, b = promoted(self.data, other.data)
        rounded = a.dtype if a.dtype == HALF else None  # float16 multiplies in float32 and rounds once, as PyTorch
        a, b = wide(a), wide(b)
        if a.ndim == 0 or b.ndim == 0:
            raise ValueError(f"Tensor.matmul: needs at least 1-D operands, got shapes {a.shape} and {b.shape}")
        if a.dtype == BOOL:
            raise TypeError("Tensor.matmul: bool matrices have no product here, as in PyTorch")
        if a.ndim > 2 and b.ndim == 2 and a.shape[-1] == b.shape[0]:
            return self._matmul_rows(other, a, b, rounded)
        try:  # (no np.errstate here: it costs more than a small product; inf * 0 may warn, as NumPy does)
            out = a @ b
        except ValueError:
            raise ValueError(f"Tensor.matmul: shapes {a.shape} and {b.shape} do not line up "
                             f"({a.shape[-1]} columns vs {b.shape[0 if b.ndim == 1 else -2]} rows, "
                             f"or batch axes that do not broadcast)") from None

        def _backward(grad: Array) -> None:  # d(AB)/dA = grad @ B^T, d(AB)/dB = A^T @ grad
            # A vector operand acts as a 1-row (a) or 1-column (b) matrix whose extra axis
            # the output dropped; put those axes back so the matrix rule applies as is.
            a2, b2 = (a[None, :] if a.ndim == 1 else a), (b[:, None] if b.ndim == 1 else b)
            g = grad[..., None] if b.ndim == 1 else grad
            g = g[..., None, :] if a.ndim == 1 else g
            if self.requires_grad:  # (unbroadcast sums over batch axes that only the other operand had)
                self._add_grad(unbroadcast(g @ b2.swapaxes(-1, -2), a2.shape).reshape(a.shape), own=True)
            if other.requires_grad:
                other._add_grad(unbroadcast(a2.swapaxes(-1, -2) @ g, b2.shape).reshape(b.shape), own=True)
        return Tensor._result(round_to(out, rounded), (self, other), '@', _backward, reads=((other,), (self,)))

    def _matmul_rows(self, other: Tensor, a: Array, b: Array, rounded: np.dtype[Any] | None) -> Tensor:
        """self @ other for self of shape (..., K) and a matrix other (K, N): a Linear on a batch of sequences.

        Every row of self meets the same matrix, so this is one (rows, K) @ (K, N) product: the
        leading axes fold into the rows. Same numbers as the batched rule, but one BLAS call
        instead of one per batch entry, and other's gradient comes out of one product instead
        of a (batch, K, N) stack of them to sum.
        """
        n_rows = math.prod(a.shape[:-1])  # (not -1: reshape cannot infer it when K or N is 0)
        rows = a.reshape(n_rows, a.shape[-1])  # (..., K) -> (rows, K)

        def _backward(grad: Array) -> None:  # the 2-D rule on the rows: dA = grad @ B^T, dB = A^T @ grad
            g = grad.reshape(n_rows, b.shape[1])
            if self.requires_grad:
                self._add_grad((g @ b.T).reshape(a.shape), own=True)
            if other.requires_grad:
                other._add_grad(rows.T @ g, own=True)
        out = (rows @ b).reshape(*a.shape[:-1], b.shape[1])
        return Tensor._result(round_to(out, rounded), (self, other), '@', _backward, reads=((other,), (self,)))

    def matmul(self, other: Tensor | ArrayLike) -> Tensor:
        return self @ other

    # --- reflected ops: a number or an array on the left ---

    def __radd__(self, other: ArrayLike) -> Tensor:  # other + self
        return self + other

    def __rsub__(self, other: ArrayLike) -> Tensor:  # other - self
        if isinstance(other, (bool, np.bool_)):
            return self - other  # the same refusal
        return self._lift(other, '-') - self

    def __rmul__(self, other: ArrayLike) -> Tensor:  # other * self
        return self * other

    def __rtruediv__(self, other: ArrayLike) -> Tensor:  # other / self
        if is_number(other) and self.requires_grad:  # PyTorch's is reciprocal(self) * other, whose gradient reads
            return self._lift(other, '/') / self.clone()  # a copy of its own, so self may change before backward()
        return self._lift(other, '/') / self

    def __rpow__(self, other: ArrayLike) -> Tensor:  # other ** self
        return self._lift(other, '**') ** self

    def __rmatmul__(self, other: ArrayLike) -> Tensor:  # other @ self
        return self._lift(other, '@') @ self

    # --- in place, as PyTorch's: x += y, x.add_(y) (inplace.py has the rules, zero_, fill_, copy_ and [] =) ---
    # (x @= y is x = x @ y, a new tensor, as in PyTorch, which has no matmul in place)

    def __iadd__(self, other: Tensor | ArrayLike) -> Tensor:  # self += other
        return self._in_place('+=', lambda t: t + other, other)

    def __isub__(self, other: Tensor | ArrayLike) -> Tensor:  # self -= other
        return self._in_place('-=', lambda t: t - other, other)

    def __imul__(self, other: Tensor | ArrayLike) -> Tensor:  # self *= other
        return self._in_place('*=', lambda t: t * other, other)

    def __itruediv__(self, other: Tensor | ArrayLike) -> Tensor:  # self /= other
        return self._in_place('/=', lambda t: t / other, other)

    def __ipow__(self, other: Tensor | ArrayLike) -> Tensor:  # self **= other
        return self._in_place('**=', lambda t: t ** other, other)

    def __iand__(self, other: Tensor | ArrayLike) -> Tensor:  # self &= other
        return self._in_place('&=', lambda t: t & other, other)

    def __ior__(self, other: Tensor | ArrayLike) -> Tensor:  # self |= other
        return self._in_place('|=', lambda t: t | other, other)

    def __ixor__(self, other: Tensor | ArrayLike) -> Tensor:  # self ^= other
        return self._in_place('^=', lambda t: t ^ other, other)

    def add_(self, other: Tensor | ArrayLike, *, alpha: float = 1) -> Tensor:
        """self += alpha * other, in place, as PyTorch's add_ (its SGD step is p.add_(p.grad, alpha=-lr))."""
        scale = number(alpha, 'Tensor.add_: alpha')
        return self._in_place('add_', lambda t: t + (other if scale == 1 else t._lift(other, 'add_') * scale), other)

    def sub_(self, other: Tensor | ArrayLike, *, alpha: float = 1) -> Tensor:
        """self -= alpha * other, in place, as PyTorch's sub_."""
        scale = number(alpha, 'Tensor.sub_: alpha')

        def compute(t: Tensor) -> Tensor:
            y = t._lift(other, 'sub_')
            if scale == 1 or isinstance(other, (bool, np.bool_)) or y.data.dtype == BOOL:
                return t - other  # (- refuses a bool, alpha or not, as PyTorch's sub_)
            return t - y * scale
        return self._in_place('sub_', compute, other)

    def mul_(self, other: Tensor | ArrayLike) -> Tensor:
        """self *= other, in place, as PyTorch's mul_."""
        return self._in_place('mul_', lambda t: t * other, other)

    def div_(self, other: Tensor | ArrayLike) -> Tensor:
        """self /= other, in place, as PyTorch's div_."""
        return self._in_place('div_', lambda t: t / other, other)

    # --- backpropagation ---

    def backward(self, grad: Tensor | ArrayLike | None = None) -> None:
        """Fill in d(self)/d(t) in the .grad of every tensor t that self was made from.

        - A scalar (one-element) self needs no `grad`: d(self)/d(self) = 1. Otherwise pass
          `grad`, the gradient of some scalar with respect to self, shaped like self.
        - Leaves (tensors no op produced, e.g. weights) accumulate: each call adds to
          .grad, so call zero_grad() between training steps.
        - Intermediate tensors hold the gradients of the latest call only.
        """
        if self._view_of is not None and self._view_of._rebased_at > self._ran_at and engine.is_grad_enabled():
            self._follow_base()  # a view whose base was changed in place while recording: its new history
        if not self.requires_grad:
            raise ValueError("Tensor.backward: this tensor does not require gradients (it was made from tensors "
                             "with requires_grad=False, or under no_grad()), so there is nothing to backpropagate")
        if grad is None:
            if self.data.size != 1:
                raise ValueError(f"Tensor.backward: the output has shape {self.data.shape}, not a single number, "
                                 f"so d(output)/d(output) is not a number to start from; reduce it to a scalar "
                                 f"(e.g. out.sum()) or pass grad= with shape {self.data.shape}")
            start = np.ones_like(self.data)
        else:
            given = grad.data if isinstance(grad, Tensor) else grad
            if not (isinstance(given, (np.ndarray, list, tuple)) or is_number(given)):
                refuse_value(given, 'Tensor.backward')
                raise TypeError(f"Tensor.backward: grad must be numbers or an array, got {type(given).__name__}")
            start = real_array(given, 'Tensor.backward').astype(self.data.dtype, copy=False)
            if start.shape != self.data.shape:
                raise ValueError(f"Tensor.backward: grad has shape {start.shape} but the output has shape "
                                 f"{self.data.shape}")
        order = self._topological_order()
        if self.grad is not None:  # (a leaf output adds to its .grad)
            self._check_grad()
        for node in order:  # (checked before any gradient changes: a refusal leaves every .grad as it was)
            node._check_unchanged()
            for parent in node._prev:
                if parent.grad is not None:  # (a leaf's .grad, which backward() adds to, may have been set by hand)
                    parent._check_grad()
                if parent.data.dtype.kind != 'f':  # (requires_grad set by hand: its gradient would be truncated)
                    raise TypeError(f"Tensor.backward: a {parent.data.dtype} tensor requires grad, but only "
                                    f"floating-point tensors can have gradients, as in PyTorch (1.5 would be "
                                    f"truncated to 1); make it with dtype=np.float64")
        for node in order:
            node._grad = None  # intermediates hold this call's gradient only
        self._add_grad(start)  # d(self)/d(self), or the gradient passed in
        with np.errstate(all='ignore'):  # IEEE results as in PyTorch (inf * 0 = nan), without NumPy's warnings
            for node in reversed(order):
                assert node._backward is not None and node._grad is not None  # an op made it, its users filled it
                node._backward(node._grad)  # the chain rule: pass grad on to the parents

    def _topological_order(self) -> list[Tensor]:
        """The tensors that ops made on the way to self, each after the tensors it was made from: the engine's
        sort (engine.topological_order: a stack, no depth limit, leaves left out), once every op in it takes its
        parents as they were when it ran (node.py's _keep_versions_apart: only after a change in place while
        recording does that change an op, and the sort is made again)."""
        sort = cast(Callable[[Tensor], list[Tensor]], topological_order)  # (typed for Values: any node with _prev)
        order = sort(self)
        while Node._last_rebase and any([node._keep_versions_apart() for node in order]):  # (0: none ever made)
            order = sort(self)
        return order

    # --- housekeeping ---

    def zero_grad(self) -> None:
        self.grad = None

    def detach(self) -> Tensor:
        """A new leaf sharing this data (and its changes in place), cut off from the graph."""
        out = Tensor._constant(self.data)
        out._base = self if self._base is None else self._base  # (a change in place of either is seen by both)
        return out

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set requires_grad, in place, as PyTorch's (p.requires_grad_(False) freezes a parameter). Only a leaf's
        can change (an op's output requires grad because its inputs do), and only a float tensor's can be True."""
        wanted = flag(requires_grad, 'requires_grad', 'Tensor.requires_grad_')
        if self._prev:
            raise RuntimeError("Tensor.requires_grad_: only a leaf's requires_grad can change, as in PyTorch (this "
                               "tensor is an op's output); for a copy without gradient, use t.detach()")
        if wanted and self.data.dtype.kind != 'f':
            raise TypeError(f"Tensor.requires_grad_: only floating-point tensors can require gradients, got dtype "
                            f"{self.data.dtype}")
        self.requires_grad = wanted
        return self


def where(condition: Array | Tensor, x: Tensor | ArrayLike, y: Tensor | ArrayLike) -> Tensor:
    """x where condition is True, y where it is False, as torch.where: all three broadcast together.

    The gradient goes to x where condition holds and to y elsewhere (0 to the other, even if the
    gradient is inf or nan).
    """
    if isinstance(condition, np.bool_):  # what comparing 0-d arrays gives NumPy: a 0-d condition
        condition = np.asarray(condition)
    if not isinstance(condition, (np.ndarray, Tensor)):
        raise TypeError(f"where: the condition must be a boolean array or Tensor, got {type(condition).__name__}")
    cond = condition.data if isinstance(condition, Tensor) else condition
    if cond.dtype != BOOL:
        raise TypeError(f"where: the condition must be boolean, got dtype {cond.dtype}")
    read = (condition,) if isinstance(condition, Tensor) else ()  # what the backward reads: checked, or a copy
    if isinstance(x, Tensor):
        a, b = x, x._lift(y, 'where')  # a number takes part as in x's ops
    elif isinstance(y, Tensor):
        a, b = y._lift(x, 'where'), y
    else:
        a = Tensor._constant(real_array(x, 'where'))
        b = a._lift(y, 'where')
    xs, ys = promoted(a.data, b.data)
    if not read:
        cond = (a if a.requires_grad else b)._kept(cond)
    try:
        out = np.where(cond, xs, ys)
    except ValueError:
        raise ValueError(f"where: shapes {cond.shape}, {a.data.shape} and {b.data.shape} do not broadcast") from None

    def _backward(grad: Array) -> None:  # d out/dx = 1 where condition, d out/dy = 1 elsewhere
        if a.requires_grad:
            a._add_grad(select(cond, grad))
        if b.requires_grad:
            b._add_grad(select(~cond, grad))
    return Tensor._result(out, (a, b), 'where', _backward, reads=(read, read))


def from_numpy(array: Array) -> Tensor:
    """A data tensor sharing array's memory and dtype, as torch.from_numpy: a change of either is a change of the
    other. (Tensor(array) copies, as torch.tensor.) backward() sees a change made through the tensor (t += 1), as
    any change in place; one made through the array (array[0] = 1) it cannot see, as in PyTorch: change the array
    only when no backward() that reads it is still to come."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy: expected an ndarray, got {type(array).__name__} (for numbers or lists, "
                        f"Tensor(data))")
    return Tensor._constant(real_array(array, 'from_numpy'))
