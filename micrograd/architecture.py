"""What a model's shape is made of, for micrograd.nn (Values) and micrograd.tensor.layers (Tensors) alike: the
activations a layer may apply, by name, and the rule for a layer's size.

It imports nothing of ours, so both engines' layers read it.
"""
from __future__ import annotations

import numbers
from collections.abc import Mapping, Set
from typing import Any

__all__ = ['ACTIVATIONS', 'checked_activation', 'checked_size', 'checked_sizes']

# An activation's name, as a layer takes it, and how a repr spells it ('ReLUNeuron(2)', as Karpathy's).
ACTIVATIONS = {'relu': 'ReLU', 'tanh': 'Tanh', 'sigmoid': 'Sigmoid', 'linear': 'Linear'}


def checked_activation(name: object, what: str, nonlin: object = True) -> str:
    """The activation a layer applies: name, checked to be one of ACTIVATIONS, or 'linear' (none) where nonlin
    (Karpathy's yes/no argument) is False. A nonlin that is no yes/no, as Neuron(2, 'tanh') makes it, is refused:
    it would silently mean ReLU."""
    if not isinstance(name, str) or name not in ACTIVATIONS:
        raise ValueError(f"{what}: activation is one of {tuple(ACTIVATIONS)}: {name!r}?")
    yes_no = type(nonlin) is bool or getattr(getattr(nonlin, 'dtype', None), 'kind', '') == 'b' \
        or (type(nonlin) is int and nonlin in (0, 1))
    if not yes_no:
        named = isinstance(nonlin, str) and nonlin in ACTIVATIONS
        hint = f"; for {nonlin}, pass activation={nonlin!r}" if named else ''
        raise TypeError(f"{what}: nonlin is True or False (whether to apply the activation), got "
                        f"{type(nonlin).__name__} {nonlin!r}{hint}")
    return name if nonlin else 'linear'


def checked_size(n: Any, what: str) -> int:
    """A number of inputs, outputs or neurons: a whole number of at least 1 (not 3.5, '3', True or 0). NumPy
    integers and 0-d integer arrays count as whole numbers."""
    kind = getattr(getattr(n, 'dtype', None), 'kind', '')
    if isinstance(n, bool) or not (isinstance(n, numbers.Integral) or (kind in ('i', 'u') and n.shape == ())):
        raise TypeError(f"{what}: sizes are whole numbers, got {type(n).__name__} {n!r}")
    if n < 1:
        raise ValueError(f"{what}: sizes must be at least 1, got {n}")
    return int(n)


def checked_sizes(nin: Any, nouts: Any, what: str) -> list[int]:
    """An MLP's sizes, [nin] + nouts: its number of inputs, then the size of each layer, e.g. 2 and [16, 16, 1]
    (a list, tuple or 1-d array of whole numbers >= 1)."""
    if isinstance(nouts, (str, bytes, Set, Mapping)) or not hasattr(nouts, '__len__') \
            or getattr(nouts, 'ndim', 1) != 1 or not len(nouts):
        raise ValueError(f"{what}: nouts must list the size of each layer, e.g. [16, 16, 1], got {nouts!r}")
    return [checked_size(nin, what)] + [checked_size(n, what) for n in nouts]
