"""Numbers entering the scalar engine: converted to Python floats once, at the boundary, and checked.

Value() calls checked() for every data that is not already a Python float: a number given to Value() (`Value(3)`,
the 2 of `x + 2`, which the op makes a Value), or an op's result that is not one. Each error names the op, and is
raised before the op makes its output, so a refused input leaves the graph as it was. What Python's float
arithmetic itself refuses (x / 0, an overflow of math.exp or of **) is Python's own error, raised in the op.

A number a user writes into a Value's .data by hand (a NumPy float16 or float32 from iterating an array, an
int) is taken at full float precision the first time an op reads it: the op's parents' .data become Python
floats and the op computes in floats, so the same input gives the same output on every call, as for a number
given to Value(). Anything else in .data is refused, naming the op and showing that .data.

A tensor (micrograd's or PyTorch's) is refused wherever it enters, with the way to take its number on purpose
(refuse_tensor). Also here: a state_dict's values (saved), checked alike.
"""
from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Iterable
from typing import Any

from micrograd.ops import BY_NAME


def is_real(x: object) -> bool:
    """A real number: a Python int, float, Fraction or bool, or a NumPy one (also a 0-d array of one)."""
    if isinstance(x, numbers.Real):
        return True
    kind = getattr(getattr(x, 'dtype', None), 'kind', '')
    return kind in ('b', 'i', 'u', 'f') and getattr(x, 'shape', None) == ()


def real(x: object, op: str, what: str = 'a real number') -> float:
    """x as a Python float, before it takes part in op ('__add__' for Value.__add__, or any name).
    NumPy numbers of every width are converted first: np.uint8(3) is 3.0 (so -x does not wrap around),
    np.float16 does not round the result."""
    if type(x) is float:
        return x
    op = f'Value.{op}' if op.startswith('__') else op
    refuse_tensor(x, op)
    if not is_real(x):
        kind = 'a Value (it takes part as itself)' if hasattr(x, '_prev') else type(x).__name__
        raise TypeError(f"{op}: expected {what}, got {kind} ({x!r})")
    try:
        return float(x)  # type: ignore[arg-type]
    except OverflowError:
        raise OverflowError(f"{op}: {str(x)[:30]}... is too large for a float") from None
    except TypeError:  # a NumPy type that calls itself a number, as np.timedelta64 does
        raise TypeError(f"{op}: expected {what}, got {type(x).__name__} ({x!r})") from None


def refuse_tensor(x: object, op: str) -> None:
    """A TypeError naming op if x is a tensor (micrograd's or PyTorch's: it has requires_grad): the two engines
    do not mix. A Value is one float whose gradient cannot flow into a tensor, and taking a tensor's number
    silently would cut it from its graph; the error says how to take the number on purpose."""
    if hasattr(x, 'requires_grad') and hasattr(x, 'shape'):
        shape = tuple(x.shape)
        take = "its number, pass t.item()" if math.prod(shape) == 1 else "its numbers, pass t.tolist()"
        raise TypeError(f"{op}: got a {type(x).__module__.split('.')[0]} {type(x).__name__} of shape {shape}: "
                        f"Values and tensors do not mix (no gradient flows from one to the other). For {take} "
                        f"(t then gets no gradient)")


def checked(x: object, parents: Iterable[Any], op: str, backward: object = None) -> float:
    """The data of a new Value as a Python float: the one check every Value's data passes (Value() calls it
    for anything that is not already a float). x is a number given to Value(), one an op takes as an operand
    (op is then the op's method, '__add__' for the 2 of x + 2: an error names it), or an op's result where a
    parent's .data was written by hand as something else (a NumPy float16, an int), or where Python's
    arithmetic gave a complex number ((-8.0) ** 1.5): no real number, a ValueError naming the op.

    A parent's hand-written .data becomes a Python float here, all of them checked before any is changed, and
    an op of engine.py (one that hands Value() its backward) of Python's arithmetic (+, *, /, **) computes its
    result again from the floats: what NumPy computed in float16 is not kept. (An op written the lecture's way
    keeps its own result.)"""
    if isinstance(op, str) and op.startswith('__'):  # a number an op takes (the 2 of x + 2): Value(2)
        return real(x, f'Value.{op}')
    if not parents and not op:  # a number given to Value()
        return real(x, 'Value()')
    power = isinstance(op, str) and op.startswith('**')
    record = BY_NAME['**'] if power else BY_NAME.get(op) if isinstance(op, str) else None
    name = f'Value.{record.method}' if record else 'Value()'
    parents = tuple(parents) if isinstance(parents, (tuple, list)) else ()  # (not a generator: Value's)
    for p in parents:
        refuse_tensor(p, name)
    written = [p for p in parents if type(getattr(p, 'data', 0.0)) is not float]
    floats = [real(p.data, name, 'a real number in .data') for p in written]  # all checked, then set
    if isinstance(x, complex) and parents:  # (-8.0) ** 1.5: the ops of engine.py give no other complex
        what = f"{parents[0].data} ** {op[2:]}" if power and len(parents) == 1 else f"the result {x}"
        raise ValueError(f"{name}: {what} is not real (a fractional power of a negative base)")
    for p, number in zip(written, floats):
        p.data = number
    compute = getattr(operator, record.method, None) if record and written and backward else None
    if compute is not None and len(parents) == 2:  # +, *, / (and x ** y): computed again, in floats
        x = compute(parents[0].data, parents[1].data)
    elif compute is not None and power and len(parents) == 1:  # x ** k, k as the op's name writes it
        x = compute(parents[0].data, float(op[2:]))
    return real(x, name)


def saved(x: object, name: str, where: str) -> float:
    """A parameter's value from a state_dict (a Python number, a NumPy number or a 0-d array, as np.load gives
    back for np.savez(**state_dict())) as a Python float; a bool or anything else is a TypeError."""
    if isinstance(x, bool) or not is_real(x):
        raise TypeError(f"{where}: {name!r} must be a number, got {type(x).__name__} {x!r}")
    return real(x, where)
