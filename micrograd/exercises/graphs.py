"""backward() checked on graphs the checker makes node by node, the same way on both tracks. A graph is a few
leaves and nodes (name, op, parents); each node's backward is the checker's, so backward() is checked before (and
whatever) the ops' exercises are. The right gradients are those the library's backward() leaves on the same
graph; wrong ones are named by the slip that, planted in the library's backward(), leaves the same numbers. A
track gives only its arithmetic: how a leaf and a node are made, how a gradient is read, when two are the same."""
from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from typing import Any

Gradients = dict[str, Any]  # every node's gradient, by its name in the graph

# Each op of the checker's graphs, on numbers or arrays: its forward, and what each parent gets from the node's
# gradient g. '+1' adds the number 1 (the scalar track's deep chain); a track may add its own.
Op = tuple[Callable[..., Any], Callable[..., list[Any]]]
OPS: dict[str, Op] = {
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
    """body with every line that is one of changes' statements replaced by its lines, at that line's indentation:
    a slip planted in a right body."""
    lines = body.split('\n')
    if not set(changes) <= {line.strip() for line in lines}:
        raise LookupError(f"not a statement of the body: {set(changes) - {line.strip() for line in lines}}")
    return '\n'.join(line[:len(line) - len(line.lstrip())] + new for line in lines
                     for new in changes.get(line.strip(), [line.strip()]))


def revisiting_sort(order: str) -> list[str]:
    """The lecture's build_topo without its visited set, listing into order: a node reached along two paths is
    listed twice, so its backward runs twice."""
    return [f'{order} = []', 'def build(v):', '    for p in v._prev:', '        build(p)', '    if v._prev:',
            f'        {order}.append(v)', 'build(self)']


def named(got: Gradients, slips: Iterable[tuple[str, Callable[[], Gradients]]],
          same: Callable[[Gradients, Gradients], bool]) -> str:
    """The first slip whose gradients (the library's backward() with it planted, on the same graph) are got:
    its key, else 'wrong'."""
    for key, gradients in slips:
        with contextlib.suppress(Exception):  # (a slip that raises on this graph is not the learner's)
            if same(got, gradients()):
                return key
    return 'wrong'
