"""Each op's gradient once more, in Tensor ops: what grad(create_graph=True) builds its graph from.

An op's `_backward` closure (tensor.py and the op families) computes its parents' gradients on NumPy
arrays, fast, and builds no graph: right for backward(), but a gradient made that way cannot be
differentiated again. Here each op's vector-Jacobian product is written in Tensor ops instead, so that
the gradient is itself a graph (grad of grad, a gradient penalty trained with backward()).

A rule takes the op's output tensor (its inputs: `inputs_of`), the gradient arriving at it (a Tensor)
and what the op's closure captured (its axis, its index, its mask: `captured`), and returns one part
for each input, None where it has none (an input without gradient, or a part that is exactly zero,
such as a dead relu's: no node is made for it). A part may keep broadcasting's shape: the caller sums
it to the input's shape (`sum_to`).

RULES is keyed by the code of each op's `_backward`, found in the op's method: an op without a rule,
or a custom op whose closure someone wrote, is found by that and refused by name, never differentiated
wrongly. Two ops are new here, as the gradients of others need them: `scatter` (the gradient of an
index, as an op) and `add_parts` (the parts that reach one tensor, summed in one node). The changes in
place (inplace.py) have rules too: a graph changed in place while recording is differentiated twice.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from types import CodeType
from typing import Any, cast

import numpy as np

from micrograd.tensor import functional, inplace, reductions, shapes, unary
from micrograd.tensor.dtypes import Array
from micrograd.tensor.tensor import Tensor, where

Part = Tensor | None
Rule = Callable[[Tensor, Tensor, dict[str, Any]], Sequence[Part]]


def captured(backward: Callable[..., Any]) -> dict[str, Any]:
    """What a closure holds, by the names its code gives them (an op's axis, index or mask)."""
    cells = backward.__closure__ or ()
    return {name: cell.cell_contents for name, cell in zip(backward.__code__.co_freevars, cells)}


def inputs_of(out: Tensor) -> tuple[Tensor, ...]:
    """The tensors the op that made out took, in order, each as it was when the op ran (a tensor changed in place
    while recording since is a new node; its old self is kept: node.py's histories)."""
    return tuple(cast(Tensor, p._as_of(out._ran_at)) for p in out._inputs)


# --- shapes of gradients ---

def sum_to(t: Tensor, shape: tuple[int, ...]) -> Tensor:
    """t summed over the axes broadcasting stretched to make t's shape from shape (the NumPy unbroadcast)."""
    if t.shape == shape:
        return t
    extra = t.ndim - len(shape)
    stretched = (*range(extra), *(extra + i for i, n in enumerate(shape) if n == 1 and t.shape[extra + i] != 1))
    return (t.sum(axis=stretched, keepdims=True) if stretched else t).reshape(shape)


def expand(t: Tensor, shape: tuple[int, ...]) -> Tensor:
    """t broadcast to shape: t + zeros, whose gradient is summed back to t's shape by +'s own rule."""
    if t.shape == shape:
        return t
    return t + Tensor._constant(np.zeros(shape, dtype=t.data.dtype))


def masked(g: Tensor, keep: Array) -> Part:
    """g where keep is True and 0 elsewhere (relu, masked_fill, clamp, where): g itself if keep holds everywhere,
    None (no node) if nowhere."""
    keep = np.asarray(keep, dtype=bool)
    if keep.all() and np.broadcast_shapes(keep.shape, g.shape) == g.shape:
        return g
    if not keep.any():
        return None
    return expand(g, np.broadcast_shapes(keep.shape, g.shape)).masked_fill(~keep, 0)


def scatter(g: Tensor, picked: Any, shape: tuple[int, ...]) -> Tensor:
    """zeros(shape) with g added at [picked], once per repeated index: the gradient of t[picked], as an op."""
    full = np.zeros(shape, dtype=g.data.dtype)
    np.add.at(full, picked, g.data)

    def _backward(grad: Array) -> None:  # d full/d g: the places g went to, read back
        g._add_grad(grad[picked])
    return Tensor._result(full, (g,), 'scatter', _backward, reads=())


def add_parts(parts: Sequence[Tensor]) -> Tensor:
    """The parts of one tensor's gradient, summed in one node (a tensor used n times gets n parts)."""
    if len(parts) == 1:
        return parts[0]
    total = parts[0].data
    for p in parts[1:]:
        total = total + p.data

    def _backward(grad: Array) -> None:  # d(sum of parts)/d(part) = 1
        for p in parts:
            if p.requires_grad:
                p._add_grad(grad)
    return Tensor._result(total, tuple(parts), 'add_parts', _backward, reads=())


def _minus(part: Part) -> Part:
    return None if part is None else -part


def _needs(t: Tensor, part: Callable[[], Part]) -> Part:
    """part(), made only if t needs a gradient."""
    return part() if t.requires_grad else None


# --- the rules: arithmetic ---

def _add(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # d(x+y)/dx = d(x+y)/dy = 1
    return g, g


def _sub(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # d(x-y)/dx = 1, d(x-y)/dy = -1
    return g, -g if inputs_of(out)[1].requires_grad else None


def _mul(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # d(xy)/dx = y, d(xy)/dy = x
    x, y = inputs_of(out)
    return _needs(x, lambda: g * y), _needs(y, lambda: g * x)


def _div(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # d(x/y)/dx = 1/y, d(x/y)/dy = -x/y**2
    x, y = inputs_of(out)
    return _needs(x, lambda: g / y), _needs(y, lambda: -g * x / (y * y))


def _pow(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # k x**(k-1), and x**k log(x) for k
    x, k = inputs_of(out)
    kd = k.data

    def base() -> Part:  # x**0 is constant: slope 0 (no node), as PyTorch's
        if kd.ndim == 0 and not k.requires_grad:
            e = kd.item()
            return None if e == 0 else g * (x ** (e - 1) * e)
        return masked(g * (k * x ** (k - 1)), kd != 0)

    def exponent() -> Part:  # log(x): -inf at 0, nan below, as PyTorch's; 0 at x = 0 for k >= 0
        xd = x.data
        logs = x.masked_fill(xd <= 0, 1.0).log().masked_fill(xd < 0, math.nan).masked_fill(xd == 0, -math.inf)
        return masked(g * out * logs, ~((xd == 0) & (kd >= 0)))
    return _needs(x, base), _needs(k, exponent)


def _neg(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # d(-x)/dx = -1
    return (-g,)


def _matmul(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # dA = g @ B^T, dB = A^T @ g
    a, b = inputs_of(out)
    # A vector acts as a 1-row (a) or 1-column (b) matrix whose axis the output dropped: put it back.
    a2 = a.reshape(1, -1) if a.ndim == 1 else a
    b2 = b.reshape(-1, 1) if b.ndim == 1 else b
    g2 = g.reshape(np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2]) + (a2.shape[-2], b2.shape[-1]))

    def db() -> Tensor:
        if b2.ndim == 2 and a2.ndim > 2:  # a batch of rows against one matrix: one product over all the rows
            return (a2.reshape(-1, a2.shape[-1]).T @ g2.reshape(-1, b2.shape[-1])).reshape(b.shape)
        return sum_to(a2.swapaxes(-1, -2) @ g2, b2.shape).reshape(b.shape)
    return _needs(a, lambda: sum_to(g2 @ b2.swapaxes(-1, -2), a2.shape).reshape(a.shape)), _needs(b, db)


def _where(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # 1 where the condition picks it, else 0
    a, b = inputs_of(out)
    return _needs(a, lambda: masked(g, c['cond'])), _needs(b, lambda: masked(g, ~c['cond']))


# --- reductions ---

def _kept_axes(x: Tensor, g: Tensor, c: dict[str, Any]) -> Tensor:
    """A reduction's gradient with the reduced axes back, of length 1, then broadcast to x's shape."""
    ax = c['ax']
    shape = tuple(1 if ax is None or i in ax else n for i, n in enumerate(x.shape))
    return expand(g.reshape(shape), x.shape)


def _sum(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # d(sum x)/dx_i = 1
    return (_kept_axes(inputs_of(out)[0], g, c),)


def _mean(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # d(mean x)/dx_i = 1/n
    return (_kept_axes(inputs_of(out)[0], g, c) / c['n'],)


def _extreme(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # 1/(number of ties) at the extremes
    x, top = c['x'], c['top']
    is_top = (x == top) | (np.isnan(x) if np.isnan(top).any() else False)
    share = np.where(is_top, 1 / is_top.sum(axis=c['ax'], keepdims=True), 0).astype(x.dtype)
    return (expand(g.reshape(top.shape), x.shape) * share,)


# --- functions of one tensor ---

def _exp(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # d e**x/dx = e**x
    return (g * out,)


def _log(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # d log(x)/dx = 1/x
    return (g / inputs_of(out)[0],)


def _tanh(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # d tanh(x)/dx = 1 - tanh(x)**2
    return (g * (1 - out * out),)


def _sigmoid(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # d sigmoid(x)/dx = s (1 - s)
    return (g * (out * (1 - out)),)


def _relu(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # 1 for x > 0, 0 for x <= 0
    return (masked(g, c['passes']),)


def _abs(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # 1 for x > 0, -1 for x < 0, 0 at 0
    above, below = masked(g, c['x'] > 0), _minus(masked(g, c['x'] < 0))
    return (above if below is None else below if above is None else above + below,)


def _clamp(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # 1 inside [min, max], 0 where clamped
    return (masked(g, c['inside']),)


def _softmax(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # ds_i/dx_j = s_i (1[i=j] - s_j)
    return (out * (g - (g * out).sum(axis=c['ax'], keepdims=True)),)


def _log_softmax(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # 1[i=j] - softmax(x)_j
    return (g - out.exp() * g.sum(axis=c['ax'], keepdims=True),)


def _same(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # d x/dx = 1 (clone, astype)
    return (g.astype(inputs_of(out)[0].data.dtype) if g.data.dtype != inputs_of(out)[0].data.dtype else g,)


# --- shapes ---

def _reshape(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # the numbers back in the old shape
    return (g.reshape(inputs_of(out)[0].shape),)


def _permute(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # every number back where it came from
    return (g.permute(*c['undo']),)


def _swapaxes(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # the same two axes swapped back
    return (g.swapaxes(c['a1'], c['a2']),)


def _getitem(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # the picked places get g, others 0
    return (scatter(g, c['picked'], inputs_of(out)[0].shape),)


def _scatter(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # the places g went to, read back
    return (g[c['picked']],)


def _masked_fill(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # 1 where kept, 0 where filled
    return (masked(g, c['keep']),)


def _view(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # a view's numbers are its base's at `at`
    base = inputs_of(out)[0]
    return (scatter(g.reshape(-1), c['at'].reshape(-1), (base.data.size,)).reshape(base.shape),)


# --- changes in place (inplace.py): the old values, and what replaced them ---

def _fill(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # the old values are gone: no part
    return (None,)


def _copy(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # d out/d src = 1, d out/d old = 0
    return None, g


def _setitem(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # value where written, old elsewhere
    value = inputs_of(out)[1]

    def written() -> Tensor:
        part = g[c['picked']]
        return part.reshape((1,) * (value.ndim - part.ndim) + part.shape)
    return masked(g, c['kept']), _needs(value, written)


def _copy_slices(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # a view of the base changed
    at = c['at']
    kept = np.ones(out.data.size, dtype=bool)
    kept[at.reshape(-1)] = False
    return masked(g, kept.reshape(out.shape)), g.reshape(-1)[at]


def _add_parts(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # each part gets the whole g
    return tuple(g for _ in inputs_of(out))


# --- losses, normalization, attention (functional.py) ---

def _mse_loss(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # 2 (p - t) / n = -d/dt
    pred, target = inputs_of(out)
    part = g * (2 / max(pred.data.size, 1)) * (pred - target)
    return part, _minus(part) if target.requires_grad else None


def _cross_entropy(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # (softmax - one_hot) / n
    logits = inputs_of(out)[0]
    one_hot = np.zeros(logits.shape, dtype=logits.data.dtype)
    one_hot[c['rows'], c['picked']] = 1
    part = masked(logits.softmax(axis=1) - one_hot, c['counted'][:, None])
    return (None if part is None else part * (g / max(c['n_counted'], 1)),)


def _soft_cross_entropy(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:
    """d/dlogits = (softmax sum(y) - y) / n, d/dy = -log_softmax / n."""
    logits, wanted = inputs_of(out)[0], c['wanted']
    y = Tensor._constant(c['y']) if wanted is None else wanted
    scale = g / max(c['n'], 1)
    parts = [_needs(logits, lambda: (logits.softmax(axis=1) * y.sum(axis=1, keepdims=True) - y) * scale)]
    return parts + ([] if wanted is None else [-scale * logits.log_softmax(axis=1)])


def _bce(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:
    """d/dp = (p - y) / max(p (1 - p), 1e-12) / n (PyTorch's floor), d/dy = -(log p - log(1 - p)) / n."""
    probs, wanted = inputs_of(out)[0], c['wanted']
    y = Tensor._constant(c['y']) if wanted is None else wanted
    scale = g / max(probs.data.size, 1)
    floor = functional._BCE_EPSILON
    parts = [_needs(probs, lambda: scale * (probs - y) / (probs * (1 - probs)).clamp(min=floor))]
    return parts + ([] if wanted is None else [-scale * (probs.log() - (1 - probs).log())])


def _bce_with_logits(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # (sigmoid(z) - y) / n, -z / n
    logits, wanted = inputs_of(out)[0], c['wanted']
    y = Tensor._constant(c['y']) if wanted is None else wanted
    scale = g / max(logits.data.size, 1)
    parts = [_needs(logits, lambda: (logits.sigmoid() - y) * scale)]
    return parts + ([] if wanted is None else [-scale * logits])


def _rms_norm(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:  # dx = r (g - y mean(g y)), y = x r
    x = inputs_of(out)[0]
    # r = (mean(x**2) + eps)**-0.5 again, as a graph; the op kept r, not eps: eps is read back from r (to ~1e-16)
    squares = (x * x).mean(axis=-1, keepdims=True)
    eps = Tensor._constant((1 / (c['r'] * c['r']) - squares.data).astype(x.data.dtype))
    r = (squares + eps) ** -0.5
    y = x * r  # (the output again, from x: the op reads x, not its output, which may have changed in place since)
    return (r * (g - y * (g * y).mean(axis=-1, keepdims=True)),)


def _attention(out: Tensor, g: Tensor, c: dict[str, Any]) -> Sequence[Part]:
    """out = p @ v, p = softmax(q @ k^T * scale): the weights p again as a graph, then the chain rule through
    the three steps. Where the op's p is 0 exactly (the causal mask's future), the scores are masked."""
    q, k, v = inputs_of(out)
    scores = (q @ k.swapaxes(-2, -1)) * c['scale']
    hidden = c['p'] == 0
    p = (scores.masked_fill(hidden, -math.inf) if hidden.any() else scores).softmax(axis=-1)
    dp = g @ v.swapaxes(-2, -1)
    ds = p * (dp - (dp * p).sum(axis=-1, keepdims=True)) * c['scale']
    return (_needs(q, lambda: sum_to(ds @ k, q.shape)), _needs(k, lambda: sum_to(ds.swapaxes(-2, -1) @ q, k.shape)),
            _needs(v, lambda: sum_to(p.swapaxes(-2, -1) @ g, v.shape)))


# The rules that read their inputs' values where the op's own closure reads copies it made, so that the op's reads=
# does not name them: grad(create_graph=True) checks that those inputs were not changed in place since the op ran.
READS_INPUTS = frozenset({_cross_entropy, _soft_cross_entropy, _attention})


def _backward_code(op: object) -> CodeType:
    """The code of the `_backward` closure an op's method defines (a change in place: inside its `compute`), which
    the table is keyed by."""
    def closures(code: CodeType) -> list[CodeType]:
        inner = [k for k in code.co_consts if isinstance(k, CodeType)]
        return [k for k in inner if k.co_name == '_backward'] + [b for k in inner for b in closures(k)]
    found = closures(cast(Any, getattr(op, '__wrapped__', op)).__code__)  # (+ is decorated: the method it wraps)
    assert len(found) == 1, f"{op} defines {len(found)} _backward closures"
    return found[0]


RULES: dict[CodeType, Rule] = {_backward_code(op): rule for op, rule in [
    (Tensor.__add__, _add), (Tensor.__sub__, _sub), (Tensor.__mul__, _mul), (Tensor.__truediv__, _div),
    (Tensor.__pow__, _pow), (Tensor.__neg__, _neg), (Tensor.__matmul__, _matmul), (Tensor._matmul_rows, _matmul),
    (where, _where),
    (reductions.Reductions.sum, _sum), (reductions.Reductions.mean, _mean),
    (reductions.Reductions._extreme, _extreme),
    (unary.Unary.exp, _exp), (unary.Unary.log, _log), (unary.Unary.tanh, _tanh), (unary.Unary.sigmoid, _sigmoid),
    (unary.Unary.relu, _relu), (unary.Unary.abs, _abs), (unary.Unary.clamp, _clamp),
    (unary.Unary.softmax, _softmax), (unary.Unary.log_softmax, _log_softmax), (unary.Unary.astype, _same),
    (shapes.Shapes.clone, _same), (shapes.Shapes.reshape, _reshape), (shapes.Shapes.permute, _permute),
    (shapes.Shapes.swapaxes, _swapaxes), (shapes.Shapes.__getitem__, _getitem),
    (shapes.Shapes.masked_fill, _masked_fill),
    (Tensor._follow_base, _view), (inplace._replaced, _copy_slices), (inplace.InPlace._fill, _fill),
    (inplace.InPlace.copy_, _copy), (inplace.InPlace.__setitem__, _setitem),
    (scatter, _scatter), (add_parts, _add_parts),
    (functional.mse_loss, _mse_loss), (functional.cross_entropy, _cross_entropy),
    (functional._soft_cross_entropy, _soft_cross_entropy),
    (functional.binary_cross_entropy, _bce), (functional.binary_cross_entropy_with_logits, _bce_with_logits),
    (functional.rms_norm, _rms_norm), (functional.scaled_dot_product_attention, _attention),
]}
