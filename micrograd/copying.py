"""Copying a Value: `copy.deepcopy` copies leaves only, as PyTorch does.

An op's Value holds a backward that writes into its parents. A deep copy of it would still write into the
original graph's leaves, not the copies' (the backward closes over the originals), so it is refused. A copy
of a model is a copy of its leaves (its parameters), which deepcopy makes as expected.
"""
from __future__ import annotations

from typing import Any


def copy_leaf(v: Any, memo: dict[int, Any] | None = None) -> Any:
    """A new Value with v's data, grad and label, for a leaf v; a RuntimeError for one an op made."""
    if v._prev:
        raise RuntimeError("Value.__deepcopy__: only leaves can be deep-copied (as in PyTorch): "
                           "detach() it, or copy the leaves and build it again")
    copy = type(v)(v.data, label=v.label)
    copy.grad = v.grad
    return copy
