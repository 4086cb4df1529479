"""The Tensor: engine.py's Value over NumPy arrays, with its ops and backward().

Read engine.py first. A Tensor is a Value whose data is an ndarray: each op computes
its output and, right beneath, states its local derivative in a closure
`_backward(grad)` that holds the parents (never the output), and `backward()` walks
the graph in topological order applying the chain rule. Two things are new:

- Broadcasting. `x + b` with x of shape (64, 10) and b of shape (10,) uses each b[j]
  64 times, so b's gradient is the sum of those 64 contributions. `_add_grad` does
  that sum for every op, in one place.
- Only tensors that need gradients build a graph. Data (requires_grad=False, the
  default) goes through ops as plain NumPy and keeps no parents.

Every op keeps its tensor's dtype, and so does every gradient: a float32 model trains
in float32 throughout.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from micrograd import engine

Array = npt.NDArray[Any]  # an ndarray of any dtype: what .data and .grad hold
ArrayLike = Array | float | int | Sequence[Any]  # what a Tensor can be made from (besides a Tensor)
Axis = int | tuple[int, ...] | None
Backward = Callable[[Array], None]


def _is_real(x: object) -> bool:
    """A single real number: Python's, or NumPy's (np.bool_ and np.float32 are no numbers.Real)."""
    return isinstance(x, (numbers.Real, np.bool_, np.integer, np.floating))


def _unbroadcast(grad: Array, shape: tuple[int, ...]) -> Array:
    """Sum grad over the axes that broadcasting stretched, so that it has `shape` again.

    Broadcasting (3,) against (2, 3) prepends an axis; (2, 1) against (2, 3) stretches
    an axis of length 1. An input used several times receives the sum of its uses.
    """
    if grad.shape == shape:
        return grad
    extra = grad.ndim - len(shape)  # prepended axes
    stretched = tuple(i + extra for i, n in enumerate(shape) if n == 1 and grad.shape[i + extra] != 1)
    summed: Array = grad.sum(axis=tuple(range(extra)) + stretched, keepdims=True)
    return summed.reshape(shape)


class Tensor:
    """An ndarray, its gradient, and the op and parents that produced it.

    `.data` is the ndarray and `.grad` is None until backward() reaches the tensor,
    then an ndarray of the same shape and dtype. Like Value, a leaf (a tensor you made,
    e.g. a weight) accumulates gradients across backward() calls; a tensor an op made
    holds the latest call's gradient only.

    A tensor with requires_grad=True gets its own copy of `data`, because optimizers
    update it in place; a data tensor shares the array it was given (no copy).
    """
    __slots__ = ('data', 'grad', 'requires_grad', '_prev', '_op', '_backward')
    __array_ufunc__ = None  # so `ndarray * tensor` asks Tensor.__rmul__ instead of NumPy

    def __init__(self, data: ArrayLike | Tensor, requires_grad: bool = False, dtype: npt.DTypeLike = np.float64):
        if isinstance(data, Tensor):
            data = data.data
        if not (isinstance(data, (np.ndarray, list, tuple)) or _is_real(data)):
            raise TypeError(f"Tensor() takes numbers, (nested) lists of numbers or an ndarray, "
                            f"got {type(data).__name__}")
        self.data: Array = np.array(data, dtype=dtype) if requires_grad else np.asarray(data, dtype=dtype)
        if requires_grad and self.data.dtype.kind != 'f':
            raise TypeError(f"Tensor: only floating-point tensors can require gradients, got dtype {self.data.dtype}")
        self.grad: Array | None = None
        self.requires_grad = requires_grad
        self._prev: tuple[Tensor, ...] = ()
        self._op = ''
        self._backward: Backward | None = None

    @staticmethod
    def _result(data: Array | np.generic, parents: tuple[Tensor, ...], op: str, backward: Backward) -> Tensor:
        """The output of an op. It joins the graph only if a parent needs gradients (and not under no_grad())."""
        out = Tensor.__new__(Tensor)  # data is already an ndarray of the right dtype: skip __init__'s checks
        out.data = data if type(data) is np.ndarray else np.asarray(data)  # 0-d results come back as NumPy scalars
        out.grad = None
        tracked = tuple(p for p in parents if p.requires_grad) if engine._grad_enabled.get() else ()
        out.requires_grad = bool(tracked)
        out._prev, out._op, out._backward = tracked, (op if tracked else ''), (backward if tracked else None)
        return out

    def _lift(self, other: object, op: str) -> Tensor:
        """A number or an ndarray takes part in an op as a constant tensor of self's dtype."""
        if isinstance(other, Tensor):
            return other
        if isinstance(other, np.ndarray) or _is_real(other):
            return Tensor(other, dtype=self.data.dtype)  # type: ignore[arg-type]  # a NumPy scalar is a number
        raise TypeError(f"unsupported operand for {op}: Tensor and {type(other).__name__} ({other!r})")

    def _add_grad(self, grad: Array, own: bool = False) -> None:
        """self.grad += grad, after summing grad over the axes broadcasting stretched.

        The gradient takes self's dtype (a float32 weight times a float64 input still has
        a float32 gradient). Never writes into an array: the same one may be handed to
        several tensors. own=True promises that grad is a new array made for self alone,
        as a weight's gradient from matmul is: a leaf may then keep it without a copy.
        """
        if grad.shape != self.data.shape:
            grad = _unbroadcast(grad, self.data.shape)
        dtype = self.data.dtype
        if self.grad is None:
            # A leaf's .grad is the user's to keep (and maybe scale in place): give it its own array.
            self.grad = grad.astype(dtype, copy=False) if self._prev or own else np.array(grad, dtype=dtype)
        else:
            self.grad = self.grad + grad.astype(dtype, copy=False)

    # --- element-wise arithmetic, with broadcasting ---

    def __add__(self, other: Tensor | ArrayLike) -> Tensor:
        other = self._lift(other, '+')

        def _backward(grad: Array) -> None:  # d(x+y)/dx = d(x+y)/dy = 1
            if self.requires_grad:
                self._add_grad(grad)
            if other.requires_grad:
                other._add_grad(grad)
        return Tensor._result(self.data + other.data, (self, other), '+', _backward)

    def __mul__(self, other: Tensor | ArrayLike) -> Tensor:
        other = self._lift(other, '*')

        def _backward(grad: Array) -> None:  # d(xy)/dx = y, d(xy)/dy = x
            if self.requires_grad:
                self._add_grad(grad * other.data)
            if other.requires_grad:
                other._add_grad(grad * self.data)
        return Tensor._result(self.data * other.data, (self, other), '*', _backward)

    def __truediv__(self, other: Tensor | ArrayLike) -> Tensor:  # self / other; dividing by 0 gives inf, as in NumPy
        other = self._lift(other, '/')
        x, y = self.data, other.data

        def _backward(grad: Array) -> None:  # d(x/y)/dx = 1/y, d(x/y)/dy = -x/y**2
            if self.requires_grad:
                self._add_grad(grad / y)
            if other.requires_grad:
                other._add_grad(-grad * x / (y * y))
        return Tensor._result(x / y, (self, other), '/', _backward)

    def __pow__(self, other: Tensor | ArrayLike) -> Tensor:  # self ** other
        other = self._lift(other, '**')
        x, k = self.data, other.data
        if np.any((x < 0) & (k != np.round(k))):
            raise ValueError("Tensor.__pow__: a fractional power of a negative base is not real")
        if other.requires_grad and np.any(x <= 0):
            raise ValueError(f"Tensor.__pow__: a tensor exponent needs a base > 0 (its gradient is "
                             f"base**k * log(base)), got a base of {x.min()}")
        out = x ** k

        def _backward(grad: Array) -> None:  # d(x**k)/dx = k x**(k-1), d(x**k)/dk = x**k log(x)
            if self.requires_grad:
                with np.errstate(divide='ignore', invalid='ignore'):  # 0 ** (k-1) is inf for k < 1 ...
                    slope = k * x ** (k - 1)
                self._add_grad(grad * np.where(k == 0, 0, slope))  # ... but x**0 is constant: slope 0, as PyTorch
            if other.requires_grad:
                other._add_grad(grad * out * np.log(x))
        return Tensor._result(out, (self, other), '**', _backward)

    def __matmul__(self, other: Tensor | ArrayLike) -> Tensor:
        """Matrix product with NumPy's rules: batched over leading axes, 1-D operands as vectors."""
        other = self._lift(other, '@')
        a, b = self.data, other.data
        if a.ndim == 0 or b.ndim == 0:
            raise ValueError(f"Tensor.matmul: needs at least 1-D operands, got shapes {a.shape} and {b.shape}")
        if a.ndim > 2 and b.ndim == 2 and a.shape[-1] == b.shape[0]:
            return self._matmul_rows(other)
        try:
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
            if self.requires_grad:  # (_unbroadcast sums over batch axes that only the other operand had)
                self._add_grad(_unbroadcast(g @ b2.swapaxes(-1, -2), a2.shape).reshape(a.shape), own=True)
            if other.requires_grad:
                other._add_grad(_unbroadcast(a2.swapaxes(-1, -2) @ g, b2.shape).reshape(b.shape), own=True)
        return Tensor._result(out, (self, other), '@', _backward)

    def _matmul_rows(self, other: Tensor) -> Tensor:
        """self @ other for self of shape (..., K) and a matrix other (K, N): a Linear on a batch of sequences.

        Every row of self meets the same matrix, so this is one (rows, K) @ (K, N) product: the
        leading axes fold into the rows. Same numbers as the batched rule, but one BLAS call
        instead of one per batch entry, and other's gradient comes out of one product instead
        of a (batch, K, N) stack of them to sum.
        """
        a, b = self.data, other.data
        n_rows = math.prod(a.shape[:-1])  # (not -1: reshape cannot infer it when K or N is 0)
        rows = a.reshape(n_rows, a.shape[-1])  # (..., K) -> (rows, K)

        def _backward(grad: Array) -> None:  # the 2-D rule on the rows: dA = grad @ B^T, dB = A^T @ grad
            g = grad.reshape(n_rows, b.shape[1])
            if self.requires_grad:
                self._add_grad((g @ b.T).reshape(a.shape), own=True)
            if other.requires_grad:
                other._add_grad(rows.T @ g, own=True)
        return Tensor._result((rows @ b).reshape(*a.shape[:-1], b.shape[1]), (self, other), '@', _backward)

    def matmul(self, other: Tensor | ArrayLike) -> Tensor:
        return self @ other

    # --- reductions ---

    def sum(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        def _backward(grad: Array) -> None:  # d(sum x)/dx_i = 1: every summand gets the whole grad
            if not keepdims and axis is not None:
                grad = np.expand_dims(grad, axis)  # put the summed axes back, with length 1
            self._add_grad(np.broadcast_to(grad, self.data.shape))
        # keepdims spelled as a literal in each call: NumPy's type stubs tell the two results apart by it
        total = self.data.sum(axis=axis, keepdims=True) if keepdims else self.data.sum(axis=axis)
        return Tensor._result(total, (self,), 'sum', _backward)

    def mean(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        total = self.sum(axis, keepdims)
        return total * (total.data.size / self.data.size)  # sum / (number of elements averaged)

    def max(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        """The largest element(s). Tied maxima share the gradient evenly, as with torch.amax.

        (torch.max(x, dim) gives it all to one of them instead; torch.amax is the
        convention for every axis here, including axis=None.)
        """
        top = self.data.max(axis=axis, keepdims=True)

        def _backward(grad: Array) -> None:  # 1/(number of ties) at the maxima, 0 elsewhere
            grad = np.reshape(grad, top.shape)  # the reduced axes back, with length 1
            is_top = self.data == top
            ties = is_top.sum(axis=axis, keepdims=True, dtype=self.data.dtype)  # counted in self's dtype, not int64
            self._add_grad(is_top * (grad / ties))
        out = top if keepdims else np.squeeze(top, axis=axis)  # axis=None: every axis was reduced
        return Tensor._result(out, (self,), 'max', _backward)

    # --- shapes, axes and indexing ---

    def reshape(self, *shape: int | Sequence[int]) -> Tensor:
        """The same numbers in another shape: x.reshape(2, 3) or x.reshape((2, 3)); one length may be -1."""
        new_shape = _ints(shape)
        try:
            out = self.data.reshape(new_shape)
        except ValueError:
            raise ValueError(f"Tensor.reshape: cannot put the {self.data.size} numbers of shape {self.data.shape} "
                             f"into shape {new_shape}") from None

        def _backward(grad: Array) -> None:  # the same numbers back in the old shape
            self._add_grad(grad.reshape(self.data.shape))
        return Tensor._result(out, (self,), 'reshape', _backward)

    def permute(self, *axes: int | Sequence[int]) -> Tensor:
        """The axes in a new order: axis i of the output is axis axes[i] of self (negative axes count
        from the end). As torch's x.permute(2, 0, 1) and NumPy's x.transpose(2, 0, 1)."""
        order = _permutation(_ints(axes), self.data.ndim, 'permute')
        undo = tuple(int(i) for i in np.argsort(order))  # output axis i came from axis order[i]: send it back

        def _backward(grad: Array) -> None:  # every number goes back to where it came from
            self._add_grad(grad.transpose(undo))
        return Tensor._result(self.data.transpose(order), (self,), 'permute', _backward)

    def transpose(self, *axes: int | Sequence[int]) -> Tensor:
        """As ndarray.transpose: no axes reverses them all, otherwise the same as permute(*axes).

        PyTorch's x.transpose(1, 2) swaps two axes instead: here that is x.swapaxes(1, 2).
        """
        order = _ints(axes)
        if not order:
            return self.permute(*reversed(range(self.data.ndim)))
        _permutation(order, self.data.ndim, 'transpose')  # the error, if any, names transpose
        return self.permute(*order)

    def swapaxes(self, axis1: int, axis2: int) -> Tensor:
        """Axes axis1 and axis2 trade places, as in NumPy and PyTorch (PyTorch's transpose(axis1, axis2))."""
        ndim = self.data.ndim
        for a in (axis1, axis2):
            if not (isinstance(a, (int, np.integer)) and -ndim <= a < ndim):
                raise ValueError(f"Tensor.swapaxes: axis {a!r} is out of range for a tensor of shape {self.data.shape}")

        def _backward(grad: Array) -> None:  # swapping the same two axes again puts every number back
            self._add_grad(grad.swapaxes(axis1, axis2))
        return Tensor._result(self.data.swapaxes(axis1, axis2), (self,), 'swapaxes', _backward)

    @property
    def T(self) -> Tensor:
        """All axes reversed, as NumPy's .T (PyTorch: x.permute(*reversed(range(x.ndim))); x.mT swaps the last two)."""
        return self.transpose()

    def __getitem__(self, index: object) -> Tensor:
        """Slices, integers and integer/boolean arrays, as NumPy indexing.

        The gradient goes back to the elements picked; an element picked twice gets both.
        """
        picked = _plain_index(index)
        looks_up_rows = isinstance(picked, np.ndarray) and picked.dtype.kind in 'iu' and self.data.ndim > 0

        def _backward(grad: Array) -> None:
            if looks_up_rows:  # table[ids], as an Embedding does: the same sums as below, 3-4x faster
                self._add_grad(_sum_into_rows(picked, grad, self.data.shape), own=True)
                return
            full = np.zeros_like(self.data)
            np.add.at(full, picked, grad)  # unlike full[index] += grad, adds once per repeated index
            self._add_grad(full)
        return Tensor._result(self.data[picked], (self,), 'getitem', _backward)

    def masked_fill(self, mask: Array | Tensor, value: float) -> Tensor:
        """value where mask is True, self where it is False, as torch's masked_fill.

        mask is a boolean array that broadcasts to self's shape. The filled places hold a
        constant, so no gradient flows back through them. Filled with -inf before a softmax,
        they get probability 0: that is how causal attention hides later positions.
        """
        hide = np.asarray(mask.data if isinstance(mask, Tensor) else mask)
        if hide.dtype != np.bool_:
            raise TypeError(f"Tensor.masked_fill: the mask must be boolean (True = fill), got dtype {hide.dtype}")
        if not _is_real(value):
            raise TypeError(f"Tensor.masked_fill: value must be a number, got {type(value).__name__}")
        try:
            fits = np.broadcast_shapes(hide.shape, self.data.shape) == self.data.shape
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(f"Tensor.masked_fill: a mask of shape {hide.shape} does not broadcast to the "
                             f"tensor's shape {self.data.shape}")
        keep = ~hide

        def _backward(grad: Array) -> None:  # d out/dx = 1 where kept, 0 where filled
            self._add_grad(grad * keep)
        out = np.where(hide, np.asarray(value, dtype=self.data.dtype), self.data)
        return Tensor._result(out, (self,), 'masked_fill', _backward)

    # --- element-wise functions ---

    def exp(self) -> Tensor:
        e = np.exp(self.data)

        def _backward(grad: Array) -> None:  # d e**x/dx = e**x
            self._add_grad(grad * e)
        return Tensor._result(e, (self,), 'exp', _backward)

    def log(self) -> Tensor:
        x = self.data
        if np.any(x <= 0):
            raise ValueError(f"Tensor.log: log is defined only for data > 0, got {x.min()}")

        def _backward(grad: Array) -> None:  # d log(x)/dx = 1/x
            self._add_grad(grad / x)
        return Tensor._result(np.log(x), (self,), 'log', _backward)

    def tanh(self) -> Tensor:
        t = np.tanh(self.data)

        def _backward(grad: Array) -> None:  # d tanh(x)/dx = 1 - tanh(x)**2
            self._add_grad(grad * (1 - t * t))
        return Tensor._result(t, (self,), 'tanh', _backward)

    def relu(self) -> Tensor:
        positive = self.data > 0  # found now, while the data is in cache; 1 byte a number for backward to read

        def _backward(grad: Array) -> None:  # 1 for x > 0, else 0 (also at 0, as in PyTorch)
            self._add_grad(grad * positive)
        return Tensor._result(np.maximum(self.data, 0), (self,), 'relu', _backward)

    def sigmoid(self) -> Tensor:
        s = _sigmoid(self.data)

        def _backward(grad: Array) -> None:  # d sigmoid(x)/dx = s (1 - s)
            self._add_grad(grad * s * (1 - s))
        return Tensor._result(s, (self,), 'sigmoid', _backward)

    def softmax(self, axis: int = -1) -> Tensor:
        """exp(x_i) / sum_j exp(x_j) along axis. An entry of -inf gets probability 0."""
        s = _softmax(self.data, axis)

        def _backward(grad: Array) -> None:  # ds_i/dx_j = s_i (1[i=j] - s_j)
            self._add_grad(s * (grad - (grad * s).sum(axis=axis, keepdims=True)))
        return Tensor._result(s, (self,), 'softmax', _backward)

    def log_softmax(self, axis: int = -1) -> Tensor:
        """x_i - log(sum_j exp(x_j)) along axis, without overflow for large x."""
        out = _log_softmax(self.data, axis)

        def _backward(grad: Array) -> None:  # d out_i/dx_j = 1[i=j] - softmax(x)_j
            self._add_grad(grad - np.exp(out) * grad.sum(axis=axis, keepdims=True))
        return Tensor._result(out, (self,), 'log_softmax', _backward)

    # --- backpropagation ---

    def backward(self, grad: Tensor | ArrayLike | None = None) -> None:
        """Fill in d(self)/d(t) in the .grad of every tensor t that self was made from.

        - A scalar (one-element) self needs no `grad`: d(self)/d(self) = 1. Otherwise pass
          `grad`, the gradient of some scalar with respect to self, shaped like self.
        - Leaves (tensors no op produced, e.g. weights) accumulate: each call adds to
          .grad, so call zero_grad() between training steps.
        - Intermediate tensors hold the gradients of the latest call only.
        """
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
            start = np.asarray(grad.data if isinstance(grad, Tensor) else grad, dtype=self.data.dtype)
            if start.shape != self.data.shape:
                raise ValueError(f"Tensor.backward: grad has shape {start.shape} but the output has shape "
                                 f"{self.data.shape}")
        order = self._topological_order()
        for node in order:
            node.grad = None  # intermediates hold this call's gradient only
        self._add_grad(start)  # d(self)/d(self), or the gradient passed in
        for node in reversed(order):
            assert node._backward is not None and node.grad is not None  # an op made it, and its users filled grad
            node._backward(node.grad)  # the chain rule: pass grad on to the parents

    def _topological_order(self) -> list[Tensor]:
        """The tensors that ops made on the way to self, each after the tensors it was made from."""
        # The same loop as Value._topological_order in engine.py: an explicit stack instead of
        # recursion, so deep graphs are fine. Leaves take no place: they only receive gradients.
        order: list[Tensor] = []
        visited: set[Tensor] = set()
        stack: list[Tensor | None] = [self]
        while stack:
            node = stack.pop()
            if node is None:  # the marker: all parents of the node beneath it are in order
                below = stack.pop()
                assert below is not None
                order.append(below)
            elif node._prev and node not in visited:
                visited.add(node)
                stack.append(node)
                stack.append(None)
                stack.extend(node._prev)
        return order

    # --- housekeeping ---

    def zero_grad(self) -> None:
        self.grad = None

    def detach(self) -> Tensor:
        """A new leaf sharing this data, cut off from the graph."""
        return Tensor(self.data, dtype=self.data.dtype)

    def item(self) -> float:
        if self.data.size != 1:
            raise ValueError(f"Tensor.item: only a one-element tensor is a number, this one has shape {self.shape}")
        number: float = self.data.item()
        return number

    def numpy(self) -> Array:
        """The data itself, not a copy (as torch's .numpy())."""
        return self.data

    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    @property
    def ndim(self) -> int:
        return self.data.ndim

    @property
    def dtype(self) -> np.dtype[Any]:
        return self.data.dtype

    def __len__(self) -> int:
        return len(self.data)

    # --- derived ops ---

    def __neg__(self) -> Tensor:  # -self
        return self * -1.0

    def __radd__(self, other: ArrayLike) -> Tensor:  # other + self
        return self + other

    def __sub__(self, other: Tensor | ArrayLike) -> Tensor:  # self - other
        return self + (-self._lift(other, '-'))

    def __rsub__(self, other: ArrayLike) -> Tensor:  # other - self
        return self._lift(other, '-') + (-self)

    def __rmul__(self, other: ArrayLike) -> Tensor:  # other * self
        return self * other

    def __rtruediv__(self, other: ArrayLike) -> Tensor:  # other / self
        return self._lift(other, '/') / self

    def __rpow__(self, other: ArrayLike) -> Tensor:  # other ** self
        return self._lift(other, '**') ** self

    def __rmatmul__(self, other: ArrayLike) -> Tensor:  # other @ self
        return self._lift(other, '@') @ self

    def __repr__(self) -> str:
        body = np.array2string(self.data, separator=', ', prefix='Tensor(')
        dtype = '' if self.data.dtype == np.float64 else f', dtype={self.data.dtype}'
        if self._prev:
            return f"Tensor({body}{dtype}, op='{self._op}')"
        return f"Tensor({body}{dtype}{', requires_grad=True' if self.requires_grad else ''})"


def _ints(args: tuple[int | Sequence[int], ...]) -> tuple[int, ...]:
    """f(2, 3) and f((2, 3)) alike, as NumPy and PyTorch take shapes and axes."""
    if len(args) == 1 and not isinstance(args[0], int):
        return tuple(int(a) for a in args[0])
    return tuple(int(a) for a in args)  # type: ignore[arg-type]  # every arg is an int here


def _permutation(axes: tuple[int, ...], ndim: int, op: str) -> tuple[int, ...]:
    """axes as an order of 0..ndim-1: -1 becomes ndim - 1 (argsort of the raw axes would undo the wrong order)."""
    if len(axes) != ndim or not all(-ndim <= a < ndim for a in axes) or len({a % ndim for a in axes}) != ndim:
        hint = (f"; to swap two axes, as torch's x.transpose{axes}, use x.swapaxes{axes}"
                if op == 'transpose' and len(axes) == 2 else '')
        raise ValueError(f"Tensor.{op}: {axes} is not an order of the {ndim} axes of a tensor with {ndim} "
                         f"dimensions (each of 0..{ndim - 1}, or its negative, exactly once){hint}")
    return tuple(a % ndim for a in axes)


def _plain_index(index: object) -> Any:  # what ndarray[...] takes
    """Tensors used as indices become their arrays: indices carry no gradient."""
    if isinstance(index, Tensor):
        return index.data
    if isinstance(index, tuple):
        return tuple(i.data if isinstance(i, Tensor) else i for i in index)
    return index


def _sum_into_rows(rows: Array, grad: Array, shape: tuple[int, ...]) -> Array:
    """An array of `shape` whose row r is the sum of grad[i] over every i with rows[i] == r.

    That is np.add.at(zeros(shape), rows, grad), done as a histogram: each number of grad
    is counted, with its value as weight, in the bin of the place (row, column) it goes to.
    """
    n, width = shape[0], math.prod(shape[1:])
    row = rows.reshape(-1, 1).astype(np.intp) % n  # intp: no uint8 overflow below; % n: row -1 is row n - 1
    places = row * width + np.arange(width)
    return np.bincount(places.reshape(-1), weights=grad.reshape(-1), minlength=n * width).reshape(shape)


def _sigmoid(x: Array) -> Array:
    # 1/(1+e^-x) for x >= 0 and e^x/(1+e^x) for x < 0: both only ever exponentiate -|x|, so nothing overflows.
    e = np.exp(-np.abs(x))
    s: Array = np.where(x >= 0, 1, e) / (1 + e)
    return s


def _log_softmax(x: Array, axis: int) -> Array:
    # Subtracting the max changes nothing mathematically but keeps exp() from overflowing.
    shifted = x - x.max(axis=axis, keepdims=True)
    out: Array = shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
    return out


def _softmax(x: Array, axis: int) -> Array:
    e: Array = np.exp(x - x.max(axis=axis, keepdims=True))  # as in _log_softmax: exp() cannot overflow
    e /= e.sum(axis=axis, keepdims=True)  # in place: e is ours, and attention's batches of scores are big
    return e
