"""Which dtype a tensor op's result gets, and which dtype it computes in: PyTorch's rules, in one place.

- Type promotion, as torch.result_type: a float beats any integer or bool whatever their sizes, and a
  Python or NumPy number counts only by its kind (`int32_tensor * 2` stays int32, `float16_tensor * 2.5`
  float16); arrays with axes come first, then 0-d arrays, then numbers.
- float16 computes in float32 and rounds each result once, as PyTorch's half-precision ops do: in
  float16 itself, x * 1e-8 would be 0 and a mean over 70,000 numbers would divide by inf.
- Sums add up float16 in float32, integers and bools in int64.
"""
from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[Any]  # an ndarray of any dtype: what a Tensor's .data and .grad hold

REAL_KINDS = 'biuf'  # bool, signed and unsigned integers, floats: the dtypes a Tensor holds
FLOAT64 = np.dtype(np.float64)  # the default float type: PyTorch's default is float32, ours float64
FLOAT32 = np.dtype(np.float32)
HALF = np.dtype(np.float16)
BOOL = np.dtype(np.bool_)

# The ops whose number meets a float16 tensor in float32 (see operands). PyTorch's + and - round the number (or a
# wider 0-d tensor) to float16 first (x16 - 1.0001 is 0 at 1.0), as comparisons, where and clamp do: so do we.
KEEPS_A_NUMBER_IN_FLOAT32 = frozenset({'*', '/', '**'})


def is_number(x: object) -> bool:
    """A single real number: Python's bool, int or float, or a NumPy scalar of those kinds.

    (np.bool_ and np.float32 are no numbers.Real, and complex numbers are not real.)
    """
    return isinstance(x, (numbers.Real, np.bool_, np.integer, np.floating))


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


def number_operand(x: Array, other: object, op: str) -> Array:
    """A Python or NumPy number taking part in an op with the array x, as a 0-d array of the dtype the result
    will have (an int32 tensor times 2 stays int32, times 2.5 is float64). Beside a float16 tensor, * / and **
    keep it in float32 (PyTorch's "opmath"): see operands. A number that does not fit is refused by name."""
    dtype = x.dtype if type(other) is float and x.dtype.kind == 'f' else result_dtype(x, other)  # type: ignore[arg-type]
    number = other.item() if isinstance(other, np.generic) else other
    try:
        if dtype == HALF:  # (quietly: x16 + 70000 and x16 * 1e40 are inf, as in PyTorch)
            with np.errstate(over='ignore'):
                if op in KEEPS_A_NUMBER_IN_FLOAT32:
                    return np.asarray(number, dtype=np.float32).view(Number)
                return np.asarray(number, dtype=dtype)
        return np.asarray(number, dtype=dtype)
    except OverflowError:
        raise OverflowError(f"Tensor.{op}: {number!r} does not fit in the tensor's {dtype} "
                            f"(PyTorch wraps it around silently)") from None


# --- the dtype an op computes in ---

def compute_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """The dtype an op computes in before it rounds to its result's dtype: float16 in float32, as PyTorch's
    half-precision ops do (its "opmath" type), so that x16 * 1e-8 is not 0 and x16 / 70000 has a gradient."""
    return FLOAT32 if dtype == HALF else dtype


def wide(a: Array) -> Array:
    """a in the dtype its ops compute in (compute_dtype): float16 as float32, any other array as it is (no
    copy). An op computes with wide() inputs and rounds its result to float16 once, as PyTorch's half ops do."""
    return a.astype(FLOAT32) if a.dtype == HALF else a


def accumulator(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """The dtype a sum adds up in: float16 in float32 (as NumPy's mean and PyTorch do: 70,000 ones
    would overflow float16), integers and bools in int64 (PyTorch's sum of them is int64)."""
    if dtype == np.float16:
        return np.dtype(np.float32)
    return dtype if dtype.kind == 'f' else np.dtype(np.int64)


def promoted(x: Array, y: Array, kind: Callable[[np.dtype[Any]], np.dtype[Any]] | None = None) -> tuple[Array, Array]:
    """x and y in the dtype of their op's result (PyTorch's promotion; `kind` may then ask for a float)."""
    if x.dtype == y.dtype and kind is None:
        return x, y
    dtype = x.dtype if x.dtype == y.dtype else result_dtype(x, y)
    if kind is not None:
        dtype = kind(dtype)
    return x.astype(dtype, copy=False), y.astype(dtype, copy=False)


def operands(x: Array, y: Array, kind: Callable[[np.dtype[Any]], np.dtype[Any]] | None = None
             ) -> tuple[Array, Array, np.dtype[Any] | None]:
    """x and y as the op computes with them, and the dtype to round its result to, if any (for round_to).

    As promoted gives them, except that PyTorch computes a float16 tensor's *, / and ** with a number (which
    number_operand keeps in float32) or with a wider 0-d tensor in float32 and rounds the result once;
    rounding the number to float16 first would make x16 * 1e-8 all zeros and x16 / 70000 zeros with a zero
    gradient. (Two float16 operands: NumPy's float16 ops compute in float32 themselves.)"""
    if x.dtype == y.dtype and kind is None:  # (the common case, first: nothing to promote, float16 or not)
        return x, y, None
    if (x.dtype == HALF) != (y.dtype == HALF) and (x.ndim == 0 or y.ndim == 0):
        dtype = result_dtype(x, y)  # (a number kept in float32 is a Number: float16 stays float16)
        if (kind(dtype) if kind else dtype) == HALF:  # (subok=False: a Number is a plain array from here on)
            return x.astype(np.float32, subok=False), y.astype(np.float32, subok=False), HALF
    xs, ys = promoted(x, y, kind)
    return xs, ys, None


def round_to(out: Array, dtype: np.dtype[Any] | None) -> Array:
    """An op's result computed in float32 for float16 operands, rounded to float16 once (dtype None: as it is)."""
    if dtype is None:
        return out
    with np.errstate(over='ignore'):  # past float16's range is inf, quietly, as in PyTorch
        return np.asarray(out).astype(dtype)


def can_write(result: np.dtype[Any], into: np.dtype[Any]) -> bool:
    """Whether an op in place (x += y) may write a result of dtype `result` into a tensor of dtype `into`, as PyTorch's
    canCast: not a float into an integer or bool tensor, nor an integer into a bool one (int += 1.5 is refused).
    Within a kind anything goes: a float64 result goes into a float32 tensor, an int64 one into uint8 (wrapping)."""
    if result.kind == 'f' and into.kind != 'f':
        return False
    return not (into.kind == 'b' and result.kind != 'b')
