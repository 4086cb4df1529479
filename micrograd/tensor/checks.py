"""The checks of the arguments tensor ops take: numbers, dtypes, data, sizes, axes, yes/no flags.

Each returns the argument as the plain Python or NumPy value the op goes on with, or refuses it with
an error that names the op (NumPy would read 'yes' as an axis, None as nan and '1.5' as 1.5).
"""
from __future__ import annotations

import numbers
import operator
from typing import Any

import numpy as np

from micrograd.engine import Value
from micrograd.tensor.dtypes import BOOL, REAL_KINDS, Array, is_number

Axis = int | tuple[int, ...] | None


def refuse_value(x: object, op: str) -> None:
    """A TypeError naming op if x is a scalar micrograd Value, or a (nested) list or tuple holding one: the two
    engines do not mix. A tensor op taking v's number silently would cut v from its graph (its .grad would stay
    0); the error says how to take it. (Called where x is refused anyway, or is no array: it looks at every item.)"""
    if isinstance(x, (list, tuple)):
        for item in x:
            refuse_value(item, op)
    elif isinstance(x, Value):
        raise TypeError(f"{op}: got a micrograd Value ({x!r}): Values and tensors do not mix (no gradient flows "
                        f"from one to the other). For its number, pass v.data (v then gets no gradient), or make "
                        f"it a tensor: Tensor(v.data, requires_grad=True)")


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
    refuse_value(x, what)
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
        if array.dtype.kind == 'O':
            refuse_value(list(array.flat), op)  # (a Value, or a list of Values)
        raise TypeError(f"{op}: takes real numbers (bool, integer or float), got {describe(data, array)}")
    return array


def describe(data: object, array: Array) -> str:
    """What a refused input holds, in words: 'dtype <U3', 'None', 'complex'."""
    odd = [x for x in array.flat if not is_number(x)][:1] if array.dtype.kind == 'O' else []
    if odd:
        return f"{type(odd[0]).__name__} {odd[0]!r}"
    return f"{type(data).__name__} of dtype {array.dtype}"


# --- sizes, axes and flags ---

def index(n: object, what: str) -> int:
    """A whole number used as a size or an axis: Python's or NumPy's (a 0-d integer array too), never a float
    or a bool."""
    if isinstance(n, (bool, np.bool_)) or (isinstance(n, np.ndarray) and n.dtype == BOOL):
        raise TypeError(f"{what}: sizes and axes are whole numbers, got {n!r}")
    try:
        return operator.index(n)  # type: ignore[arg-type]  # refused below if it is no integer
    except TypeError:
        raise TypeError(f"{what}: sizes and axes are whole numbers, got {type(n).__name__} {n!r}") from None


def ints(args: tuple[Any, ...], op: str) -> tuple[int, ...]:
    """f(2, 3) and f((2, 3)) alike, as NumPy and PyTorch take shapes and axes (Python's or NumPy's integers)."""
    one = args[0] if len(args) == 1 else None
    if isinstance(one, (tuple, list)) or (isinstance(one, np.ndarray) and one.ndim):  # (a 0-d array is one number)
        args = tuple(args[0])
    return tuple(index(a, f"Tensor.{op}") for a in args)


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


def one_axis(axis: object, ndim: int, op: str) -> tuple[int]:
    """The one axis an op like softmax works along."""
    if isinstance(axis, (tuple, list)) or axis is None:
        raise TypeError(f"Tensor.{op}: works along one axis (an integer, e.g. -1), got {axis!r}")
    if ndim == 0:
        raise ValueError(f"Tensor.{op}: a 0-d tensor has no axis to work along")
    ax = axes(axis, ndim, op)
    assert ax is not None and len(ax) == 1
    return (ax[0],)


def permutation(axes: tuple[int, ...], ndim: int, op: str) -> tuple[int, ...]:
    """axes as an order of 0..ndim-1: -1 becomes ndim - 1 (argsort of the raw axes would undo the wrong order)."""
    if len(axes) != ndim or not all(-ndim <= a < ndim for a in axes) or len({a % ndim for a in axes}) != ndim:
        hint = (f"; to swap two axes, as torch's x.transpose{axes}, use x.swapaxes{axes}"
                if op == 'transpose' and len(axes) == 2 else '')
        raise ValueError(f"Tensor.{op}: {axes} is not an order of the {ndim} axes of a tensor with {ndim} "
                         f"dimensions (each of 0..{ndim - 1}, or its negative, exactly once){hint}")
    return tuple(a % ndim for a in axes)
