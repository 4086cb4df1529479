"""The operands of a weighted sum: Value.dot's (weights, inputs, a bias) and a Neuron's inputs.

Both take their operands in order, as lists or tuples (or 1-d arrays): a set or a dict is refused, since its
order is not the inputs' order. A number among them becomes a leaf Value holding it as a float.
"""
from __future__ import annotations

from collections.abc import Mapping, Set
from typing import Any

from micrograd.numeric import checked, is_real, real, refuse_tensor


def operands(ws: Any, xs: Any, bias: Any, value: Any) -> tuple[Any, Any, Any, float]:
    """Value.dot's operands, ws and xs as sequences of Values of one length and bias as a Value (Value(0.0)
    if none), and their weighted sum bias + w1*x1 + w2*x2 + ..., added in that order. A number among them
    becomes a leaf holding it as a float. (Values are the common case: no check per operand for them.)"""
    for name, seq in (('ws', ws), ('xs', xs)):
        if type(seq) is not list and type(seq) is not tuple and not ordered(seq):
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
        checked(0.0, [*ws, *xs, b], 'dot')
        total = _weighted_sum(ws, xs, b)
    return ws, xs, b, total


def ordered(seq: object) -> bool:
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


def checked_inputs(x: Any, n: int, neuron: object) -> list[Any]:
    """A neuron's n inputs as a list (a list is taken as it is): one number (or Value, or 0-d array) is a list of
    one, as a Layer of one neuron hands it on; a tuple or a 1-d array is listed. A set or a dict is refused (its
    order is not the inputs' order), as is anything else that is no sequence of inputs, a tensor, and a number
    of inputs other than n."""
    if type(x) is not list:
        refuse_tensor(x, repr(neuron))
        if is_real(x) or hasattr(x, '_prev'):
            x = [x]
        elif not ordered(x):
            raise TypeError(f"{neuron!r}: inputs must be a list, a tuple or a 1-d array, in order, "
                            f"got {type(x).__name__}")
        else:
            x = list(x)
    if len(x) != n:
        raise ValueError(f"{neuron!r}: expected {n} inputs, got {len(x)}")
    return x  # type: ignore[no-any-return]
