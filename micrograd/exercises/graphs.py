"""backward() checked, on both tracks, on graphs the checker makes with a backward of its own (so whatever the ops'
exercises are): the right gradients are the library's; a wrong one is named by the slip planted there that gives it."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

Gradients = dict[str, Any]  # every node's gradient, by its name in the graph

# Each op of the checker's graphs, on numbers or arrays: its forward, and what each parent gets from the node's
# gradient g. '+1' adds the number 1 (the scalar track's deep chain); a track may add its own.
OPS: dict[str, tuple[Callable[..., Any], Callable[..., list[Any]]]] = {
    '*': (lambda a, b: a * b, lambda g, a, b: [g * b, g * a]),
    '+': (lambda a, b: a + b, lambda g, a, b: [g, g]),
    '+1': (lambda a: a + 1.0, lambda g, a: [g]),
}


def make(graph: Any, leaf: Callable[[Any], Any], node: Callable[[str, list[Any]], Any]) -> dict[str, Any]:
    """A track's graph built: leaf(value) for each leaf, node(op, parents) for each node, by name."""
    nodes = {name: leaf(value) for name, value in graph.leaves.items()}
    for name, op, parents in graph.nodes:
        nodes[name] = node(op, [nodes[p] for p in parents])
    return nodes


def backpropagated(nodes: dict[str, Any], root: str, calls: int = 1, *seed: Any,
                   read: Callable[[Any], Any] = lambda grad: grad) -> Gradients:
    """Every node's gradient (as read reads it) after backward(*seed) is called calls times on root."""
    for _ in range(calls):
        nodes[root].backward(*seed)
    return {name: read(node.grad) for name, node in nodes.items()}


def changed(body: str, changes: dict[str, list[str]]) -> str:
    """A slip planted in a right body: each line that is one of changes' statements replaced by its lines."""
    lines = body.split('\n')
    assert set(changes) <= {line.strip() for line in lines}, f"not statements of the body: {set(changes)}"
    return '\n'.join(line[:len(line) - len(line.lstrip())] + new for line in lines
                     for new in changes.get(line.strip(), [line.strip()]))


def revisiting_sort(order: str) -> list[str]:
    """The lecture's build_topo without its visited set: a node reached along two paths is listed twice."""
    return [f'{order} = []', 'def build(v):', '    for p in v._prev:', '        build(p)', '    if v._prev:',
            f'        {order}.append(v)', 'build(self)']
