"""Driving a learner's Value as the library would, in either convention (the workspace's _backward(grad), the
lecture's _backward() reading out.grad), by the checker's own sort and loop: an op is checked whatever backward() is."""
from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from micrograd import engine as library
from micrograd.engine import topological_order
from micrograd.exercises.lines import Event
from micrograd.exercises.numbers import central_difference, close
from micrograd.exercises.scalar.exercises import Case, find
from micrograd.exercises.scalar.places import output_lines

Graph = tuple[dict[str, Any], dict[str, Any], Any]  # (leaves, operands, out) of a case, its operands made by ops


def takes_grad(fn: Callable[..., Any]) -> bool:
    """Whether a node's _backward wants the output's grad (this library) or reads out.grad (the lecture)."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters)


def backpropagate(out: Any, grad: float = 1.0) -> None:
    """The chain rule from out, calling each node's _backward in whichever convention it has."""
    order = topological_order(out)
    for node in order:
        node.grad = 0.0
    out.grad = grad
    for node in reversed(order):
        fn = node._backward
        fn(node.grad) if takes_grad(fn) else fn()


@dataclass
class Run:
    """One case run with one Value class (and, with its operands made by ops, what the wiring check reads)."""
    grads: dict[str, float] | None = None
    data: float | None = None
    error: BaseException | None = None
    built: bool = True
    op: object = None   # the output's _op: '/' for a division of its own, '*' for the lecture's x * y**-1
    lines: tuple[str, str] = ('', '')  # the learner's lines that made and returned out
    graphs: list[Graph] = field(default_factory=list)  # one backpropagated, one left for backward()
    events: list[Event] = field(default_factory=list)  # the learner's closures' lines as it ran, where traced


def run_case(case: Case, value_class: Any, backward: Callable[[Any, float], None] = backpropagate,
             made: tuple[str, ...] = ()) -> Run:
    """case built with value_class (made: the op's methods, its operands made by ops), backpropagated by backward."""
    kept: dict[str, Any] = {}
    try:
        if made:
            built: list[Graph] = []
            lines = output_lines(value_class, made, lambda: built.append(build(case, value_class)))
            built.append(build(case, value_class))
            (leaves, _, out), kept = built[0], {'lines': lines, 'graphs': built}
        else:
            leaves, out = case.build(value_class)
    except Exception as error:  # noqa: BLE001 -- a Value that cannot make this input
        return Run(error=error, built=False)
    try:
        backward(out, case.grad)
        return Run({name: leaf.grad for name, leaf in leaves.items()}, out.data, op=getattr(out, '_op', None), **kept)
    except Exception as error:  # noqa: BLE001 -- RecursionError too: reported with the line that raised it
        return Run(error=error, data=out.data, op=getattr(out, '_op', None), **kept)


_EXPECTED: dict[tuple[str, bool], tuple[Run, dict[str, float]]] = {}


def library_numbers(case: Case) -> tuple[Run, dict[str, float]]:
    """The library's gradients for a case, and the central differences of its forward pass."""
    if (case.text(), case.kink) not in _EXPECTED:
        fd: dict[str, float] = {}
        for leaf in case.leaves if not case.kink else ():
            def value(x: float, leaf: str = leaf) -> float:
                return float(case.build(library.Value, {**case.leaves, leaf: x})[1].data)
            fd[leaf] = case.grad * central_difference(value, case.leaves[leaf]) + case.prior.get(leaf, 0.0)
        _EXPECTED[case.text(), case.kink] = run_case(case, library.Value), fd
    return _EXPECTED[case.text(), case.kink]


def wrong_leaves(case: Case, grads: dict[str, float] | None) -> list[str]:
    """The leaves whose gradient in grads is not the library's (which a test holds to central differences)."""
    want = library_numbers(case)[0].grads or {}
    return [k for k, g in (grads or {}).items() if not close(g, want[k])]


def expected(name: str, index: int) -> tuple[Run, dict[str, float]]:
    """library_numbers of an op exercise's case, by its index."""
    return library_numbers(find(name).cases[index])


def workspace_convention(value_class: Any) -> bool:
    """Whether value_class's ops hand their closure over as _grad_fn (the library's), not as out._backward."""
    return isinstance(inspect.getattr_static(value_class, '_backward', None), property)


def hand_node(value_class: Any, data: float, parents: list[Any], local: list[float], op: str) -> Any:
    """A node of value_class whose _backward (the checker's) adds local[i] * grad to parents[i], whatever its ops."""
    node = value_class(data, tuple(parents), op)

    def _backward(*grad: float) -> None:  # either convention: _backward(grad) or _backward()
        g = grad[0] if grad else node.grad
        for parent, d in zip(parents, local):
            parent.grad += d * g
    setattr(node, '_grad_fn' if workspace_convention(value_class) else '_backward', _backward)  # (the convention's)
    return node


def build(case: Case, value_class: Any) -> Graph:
    """The case with each operand made by an op: the leaves x0, y0, the operands made from them (x = x0 + 0), out."""
    roots = {name: value_class(v) for name, v in case.leaves.items()}
    made = {name: hand_node(value_class, v, [roots[name]], [1.0], '+') for name, v in case.leaves.items()}
    namespace: dict[str, Any] = {'Value': value_class, **made}
    exec(case.code, namespace)
    return roots, made, namespace['out']


def closure_of(node: Any) -> Any:
    """The backward an op attached to its output (_grad_fn, or an out._backward not every new Value's), or None."""
    if workspace_convention(type(node)):
        return getattr(node, '_grad_fn', None)
    fn = getattr(node, '_backward', None)
    try:
        default = type(node)(0.0)._backward
    except Exception:  # noqa: BLE001 -- a Value that cannot make a leaf: the closure is taken as attached
        return fn
    return None if fn is None or getattr(fn, '__code__', None) is getattr(default, '__code__', False) else fn


def reaches(out: Any, targets: list[Any]) -> bool:
    """Whether every target is in the graph out was made from."""
    seen, stack = set(), [out]
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            seen.add(id(node))
            stack.extend(getattr(node, '_prev', ()))
    return all(id(t) in seen for t in targets)
