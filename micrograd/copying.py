"""Copying a Value: `copy.deepcopy` copies leaves only, as PyTorch does; pickle gives back a leaf.

An op's Value holds a backward that writes into its parents. A deep copy of it would still write into the
original graph's leaves, not the copies' (the backward closes over the originals), so it is refused. A copy
of a model is a copy of its leaves (its parameters), which deepcopy makes as expected.

A copy is of the leaf's own class, with its attributes (a subclass's too, deep-copied), made without calling
its __init__, as PyTorch copies a tensor subclass: a subclass whose __init__ takes other arguments copies.

pickle (and so multiprocessing, or a saved notebook session) gives back a leaf of the same class, data, label
and attributes, cut off from the graph that made it and with a zero grad, as PyTorch gives back a tensor without
its grad_fn and its .grad: a backward closure is code, not data.
"""
from __future__ import annotations

import copy
from typing import Any


def __deepcopy__(v: Any, memo: dict[int, Any] | None = None) -> Any:
    """A new leaf of v's class with v's data, grad, label and other attributes; a RuntimeError for a Value
    an op made."""
    if v._prev:
        raise RuntimeError("Value.__deepcopy__: only leaves can be deep-copied (as in PyTorch): "
                           "detach() it, or copy the leaves and build it again")
    memo = {} if memo is None else memo
    cls: Any = type(v)
    new = cls.__new__(cls)
    memo[id(v)] = new
    for name in _slots(type(v)):
        if hasattr(v, name):
            object.__setattr__(new, name, copy.deepcopy(getattr(v, name), memo))
    for name, attribute in getattr(v, '__dict__', {}).items():
        object.__setattr__(new, name, copy.deepcopy(attribute, memo))
    return new


def __reduce_ex__(v: Any, protocol: object = None) -> tuple[Any, ...]:
    """For pickle: rebuild v as a leaf (no parents, no op, no backward, grad 0) with its data, label and the
    other attributes of its class."""
    state = {name: getattr(v, name) for name in _slots(type(v)) if hasattr(v, name)}
    state.update(grad=0.0, _prev=(), _op='', _grad_fn=None)
    state.update(getattr(v, '__dict__', {}))
    return _rebuilt, (type(v), state)


def _rebuilt(cls: Any, state: dict[str, Any]) -> Any:
    new = cls.__new__(cls)
    for name, value in state.items():
        object.__setattr__(new, name, value)
    return new


def _slots(cls: type) -> list[str]:
    """The slot names of cls and its bases (Value's, and any a subclass declares), as stored: '__x' of class C
    is '_C__x'."""
    names = []
    for klass in cls.__mro__:
        slots = klass.__dict__.get('__slots__', ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name.startswith('__') and not name.endswith('__'):
                name = f"_{klass.__name__.lstrip('_')}{name}"
            if name not in ('__dict__', '__weakref__'):
                names.append(name)
    return names
