"""Tensor's reductions: sum, mean, max, min over some axes or all, each with its backward."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from micrograd.tensor.checks import Axis, axes, flag
from micrograd.tensor.dtypes import Array, accumulator, compute_dtype, wide
from micrograd.tensor.kernels import select
from micrograd.tensor.node import OUTPUT, Node

if TYPE_CHECKING:
    from typing_extensions import Self


class Reductions(Node):
    """Ops that add up or pick along axes: the gradient goes back to every element that took part."""
    __slots__ = ()

    def sum(self, axis: Axis = None, keepdims: bool = False) -> Self:
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
        return self._result(total, (self,), 'sum', _backward, reads=())

    def mean(self, axis: Axis = None, keepdims: bool = False) -> Self:
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
        return self._result(out, (self,), 'mean', _backward, reads=())

    def max(self, axis: Axis = None, keepdims: bool = False) -> Self:
        """The largest element(s). Tied maxima share the gradient evenly, as with torch.max(x)
        (torch.max(x, dim) gives it all to one of them instead). A nan is the largest and gets
        the gradient, as in torch.max(x)."""
        return self._extreme(axis, keepdims, 'max')

    def min(self, axis: Axis = None, keepdims: bool = False) -> Self:
        """The smallest element(s): the gradient as for max."""
        return self._extreme(axis, keepdims, 'min')

    def _extreme(self, axis: Axis, keepdims: bool, op: str) -> Self:
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
            ties = is_top.sum(axis=ax, keepdims=True, dtype=compute_dtype(x.dtype))
            self._add_grad(select(is_top, wide(grad) / ties))
        out = top if keepdims else top.reshape([n for i, n in enumerate(x.shape) if ax is not None and i not in ax])
        return self._result(out, (self,), op, _backward, reads=((self, OUTPUT),))
