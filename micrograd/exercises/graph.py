"""The library's sort, on the graph of any engine's nodes (a learner's Value, the lecture's, a learner's
Tensor): both tracks backpropagate with it, so that each op is checked before (and whatever) the learner's
backward() is."""
from __future__ import annotations

from typing import Any


def order_of(root: Any) -> list[Any]:
    """The nodes ops made on the way to root (those with parents), each after its parents."""
    order, visited, stack = [], set(), [(root, False)]
    while stack:
        node, placed = stack.pop()
        if placed:
            order.append(node)
        elif id(node) not in visited and getattr(node, '_prev', None):
            visited.add(id(node))
            stack.append((node, True))
            stack.extend((parent, False) for parent in node._prev)
    return order
