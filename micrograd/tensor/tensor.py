"""The Tensor: engine.py's Value over NumPy arrays, with its ops and backward().

Read engine.py first. A Tensor is a Value whose data is an ndarray: each op computes
its output and, right beneath, states its local derivative in a closure
`_backward(grad)` that holds the parents (never the output), and `backward()` walks
the graph in topological order applying the chain rule. Three things are new:

- Broadcasting. `x + b` with x of shape (64, 10) and b of shape (10,) uses each b[j]
  64 times, so b's gradient is the sum of those 64 contributions. `_add_grad` does
  that sum for every op, in one place.
- Only tensors that need gradients build a graph. Data (requires_grad=False, the
  default) goes through ops as plain NumPy and keeps no parents.
- dtypes. A tensor holds bools, integers or floats (float64 unless you ask for another).
  An op's result gets the dtype PyTorch's type promotion gives (numeric.result_dtype):
  a float32 model times a Python number stays float32, an integer tensor times 1.5 is
  float, int / int is float. Every gradient has its tensor's dtype: a float32 model
  trains in float32 throughout. float16 computes in float32 and rounds each result
  once, as PyTorch's half-precision ops do (numeric.wide): in float16 itself, x * 1e-8
  would be 0 and a mean over 70,000 numbers would divide by inf.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar, cast

import numpy as np
import numpy.typing as npt

from micrograd import engine
from micrograd.tensor.numeric import (
    BOOL,
    HALF,
    Array,
    Axis,
    Number,
    accumulator,
    axes,
    flag,
    float_dtype,
    index,
    is_number,
    keep_freed_memory,
    log_softmax,
    number,
    opmath,
    real_array,
    real_dtype,
    result_dtype,
    select,
    sigmoid,
    softmax,
    sum_into_rows,
    unbroadcast,
    wide,
)

keep_freed_memory()  # each training step reuses the memory the last one freed (see numeric.py)

ArrayLike = Array | float | int | Sequence[Any]  # what a Tensor can be made from (besides a Tensor)
Backward = Callable[[Array], None]
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


class Tensor:
    """An ndarray, its gradient, and the op and parents that produced it.

    `.data` is the ndarray and `.grad` is None until backward() reaches the tensor,
    then an ndarray of the same shape and dtype. Like Value, a leaf (a tensor you made,
    e.g. a weight) accumulates gradients across backward() calls; a tensor an op made
    holds the latest call's gradient only.

    A tensor with requires_grad=True gets its own copy of `data`, because optimizers
    update it in place; a data tensor shares the array it was given (no copy).
    dtype=None keeps the dtype of the data given (an int32 array stays int32).
    """
    __slots__ = ('data', 'grad', 'requires_grad', '_prev', '_op', '_backward')
    __array_ufunc__ = None  # so `ndarray * tensor` asks Tensor.__rmul__ instead of NumPy
    __hash__ = object.__hash__  # == compares elementwise; a tensor is still hashed by identity, as in PyTorch

    def __init__(self, data: ArrayLike | Tensor, requires_grad: bool = False,
                 dtype: npt.DTypeLike | None = np.float64):
        if isinstance(data, Tensor):
            data = data.data
        if not (isinstance(data, (np.ndarray, list, tuple)) or is_number(data)):
            raise TypeError(f"Tensor() takes numbers, (nested) lists of numbers or an ndarray, "
                            f"got {type(data).__name__}")
        array = real_array(data, 'Tensor')
        kind = array.dtype if dtype is None else real_dtype(dtype, 'Tensor')
        self.data: Array = np.array(array, dtype=kind) if requires_grad else np.asarray(array, dtype=kind)
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
        tracked = tuple(p for p in parents if p.requires_grad) if engine.is_grad_enabled() else ()
        out.requires_grad = bool(tracked)
        out._prev, out._op, out._backward = tracked, (op if tracked else ''), (backward if tracked else None)
        return out

    def _lift(self, other: object, op: str) -> Tensor:
        """A number or an ndarray takes part in an op as a constant tensor.

        An array keeps its dtype. A number takes the dtype the result will have (an int32
        tensor times 2 stays int32, times 2.5 is float64): like PyTorch, a number counts
        only by its kind, whether it is Python's or NumPy's.
        """
        if isinstance(other, Tensor):
            return other
        if isinstance(other, np.ndarray):
            return _constant(real_array(other, f"Tensor.{op}"))
        if not is_number(other):
            raise TypeError(f"unsupported operand for {op}: Tensor and {type(other).__name__} ({other!r})")
        x = self.data
        dtype = x.dtype if type(other) is float and x.dtype.kind == 'f' else result_dtype(x, other)  # type: ignore[arg-type]
        number = other.item() if isinstance(other, np.generic) else other
        try:
            if dtype == HALF:  # (quietly: x16 + 70000 and x16 * 1e40 are inf, as in PyTorch)
                with np.errstate(over='ignore'):
                    if op in _ARITHMETIC:  # the number stays a float32 (PyTorch's "opmath"): see _opmath
                        return _constant(np.asarray(number, dtype=np.float32).view(Number))
                    return _constant(np.asarray(number, dtype=dtype))
            return _constant(np.asarray(number, dtype=dtype))
        except OverflowError:
            raise OverflowError(f"Tensor.{op}: {number!r} does not fit in the tensor's {dtype} "
                                f"(PyTorch wraps it around silently)") from None

    def _add_grad(self, grad: Array, own: bool = False) -> None:
        """self.grad += grad, after summing grad over the axes broadcasting stretched.

        The gradient takes self's dtype (a float32 weight times a float64 input still has
        a float32 gradient). Never writes into an array it may not own: the same one may be
        handed to several tensors. own=True promises that grad is a new array made for self
        alone, as a weight's gradient from matmul is: a leaf may then keep it without a copy,
        and a second gradient is added into it instead of into a new array.
        """
        if type(grad) is not np.ndarray:  # a 0-d result of NumPy arithmetic is a NumPy scalar: an array again
            grad = np.asarray(grad)
        if grad.shape != self.data.shape:
            grad = unbroadcast(grad, self.data.shape)
        dtype = self.data.dtype
        if self.grad is None:
            # A leaf's .grad is the user's to keep (and maybe scale in place): give it its own array.
            self.grad = grad.astype(dtype, copy=False) if self._prev or own else np.array(grad, dtype=dtype)
        elif own and grad.dtype == dtype:  # grad is ours: add into it, one new array fewer
            grad += self.grad
            self.grad = grad
        else:
            total = self.grad + grad.astype(dtype, copy=False)
            self.grad = total if type(total) is np.ndarray else np.asarray(total)  # (0-d + 0-d is a NumPy scalar)

    # --- element-wise arithmetic, with broadcasting ---

    @_named('+')
    def __add__(self, other: Tensor | ArrayLike) -> Tensor:
        other = self._lift(other, '+')
        x, y = _promoted(self.data, other.data)  # (no _opmath: PyTorch's + rounds a number to float16 first)

        def _backward(grad: Array) -> None:  # d(x+y)/dx = d(x+y)/dy = 1
            if self.requires_grad:
                self._add_grad(grad)
            if other.requires_grad:
                other._add_grad(grad)
        return Tensor._result(x + y, (self, other), '+', _backward)

    @_named('-')
    def __sub__(self, other: Tensor | ArrayLike) -> Tensor:
        is_bool = isinstance(other, (bool, np.bool_))  # True - x is refused as a bool tensor is, as in PyTorch
        other = self._lift(other, '-')
        x, y = _promoted(self.data, other.data)  # (as +)
        if is_bool or self.data.dtype == BOOL or other.data.dtype == BOOL:
            raise TypeError("Tensor.-: subtraction with a bool tensor is not supported, as in PyTorch "
                            "(to invert a mask, use ~mask)")

        def _backward(grad: Array) -> None:  # d(x-y)/dx = 1, d(x-y)/dy = -1
            if self.requires_grad:
                self._add_grad(grad)
            if other.requires_grad:
                other._add_grad(-grad)
        return Tensor._result(x - y, (self, other), '-', _backward)

    @_named('*')
    def __mul__(self, other: Tensor | ArrayLike) -> Tensor:
        other = self._lift(other, '*')
        x, y, rounded = _opmath(self.data, other.data)

        def _backward(grad: Array) -> None:  # d(xy)/dx = y, d(xy)/dy = x
            if self.requires_grad:
                self._add_grad(grad * y)
            if other.requires_grad:
                other._add_grad(grad * x)
        return Tensor._result(_round(x * y, rounded), (self, other), '*', _backward)

    @_named('/')
    def __truediv__(self, other: Tensor | ArrayLike) -> Tensor:  # self / other; dividing by 0 gives inf, as in NumPy
        other = self._lift(other, '/')
        x, y, rounded = _opmath(self.data, other.data, float_dtype)  # int / int is a float, as in Python and PyTorch

        def _backward(grad: Array) -> None:  # d(x/y)/dx = 1/y, d(x/y)/dy = -x/y**2
            if self.requires_grad:
                self._add_grad(grad / y)
            if other.requires_grad:
                other._add_grad(-grad * x / (y * y))
        with np.errstate(divide='ignore', invalid='ignore'):  # 1/0 = inf and 0/0 = nan, as PyTorch
            return Tensor._result(_round(x / y, rounded), (self, other), '/', _backward)

    @_named('**')
    def __pow__(self, other: Tensor | ArrayLike) -> Tensor:  # self ** other
        a_number = is_number(other)
        if a_number and self.data.dtype == HALF and math.isfinite(e := number(other, '**')) and abs(e) > 65504:
            raise ValueError(f"Tensor.__pow__: the exponent {e!r} does not fit in float16, the tensor's dtype "
                             f"(as PyTorch refuses it)")
        other = self._lift(other, '**')
        x, k, rounded = _opmath(self.data, other.data)  # (x16 with a number: in float32, see _opmath and below)
        if self.data.dtype == BOOL and other.data.dtype == BOOL and not a_number:
            raise TypeError("Tensor.__pow__: a bool tensor to a bool tensor's power is not supported, as in PyTorch")
        if x.dtype.kind == 'f' and np.any((x < 0) & (k != np.round(k))):
            raise ValueError("Tensor.__pow__: a fractional power of a negative base is not real")
        if x.dtype.kind in 'iu' and np.any(k < 0):
            raise ValueError("Tensor.__pow__: integers to negative integer powers are not integers "
                             "(as in PyTorch); use a float tensor or exponent")
        if other.requires_grad and np.any(x <= 0):
            raise ValueError(f"Tensor.__pow__: a tensor exponent needs a base > 0 (its gradient is "
                             f"base**k * log(base)), got a base of {x.min()}")
        with np.errstate(divide='ignore', over='ignore'):  # 0 ** -1 = inf, as PyTorch
            if rounded is None:
                out = _power(x, k, rounded).astype(x.dtype, copy=False)  # (NumPy's bool ** bool is int8)
            else:  # float16: PyTorch's value takes the number as a float16 (1.0001 ** x16 is 1.0 there), its
                # gradient the number as given (1e-4): so the value here, and the gradient below from x and k
                out = _round(_power(_round(x, HALF).astype(np.float32), _round(k, HALF).astype(np.float32), rounded),
                             rounded)

        def _backward(grad: Array) -> None:  # d(x**k)/dx = k x**(k-1), d(x**k)/dk = x**k log(x)
            if self.requires_grad:
                with np.errstate(divide='ignore', invalid='ignore'):  # 0 ** (k-1) is inf for k < 1 ...
                    slope = k * _power(x, k - 1, rounded)
                self._add_grad(grad * np.where(k == 0, 0, slope))  # ... but x**0 is constant: slope 0, as PyTorch
            if other.requires_grad:
                other._add_grad(grad * wide(out) * np.log(x))
        return Tensor._result(out, (self, other), '**', _backward)

    def __neg__(self) -> Tensor:  # -self
        if self.data.dtype == BOOL:
            raise TypeError("Tensor.neg: - of a bool tensor is not supported, as in PyTorch (to invert a mask, "
                            "use ~mask)")

        def _backward(grad: Array) -> None:  # d(-x)/dx = -1
            self._add_grad(-grad)
        return Tensor._result(-self.data, (self,), 'neg', _backward)

    def __matmul__(self, other: Tensor | ArrayLike) -> Tensor:
        """Matrix product with NumPy's rules: batched over leading axes, 1-D operands as vectors.

        Operands of different dtypes are promoted as for `*` (PyTorch refuses to mix them)."""
        other = self._lift(other, '@')
        a, b = _promoted(self.data, other.data)
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
        return Tensor._result(_round(out, rounded), (self, other), '@', _backward)

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
        return Tensor._result(_round(out, rounded), (self, other), '@', _backward)

    def matmul(self, other: Tensor | ArrayLike) -> Tensor:
        return self @ other

    # --- comparisons and logic: bool results, no gradient ---

    def _compare(self, other: object, op: str) -> Any:
        """self <op> other elementwise, in the dtype both promote to, as a bool tensor (data: no gradient).
        Comparing with something that is no number or array is left to Python (== gives False)."""
        if not isinstance(other, (Tensor, np.ndarray)) and not is_number(other):
            return NotImplemented
        x, y = _promoted(self.data, self._lift(other, op).data)
        try:
            return _constant(np.asarray(_COMPARISONS[op](x, y)))
        except ValueError as e:  # shapes that do not broadcast: NumPy's words, with the op's name
            raise ValueError(f"Tensor.{op}: {e}".rstrip()) from None

    def __eq__(self, other: object) -> Any:  # Any: a Tensor, where object.__eq__ promises a bool
        return self._compare(other, '==')

    def __ne__(self, other: object) -> Any:
        return self._compare(other, '!=')

    def __lt__(self, other: object) -> Any:
        return self._compare(other, '<')

    def __le__(self, other: object) -> Any:
        return self._compare(other, '<=')

    def __gt__(self, other: object) -> Any:
        return self._compare(other, '>')

    def __ge__(self, other: object) -> Any:
        return self._compare(other, '>=')

    def _logic(self, other: object, op: str) -> Tensor:
        """self & other, self | other, self ^ other on bools (logical) or integers (bitwise): data, no gradient."""
        x, y = _promoted(self.data, self._lift(other, op).data)
        if x.dtype.kind not in 'biu':
            raise TypeError(f"Tensor.{op}: only bool and integer tensors, as in PyTorch; got {x.dtype}")
        try:
            return _constant(np.asarray(_LOGIC[op](x, y)))
        except ValueError as e:  # (as in _compare)
            raise ValueError(f"Tensor.{op}: {e}".rstrip()) from None

    def __and__(self, other: Tensor | ArrayLike) -> Tensor:
        return self._logic(other, '&')

    def __or__(self, other: Tensor | ArrayLike) -> Tensor:
        return self._logic(other, '|')

    def __xor__(self, other: Tensor | ArrayLike) -> Tensor:
        return self._logic(other, '^')

    def __invert__(self) -> Tensor:  # ~mask: not, for bools; bitwise not for integers
        if self.data.dtype.kind not in 'biu':
            raise TypeError(f"Tensor.~: only bool and integer tensors, as in PyTorch; got {self.data.dtype}")
        return _constant(np.asarray(~self.data))

    def __bool__(self) -> bool:
        """The truth of a one-element tensor, as in PyTorch; for more elements (or none) it is ambiguous."""
        if self.data.size != 1:
            what = 'no values' if self.data.size == 0 else 'more than one value'
            raise RuntimeError(f"Tensor: the truth value of a tensor with {what} (shape {self.data.shape}) is "
                               f"ambiguous; use (x == y).all() or .any()")
        return bool(self.data.reshape(-1)[0])

    # --- reductions ---

    def sum(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        """The sum over axis (all axes if None). float16 adds up in float32 and keeps its dtype;
        integers and bools give int64, as in PyTorch."""
        ax = axes(axis, self.data.ndim, 'sum')
        keepdims = flag(keepdims, 'keepdims', 'Tensor.sum')
        acc = accumulator(self.data.dtype)

        def _backward(grad: Array) -> None:  # d(sum x)/dx_i = 1: every summand gets the whole grad
            if not keepdims and ax:
                grad = np.expand_dims(grad, ax)  # put the summed axes back, with length 1
            self._add_grad(np.broadcast_to(grad, self.data.shape))
        # (cast: NumPy's newer stubs take only a literal True or False for keepdims)
        total = np.asarray(np.sum(self.data, axis=ax, keepdims=cast(Any, keepdims), dtype=acc))
        if acc != self.data.dtype and self.data.dtype.kind == 'f':
            with np.errstate(over='ignore'):
                total = total.astype(self.data.dtype)  # float16 again (inf if it does not fit, quietly, as PyTorch)
        return Tensor._result(total, (self,), 'sum', _backward)

    def mean(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        """sum / the number of elements averaged. The mean of nothing is nan, as in PyTorch;
        integer and bool tensors are refused, as in PyTorch (make a float tensor first)."""
        if self.data.dtype.kind != 'f':
            raise TypeError(f"Tensor.mean: the mean of a {self.data.dtype} tensor is not defined (as in PyTorch); "
                            f"use x.astype(np.float64).mean()")
        ax = axes(axis, self.data.ndim, 'mean')
        keepdims = flag(keepdims, 'keepdims', 'Tensor.mean')
        n = self.data.size if ax is None else math.prod(self.data.shape[a] for a in ax)

        def _backward(grad: Array) -> None:  # d(mean x)/dx_i = 1/n
            if not keepdims and ax:
                grad = np.expand_dims(grad, ax)
            with np.errstate(divide='ignore', invalid='ignore'):  # n = 0: an empty tensor gets an empty gradient
                # float16 divides in float32: n = 70,000 is inf in float16, and every gradient would be 0
                self._add_grad(np.broadcast_to(grad.astype(acc, copy=False) / n, self.data.shape))
        acc = accumulator(self.data.dtype)  # float16 adds up in float32: 70,000 ones are no overflow
        with np.errstate(divide='ignore', invalid='ignore'):  # 0 / 0 = nan: the mean of nothing
            total = np.sum(self.data, axis=ax, keepdims=cast(Any, keepdims), dtype=acc)  # (cast: as in sum)
            out = np.asarray(total / n).astype(self.data.dtype)
        return Tensor._result(out, (self,), 'mean', _backward)

    def max(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        """The largest element(s). Tied maxima share the gradient evenly, as with torch.max(x)
        (torch.max(x, dim) gives it all to one of them instead). A nan is the largest and gets
        the gradient, as in torch.max(x)."""
        return self._extreme(axis, keepdims, 'max')

    def min(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        """The smallest element(s): the gradient as for max."""
        return self._extreme(axis, keepdims, 'min')

    def _extreme(self, axis: Axis, keepdims: bool, op: str) -> Tensor:
        ax = axes(axis, self.data.ndim, op)
        keepdims = flag(keepdims, 'keepdims', f'Tensor.{op}')
        x = self.data
        try:
            top = np.max(x, axis=ax, keepdims=True) if op == 'max' else np.min(x, axis=ax, keepdims=True)
        except ValueError:
            raise ValueError(f"Tensor.{op}: the {op} of an empty axis is not defined (shape {x.shape}, "
                             f"axis {axis})") from None

        def _backward(grad: Array) -> None:  # 1/(number of ties) at the extremes, 0 elsewhere
            grad = np.reshape(grad, top.shape)  # the reduced axes back, with length 1
            is_top = x == top
            if top.dtype.kind == 'f' and np.isnan(top).any():
                is_top |= np.isnan(x)  # nan is the extreme: its gradient goes to the nans
            # Counted in x's dtype, not int64, so a float32 gradient stays float32; float16 counts and divides in
            # float32 (70,000 ties are inf in float16, and each would get 0, where PyTorch's max() gives 1.43e-5).
            ties = is_top.sum(axis=ax, keepdims=True, dtype=opmath(x.dtype))
            self._add_grad(select(is_top, wide(grad) / ties))
        out = top if keepdims else top.reshape([n for i, n in enumerate(x.shape) if ax is not None and i not in ax])
        return Tensor._result(out, (self,), op, _backward)

    def any(self) -> Tensor:
        """Whether any element is true (not 0): a 0-d bool tensor, data."""
        return _constant(np.asarray(self.data.any()))

    def all(self) -> Tensor:
        """Whether every element is true (not 0): a 0-d bool tensor, data."""
        return _constant(np.asarray(self.data.all()))

    # --- shapes, axes and indexing ---

    def reshape(self, *shape: int | Sequence[int]) -> Tensor:
        """The same numbers in another shape: x.reshape(2, 3) or x.reshape((2, 3)); one length may be -1."""
        new_shape = _ints(shape, 'reshape')
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
        order = _permutation(_ints(axes, 'permute'), self.data.ndim, 'permute')
        undo = tuple(int(i) for i in np.argsort(order))  # output axis i came from axis order[i]: send it back

        def _backward(grad: Array) -> None:  # every number goes back to where it came from
            self._add_grad(grad.transpose(undo))
        return Tensor._result(self.data.transpose(order), (self,), 'permute', _backward)

    def transpose(self, *axes: int | Sequence[int]) -> Tensor:
        """As ndarray.transpose: no axes reverses them all, otherwise the same as permute(*axes).

        PyTorch's x.transpose(1, 2) swaps two axes instead: here that is x.swapaxes(1, 2).
        """
        order = _ints(axes, 'transpose')
        if not order:
            return self.permute(*reversed(range(self.data.ndim)))
        _permutation(order, self.data.ndim, 'transpose')  # the error, if any, names transpose
        return self.permute(*order)

    def swapaxes(self, axis1: int, axis2: int) -> Tensor:
        """Axes axis1 and axis2 trade places, as in NumPy and PyTorch (PyTorch's transpose(axis1, axis2))."""
        ndim = self.data.ndim
        a1, a2 = index(axis1, 'Tensor.swapaxes'), index(axis2, 'Tensor.swapaxes')
        for a in (a1, a2):
            if not -max(ndim, 1) <= a < max(ndim, 1):  # (a 0-d tensor has one axis to name, 0 or -1, as in PyTorch)
                raise ValueError(f"Tensor.swapaxes: axis {a!r} is out of range for a tensor of shape {self.data.shape}")
        if ndim == 0:
            return self.reshape(())  # nothing to swap: the same number, as a new node (a view, as PyTorch's)

        def _backward(grad: Array) -> None:  # swapping the same two axes again puts every number back
            self._add_grad(grad.swapaxes(a1, a2))
        return Tensor._result(self.data.swapaxes(a1, a2), (self,), 'swapaxes', _backward)

    @property
    def T(self) -> Tensor:
        """All axes reversed, as NumPy's .T (PyTorch: x.permute(*reversed(range(x.ndim))); x.mT swaps the last two)."""
        return self.transpose()

    def __getitem__(self, index: object) -> Tensor:
        """Slices, integers and integer/boolean arrays, as NumPy indexing.

        The gradient goes back to the elements picked (the others get 0); an element picked
        twice gets both.
        """
        picked = _plain_index(index)
        looks_up_rows = isinstance(picked, np.ndarray) and picked.dtype.kind in 'iu' and self.data.ndim > 0

        def _backward(grad: Array) -> None:
            if looks_up_rows:  # table[ids], as an Embedding does: the same sums as below, 3-4x faster
                self._add_grad(sum_into_rows(picked, grad, self.data.shape), own=True)
                return
            full = np.zeros_like(self.data)
            np.add.at(full, picked, grad)  # unlike full[index] += grad, adds once per repeated index
            self._add_grad(full)
        try:
            out = self.data[picked]
        except (IndexError, ValueError) as e:  # NumPy's words, with the op and the shape they are about
            raise type(e)(f"Tensor.__getitem__: {e} (the tensor has shape {self.data.shape})") from None
        return Tensor._result(out, (self,), 'getitem', _backward)

    def masked_fill(self, mask: Array | Tensor, value: float | Tensor) -> Tensor:
        """value where mask is True, self where it is False, as torch's masked_fill.

        mask is a boolean array or Tensor (e.g. `ids == PAD`) that broadcasts to self's shape.
        The filled places hold a constant, so no gradient flows back through them (not even
        an inf or nan one). Filled with -inf before a softmax, they get probability 0: that
        is how causal attention hides later positions.
        """
        if isinstance(mask, np.bool_):  # what comparing 0-d arrays gives NumPy: a 0-d mask (Python's False is refused)
            mask = np.asarray(mask)
        if not isinstance(mask, (np.ndarray, Tensor)):
            raise TypeError(f"Tensor.masked_fill: the mask must be a boolean array or Tensor (True = fill), got "
                            f"{type(mask).__name__} {mask!r} (compare with ==, not `is`)")
        hide = mask.data if isinstance(mask, Tensor) else mask
        if hide.dtype != BOOL:
            raise TypeError(f"Tensor.masked_fill: the mask must be boolean (True = fill), got dtype {hide.dtype}")
        try:
            fits = np.broadcast_shapes(hide.shape, self.data.shape) == self.data.shape
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(f"Tensor.masked_fill: a mask of shape {hide.shape} does not broadcast to the "
                             f"tensor's shape {self.data.shape}")
        fill = _fill_value(value, self.data.dtype, 'masked_fill')
        keep = ~hide

        def _backward(grad: Array) -> None:  # d out/dx = 1 where kept, 0 where filled
            self._add_grad(select(keep, grad))
        return Tensor._result(np.where(hide, fill, self.data), (self,), 'masked_fill', _backward)

    # --- element-wise functions ---

    def exp(self) -> Tensor:
        with np.errstate(over='ignore'):  # e**1000 = inf, as PyTorch
            e = np.exp(self.data, dtype=float_dtype(self.data.dtype))

        def _backward(grad: Array) -> None:  # d e**x/dx = e**x
            self._add_grad(grad * e)
        return Tensor._result(e, (self,), 'exp', _backward)

    def log(self) -> Tensor:
        x = self.data.astype(float_dtype(self.data.dtype), copy=False)
        if np.any(x <= 0):
            raise ValueError(f"Tensor.log: log is defined only for data > 0, got {x.min()}")

        def _backward(grad: Array) -> None:  # d log(x)/dx = 1/x
            self._add_grad(grad / x)
        return Tensor._result(np.log(x), (self,), 'log', _backward)

    def tanh(self) -> Tensor:
        t = np.tanh(self.data, dtype=float_dtype(self.data.dtype))

        def _backward(grad: Array) -> None:  # d tanh(x)/dx = 1 - tanh(x)**2
            if t.dtype == HALF:  # in float32, rounded once by _add_grad, as PyTorch's half tanh_backward
                tw = wide(t)
                self._add_grad(wide(grad) * (1 - tw * tw))
            else:
                self._add_grad(grad * (1 - t * t))
        return Tensor._result(t, (self,), 'tanh', _backward)

    def relu(self) -> Tensor:
        if self.data.dtype == BOOL:
            raise TypeError("Tensor.relu: bool inputs are not supported, as in PyTorch")
        if self.data.ndim == 0:  # NumPy gives a 0-d result as a scalar, which the mask below cannot be written in
            return self.reshape(1).relu().reshape(())
        out = np.maximum(self.data, 0)
        # The mask for backward, 1 byte a number, found in the output just written (still in cache, unlike
        # the input): out > 0 where x > 0, and out is nan where x is nan, which passes too (nan <= 0 is False).
        passes = np.less_equal(out, 0)
        np.logical_not(passes, out=passes)

        def _backward(grad: Array) -> None:  # 1 for x > 0, 0 for x <= 0 (also at 0, as in PyTorch; nan passes)
            self._add_grad(select(passes, grad), own=True)
        return Tensor._result(out, (self,), 'relu', _backward)

    def abs(self) -> Tensor:
        x = self.data
        if x.dtype == BOOL:
            raise TypeError("Tensor.abs: bool inputs are not supported, as in PyTorch")

        def _backward(grad: Array) -> None:  # d|x|/dx = 1 for x > 0, -1 for x < 0, 0 at 0 (and at nan)
            self._add_grad(select(x > 0, grad) - select(x < 0, grad))
        return Tensor._result(np.abs(x), (self,), 'abs', _backward)

    def clamp(self, min: float | None = None, max: float | None = None) -> Tensor:
        """Each element limited to [min, max] (either may be None: no limit), as torch.clamp and np.clip.
        If min > max, every element becomes max, as in both."""
        if min is None and max is None:
            raise ValueError("Tensor.clamp: give min, max or both")
        # Python numbers from here on: a float32 tensor compared with np.float64(0.5) would be compared in float64
        min = None if min is None else number(min, 'Tensor.clamp: min')
        max = None if max is None else number(max, 'Tensor.clamp: max')
        for limit in (min, max):
            if self.data.dtype == HALF and limit is not None and math.isfinite(limit) and abs(limit) > 65504:
                raise ValueError(f"Tensor.clamp: {limit!r} does not fit in float16, the tensor's dtype "
                                 f"(as PyTorch refuses it)")
        limits = [limit for limit in (min, max) if limit is not None]
        x = self.data.astype(result_dtype(self.data, *limits), copy=False)
        inside = np.ones(x.shape, dtype=bool)
        out = x
        if min is not None:
            inside &= x >= min
            out = np.maximum(out, np.asarray(min, dtype=x.dtype))
        if max is not None:
            inside &= x <= max
            out = np.minimum(out, np.asarray(max, dtype=x.dtype))

        def _backward(grad: Array) -> None:  # 1 where min <= x <= max, 0 where clamped (and at nan, as PyTorch)
            self._add_grad(select(inside, grad))
        return Tensor._result(out, (self,), 'clamp', _backward)

    def clip(self, min: float | None = None, max: float | None = None) -> Tensor:
        """NumPy's name for clamp."""
        return self.clamp(min, max)

    def sigmoid(self) -> Tensor:
        x = self.data.astype(float_dtype(self.data.dtype), copy=False)
        # float16 computes in float32 and rounds once; backward too, from the rounded output, as PyTorch's half ops
        s = sigmoid(wide(x)).astype(x.dtype, copy=False)

        def _backward(grad: Array) -> None:  # d sigmoid(x)/dx = s (1 - s)
            sw = wide(s)
            self._add_grad(wide(grad) * sw * (1 - sw))
        return Tensor._result(s, (self,), 'sigmoid', _backward)

    def softmax(self, axis: int = -1) -> Tensor:
        """exp(x_i) / sum_j exp(x_j) along axis. An entry of -inf gets probability 0; a row of
        -inf only is nan, as in PyTorch. (Integers become float64 first; PyTorch refuses them.)"""
        if self.data.ndim == 0:  # one number is a distribution of one: 1.0, as in PyTorch
            _one_axis(axis, 1, 'softmax')
            return self.reshape(1).softmax(0).reshape(())
        (ax,) = _one_axis(axis, self.data.ndim, 'softmax')
        s = softmax(wide(self.data), ax).astype(float_dtype(self.data.dtype), copy=False)  # (float16: as sigmoid)

        def _backward(grad: Array) -> None:  # ds_i/dx_j = s_i (1[i=j] - s_j)
            sw, g = wide(s), wide(grad)
            self._add_grad(sw * (g - (g * sw).sum(axis=ax, keepdims=True)))
        return Tensor._result(s, (self,), 'softmax', _backward)

    def log_softmax(self, axis: int = -1) -> Tensor:
        """x_i - log(sum_j exp(x_j)) along axis, without overflow for large x."""
        if self.data.ndim == 0:  # log of a distribution of one: 0.0, as in PyTorch
            _one_axis(axis, 1, 'log_softmax')
            return self.reshape(1).log_softmax(0).reshape(())
        (ax,) = _one_axis(axis, self.data.ndim, 'log_softmax')
        out = log_softmax(wide(self.data), ax).astype(float_dtype(self.data.dtype), copy=False)  # (as softmax)

        def _backward(grad: Array) -> None:  # d out_i/dx_j = 1[i=j] - softmax(x)_j
            g = wide(grad)
            self._add_grad(g - np.exp(wide(out)) * g.sum(axis=ax, keepdims=True))
        return Tensor._result(out, (self,), 'log_softmax', _backward)

    def astype(self, dtype: npt.DTypeLike) -> Tensor:
        """The same numbers in another dtype, as NumPy's astype (PyTorch: x.to(dtype)). Between float
        dtypes the gradient flows back (in self's dtype); to integers or bools it stops."""
        target = real_dtype(dtype, 'Tensor.astype')

        def _backward(grad: Array) -> None:  # d x/dx = 1; _add_grad casts back to self's dtype
            self._add_grad(grad)
        with np.errstate(over='ignore', invalid='ignore'):  # 1e5 as float16 is inf, quietly, as in PyTorch
            out = self.data.astype(target)
        if target.kind != 'f':
            return _constant(out)
        return Tensor._result(out, (self,), 'astype', _backward)

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
            given = grad.data if isinstance(grad, Tensor) else grad
            if not (isinstance(given, (np.ndarray, list, tuple)) or is_number(given)):
                raise TypeError(f"Tensor.backward: grad must be numbers or an array, got {type(given).__name__}")
            start = real_array(given, 'Tensor.backward').astype(self.data.dtype, copy=False)
            if start.shape != self.data.shape:
                raise ValueError(f"Tensor.backward: grad has shape {start.shape} but the output has shape "
                                 f"{self.data.shape}")
        order = self._topological_order()
        for node in order:
            node.grad = None  # intermediates hold this call's gradient only
        self._add_grad(start)  # d(self)/d(self), or the gradient passed in
        with np.errstate(all='ignore'):  # IEEE results as in PyTorch (inf * 0 = nan), without NumPy's warnings
            for node in reversed(order):
                assert node._backward is not None and node.grad is not None  # an op made it, its users filled grad
                node._backward(node.grad)  # the chain rule: pass grad on to the parents

    def _topological_order(self) -> list[Tensor]:
        """The tensors that ops made on the way to self, each after the tensors it was made from."""
        # The same loop as Value._topological_order in engine.py: an explicit stack instead of
        # recursion, so deep graphs are fine. Leaves take no place: they only receive gradients.
        order: list[Tensor] = []
        visited: set[int] = set()  # ids: a Tensor's == compares elementwise
        stack: list[Tensor | None] = [self]
        while stack:
            node = stack.pop()
            if node is None:  # the marker: all parents of the node beneath it are in order
                below = stack.pop()
                assert below is not None
                order.append(below)
            elif node._prev and id(node) not in visited:
                visited.add(id(node))
                stack.append(node)
                stack.append(None)
                stack.extend(node._prev)
        return order

    # --- housekeeping ---

    def zero_grad(self) -> None:
        self.grad = None

    def detach(self) -> Tensor:
        """A new leaf sharing this data, cut off from the graph."""
        return _constant(self.data)

    def item(self) -> float:
        if self.data.size != 1:
            raise ValueError(f"Tensor.item: only a one-element tensor is a number, this one has shape {self.shape}")
        number: float = self.data.item()
        return number

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        """A one-element integer tensor as an index or a size ([10, 20][t], range(t)), as in PyTorch."""
        if self.data.dtype.kind not in 'iu' or self.data.size != 1:
            raise TypeError(f"Tensor.__index__: only an integer tensor of one element is an index, this one has "
                            f"dtype {self.data.dtype} and shape {self.data.shape}")
        return int(self.data.reshape(-1)[0])

    def __contains__(self, element: object) -> bool:
        """element in t: whether any element of t equals it, as in PyTorch (not a search of t's rows)."""
        if not (isinstance(element, (Tensor, np.ndarray)) or is_number(element)):
            raise TypeError(f"Tensor.__contains__: takes a number, an array or a Tensor, got {type(element).__name__}")
        return bool((self == element).data.any())

    def __abs__(self) -> Tensor:  # abs(t), as t.abs()
        return self.abs()

    def __pos__(self) -> Tensor:  # +t is t, as in PyTorch (which refuses it for bools too)
        if self.data.dtype == BOOL:
            raise TypeError("Tensor.+: + of a bool tensor is not supported, as in PyTorch")
        return self

    def numpy(self) -> Array:
        """The data itself, not a copy (as torch's .numpy())."""
        return self.data

    def __array__(self, dtype: npt.DTypeLike | None = None, copy: bool | None = None) -> Array:
        """np.asarray(t) is t's data, as for a PyTorch tensor (without it, NumPy would read a Tensor as a sequence
        and make an array of 0-d Tensor objects). The graph stays behind: the array carries no gradient."""
        if dtype is not None and np.dtype(dtype) != self.data.dtype:
            if copy is False:
                raise ValueError(f"Tensor.__array__: a {self.data.dtype} tensor as {np.dtype(dtype)} needs a copy")
            return self.data.astype(dtype)
        return self.data.copy() if copy else self.data

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
        if self.data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return len(self.data)

    def __iter__(self) -> Iterator[Tensor]:  # its rows, each a Tensor (with gradients back to this one)
        if self.data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(len(self.data)))

    def __deepcopy__(self, memo: dict[int, Any]) -> Tensor:
        """A copy of a leaf: its data and grad copied, requires_grad kept. A tensor an op made is refused, as in
        PyTorch: its backward would still write into the original graph's leaves, not the copies'."""
        if self._prev:
            raise RuntimeError("Tensor.__deepcopy__: only leaves can be deep-copied (as in PyTorch): "
                               "detach() it, or copy the leaves and build it again")
        copy = Tensor.__new__(Tensor)
        copy.data, copy.grad = self.data.copy(), None if self.grad is None else self.grad.copy()
        copy.requires_grad, copy._prev, copy._op, copy._backward = self.requires_grad, (), '', None
        memo[id(self)] = copy
        return copy

    def __getstate__(self) -> dict[str, Any]:
        """What pickle and copy.copy keep: data, grad and requires_grad, not the graph (an op's backward is a
        closure, which pickle cannot store). A tensor an op made comes back as a leaf, as in PyTorch."""
        return {'data': self.data, 'grad': self.grad, 'requires_grad': self.requires_grad}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.data, self.grad, self.requires_grad = state['data'], state['grad'], state['requires_grad']
        self._prev, self._op, self._backward = (), '', None

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
        return self._lift(other, '/') / self

    def __rpow__(self, other: ArrayLike) -> Tensor:  # other ** self
        return self._lift(other, '**') ** self

    def __rmatmul__(self, other: ArrayLike) -> Tensor:  # other @ self
        return self._lift(other, '@') @ self

    def __rand__(self, other: ArrayLike) -> Tensor:  # other & self
        return self & other

    def __ror__(self, other: ArrayLike) -> Tensor:  # other | self
        return self | other

    def __rxor__(self, other: ArrayLike) -> Tensor:  # other ^ self
        return self ^ other

    def __repr__(self) -> str:
        body = np.array2string(self.data, separator=', ', prefix='Tensor(')
        dtype = '' if self.data.dtype == np.float64 else f', dtype={self.data.dtype}'
        if self._prev:
            return f"Tensor({body}{dtype}, op='{self._op}')"
        return f"Tensor({body}{dtype}{', requires_grad=True' if self.requires_grad else ''})"


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
    if isinstance(x, Tensor):
        a, b = x, x._lift(y, 'where')  # a number takes part as in x's ops
    elif isinstance(y, Tensor):
        a, b = y._lift(x, 'where'), y
    else:
        a = _constant(real_array(x, 'where'))
        b = a._lift(y, 'where')
    xs, ys = _promoted(a.data, b.data)
    try:
        out = np.where(cond, xs, ys)
    except ValueError:
        raise ValueError(f"where: shapes {cond.shape}, {a.data.shape} and {b.data.shape} do not broadcast") from None

    def _backward(grad: Array) -> None:  # d out/dx = 1 where condition, d out/dy = 1 elsewhere
        if a.requires_grad:
            a._add_grad(select(cond, grad))
        if b.requires_grad:
            b._add_grad(select(~cond, grad))
    return Tensor._result(out, (a, b), 'where', _backward)


def _constant(data: Array) -> Tensor:
    """A tensor that is data: no gradient, no parents (skips __init__'s checks: data is a real array)."""
    out = Tensor.__new__(Tensor)
    out.data, out.grad, out.requires_grad, out._prev, out._op, out._backward = data, None, False, (), '', None
    return out


def _promoted(x: Array, y: Array, kind: Callable[[np.dtype[Any]], np.dtype[Any]] | None = None) -> tuple[Array, Array]:
    """x and y in the dtype of their op's result (PyTorch's promotion; `kind` may then ask for a float)."""
    if x.dtype == y.dtype and kind is None:
        return x, y
    dtype = x.dtype if x.dtype == y.dtype else result_dtype(x, y)
    if kind is not None:
        dtype = kind(dtype)
    return x.astype(dtype, copy=False), y.astype(dtype, copy=False)


def _opmath(x: Array, y: Array, kind: Callable[[np.dtype[Any]], np.dtype[Any]] | None = None
            ) -> tuple[Array, Array, np.dtype[Any] | None]:
    """x and y as _promoted gives them, and the dtype to round the result to, if any. PyTorch computes a float16
    tensor's *, / and ** with a number (which _lift keeps in float32) or with a wider 0-d tensor in float32 and
    rounds the result once; rounding the number to float16 first would make x16 * 1e-8 all zeros and x16 / 70000
    zeros with a zero gradient. (Two float16 operands: NumPy's float16 ops compute in float32 themselves.)"""
    if x.dtype == y.dtype and kind is None:  # (the common case, first: nothing to promote, float16 or not)
        return x, y, None
    if (x.dtype == HALF) != (y.dtype == HALF) and (x.ndim == 0 or y.ndim == 0):
        dtype = result_dtype(x, y)  # (a number _lift kept in float32 is a numeric.Number: float16 stays float16)
        if (kind(dtype) if kind else dtype) == HALF:  # (subok=False: a Number is a plain array from here on)
            return x.astype(np.float32, subok=False), y.astype(np.float32, subok=False), HALF
    xs, ys = _promoted(x, y, kind)
    return xs, ys, None


def _power(x: Array, k: Array, rounded: np.dtype[Any] | None) -> Array:
    """x ** k, with PyTorch's square roots: for an exponent of 0.5 or -0.5 it takes sqrt(x) or 1 / sqrt(x),
    which keep the sign of -0 (sqrt(-0) = -0, 1 / sqrt(-0) = -inf) where pow gives +0 and +inf. So the
    gradient of x ** 0.5 at -0 is -inf, as in PyTorch. (Not for float16, computed in float32 to be rounded:
    PyTorch's half pow has no such case, and gives +inf.)"""
    if k.ndim == 0 and x.dtype.kind == 'f' and rounded is None and (k == 0.5 or k == -0.5):
        root = np.sqrt(x)
        return root if k == 0.5 else 1 / root
    out: Array = x ** k
    return out


def _round(out: Array, dtype: np.dtype[Any] | None) -> Array:
    """An op's result computed in float32 for float16 operands, rounded to float16 once (dtype None: as it is)."""
    if dtype is None:
        return out
    with np.errstate(over='ignore'):  # past float16's range is inf, quietly, as in PyTorch
        return np.asarray(out).astype(dtype)


# The ops whose number meets a float16 tensor in float32 (see _opmath). PyTorch's + and - round the number (or a
# wider 0-d tensor) to float16 first (x16 - 1.0001 is 0 at 1.0), as comparisons, where and clamp do: so do we.
_ARITHMETIC = frozenset({'*', '/', '**'})
_COMPARISONS: dict[str, Callable[[Array, Array], Any]] = {
    '==': np.equal, '!=': np.not_equal, '<': np.less, '<=': np.less_equal, '>': np.greater, '>=': np.greater_equal}
_LOGIC: dict[str, Callable[[Array, Array], Any]] = {'&': np.bitwise_and, '|': np.bitwise_or, '^': np.bitwise_xor}


def _fill_value(value: object, dtype: np.dtype[Any], op: str) -> Array:
    """A number to write into a tensor of dtype: it must fit (PyTorch truncates 1.5 into an integer tensor)."""
    if isinstance(value, Tensor):
        if value.requires_grad or value.data.size != 1:
            raise TypeError(f"Tensor.{op}: value must be a number (or a one-element tensor without gradient)")
        value = value.data.reshape(-1)[0]
    if isinstance(value, np.ndarray) and value.ndim == 0:  # a 0-d array is its number, as a 0-d tensor in PyTorch
        value = value.item()
    if not is_number(value):
        raise TypeError(f"Tensor.{op}: value must be a number, got {type(value).__name__}")
    v: Any = value.item() if isinstance(value, np.generic) else value
    if dtype.kind == 'f':
        try:
            number = float(v)
        except OverflowError:  # an int past any float
            raise ValueError(f"Tensor.{op}: {v!r} does not fit in {dtype}") from None
        if math.isfinite(number) and abs(number) > float(np.finfo(dtype).max):
            raise ValueError(f"Tensor.{op}: {v!r} does not fit in {dtype}")
        return np.asarray(number, dtype=dtype)
    if isinstance(v, float) and not v.is_integer():
        raise ValueError(f"Tensor.{op}: {v!r} is not a whole number, so it does not fit in a {dtype} tensor")
    whole = int(v)
    lo, hi = (0, 1) if dtype == BOOL else (int(np.iinfo(dtype).min), int(np.iinfo(dtype).max))
    if not lo <= whole <= hi:
        raise ValueError(f"Tensor.{op}: {v!r} does not fit in a {dtype} tensor")
    return np.asarray(whole, dtype=dtype)


def _one_axis(axis: object, ndim: int, op: str) -> tuple[int]:
    """The one axis an op like softmax works along."""
    if isinstance(axis, (tuple, list)) or axis is None:
        raise TypeError(f"Tensor.{op}: works along one axis (an integer, e.g. -1), got {axis!r}")
    if ndim == 0:
        raise ValueError(f"Tensor.{op}: a 0-d tensor has no axis to work along")
    ax = axes(axis, ndim, op)
    assert ax is not None and len(ax) == 1
    return (ax[0],)


def _ints(args: tuple[Any, ...], op: str) -> tuple[int, ...]:
    """f(2, 3) and f((2, 3)) alike, as NumPy and PyTorch take shapes and axes (Python's or NumPy's integers)."""
    one = args[0] if len(args) == 1 else None
    if isinstance(one, (tuple, list)) or (isinstance(one, np.ndarray) and one.ndim):  # (a 0-d array is one number)
        args = tuple(args[0])
    return tuple(index(a, f"Tensor.{op}") for a in args)


def _permutation(axes: tuple[int, ...], ndim: int, op: str) -> tuple[int, ...]:
    """axes as an order of 0..ndim-1: -1 becomes ndim - 1 (argsort of the raw axes would undo the wrong order)."""
    if len(axes) != ndim or not all(-ndim <= a < ndim for a in axes) or len({a % ndim for a in axes}) != ndim:
        hint = (f"; to swap two axes, as torch's x.transpose{axes}, use x.swapaxes{axes}"
                if op == 'transpose' and len(axes) == 2 else '')
        raise ValueError(f"Tensor.{op}: {axes} is not an order of the {ndim} axes of a tensor with {ndim} "
                         f"dimensions (each of 0..{ndim - 1}, or its negative, exactly once){hint}")
    return tuple(a % ndim for a in axes)


def _plain_index(index: object) -> Any:  # what ndarray[...] takes
    """Tensors used as indices become their arrays: indices carry no gradient. A float array or Tensor is
    refused by name (Tensor([0, 2]) is float64 unless made with dtype=np.int64)."""
    parts = index if isinstance(index, tuple) else (index,)
    plain = tuple(i.data if isinstance(i, Tensor) else i for i in parts)
    for i in plain:
        if isinstance(i, np.ndarray) and i.dtype.kind not in 'biu':
            raise IndexError(f"Tensor.__getitem__: indices must be integers or booleans, got a {i.dtype} "
                             "array or Tensor: make it with dtype=np.int64 (Tensor([0, 2]) is float64)")
        if isinstance(i, (float, np.floating)) or (isinstance(i, list) and any(isinstance(v, float) for v in i)):
            raise IndexError(f"Tensor.__getitem__: indices must be integers, slices, None or integer or boolean "
                             f"arrays, got {i!r}, a float")
    return plain if isinstance(index, tuple) else plain[0]
