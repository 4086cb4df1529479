"""Numbers entering the scalar engine: converted to Python floats once, at the boundary, and checked.

engine.py calls these where a number enters an op (`x + 2`, `Value(3)`), where an op's result could be
no real float (`x ** 0.5` of a negative x, `log(0)`, an overflow), and for Value.dot's operands. Each error
names the op, and is raised before the op makes its output, so a refused input leaves the graph as it was.

A number a user writes into a Value's .data by hand (a NumPy float16 or float32 from iterating an array, an
int) is taken at full float precision the first time an op reads it: the op's parents' .data become Python
floats and the op computes in floats, so the same input gives the same output on every call, as for a number
given to Value(). Anything else in .data is refused, naming the op and showing that .data.

A tensor (micrograd's or PyTorch's) is refused wherever it enters, with the way to take its number on purpose
(refuse_tensor). Also here: a Neuron's inputs (inputs) and a state_dict's values (saved), checked alike.
"""
from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Callable, Iterable, Mapping, Set
from typing import Any

from micrograd.ops import BY_NAME


def is_number(x: object) -> bool:
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
    if not is_number(x):
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


def data(x: object, parents: Iterable[Any], op: str, backward: object = None) -> float:
    """The data of a new Value as a Python float: a number given to Value(), or the result of an op where a
    parent's .data was written by hand as something else (a NumPy float16, an int). Such a parent's .data
    becomes a Python float here, all of them checked before any is changed, and an op of engine.py (one that
    hands Value() its backward) of Python's arithmetic (+, *, /) computes its result again from the floats:
    what NumPy computed in float16 is not kept. (An op written the lecture's way keeps its own result.)"""
    record = BY_NAME.get(op) if isinstance(op, str) else None
    if isinstance(op, str) and op.startswith('**'):
        record = BY_NAME['**']
    name = f'Value.{record.method}' if record else 'Value()'
    parents = tuple(parents) if isinstance(parents, (tuple, list)) else ()  # (not a generator: Value's)
    for p in parents:
        refuse_tensor(p, name)
    written = [p for p in parents if type(getattr(p, 'data', 0.0)) is not float]
    floats = [real(p.data, name, 'a real number in .data') for p in written]  # all checked, then set
    for p, number in zip(written, floats):
        p.data = number
    compute = getattr(operator, record.method, None) if record and written and backward else None
    if compute is not None and len(parents) == 2:  # +, *, / (and **): computed again, in floats
        x = compute(parents[0].data, parents[1].data)
    return real(x, name)


def checked(f: Callable[[float], float], x: float, op: str) -> float:
    """f(x), with a float overflow named after the op."""
    try:
        return f(x)
    except OverflowError:
        raise OverflowError(f"{op}: the result for {x} is too large for a float") from None


def positive(x: float, op: str) -> float:
    """x as a float, checked to be > 0 (the domain of log)."""
    if not x > 0:
        raise ValueError(f"{op}: {op.split('.')[-1]} is defined only for data > 0, got {x}")
    return real(x, op)


def divisor(y: float, x: float) -> float:
    """y, checked as the divisor of x / y."""
    if y == 0:
        raise ZeroDivisionError(f"Value.__truediv__: division by zero ({x} / {y})")
    return y


def checked_pow(x: float, y: float) -> float:
    """x ** y of two floats, checked: a result that is not real or not finite is an error naming **."""
    if x < 0 and not (y.is_integer() or math.isinf(y)):  # (-2) ** inf is inf, as in Python
        raise ValueError(f"Value.__pow__: {x} ** {y} is not real (a fractional power of a "
                         "negative base)")
    if x == 0 and y < 0:
        raise ZeroDivisionError(f"Value.__pow__: {x} ** {y} divides by zero")
    try:
        out: float = x ** y
    except OverflowError:
        raise OverflowError(f"Value.__pow__: {x} ** {y} is too large for a float") from None
    return out


def ieee_pow(x: float, e: float) -> float:
    """x ** e of two floats in IEEE arithmetic, as PyTorch computes it: where Python raises, it is infinite
    (0.0 ** -0.5 and 1e-300 ** -2.0 are inf), with the sign x ** e has (negative for a negative x and an odd
    whole e). The power rule's x**(y-1) in the backward of x ** y: a slope too steep for a float is inf."""
    try:
        out: float = x ** e
        return out
    except (OverflowError, ZeroDivisionError):
        odd = e.is_integer() and e % 2 == 1
        return math.copysign(math.inf, x) if odd else math.inf


def times_log(out: float, x: float) -> float:
    """out * log(x): the derivative of out = x**y by its exponent y, as PyTorch computes it: 0 where
    x is 0 (x**y is flat there for y > 0), NaN where x < 0 (x**y is real only at whole y)."""
    if x > 0:
        return out * math.log(x)
    if x == 0:
        return math.nan if math.isnan(out) else 0.0  # (0 ** nan is nan)
    return math.nan


def dot(ws: Any, xs: Any, bias: Any, value: Any) -> tuple[Any, Any, Any, float]:
    """Value.dot's operands, ws and xs as sequences of Values of one length and bias as a Value (Value(0.0)
    if none), and their weighted sum bias + w1*x1 + w2*x2 + ..., added in that order. A number among them
    becomes a leaf holding it as a float. (Values are the common case: no check per operand for them.)"""
    for name, seq in (('ws', ws), ('xs', xs)):
        if type(seq) is not list and type(seq) is not tuple and not _ordered(seq):
            raise TypeError(f"Value.dot: {name} must be a list or tuple (an ordered sequence), got "
                            f"{type(seq).__name__}")
    if len(ws) != len(xs):
        raise ValueError(f"Value.dot: {len(ws)} weights but {len(xs)} inputs")
    b = value(0.0) if bias is None else _leaf(bias, value)
    try:
        total = _weighted_sum(ws, xs, b)
    except (AttributeError, TypeError):  # a number has no .data (a NumPy number's is a memoryview):
        ws, xs = [_leaf(w, value) for w in ws], [_leaf(x, value) for x in xs]  # it becomes a leaf
        try:
            total = _weighted_sum(ws, xs, b)
        except TypeError:  # a .data written by hand that Python's arithmetic refuses: see below
            total = None
    if type(total) is not float:  # a .data written by hand (a NumPy float16, say): as data() says
        data(0.0, [*ws, *xs, b], 'dot')
        total = _weighted_sum(ws, xs, b)
    return ws, xs, b, total


def _ordered(seq: object) -> bool:
    """A sequence whose order means something: not a set or a dict (their order is arbitrary, or not the
    user's), nor a string, nor a NumPy array of other than one dimension."""
    if isinstance(seq, (str, bytes, Set, Mapping)) or not hasattr(seq, '__len__'):
        return False
    return getattr(seq, 'ndim', 1) == 1


def _weighted_sum(ws: Any, xs: Any, b: Any) -> Any:
    total = b.data
    for w, x in zip(ws, xs):
        total = total + w.data * x.data  # not +=, which would write into a 0-d array in b.data
    return total


def _leaf(v: Any, value: Any) -> Any:
    return v if isinstance(v, value) else value(real(v, 'Value.dot'))


def saved(x: object, name: str, where: str) -> float:
    """A parameter's value from a state_dict (a Python number, a NumPy number or a 0-d array, as np.load gives
    back for np.savez(**state_dict())) as a Python float; a bool or anything else is a TypeError."""
    if isinstance(x, bool) or not is_number(x):
        raise TypeError(f"{where}: {name!r} must be a number, got {type(x).__name__} {x!r}")
    return real(x, where)


def inputs(x: Any, n: int, neuron: object) -> list[Any]:
    """A neuron's n inputs as a list (a list is taken as it is): one number (or Value, or 0-d array) is a list of
    one, as a Layer of one neuron hands it on; a tuple or a 1-d array is listed. A set or a dict is refused (its
    order is not the inputs' order), as is anything else that is no sequence of inputs, a tensor, and a number
    of inputs other than n."""
    if type(x) is not list:
        refuse_tensor(x, repr(neuron))
        if is_number(x) or hasattr(x, '_prev'):
            x = [x]
        elif not _ordered(x):
            raise TypeError(f"{neuron!r}: inputs must be a list, a tuple or a 1-d array, in order, "
                            f"got {type(x).__name__}")
        else:
            x = list(x)
    if len(x) != n:
        raise ValueError(f"{neuron!r}: expected {n} inputs, got {len(x)}")
    return x  # type: ignore[no-any-return]
