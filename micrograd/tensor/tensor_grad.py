"""grad(), hessian() and hvp(): gradients handed back as Tensors, as torch.autograd.grad, instead of added to .grad.

    grad(outputs, inputs, grad_outputs=None, create_graph=False, allow_unused=False)

d(outputs)/d(inputs), one Tensor per input, in order, weighted by grad_outputs (a one-element output needs
none: its weight is 1). No .grad changes, of any tensor, even if grad() refuses. Two ways, one each:

- create_graph=False: the ops' own NumPy closures run, as in backward(), with every .grad they touch saved
  first and put back after; the results are plain tensors, no graph. Every op works this way.
- create_graph=True: each op's gradient is built again in Tensor ops (vjp_rules.py), so the results are
  graphs: grad of grad, and backward() through them (a gradient penalty trained with an optimizer). An op
  without such a rule is refused by name. It records even inside no_grad(), as PyTorch's does.

hessian(f, x) and hvp(f, x, v) are second derivatives of f(x), a one-element Tensor, for a 1-D float64
Tensor x that requires grad: H as an (n, n) array, H @ v as an (n,) array.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np

from micrograd.engine import topological_order
from micrograd.grad_mode import recording
from micrograd.tensor.checks import flag, real_array
from micrograd.tensor.dtypes import Array
from micrograd.tensor.node import ArrayLike, Node
from micrograd.tensor.tensor import Tensor
from micrograd.tensor.vjp_rules import READS_INPUTS, RULES, add_parts, captured, inputs_of, sum_to

__all__ = ['grad', 'hessian', 'hvp']

Tensors = Tensor | Sequence[Tensor]
GradOutputs = Tensor | ArrayLike | Sequence[Tensor | ArrayLike | None] | None  # one weight, or one per output


class _Outputs:
    """The outputs as the parents of one node: the one sort then orders everything that leads to any of them."""
    __slots__ = ('_prev',)

    def __init__(self, outputs: Sequence[Tensor]):
        self._prev = tuple(outputs)


def _order(outputs: Sequence[Tensor]) -> list[Tensor]:
    """The tensors ops made on the way to the outputs, each after its parents (as Tensor._topological_order)."""
    root = _Outputs([t for t in outputs if t._prev])
    sort = cast(Callable[[Any], list[Any]], topological_order)
    order = sort(root)[:-1]  # (the root itself comes last)
    while Node._last_rebase and any([node._keep_versions_apart() for node in order]):
        order = sort(root)[:-1]
    return order


def _tensors(given: object, what: str) -> list[Tensor]:
    items = [given] if isinstance(given, Tensor) else list(given) if isinstance(given, (list, tuple)) else None
    if not items or not all(isinstance(t, Tensor) for t in items):
        raise TypeError(f"grad: {what} must be a Tensor or a non-empty sequence of Tensors, got "
                        f"{type(given).__name__}")
    return cast(list[Tensor], items)


def _weights(outputs: list[Tensor], grad_outputs: GradOutputs) -> list[Tensor]:
    """Each output's weight, as a Tensor of its shape: 1 for a one-element output given none."""
    if grad_outputs is None:
        given: list[object] = [None] * len(outputs)
    elif isinstance(grad_outputs, (list, tuple)) and (len(outputs) > 1 or len(grad_outputs) == 1):
        given = list(grad_outputs)  # one per output (Tensors, arrays, numbers or None)
    else:  # a Tensor, an array, a list of numbers or a number: the one output's weight
        given = [grad_outputs]
    if len(given) != len(outputs):
        raise ValueError(f"grad: {len(outputs)} outputs but {len(given)} grad_outputs")
    weights = []
    for i, (out, w) in enumerate(zip(outputs, given)):
        if w is None:
            if out.data.size != 1:
                raise RuntimeError(f"grad: output {i} has shape {out.shape}, not one number, so its weight cannot "
                                   f"be 1 (PyTorch: 'grad can be implicitly created only for scalar outputs'); "
                                   f"pass grad_outputs, or reduce the output to a scalar (out.sum())")
            weights.append(Tensor._constant(np.ones_like(out.data)))
            continue
        weight = w if isinstance(w, Tensor) else Tensor._constant(real_array(cast(ArrayLike, w), 'grad'))
        if weight.shape != out.shape:
            raise RuntimeError(f"grad: grad_outputs[{i}] has shape {weight.shape} and outputs[{i}] has shape "
                               f"{out.shape}: they must match (PyTorch: 'Mismatch in shape')")
        weights.append(weight if weight.data.dtype == out.data.dtype else weight.astype(out.data.dtype))
    return weights


def grad(outputs: Tensors, inputs: Tensors, grad_outputs: GradOutputs = None, create_graph: bool = False,
         allow_unused: bool = False) -> list[Tensor | None]:
    """d(outputs)/d(inputs): one Tensor per input, in order (see the module's docstring). An input the outputs do
    not depend on is refused, naming its position, unless allow_unused=True (its entry is then None)."""
    outs, ins = _tensors(outputs, 'outputs'), _tensors(inputs, 'inputs')
    create_graph = flag(create_graph, 'create_graph', 'grad')
    allow_unused = flag(allow_unused, 'allow_unused', 'grad')
    for i, out in enumerate(outs):
        if not out.requires_grad:
            raise RuntimeError(f"grad: outputs[{i}] does not require grad (it was made from tensors with "
                               f"requires_grad=False, or under no_grad()), so it has no gradient")
    for i, t in enumerate(ins):
        if not t.requires_grad:
            raise RuntimeError(f"grad: inputs[{i}] does not require grad, so nothing can depend on it "
                               f"(make it with requires_grad=True)")
    weights = _weights(outs, grad_outputs)
    order = _order(outs)
    for node in order:  # the checks of backward(): refused before anything is computed
        node._check_unchanged()
    reached = {*order, *(p for node in order for p in node._prev), *outs}
    for i, t in enumerate(ins):
        if t not in reached and not allow_unused:
            raise RuntimeError(f"grad: inputs[{i}] (shape {t.shape}) is not used by the outputs, so it has no "
                               f"gradient; pass allow_unused=True to get None for it")
    found = _graph_gradients(order, outs, weights, ins) if create_graph else _gradients(order, outs, weights, ins)
    zero = [Tensor._constant(np.zeros_like(t.data)) for t in ins]  # (reached only through zero slopes: 0)
    return [None if t not in reached else found[t] if t in found else z for t, z in zip(ins, zero)]


def _gradients(order: list[Tensor], outputs: list[Tensor], weights: list[Tensor],
               inputs: list[Tensor]) -> dict[Tensor, Tensor]:
    """The ops' own closures, as backward() runs them, on .grad fields saved first and put back after."""
    touched = {*order, *(p for node in order for p in node._prev), *outputs}
    saved = {t: t.grad for t in touched}
    try:
        for t in touched:
            t.grad = None
        for out, weight in zip(outputs, weights):
            out._add_grad(weight.data)
        with np.errstate(all='ignore'):
            for node in reversed(order):
                if node.grad is not None and node._backward is not None:
                    node._backward(node.grad)
        # (a leaf's .grad is an array of its own, _add_grad's rule; an op's output's may be shared with another's)
        return {t: Tensor._constant(np.array(t.grad) if t._prev else t.grad) for t in inputs if t.grad is not None}
    finally:
        for t, g in saved.items():
            t.grad = g


def _graph_gradients(order: list[Tensor], outputs: list[Tensor], weights: list[Tensor],
                     inputs: list[Tensor]) -> dict[Tensor, Tensor]:
    """The gradients as graphs: each op's rule in Tensor ops, in reverse topological order, the parts that reach
    a tensor summed in one node when its turn comes."""
    for node in order:
        backward = _unrouted(node)
        rule = RULES.get(backward.__code__)
        if rule is None:
            raise RuntimeError(f"grad: '{node._op}' has no rule for create_graph=True (its gradient is computed on "
                               f"NumPy arrays only, like PyTorch's once_differentiable), so its gradient cannot "
                               f"be differentiated again; create_graph=False still works through it")
        if rule in READS_INPUTS:
            for i, p in enumerate(inputs_of(node)):
                change = p._last_change()
                if change is not None and change[0] > node._ran_at:
                    raise RuntimeError(f"grad: '{node._op}' reads its input {i + 1} for a gradient that can be "
                                       f"differentiated again, and that tensor was changed in place afterwards (by "
                                       f"{change[2]}); change it after grad(), or keep a copy first (x.clone())")
    parts: dict[Tensor, list[Tensor]] = {}
    for out, weight in zip(outputs, weights):
        parts.setdefault(out, []).append(weight)
    wanted, found = set(inputs), {}
    needed = set(wanted)  # the tensors with a path down to an input: only these take a gradient
    for node in order:
        if any(p in needed for p in node._prev):
            needed.add(node)
    token = recording.set(True)  # (PyTorch records create_graph's graph even inside no_grad())
    try:
        with np.errstate(all='ignore'):
            for node in reversed(order):
                if node not in parts or node not in needed:
                    continue  # (every part that reached it was exactly zero, or no input lies beneath it)
                g = add_parts(parts.pop(node))
                if node in wanted:
                    found[node] = g
                backward = _unrouted(node)
                for p, part in zip(inputs_of(node), RULES[backward.__code__](node, g, captured(backward))):
                    if part is not None and p in needed:  # (p as the op took it: inputs_of)
                        part = sum_to(part, p.shape)
                        if part.data.dtype != p.data.dtype:
                            part = part.astype(p.data.dtype)
                        parts.setdefault(p, []).append(part)
            for t, got in parts.items():  # the leaves (and outputs that are no op's)
                if t in wanted:
                    found[t] = add_parts(got)
    finally:
        recording.reset(token)
    return found


def _unrouted(node: Node) -> Callable[..., Any]:
    """The op's own closure, under the router that sends a gradient to what a tensor was before a change in
    place (node.py's _keep_versions_apart)."""
    backward = node._backward
    assert backward is not None
    while backward.__name__ == 'routed':
        backward = captured(backward)['backward']
    return backward


# --- second derivatives of a function of one vector ---

def _checked(f: Callable[[Tensor], Tensor], x: Tensor, name: str) -> Tensor:
    """f(x)'s gradient with respect to x, as a graph, after checking x and f(x)."""
    if not isinstance(x, Tensor) or x.ndim != 1 or x.data.dtype != np.float64 or not x.requires_grad:
        what = f"{type(x).__name__}" if not isinstance(x, Tensor) else f"shape {x.shape}, dtype {x.data.dtype}, " \
            f"requires_grad={x.requires_grad}"
        raise TypeError(f"{name}: x must be a 1-D float64 Tensor with requires_grad=True, got {what}")
    y = f(x)
    if not isinstance(y, Tensor) or y.data.size != 1:
        raise TypeError(f"{name}: f(x) must return a one-element Tensor, got "
                        f"{type(y).__name__ if not isinstance(y, Tensor) else f'shape {y.shape}'}")
    if not y.requires_grad:
        return Tensor._constant(np.zeros_like(x.data))
    (g,) = grad(y, x, create_graph=True, allow_unused=True)
    return g if g is not None else Tensor._constant(np.zeros_like(x.data))


def hessian(f: Callable[[Tensor], Tensor], x: Tensor) -> Array:
    """The (n, n) matrix of f's second derivatives at x: H[i, j] = d2 f / dx_i dx_j (f(x) one number)."""
    g = _checked(f, x, 'hessian')
    rows = np.zeros((x.data.size, x.data.size))
    if g.requires_grad:
        for i in range(x.data.size):
            (row,) = grad(g, x, grad_outputs=np.eye(x.data.size)[i], allow_unused=True)
            if row is not None:
                rows[i] = row.data
    return rows


def hvp(f: Callable[[Tensor], Tensor], x: Tensor, v: Tensor | ArrayLike) -> Array:
    """H @ v, the Hessian of f at x times v, without making H: the gradient of (grad f . v)."""
    g = _checked(f, x, 'hvp')
    vector = real_array(v.data if isinstance(v, Tensor) else v, 'hvp').astype(np.float64)
    if vector.shape != x.shape:
        raise ValueError(f"hvp: v has shape {vector.shape}, x has shape {x.shape}: they must match")
    if not g.requires_grad:
        return np.zeros_like(x.data)
    (product,) = grad(g, x, grad_outputs=vector, allow_unused=True)
    return np.zeros_like(x.data) if product is None else product.data
