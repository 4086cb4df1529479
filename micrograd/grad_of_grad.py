"""micrograd.grad, hessian and hvp: the derivatives of Values, handed back, and derivatives of those, to any order.

backward() adds each node's gradient into its .grad, as floats. grad() asks the same question of the inputs
you name and hands the answers back instead, leaving every .grad as it was (PyTorch's torch.autograd.grad):

- without create_graph it runs the engine's own closures, with every .grad of the graph saved before and put
  back after (an error half-way too), so its numbers are backward()'s, and the answers are leaves;
- with create_graph=True each answer is a graph of Values, built by the engine's ops from each op's local
  derivatives as micrograd/ops.py writes them: differentiate it again (grad of grad: a Hessian, a third
  derivative), or make a loss of it and call backward().

A custom op written the lecture's way (its closure adds floats) has no such record: grad() runs it to first
order, and create_graph=True through it is refused, naming the op, as PyTorch's once_differentiable is.
Nothing here is in engine.py: the engine's ops stay closures on floats, and backward() is as fast as before.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from types import CodeType
from typing import Any

from micrograd import ops
from micrograd.engine import Value, topological_order
from micrograd.grad_mode import recording
from micrograd.numeric import real
from micrograd.weighted_sum import ordered

__all__ = ['grad', 'hessian', 'hvp', 'UnusedInputError']


class UnusedInputError(RuntimeError, ValueError):
    """An input of grad() the outputs do not depend on: a RuntimeError, as PyTorch raises it, and a ValueError,
    as Python's own arguments of the wrong value are."""

Part = float | Value  # a gradient, or one part of one: a number when it is a constant
_ONE = Value(1.0)  # the weight of each part in a sum this module makes (Value.dot(parts, [_ONE, ...]))


def _closure(node: Value) -> tuple[Any, Callable[[], None]]:
    """The one place that touches a node's stored first-order closure: the closure itself (to tell whether it
    is the engine's) and a zero-argument call of it that hands it node.grad, as backward() does."""
    # Here, the engine keeps _backward(grad) as node._grad_fn (its _backward property wraps a lecture-style
    # closure, one that reads out.grad, in one).
    # An engine that keeps the lecture's zero-argument closure in node._backward needs only:
    # `fn = node._backward; return fn, fn`.
    fn = node._grad_fn
    return fn, lambda: fn(node.grad) if fn else None


def grad(outputs: Value | Sequence[Value], inputs: Value | Sequence[Value],
         grad_outputs: Value | float | Sequence[Value | float] | None = None, create_graph: bool = False,
         allow_unused: bool = False) -> list[Value | None]:
    """d(outputs)/d(input) for each input, in order, as torch.autograd.grad: a list of Values (None for an
    input the outputs do not use, with allow_unused=True). grad_outputs weights the outputs (1.0 each by
    default; numbers or Values). No .grad is changed. With create_graph=True the results are graphs that
    grad() and backward() can differentiate again (inside no_grad() too)."""
    outs, ins = _values(outputs, 'outputs'), _values(inputs, 'inputs')
    weights = _weights(grad_outputs, len(outs))
    order = _order(outs)
    reached = {*order, *outs, *(p for node in order for p in node._prev)}
    unused = [i for i, x in enumerate(ins) if x not in reached]
    if unused and not allow_unused:
        i = unused[0]
        name = repr(ins[i].label) if ins[i].label else f'inputs[{i}]'
        raise UnusedInputError(f"micrograd.grad: input {name} is not used by the outputs (no path from them to "
                               "it); pass allow_unused=True to get None for it")
    needed = set(ins)  # the nodes with a path down to an input: only these take a gradient
    for node in order:
        if any(p in needed for p in node._prev):
            needed.add(node)
    if create_graph:
        with _recording():  # the answers are graphs even inside no_grad(), as in PyTorch
            totals = _graphs(order, outs, weights, needed, set(ins))
        found = {x: _leaf_or_graph(totals.get(x, 0.0)) for x in ins if x in reached}
    else:
        found = {x: Value(g) for x, g in _numbers(order, outs, weights, needed, ins, reached).items()}
    return [found.get(x) for x in ins]


def hessian(f: Callable[[list[Value]], Value], inputs: Sequence[Value]) -> list[list[float]]:
    """H[i][j] = d2 f / d inputs[i] d inputs[j] at the inputs' values: f is called with the list of inputs and
    returns a Value. Each row is the gradient of one first derivative (a graph), so no .grad is changed."""
    xs, first = _first_derivatives(f, inputs, 'micrograd.hessian')
    return [_numbers_of(grad(g, xs, allow_unused=True)) if g is not None else [0.0] * len(xs)
            for g in first]


def hvp(f: Callable[[list[Value]], Value], inputs: Sequence[Value], v: Sequence[float | Value]) -> list[float]:
    """The Hessian of f at the inputs times the vector v, without the Hessian: the gradient of the sum of
    (df/dx_i) * v_i (one backward pass through the first derivatives' graph)."""
    xs, first = _first_derivatives(f, inputs, 'micrograd.hvp')
    if not ordered(v):
        raise TypeError(f"micrograd.hvp: v must be a list of numbers, one per input, got {type(v).__name__}")
    if len(v) != len(xs):
        raise ValueError(f"micrograd.hvp: v has {len(v)} numbers for {len(xs)} inputs")
    vs = [u.data if isinstance(u, Value) else real(u, 'micrograd.hvp', 'a number or a Value in v') for u in v]
    pairs = [(g, u) for g, u in zip(first, vs) if g is not None]
    if not pairs:
        return [0.0] * len(xs)
    with _recording():
        dot = Value.dot([g for g, _ in pairs], [u for _, u in pairs])
    return _numbers_of(grad(dot, xs, allow_unused=True))


# --- the two ways through the graph ----------------------------------------------------------------------

def _numbers(order: list[Value], outs: list[Value], weights: list[Part], needed: set[Value],
             ins: list[Value], reached: set[Value]) -> dict[Value, float]:
    """backward()'s gradients of the inputs: the engine's closures run with every .grad of the graph set to 0
    and the outputs' to their weights, then every .grad put back as it was (also when one raises)."""
    saved = {node: node.grad for node in reached}
    try:
        for node in reached:
            node.grad = 0.0
        for out, w in zip(outs, weights):
            out.grad += w.data if isinstance(w, Value) else w
        for node in reversed(order):
            if node in needed:  # (another node's closure would only add to nodes no input depends on)
                _closure(node)[1]()
        return {x: x.grad for x in ins if x in reached}
    finally:
        for node, g in saved.items():
            node.grad = g


def _graphs(order: list[Value], outs: list[Value], weights: list[Part], needed: set[Value],
            ins: set[Value]) -> dict[Value, Part]:
    """Each input's gradient as a graph: backward()'s walk, with each op's local derivatives from its record
    in micrograd/ops.py evaluated on Values. A part that is exactly zero is left out (no node for a dead
    ReLU), and a node's parts are added in one node."""
    parts: dict[Value, list[Part]] = {}
    for out, w in zip(outs, weights):
        parts.setdefault(out, []).append(w)
    totals: dict[Value, Part] = {}
    for node in reversed(order):
        if node not in parts or node not in needed:
            continue
        g = _sum(parts.pop(node))
        if node in ins:
            totals[node] = g
        for parent, local in _local_derivatives(node, needed):
            part = _times(g, local)
            if part is not None:
                parts.setdefault(parent, []).append(part)
    totals.update((x, _sum(p)) for x, p in parts.items() if x in ins)  # the leaves (and unreached outputs)
    return totals


def _local_derivatives(node: Value, needed: set[Value]) -> list[tuple[Value, Any]]:
    """(parent, d node / d parent) for each parent that leads to an input, from the op's record, evaluated
    on Values (x, y the parents, out the node itself, so that its derivatives flow on to any order)."""
    fn, _ = _closure(node)
    if fn is None:  # a node built by hand, without a backward: backward() passes nothing through it either
        return []
    op = _record(node, fn)
    if op is None:
        raise RuntimeError(f"micrograd.grad: create_graph=True cannot differentiate through the op "
                           f"{node._op!r} twice: its backward is a closure on floats (a custom op written the "
                           "lecture's way, or a backward replaced by hand), with no derivative that is itself "
                           "differentiable. Call grad() without create_graph, or build the op from the "
                           "engine's ops")
    prev = node._prev
    slots: list[tuple[Value, str, dict[str, Any]]]
    if op.name == 'dot':  # (*ws, *xs, bias): w's derivative is its x, x's its w, the bias's 1
        n = len(prev) // 2
        slots = [(prev[i], op.derivatives[0], {'w': prev[i], 'x': prev[n + i]}) for i in range(n)]
        slots += [(prev[n + i], op.derivatives[1], {'w': prev[i], 'x': prev[n + i]}) for i in range(n)]
        slots.append((prev[-1], op.derivatives[2], {}))
    else:
        names = {'x': prev[0], 'y': prev[1] if len(prev) > 1 else _exponent(node), 'out': node}
        slots = [(p, d, names) for p, d in zip(prev, op.derivatives)]
    return [(p, ops.evaluate(d, **names)) for p, d, names in slots if p in needed]


def _closure_codes() -> dict[CodeType, ops.Op]:
    """The code of each engine op's _backward closure (defined in the op's method, in engine.py or
    more_ops.py), with the op's record: a closure is the engine's only if its code is one of these."""
    codes: dict[CodeType, ops.Op] = {}
    for op in ops.OPS:
        for method in op.methods:
            function = getattr(Value, method)
            function = getattr(function, '__func__', function)  # (Value.dot is a classmethod)
            codes.update((c, op) for c in function.__code__.co_consts
                         if isinstance(c, CodeType) and c.co_name == '_backward')
    return codes


_CODES = _closure_codes()


def _record(node: Value, fn: Any) -> ops.Op | None:
    """The record of the engine's op whose closure fn is, or None for any other closure: the op's name
    alone may be a custom op's."""
    op = _CODES.get(getattr(fn, '__code__', None))  # type: ignore[arg-type]
    if op is None or not isinstance(node._op, str):
        return None
    return op if node._op == op.name or op.name == '**' and node._op.startswith('**') else None


def _exponent(node: Value) -> float | None:
    """k of a node x ** k, read back from its op's name ('**2', '**-0.5'), or None for any other op."""
    op = node._op
    if not op.startswith('**') or op == '**':
        return None
    try:
        return float(op[2:])
    except ValueError:  # (k as the user wrote it: a Fraction's '1/3' is no float's spelling)
        raise RuntimeError(f"micrograd.grad: create_graph=True cannot read the exponent of {op!r} back as a "
                           "number: write k as a float") from None


# --- parts of a gradient: numbers where they are constants, Values where they depend on something -------

def _times(g: Part, local: Any) -> Part | None:
    """g * local, None when local is exactly 0 (nothing flows), and no node when either is the number 1."""
    if local is _ONE:
        local = 1.0
    if not isinstance(local, Value):
        if local == 0:
            return None
        return g if local == 1 else g * float(local)
    if not isinstance(g, Value) and g == 1:
        return local
    return g * local


def _sum(parts: list[Part]) -> Part:
    """The parts added in one node (Value.dot of the Values and ones, the numbers as its bias)."""
    values = [p for p in parts if isinstance(p, Value)]
    numbers = [p for p in parts if not isinstance(p, Value)]
    if not values:
        return sum(numbers, 0.0)
    if len(values) == 1 and not numbers:
        return values[0]
    return Value.dot(values, [_ONE] * len(values), sum(numbers, 0.0) if numbers else None)


def _leaf_or_graph(g: Part) -> Value:
    return g if isinstance(g, Value) else Value(g)


# --- arguments ---------------------------------------------------------------------------------------------

def _values(v: Any, what: str) -> list[Value]:
    listed = [v] if isinstance(v, Value) else list(v) if isinstance(v, (list, tuple)) else None
    if not listed or not all(isinstance(x, Value) for x in listed):
        got = 'an empty sequence' if listed == [] else f'{type(v).__name__} {v!r}'[:80]
        raise TypeError(f"micrograd.grad: {what} must be a Value or a non-empty list or tuple of Values, "
                        f"got {got}")
    return listed


def _weights(grad_outputs: Any, n: int) -> list[Part]:
    if grad_outputs is None:
        return [1.0] * n
    listed = grad_outputs if isinstance(grad_outputs, (list, tuple)) else [grad_outputs]
    if len(listed) != n:
        raise ValueError(f"micrograd.grad: {len(listed)} grad_outputs for {n} outputs")
    return [w if isinstance(w, Value) else real(w, 'micrograd.grad', 'a number or a Value in grad_outputs')
            for w in listed]


def _order(outs: list[Value]) -> list[Value]:
    """The nodes the outputs were made from, each after its parents (the engine's sort, for each output)."""
    order: dict[Value, None] = {}
    for out in outs:
        order.update(dict.fromkeys(topological_order(out)))
    return list(order)


def _first_derivatives(f: Callable[[list[Value]], Value], inputs: Sequence[Value],
                       name: str) -> tuple[list[Value], list[Value | None]]:
    xs = list(inputs) if isinstance(inputs, (list, tuple)) else None
    if not xs or not all(isinstance(x, Value) for x in xs):
        raise TypeError(f"{name}: inputs must be a non-empty list of Values, got {inputs!r}"[:200])
    with _recording():
        out = f(xs)
    if not isinstance(out, Value):
        raise TypeError(f"{name}: f must return a Value, got {type(out).__name__}")
    return xs, grad(out, xs, create_graph=True, allow_unused=True)


def _numbers_of(gs: list[Value | None]) -> list[float]:
    return [0.0 if g is None else g.data for g in gs]


class _recording:
    """Ops record the graph inside it, even within no_grad()."""

    def __enter__(self) -> None:
        self._token = recording.set(True)

    def __exit__(self, *exc: object) -> None:
        recording.reset(self._token)
