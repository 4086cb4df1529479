"""Tensor's functions of one tensor: exp, log, tanh, relu, abs, clamp, sigmoid, softmax, log_softmax, astype."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from micrograd.tensor.checks import number, one_axis, real_dtype
from micrograd.tensor.dtypes import BOOL, HALF, Array, float_dtype, result_dtype, wide
from micrograd.tensor.kernels import log_softmax, select, sigmoid, softmax
from micrograd.tensor.node import OUTPUT
from micrograd.tensor.shapes import Shapes

if TYPE_CHECKING:
    from typing_extensions import Self


class Unary(Shapes):
    """Element-wise functions and the softmaxes, each with its derivative beneath it. (A 0-d input is reshaped to 1-d
    and back in relu and the softmaxes: hence Shapes.)"""
    __slots__ = ()

    def exp(self) -> Self:
        with np.errstate(over='ignore'):  # e**1000 = inf, as PyTorch
            e = np.exp(self.data, dtype=float_dtype(self.data.dtype))

        def _backward(grad: Array) -> None:  # d e**x/dx = e**x
            self._add_grad(grad * e)
        return self._result(e, (self,), 'exp', _backward, reads=((OUTPUT,),))

    def log(self) -> Self:
        x = self.data.astype(float_dtype(self.data.dtype), copy=False)
        if np.any(x <= 0):
            raise ValueError(f"Tensor.log: log is defined only for data > 0, got {x.min()}")

        def _backward(grad: Array) -> None:  # d log(x)/dx = 1/x
            self._add_grad(grad / x)
        return self._result(np.log(x), (self,), 'log', _backward, reads=((self,),))

    def tanh(self) -> Self:
        t = np.tanh(self.data, dtype=float_dtype(self.data.dtype))

        def _backward(grad: Array) -> None:  # d tanh(x)/dx = 1 - tanh(x)**2
            if t.dtype == HALF:  # in float32, rounded once by _add_grad, as PyTorch's half tanh_backward
                tw = wide(t)
                self._add_grad(wide(grad) * (1 - tw * tw))
            else:
                self._add_grad(grad * (1 - t * t))
        return self._result(t, (self,), 'tanh', _backward, reads=((OUTPUT,),))

    def relu(self) -> Self:
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
        return self._result(out, (self,), 'relu', _backward, reads=((OUTPUT,),))  # (as PyTorch's)

    def abs(self) -> Self:
        x = self.data
        if x.dtype == BOOL:
            raise TypeError("Tensor.abs: bool inputs are not supported, as in PyTorch")

        def _backward(grad: Array) -> None:  # d|x|/dx = 1 for x > 0, -1 for x < 0, 0 at 0 (and at nan)
            self._add_grad(select(x > 0, grad) - select(x < 0, grad))
        return self._result(np.abs(x), (self,), 'abs', _backward, reads=((self,),))

    def __abs__(self) -> Self:  # abs(t), as t.abs()
        return self.abs()

    def clamp(self, min: float | None = None, max: float | None = None) -> Self:
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
        return self._result(out, (self,), 'clamp', _backward, reads=((self,),))  # (as PyTorch's)

    def clip(self, min: float | None = None, max: float | None = None) -> Self:
        """NumPy's name for clamp."""
        return self.clamp(min, max)

    def sigmoid(self) -> Self:
        x = self.data.astype(float_dtype(self.data.dtype), copy=False)
        # float16 computes in float32 and rounds once; backward too, from the rounded output, as PyTorch's half ops
        s = sigmoid(wide(x)).astype(x.dtype, copy=False)

        def _backward(grad: Array) -> None:  # d sigmoid(x)/dx = s (1 - s)
            sw = wide(s)
            self._add_grad(wide(grad) * sw * (1 - sw))
        return self._result(s, (self,), 'sigmoid', _backward, reads=((OUTPUT,),))

    def softmax(self, axis: int = -1) -> Self:
        """exp(x_i) / sum_j exp(x_j) along axis. An entry of -inf gets probability 0; a row of
        -inf only is nan, as in PyTorch. (Integers become float64 first; PyTorch refuses them.)"""
        if self.data.ndim == 0:  # one number is a distribution of one: 1.0, as in PyTorch
            one_axis(axis, 1, 'softmax')
            return self.reshape(1).softmax(0).reshape(())
        (ax,) = one_axis(axis, self.data.ndim, 'softmax')
        s = softmax(wide(self.data), ax).astype(float_dtype(self.data.dtype), copy=False)  # (float16: as sigmoid)

        def _backward(grad: Array) -> None:  # ds_i/dx_j = s_i (1[i=j] - s_j)
            sw, g = wide(s), wide(grad)
            self._add_grad(sw * (g - (g * sw).sum(axis=ax, keepdims=True)))
        return self._result(s, (self,), 'softmax', _backward, reads=((OUTPUT,),))

    def log_softmax(self, axis: int = -1) -> Self:
        """x_i - log(sum_j exp(x_j)) along axis, without overflow for large x."""
        if self.data.ndim == 0:  # log of a distribution of one: 0.0, as in PyTorch
            one_axis(axis, 1, 'log_softmax')
            return self.reshape(1).log_softmax(0).reshape(())
        (ax,) = one_axis(axis, self.data.ndim, 'log_softmax')
        out = log_softmax(wide(self.data), ax).astype(float_dtype(self.data.dtype), copy=False)  # (as softmax)

        def _backward(grad: Array) -> None:  # d out_i/dx_j = 1[i=j] - softmax(x)_j
            g = wide(grad)
            self._add_grad(g - np.exp(wide(out)) * g.sum(axis=ax, keepdims=True))
        return self._result(out, (self,), 'log_softmax', _backward, reads=((OUTPUT,),))

    def astype(self, dtype: npt.DTypeLike) -> Self:
        """The same numbers in another dtype, as NumPy's astype (PyTorch: x.to(dtype)). Between float
        dtypes the gradient flows back (in self's dtype); to integers or bools it stops."""
        target = real_dtype(dtype, 'Tensor.astype')

        def _backward(grad: Array) -> None:  # d x/dx = 1; _add_grad casts back to self's dtype
            self._add_grad(grad)
        with np.errstate(over='ignore', invalid='ignore'):  # 1e5 as float16 is inf, quietly, as in PyTorch
            out = self.data.astype(target)
        if target.kind != 'f':
            return self._constant(out)
        return self._result(out, (self,), 'astype', _backward, reads=())
