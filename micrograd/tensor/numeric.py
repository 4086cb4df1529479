"""Plain NumPy helpers shared by tensor.py and functional.py: no Tensors, no gradients.

- Which dtype an op's result gets (PyTorch's type promotion), and which inputs are refused.
- Softmax, log-softmax and sigmoid computed without overflow.
- The sums that gradients need: over broadcast axes, into looked-up rows, along vectors.
"""
from __future__ import annotations

import ctypes
import math
import numbers
import operator
import sys
from typing import Any

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[Any]  # an ndarray of any dtype: what a Tensor's .data and .grad hold
Axis = int | tuple[int, ...] | None

REAL_KINDS = 'biuf'  # bool, signed and unsigned integers, floats: the dtypes a Tensor holds
FLOAT64 = np.dtype(np.float64)  # the default float type: PyTorch's default is float32, ours float64
FLOAT32 = np.dtype(np.float32)
HALF = np.dtype(np.float16)
BOOL = np.dtype(np.bool_)


def is_number(x: object) -> bool:
    """A single real number: Python's bool, int or float, or a NumPy scalar of those kinds.

    (np.bool_ and np.float32 are no numbers.Real, and complex numbers are not real.)
    """
    return isinstance(x, (numbers.Real, np.bool_, np.integer, np.floating))


def number(x: object, what: str) -> bool | int | float:
    """A numeric argument (eps, a limit, a fill value, a size) as the Python number it stands for.

    A NumPy scalar or a 0-d array then behaves exactly as the Python number: np.float64(1e-5) as
    eps must not turn a float32 result into float64, as NumPy's promotion would.
    """
    if isinstance(x, np.ndarray) and x.ndim == 0 and x.dtype.kind in REAL_KINDS:
        x = x.item()
    elif isinstance(x, (np.bool_, np.integer, np.floating)):
        x = x.item()
    if isinstance(x, (bool, int, float)):
        return x
    if isinstance(x, numbers.Integral):  # (other registered numbers: fractions.Fraction, decimal.Decimal)
        return int(x)
    if isinstance(x, numbers.Real):
        return float(x)
    raise TypeError(f"{what}: must be a number, got {type(x).__name__} {x!r}")


def real_dtype(dtype: object, op: str) -> np.dtype[Any]:
    """dtype as a NumPy dtype a Tensor holds (bool, an integer or a float type), refused by name otherwise."""
    try:
        kind: np.dtype[Any] = np.dtype(dtype)  # type: ignore[call-overload]  # refused below if NumPy cannot read it
    except TypeError:
        raise TypeError(f"{op}: {dtype!r} is no dtype NumPy knows (e.g. np.float32, 'float64', np.int64)") from None
    if kind.kind not in REAL_KINDS:
        raise TypeError(f"{op}: dtype must be bool, an integer or a float type, got {kind}")
    return kind


def real_array(data: object, op: str) -> Array:
    """data as an ndarray of bools, integers or floats; strings, None, complex numbers, dates and
    other objects are refused (NumPy would turn None into nan and '1.5' into 1.5 without a word)."""
    try:
        array = np.asarray(data)
    except (ValueError, TypeError) as e:  # ragged nested lists
        raise ValueError(f"{op}: cannot make an array of {type(data).__name__} data ({e})") from None
    if array.dtype.kind not in REAL_KINDS:
        raise TypeError(f"{op}: takes real numbers (bool, integer or float), got {describe(data, array)}")
    return array


def describe(data: object, array: Array) -> str:
    """What a refused input holds, in words: 'dtype <U3', 'None', 'complex'."""
    odd = [x for x in array.flat if not is_number(x)][:1] if array.dtype.kind == 'O' else []
    if odd:
        return f"{type(odd[0]).__name__} {odd[0]!r}"
    return f"{type(data).__name__} of dtype {array.dtype}"


# --- type promotion, as torch.result_type ---

class Number(np.ndarray[Any, Any]):
    """A Python number taking part in a float16 op as a 0-d float32 array (so that x16 * 1e-8 is not 0),
    still known to be a number: like one, it counts only by its kind in type promotion, so a 0-d float16
    tensor times 1e-8 stays float16 (a 0-d float32 tensor would make the result float32, as in PyTorch)."""


def weak_dtype(x: object) -> np.dtype[Any]:
    """A Python or NumPy number takes part in an op by its kind only (PyTorch's "wrapped number"):
    `int32_tensor * 2` stays int32 and `float16_tensor * 2.5` stays float16. A float joins as float64."""
    if isinstance(x, (bool, np.bool_)):
        return BOOL
    if isinstance(x, (numbers.Integral, np.integer)):
        return np.dtype(np.int64)
    return FLOAT64


def promote_types(a: np.dtype[Any] | None, b: np.dtype[Any] | None) -> np.dtype[Any] | None:
    """torch.promote_types: a float beats any integer or bool whatever their sizes (float16 with
    int64 is float16, where NumPy would give float64); otherwise NumPy's table, which agrees."""
    if a is None or a == b:
        return b
    if b is None:
        return a
    if a.kind == 'f' and b.kind != 'f':
        return a
    if b.kind == 'f' and a.kind != 'f':
        return b
    return np.promote_types(a, b)


def _combine(higher: np.dtype[Any] | None, lower: np.dtype[Any] | None) -> np.dtype[Any] | None:
    """A lower-priority operand (a 0-d tensor, a number) changes the dtype only if it is of a
    higher category (bool < integer < float): `int32 * 2.5` is float, `float16 * 2.5` float16."""
    if higher is None:
        return lower
    if lower is None or higher.kind == 'f':
        return higher
    if higher.kind == 'b' or lower.kind == 'f':
        return promote_types(higher, lower)
    return higher


def result_dtype(*operands: Array | float) -> np.dtype[Any]:
    """The dtype of an op's result, as torch.result_type: arrays with axes first, then 0-d arrays,
    then numbers, each group counting only if it is of a higher category than the groups before."""
    dims = zeros = numbers_ = None
    for x in operands:
        if isinstance(x, np.ndarray) and type(x) is not Number:
            if x.ndim:
                dims = promote_types(dims, x.dtype)
            else:
                zeros = promote_types(zeros, x.dtype)
        else:
            numbers_ = promote_types(numbers_, weak_dtype(x))
    result = _combine(dims, _combine(zeros, numbers_))
    assert result is not None
    return result


def float_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """The dtype of exp, log, division...: a float dtype stays, integers and bools become float64."""
    return dtype if dtype.kind == 'f' else FLOAT64


def opmath(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """The dtype an op computes in before it rounds to its result's dtype: float16 in float32, as PyTorch's
    half-precision ops do (its "opmath" type), so that x16 * 1e-8 is not 0 and x16 / 70000 has a gradient."""
    return FLOAT32 if dtype == HALF else dtype


def wide(a: Array) -> Array:
    """a in the dtype its ops compute in (opmath): float16 as float32, any other array as it is (no copy).
    An op computes with wide() inputs and rounds its result to float16 once, as PyTorch's half ops do."""
    return a.astype(FLOAT32) if a.dtype == HALF else a


def accumulator(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """The dtype a sum adds up in: float16 in float32 (as NumPy's mean and PyTorch do: 70,000 ones
    would overflow float16), integers and bools in int64 (PyTorch's sum of them is int64)."""
    if dtype == np.float16:
        return np.dtype(np.float32)
    return dtype if dtype.kind == 'f' else np.dtype(np.int64)


# --- sizes and axes ---

def index(n: object, what: str) -> int:
    """A whole number used as a size or an axis: Python's or NumPy's (a 0-d integer array too), never a float
    or a bool."""
    if isinstance(n, (bool, np.bool_)) or (isinstance(n, np.ndarray) and n.dtype == BOOL):
        raise TypeError(f"{what}: sizes and axes are whole numbers, got {n!r}")
    try:
        return operator.index(n)  # type: ignore[arg-type]  # refused below if it is no integer
    except TypeError:
        raise TypeError(f"{what}: sizes and axes are whole numbers, got {type(n).__name__} {n!r}") from None


def flag(value: object, name: str, op: str) -> bool:
    """A yes/no argument such as keepdims: Python's or NumPy's bool, or a 0-d bool array (NumPy would read 'yes'
    as an axis)."""
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype == BOOL:
        value = value.item()
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{op}: {name} must be True or False, got {type(value).__name__} {value!r}")
    return bool(value)


def axes(axis: object, ndim: int, op: str) -> tuple[int, ...] | None:
    """axis as a tuple of distinct axes in 0..ndim-1 (negative ones count from the end), None for all.

    A 0-d array has one axis to name, 0 (or -1), as in PyTorch: summing over it changes nothing.
    """
    if axis is None:
        return None
    given = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    n = max(ndim, 1)
    out = []
    for a in given:
        i = index(a, f"Tensor.{op}")
        if not -n <= i < n:
            raise ValueError(f"Tensor.{op}: axis {i} is out of range for a tensor with {ndim} dimensions")
        out.append(i % n)
    if len(set(out)) != len(out):
        raise ValueError(f"Tensor.{op}: axis {axis!r} names an axis twice")
    return tuple(out) if ndim else ()


# --- numerically safe functions ---

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


# --- memory ---

def keep_freed_memory(mmap_threshold: int = 32 << 20, trim_threshold: int = 64 << 20) -> bool:
    """Ask the C allocator (glibc's malloc, on Linux) to keep memory that NumPy frees, for the next arrays.

    A training step makes arrays of a few MB (activations, their gradients) and frees them all
    at its end. By default glibc hands that memory back to the operating system, and the next
    step takes it back page by page: thousands of page faults a step, a fifth of the GPT's step
    at batch 128 in float64. Raising the two thresholds keeps up to trim_threshold bytes of freed
    memory in the process (arrays up to mmap_threshold come from that pool), so the next step
    reuses it. These are glibc's own maximum defaults, fixed so that they do not drift. Elsewhere
    (macOS, Windows, musl) nothing changes. Returns whether the allocator took the settings.
    """
    if not sys.platform.startswith('linux'):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc
        return False
    M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # from glibc's malloc.h
    return bool(mallopt(M_MMAP_THRESHOLD, mmap_threshold)) and bool(mallopt(M_TRIM_THRESHOLD, trim_threshold))
