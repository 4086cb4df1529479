"""A tensor as a node of the graph: what every op of every family builds on.

Tensor (tensor.py) is this Node plus its ops, grouped in families, one module each, as mixins
(tinygrad's way of keeping a large Tensor navigable): the arithmetic and backward() in tensor.py,
then comparisons.py, reductions.py, shapes.py, unary.py, protocols.py. Each op calls three things
defined here: `_lift` (a number or array as an operand), `_result` (the op's output, joining the
graph if a parent needs gradients) and `_add_grad` (a gradient added into .grad, summed over the
axes broadcasting stretched). The op families return `Self`, which is the Tensor they were called on.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from micrograd import engine
from micrograd.tensor.checks import real_array
from micrograd.tensor.dtypes import BOOL, Array, is_number, number_operand
from micrograd.tensor.kernels import unbroadcast

if TYPE_CHECKING:  # (typing_extensions for the type checker only: typing.Self is new in Python 3.11)
    from typing_extensions import Self

ArrayLike = Array | float | int | Sequence[Any]  # what a Tensor can be made from (besides a Tensor)
Backward = Callable[[Array], None]


class Node:
    """An ndarray, its gradient, and the op and parents that produced it (see Tensor)."""
    __slots__ = ('data', 'grad', 'requires_grad', '_prev', '_op', '_backward')
    data: Array
    grad: Array | None
    requires_grad: bool
    _prev: tuple[Self, ...]
    _op: str
    _backward: Backward | None

    @classmethod
    def _result(cls, data: Array | np.generic, parents: tuple[Self, ...], op: str, backward: Backward) -> Self:
        """The output of an op. It joins the graph only if a parent needs gradients (and not under no_grad())."""
        out = cls.__new__(cls)  # data is already an ndarray of the right dtype: skip __init__'s checks
        out.data = data if type(data) is np.ndarray else np.asarray(data)  # 0-d results come back as NumPy scalars
        out.grad = None
        tracked = tuple(p for p in parents if p.requires_grad) if engine.is_grad_enabled() else ()
        out.requires_grad = bool(tracked)
        out._prev, out._op, out._backward = tracked, (op if tracked else ''), (backward if tracked else None)
        return out

    @classmethod
    def _constant(cls, data: Array) -> Self:
        """A tensor that is data: no gradient, no parents (skips __init__'s checks: data is a real array)."""
        out = cls.__new__(cls)
        out.data, out.grad, out.requires_grad, out._prev, out._op, out._backward = data, None, False, (), '', None
        return out

    def _lift(self, other: object, op: str) -> Self:
        """A number or an ndarray takes part in an op as a constant tensor.

        An array keeps its dtype. A number takes the dtype the result will have (an int32
        tensor times 2 stays int32, times 2.5 is float64): like PyTorch, a number counts
        only by its kind, whether it is Python's or NumPy's (dtypes.number_operand).
        """
        if isinstance(other, Node):
            return other  # type: ignore[return-value]  # (a Node is always a Tensor)
        if isinstance(other, np.ndarray):
            return self._constant(real_array(other, f"Tensor.{op}"))
        if not is_number(other):
            raise TypeError(f"unsupported operand for {op}: Tensor and {type(other).__name__} ({other!r})")
        return self._constant(number_operand(self.data, other, op))

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


def fill_value(value: object, dtype: np.dtype[Any], op: str) -> Array:
    """A number to write into a tensor of dtype: it must fit (PyTorch truncates 1.5 into an integer tensor)."""
    if isinstance(value, Node):
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
