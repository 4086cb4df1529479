"""The NumPy computations of tensor ops: no Tensors, no graph.

- Softmax, log-softmax and sigmoid computed without overflow, and PyTorch's square roots in x ** 0.5.
- The sums that gradients need: over broadcast axes, into looked-up rows, along vectors; and the
  selection of a gradient by a mask.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from micrograd.tensor.dtypes import Array, float_dtype

# --- numerically safe functions ---

def power(x: Array, k: Array, rounded: np.dtype[Any] | None) -> Array:
    """x ** k, with PyTorch's square roots: for an exponent of 0.5 or -0.5 it takes sqrt(x) or 1 / sqrt(x),
    which keep the sign of -0 (sqrt(-0) = -0, 1 / sqrt(-0) = -inf) where pow gives +0 and +inf. So the
    gradient of x ** 0.5 at -0 is -inf, as in PyTorch. (Not for float16, computed in float32 to be rounded:
    PyTorch's half pow has no such case, and gives +inf.)"""
    if k.ndim == 0 and x.dtype.kind == 'f' and rounded is None and (k == 0.5 or k == -0.5):
        root = np.sqrt(x)
        return root if k == 0.5 else 1 / root
    out: Array = x ** k
    return out


def sigmoid(x: Array) -> Array:
    # 1/(1+e^-x) for x >= 0 and e^x/(1+e^x) for x < 0: both only ever exponentiate -|x|, so nothing overflows.
    e = np.exp(-np.abs(x))
    s: Array = np.where(x >= 0, 1, e) / (1 + e)
    return s


def log_softmax(x: Array, axis: int) -> Array:
    """x_i - log(sum_j exp(x_j)) along axis. Subtracting the max changes nothing mathematically but
    keeps exp() from overflowing. A row of -inf only gives nan, as in PyTorch; an axis of length 0
    gives an empty result."""
    x = x.astype(float_dtype(x.dtype), copy=False)
    if x.shape[axis] == 0:
        return x.copy()
    with np.errstate(invalid='ignore'):  # a row of -inf: -inf - -inf = nan, as PyTorch
        shifted = x - max_along(x, axis)
        out: Array = shifted - np.log(sum_along(np.exp(shifted), axis))
    return out


def softmax(x: Array, axis: int, overwrite: bool = False) -> Array:
    """exp(x_i) / sum_j exp(x_j) along axis, without overflow (as in log_softmax).

    overwrite=True computes it in x's own memory (x must be a float array nobody else reads):
    attention's batches of scores are big, and a new array for each step costs time.
    """
    x = x.astype(float_dtype(x.dtype), copy=False)
    if x.shape[axis] == 0:
        return x if overwrite else x.copy()
    with np.errstate(invalid='ignore'):  # a row of -inf: 0 / 0 = nan, as PyTorch
        e: Array = np.subtract(x, max_along(x, axis), out=x if overwrite else None)
        np.exp(e, out=e)
        e /= sum_along(e, axis)
    return e


# The max and the sum along one axis, kept as an axis of length 1, for softmax. NumPy's reductions
# run a loop of their own for each row, some 50 ns: along attention's rows of 10-16 scores, that
# costs five times their exp. These give the same results faster.

def max_along(x: Array, axis: int) -> Array:
    """x.max(axis=axis, keepdims=True), for a non-empty axis.

    For a short axis and many rows, np.maximum goes over the axis one entry at a time instead: each
    call compares one entry of every row at once, in one long loop. (nan wins, as in max.)
    """
    n = x.shape[axis]
    if n > 32 or x.size < 64 * n * n:  # a long axis, or few rows: NumPy's own reduction is faster
        top: Array = x.max(axis=axis, keepdims=True)
        return top
    entries = np.moveaxis(x, axis, -1)  # a view: entries[..., j] is entry j of every row
    top = entries[..., 0].copy()
    for j in range(1, n):
        np.maximum(top, entries[..., j], out=top)
    return np.expand_dims(top, axis)


def sum_along(x: Array, axis: int) -> Array:
    """x.sum(axis=axis, keepdims=True); einsum adds up each row without NumPy's per-row setup."""
    total: Array = np.einsum('...i->...', np.moveaxis(x, axis, -1))
    return np.expand_dims(total, axis)


# --- the sums of backpropagation ---

def unbroadcast(grad: Array, shape: tuple[int, ...]) -> Array:
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


def sum_into_rows(rows: Array, grad: Array, shape: tuple[int, ...]) -> Array:
    """An array of `shape` whose row r is the sum of grad[i] over every i with rows[i] == r.

    That is np.add.at(zeros(shape), rows, grad), done as a histogram: each number of grad
    is counted, with its value as weight, in the bin of the place (row, column) it goes to.
    """
    n, width = shape[0], math.prod(shape[1:])
    row = rows.reshape(-1, 1).astype(np.intp) % max(n, 1)  # intp: no uint8 overflow below; % n: row -1 is row n - 1
    places = row * width + np.arange(width)
    return np.bincount(places.reshape(-1), weights=grad.reshape(-1), minlength=n * width).reshape(shape)


def row_dot(a: Array, b: Array) -> Array:
    """The dot product of each vector of a (along the last axis) with the same vector of b, kept as an
    axis of length 1. As (a * b).sum(axis=-1, keepdims=True), but einsum makes no a * b temporary."""
    dots: Array = np.einsum('...i,...i->...', a, b)[..., None]
    return dots


def scale_rows(a: Array, r: Array) -> Array:
    """a * r for r holding one number per vector of a (shape (..., 1)): each vector times its number.

    The same products; but NumPy's broadcasting sets up a loop for each vector, which along
    vectors of 64 numbers costs as much as the products, and einsum does not.
    """
    scaled: Array = np.einsum('...i,...->...i', a, r[..., 0])
    return scaled


def select(mask: Array, grad: Array) -> Array:
    """grad where mask is True, 0 where it is False: np.where(mask, grad, 0), the backward of
    every op with a mask or a branch (relu, masked_fill, max, clamp, where).

    grad * mask gives the same numbers 5x faster (np.where branches on a random mask and
    mispredicts), except where grad is inf or nan: 0 * inf is nan, where the derivative is 0.
    So multiply, and select only if the product holds a nan: out . out is nan exactly then,
    and BLAS finds it in a tenth of the time of the product. (Called in backward(), where
    NumPy's warnings for inf * 0 are off.)
    """
    out: Array = grad * mask
    if np.isnan(np.vdot(out, out)):
        out = np.where(mask, grad, 0)
    return out


def view_positions(view: Array, base: Array) -> Array:
    """For each element of view, an array that shows part of base's memory (a slice, a reshape, a transpose
    of it), the flat index (in C order) of base's element at the same address: view's numbers are
    base.reshape(-1)[view_positions(view, base)]."""
    def addresses(a: Array) -> Array:
        at = np.full(a.shape, a.__array_interface__['data'][0], dtype=np.intp)
        for axis, (n, stride) in enumerate(zip(a.shape, a.strides)):
            at += (np.arange(n, dtype=np.intp) * stride).reshape((1,) * axis + (n,) + (1,) * (a.ndim - axis - 1))
        return at
    if view.size == 0:
        return np.zeros(view.shape, dtype=np.intp)
    where = addresses(base).reshape(-1)
    order = np.argsort(where, kind='stable')
    wanted = addresses(view)
    found = order[np.minimum(np.searchsorted(where[order], wanted), where.size - 1)]
    if not np.array_equal(where[found], wanted):
        raise ValueError("view_positions: the view's elements are not all elements of the base")
    positions: Array = found
    return positions
