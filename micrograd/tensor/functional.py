"""Functions of tensors, as in torch.nn.functional: the losses, and the pieces of attention.

Each function computes its value and, right beneath, its gradient in one closure: one node
in the graph instead of the dozen that composing it from Tensor ops would make (each of
which costs a Python call forward and backward), and a chance to compute it without
overflow. These are the fused ops a PyTorch user knows from torch.nn.functional; each
one's gradient is checked against PyTorch's and against central differences.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from micrograd.tensor.checks import index, real_array, refuse_value
from micrograd.tensor.dtypes import Array, is_number, promoted, wide
from micrograd.tensor.kernels import log_softmax, row_dot, scale_rows, sigmoid, softmax
from micrograd.tensor.node import ArrayLike
from micrograd.tensor.tensor import Tensor


def _target(target: Tensor | ArrayLike, like: Tensor, loss: str) -> Array:
    """A loss's target as an array of the prediction's dtype, checked to have the prediction's shape, because
    broadcasting (n, 1) against (n,) would silently compare all pairs. (A target tensor that requires
    gradients gets them from the loss: see _wanting_gradients.)"""
    _check_prediction(like, loss)
    given = target.data if isinstance(target, Tensor) else target
    if not (isinstance(given, (np.ndarray, list, tuple)) or is_number(given)):  # np.float32(0.5) as 0.5
        refuse_value(given, loss)
        raise TypeError(f"{loss}: the target must be numbers or an array, got {type(given).__name__}")
    t = real_array(given, loss).astype(like.data.dtype, copy=False)
    if t.shape != like.data.shape:
        raise ValueError(f"{loss}: target shape {t.shape} differs from input shape {like.data.shape}")
    if isinstance(target, Tensor):  # (its version is checked: see _read)
        return t
    return like._kept(t) if np.may_share_memory(t, given) else t  # an array: a copy, if it may change before backward


def _read(target: object) -> tuple[Tensor, ...]:
    """What a loss's backward reads of its target: a Tensor's array, whose version is checked (an array is
    copied by _target instead)."""
    return (target,) if isinstance(target, Tensor) else ()


def _wanting_gradients(target: object) -> Tensor | None:
    """A target that is a Tensor requiring gradients, which a loss differentiates too, as PyTorch does."""
    return target if isinstance(target, Tensor) and target.requires_grad else None


def _check_prediction(pred: object, op: str, what: str = 'the prediction') -> None:
    """The tensor an op differentiates must be a float Tensor (PyTorch's losses refuse integers too)."""
    if not isinstance(pred, Tensor):
        raise TypeError(f"{op}: {what} must be a Tensor, got {type(pred).__name__}")
    if pred.data.dtype.kind != 'f':
        raise TypeError(f"{op}: {what} must be a float tensor, got dtype {pred.data.dtype} (as in PyTorch)")


# --- losses: functions of (prediction, target), averaged over all elements as in PyTorch ---

def mse_loss(pred: Tensor, target: Tensor | ArrayLike) -> Tensor:
    """mean((pred - target)**2). A target tensor that requires gradients gets them too.
    An empty batch gives nan, as in PyTorch."""
    if not isinstance(target, Tensor) or not isinstance(pred, Tensor):
        target = Tensor._constant(_target(target, pred, 'mse_loss'))
    elif target.shape != pred.shape:
        raise ValueError(f"mse_loss: target shape {target.shape} differs from input shape {pred.shape}")
    if pred.data.dtype.kind != 'f' and target.data.dtype.kind != 'f':
        return ((pred - target) ** 2).mean()  # (refused by mean, naming it, as PyTorch refuses integers)
    p, t = promoted(pred.data, target.data)
    dtype = p.dtype
    p, t = wide(p), wide(t)  # float16 computes in float32 and rounds once
    with np.errstate(invalid='ignore', over='ignore'):  # an empty batch: 0 / 0 = nan, as in PyTorch
        diff = p - t
        loss = np.asarray(np.sum(diff * diff, dtype=p.dtype) / diff.size).astype(dtype)

    def _backward(grad: Array) -> None:  # d mean((p - t)**2)/dp = 2 (p - t) / n = -d/dt
        g = wide(grad) * (2 / max(p.size, 1)) * (p - t)
        if pred.requires_grad:  # (the target may be the one that does)
            pred._add_grad(g)
        if target.requires_grad:
            target._add_grad(-g)
    # One node whose backward reads pred and target, as PyTorch's: a change of either before backward() is refused
    return Tensor._result(loss, (pred, target), 'mse_loss', _backward, reads=((pred, target), (pred, target)))


_BCE_EPSILON = float(np.float32(1e-12))  # PyTorch's floor under p (1 - p) in the gradient: 1e-12 as a float32


def binary_cross_entropy(probs: Tensor, target: Tensor | ArrayLike) -> Tensor:
    """mean(-(y log p + (1 - y) log(1 - p))) for probabilities p in [0, 1].

    As in PyTorch, each log is clamped at -100 so that p = 0 or 1 gives a large finite
    loss. Prefer binary_cross_entropy_with_logits on raw scores: it is exact there too.
    """
    y = _target(target, probs, 'binary_cross_entropy')
    p = probs.data
    if not np.all((p >= 0) & (p <= 1)):  # written so that nan fails too
        raise ValueError(f"binary_cross_entropy: probabilities must lie in [0, 1], got {p[~((p >= 0) & (p <= 1))][0]} "
                         f"(pass raw scores to binary_cross_entropy_with_logits)")
    if not np.all((y >= 0) & (y <= 1)):
        raise ValueError(f"binary_cross_entropy: targets must lie in [0, 1], got {y[~((y >= 0) & (y <= 1))][0]}")
    p, y = wide(p), wide(y)  # float16 computes in float32 (70,000 is no float16) and rounds once, as PyTorch
    with np.errstate(divide='ignore', invalid='ignore'):  # log(0) = -inf, clamped just below; an empty mean is nan
        log_p, log_q = np.maximum(np.log(p), -100), np.maximum(np.log1p(-p), -100)
        losses = -(y * log_p + (1 - y) * log_q)
        loss = np.asarray(np.sum(losses) / p.size, dtype=probs.data.dtype)
    wanted = _wanting_gradients(target)

    def _backward(grad: Array) -> None:  # dL/dp = (p - y) / (p (1 - p)) / n, kept finite at p = 0 or 1
        g = wide(grad) / p.size
        if probs.requires_grad:  # (the target may be the one that does)
            probs._add_grad(g * (p - y) / np.maximum(p * (1 - p), _BCE_EPSILON))
        if wanted is not None:  # dL/dy = -logit(p) / n, unclamped as in PyTorch (inf at p = 0, -inf at p = 1)
            with np.errstate(divide='ignore'):
                wanted._add_grad(g * -(np.log(p) - np.log1p(-p)))
    parents = (probs,) if wanted is None else (probs, wanted)
    return Tensor._result(loss, parents, 'binary_cross_entropy', _backward, reads=((probs, *_read(target)), (probs,)))


def binary_cross_entropy_with_logits(logits: Tensor, target: Tensor | ArrayLike) -> Tensor:
    """binary_cross_entropy(sigmoid(z), y), computed from the scores z without overflow.

    -(y log s(z) + (1-y) log(1-s(z))) = y softplus(-z) + (1 - y) softplus(z), softplus(z) = log(1 + e^z).
    """
    y = _target(target, logits, 'binary_cross_entropy_with_logits')
    z, y = wide(logits.data), wide(y)  # float16 computes in float32 and rounds once (70,000 is no float16)
    # y softplus(-z) + (1 - y) softplus(z), each term 0 where its weight is (even where its softplus is inf): the
    # loss at an infinite score is its limit, inf where the score is wrong (as PyTorch) and 0 where it is right
    # (PyTorch's max-shifted formula gives nan at z = inf with y = 1, and at z = -inf).
    tail = np.log1p(np.exp(-np.abs(z)))  # softplus(z) = max(z, 0) + log(1 + e^-|z|): nothing overflows
    losses = np.multiply(y, np.maximum(-z, 0) + tail, out=np.zeros_like(z), where=y != 0)
    losses += np.multiply(1 - y, np.maximum(z, 0) + tail, out=np.zeros_like(z), where=y != 1)
    with np.errstate(invalid='ignore'):  # the mean of an empty batch is nan, as in PyTorch
        loss = np.asarray(np.sum(losses) / z.size, dtype=logits.data.dtype)
    wanted = _wanting_gradients(target)

    def _backward(grad: Array) -> None:  # dL/dz = (sigmoid(z) - y) / n
        g = wide(grad) / z.size
        if logits.requires_grad:  # (the target may be the one that does)
            logits._add_grad(g * (sigmoid(z) - y))
        if wanted is not None:  # dL/dy = -z / n
            wanted._add_grad(-g * z)
    parents = (logits,) if wanted is None else (logits, wanted)
    return Tensor._result(loss, parents, 'binary_cross_entropy_with_logits', _backward,
                          reads=((logits, *_read(target)), (logits,)))


def cross_entropy(logits: Tensor, targets: Tensor | Array | Sequence[int], ignore_index: int = -100) -> Tensor:
    """-log softmax(logits)[target], averaged over the rows, as torch's cross_entropy.

    logits has shape (n, classes) and targets holds n class indices. A row whose target is
    ignore_index takes no part, not even in the count the mean divides by: that is how the
    padding of short sequences in a batch is left out. (For a sequence model, reshape
    logits (B, T, C) to (B*T, C) and targets (B, T) to (B*T,).)

    As in PyTorch, targets may instead be probabilities, floats of the logits' shape (soft labels):
    then the loss is -sum(targets * log_softmax(logits)) / n, and a target tensor that requires
    gradients gets them. Logits of shape (classes,) are one row (a 0-d class index or a row of
    probabilities as its target).
    """
    _check_prediction(logits, 'cross_entropy', 'logits')
    ignore_index = index(ignore_index, 'cross_entropy: ignore_index')  # np.int64(-1) or a 0-d array as its int
    if not isinstance(targets, (Tensor, np.ndarray)):
        refuse_value(targets, 'cross_entropy')  # (a micrograd Value, or a list of them)
    t = np.asarray(targets.data if isinstance(targets, Tensor) else targets)
    if logits.data.ndim == 1:  # one row, as PyTorch's unbatched input: the same loss for a batch of one
        if t.shape == logits.shape and t.dtype.kind == 'f':
            return _soft_cross_entropy(logits.reshape(1, -1), _as_row(targets))
        if t.shape not in ((), (1,)) or t.dtype.kind not in 'iu':  # ([2] as well as 2, as PyTorch takes)
            raise ValueError(f"cross_entropy: logits of shape {logits.shape} are one row: the target is one class "
                             f"index (an integer) or {logits.shape[0]} probabilities, got shape {t.shape} of "
                             f"dtype {t.dtype}")
        return cross_entropy(logits.reshape(1, -1), t.reshape(1), ignore_index)
    if t.shape == logits.shape and t.dtype.kind == 'f' and t.ndim:  # probabilities, as PyTorch tells them apart
        return _soft_cross_entropy(logits, targets)
    if t.size == 0 and t.dtype.kind == 'f':  # [] is float64 to NumPy: an empty batch of class indices
        t = t.astype(np.int64)
    if logits.data.ndim != 2:
        raise ValueError(f"cross_entropy: logits must have shape (batch, classes), got {logits.data.shape}; "
                         f"reshape (B, T, C) logits to (B*T, C) and their (B, T) targets to (B*T,)")
    n, classes = logits.data.shape
    if t.shape != (n,) or (t.size and t.dtype.kind not in 'iu'):
        hint = (" (Tensor([0, 2]) is float64: make it with dtype=np.int64)" if t.shape == (n,) and t.dtype.kind == 'f'
                else '')
        raise ValueError(f"cross_entropy: targets must be {n} integer class indices (shape ({n},)), "
                         f"got shape {t.shape} of dtype {t.dtype}{hint}")
    counted = t != ignore_index
    wrong = t[counted & ((t < 0) | (t >= classes))]
    if wrong.size:
        raise ValueError(f"cross_entropy: class indices must lie in [0, {classes}) (or be ignore_index="
                         f"{ignore_index}, to skip the row), got {wrong[0]}")
    rows, picked = np.arange(n), np.where(counted, t, 0)  # an ignored row picks any class: it is multiplied by 0
    n_counted = int(counted.sum())
    log_probs = log_softmax(wide(logits.data), axis=1)  # (float16 in float32, the loss rounded once)
    with np.errstate(invalid='ignore'):  # no row counted: 0 / 0 = nan, as in PyTorch
        loss = np.asarray(-np.where(counted, log_probs[rows, picked], 0).sum() / n_counted, dtype=logits.data.dtype)

    def _backward(grad: Array) -> None:  # dL/dlogits = (softmax - one_hot(target)) / n_counted, 0 if ignored
        g = np.exp(log_probs)
        g[rows, picked] -= 1
        g[~counted] = 0
        g *= wide(grad) / max(n_counted, 1)
        logits._add_grad(g)
    # (the backward reads its own arrays, made from targets: a target tensor is checked as PyTorch checks it)
    return Tensor._result(loss, (logits,), 'cross_entropy', _backward, reads=(_read(targets),))


def _as_row(targets: Tensor | Array | Sequence[int]) -> Tensor | Array:
    """A (classes,) target as a (1, classes) one; a tensor through reshape, so that its gradient flows back."""
    return targets.reshape(1, -1) if isinstance(targets, Tensor) else np.asarray(targets).reshape(1, -1)


def _soft_cross_entropy(logits: Tensor, targets: Tensor | Array | Sequence[int]) -> Tensor:
    """cross_entropy with probabilities as targets: -sum(y * log_softmax(logits)) / n over n rows."""
    y = wide(_target(targets, logits, 'cross_entropy'))
    n = logits.data.shape[0]
    log_probs = log_softmax(wide(logits.data), axis=1)  # (float16 in float32, the loss rounded once)
    with np.errstate(invalid='ignore', divide='ignore'):  # an empty batch: 0 / 0 = nan, as in PyTorch
        loss = np.asarray(-np.sum(y * log_probs) / n, dtype=logits.data.dtype)
    wanted = _wanting_gradients(targets)

    def _backward(grad: Array) -> None:  # dL/dlogits = (softmax sum(y) - y) / n, dL/dy = -log_softmax / n
        g = wide(grad) / max(n, 1)
        if logits.requires_grad:  # (the target may be the one that does)
            logits._add_grad(g * (np.exp(log_probs) * y.sum(axis=1, keepdims=True) - y))
        if wanted is not None:
            wanted._add_grad(-g * log_probs)
    parents = (logits,) if wanted is None else (logits, wanted)
    return Tensor._result(loss, parents, 'cross_entropy', _backward, reads=(_read(targets), ()))


# --- normalization and attention: each one op, with its gradient derived by hand ---

def rms_norm(x: Tensor, eps: float = 1e-5) -> Tensor:
    """x / sqrt(mean(x**2) + eps) over the last axis: each vector scaled to a root mean square
    of about 1. It is microgpt's rmsnorm, applied to every vector of x at once.

    One op: the composition x * ((x * x).mean(axis=-1, keepdims=True) + eps) ** -0.5 gives the
    same numbers and gradients with six nodes.
    """
    _check_prediction(x, 'rms_norm', 'x')
    if x.data.ndim == 0:
        raise ValueError("rms_norm: x must have at least one axis (the vectors to normalize lie along the last)")
    if isinstance(eps, np.ndarray) and eps.ndim == 0:  # a 0-d array is its number
        eps = eps.item()
    refuse_value(eps, 'rms_norm: eps')
    if not (is_number(eps) and eps >= 0):  # written so that nan fails too
        raise ValueError(f"rms_norm: eps must be a number >= 0, got {eps!r}")
    eps = float(eps)  # a Python float, whatever it was given as: np.float64(1e-5) must not make a float32 x float64
    n = x.data.shape[-1]
    # float16 computes in float32 and rounds the result once, as PyTorch: its squares of 100 overflow in float16
    data = x.data.astype(np.float32) if x.data.dtype == np.float16 else x.data
    with np.errstate(divide='ignore', invalid='ignore'):  # vectors of length 0: an empty result, as in PyTorch
        r = (row_dot(data, data) / n + eps) ** -0.5  # 1 / rms, one per vector: mean(x**2) is x . x / n
    y = scale_rows(data, r)  # x * r

    def _backward(grad: Array) -> None:  # y = x r with dr/dx_j = -r**3 x_j / n: dx = r (grad - y mean(grad y))
        # (y read as x r: x is what PyTorch reads, the output may have been changed in place since)
        grad = grad.astype(data.dtype, copy=False)
        dx = scale_rows(data, r * r * row_dot(grad, data) / n)  # y mean(grad y) = x r (r mean(grad x))
        np.subtract(grad, dx, out=dx)  # (in dx's memory: one new array instead of three)
        dx *= r
        x._add_grad(dx, own=dx.dtype == x.data.dtype)
    return Tensor._result(y.astype(x.data.dtype, copy=False), (x,), 'rms_norm', _backward, reads=((x,),))


def causal_mask(size: int) -> Array:
    """The (size, size) boolean mask of the future: [t, s] is True where s > t, the positions
    that position t must not look at. causal_mask(3) is

        [[False,  True,  True],
         [False, False,  True],
         [False, False, False]]
    """
    n = index(size, 'causal_mask')
    if n < 0:
        raise ValueError(f"causal_mask: size must be >= 0, got {n}")
    return np.triu(np.ones((n, n), dtype=bool), k=1)


def scaled_dot_product_attention(q: Tensor, k: Tensor, v: Tensor, is_causal: bool = False) -> Tensor:
    """softmax(q @ k^T / sqrt(d)) @ v, as torch's scaled_dot_product_attention.

    q has shape (..., T, d), k (..., S, d), v (..., S, d_v): for each query t, a weighted
    average of the values, weighted by how well t's query matches each key. With
    is_causal=True, query t sees only keys 0..t (T == S): later positions get score -inf,
    so softmax gives them weight 0 and nothing flows from the future to the past.

    One op, as in PyTorch: composed of Tensor ops (k.swapaxes, @, * scale, masked_fill,
    softmax, @) it gives the same numbers with six nodes; here the backward is the chain rule
    through those steps, written out in three lines. Leading (batch, head) axes broadcast as
    in matmul.
    """
    for name, t in (('q', q), ('k', k), ('v', v)):
        _check_prediction(t, 'scaled_dot_product_attention', name)
        if t.data.ndim < 2:
            raise ValueError(f"scaled_dot_product_attention: {name} must have shape (..., positions, channels), "
                             f"got {t.data.shape}")
    if q.shape[-1] != k.shape[-1] or k.shape[-2] != v.shape[-2]:
        raise ValueError(f"scaled_dot_product_attention: q (..., T, d), k (..., S, d) and v (..., S, d_v) must "
                         f"agree on d and S, got shapes {q.shape}, {k.shape} and {v.shape}")
    if q.shape[-1] == 0:
        raise ValueError("scaled_dot_product_attention: q and k need at least one channel (d >= 1) to be compared")
    T, S = q.shape[-2], k.shape[-2]
    if is_causal and T != S:
        raise ValueError(f"scaled_dot_product_attention: is_causal needs as many queries as keys, got "
                         f"{T} queries and {S} keys")
    scale = 1 / math.sqrt(q.shape[-1])  # keeps the scores O(1) however many channels d there are
    dtype = np.result_type(q.data, k.data, v.data)
    qd, kd, vd = wide(q.data), wide(k.data), wide(v.data)  # float16 computes in float32 and rounds once, as PyTorch
    # q's gradient reads k, and k's q: copies of their own, as PyTorch's (which scales both first), so that q and
    # k may change in place before backward(); v is read as it is, and checked (PyTorch saves it too)
    qd, kd = k._kept(qd), q._kept(kd)
    try:
        scores = qd @ kd.swapaxes(-2, -1)  # (..., T, S): how well query t matches key s
    except ValueError:
        raise ValueError(f"scaled_dot_product_attention: the leading axes of q {q.shape} and k {k.shape} "
                         f"do not broadcast") from None
    scores *= scale  # (in place here and below: these (..., T, S) arrays are the op's own, and big)
    if is_causal:
        np.copyto(scores, -math.inf, where=causal_mask(T))  # the future: weight exp(-inf) = 0
    p = softmax(scores, axis=-1, overwrite=True)  # the attention weights, each row summing to 1
    try:
        shape = np.broadcast_shapes(p.shape[:-2], v.shape[:-2]) + (T, v.shape[-1])
    except ValueError:
        raise ValueError(f"scaled_dot_product_attention: the leading axes of q {q.shape}, k {k.shape} and "
                         f"v {v.shape} do not broadcast") from None
    # The output (..., n_head, T, d_v) is written in (..., T, n_head, d_v) memory: the layout in which
    # the heads are put side by side again (out.swapaxes(-3, -2).reshape(..., T, C)) without a copy.
    has_heads = len(shape) > 2
    memory = np.empty(shape[:-3] + (T, shape[-3], shape[-1]) if has_heads else shape, dtype=dtype)
    out = np.matmul(p, vd, out=memory.swapaxes(-3, -2) if has_heads else memory)

    def _backward(grad: Array) -> None:
        # out = p @ v:               dp = grad @ v^T,  dv = p^T @ grad
        # p = softmax(scores):       dscores = p * (dp - sum_s p_s dp_s)   (0 where masked, since p is 0 there)
        # scores = q @ k^T * scale:  dq = dscores @ k * scale,  dk = dscores^T @ q * scale
        grad = wide(grad)
        dscores = grad @ vd.swapaxes(-2, -1)  # dp, then turned into dscores in its own memory:
        dscores -= row_dot(p, dscores)
        dscores *= p
        dscores *= scale  # with the scale of the step after
        if q.requires_grad:
            q._add_grad(_product_laid_out_as(q, dscores, kd), own=True)
        if k.requires_grad:
            k._add_grad(_product_laid_out_as(k, dscores.swapaxes(-2, -1), qd), own=True)
        if v.requires_grad:
            v._add_grad(_product_laid_out_as(v, p.swapaxes(-2, -1), grad), own=True)
    return Tensor._result(out, (q, k, v), 'scaled_dot_product_attention', _backward, reads=((v,), (v,), ()))


def _product_laid_out_as(t: Tensor, a: Array, b: Array) -> Array:
    """a @ b, t's gradient, written in the memory order of t's data (np.empty_like keeps it).

    The same numbers as a @ b. But q, k and v usually are views: CausalSelfAttention splits
    (B, T, C) into heads as a (B, n_head, T, d) view of (B, T, n_head, d) memory, and a
    gradient in that memory order goes back through the swapaxes and reshape that made the
    view without a copy. (If batch axes broadcast, the product is bigger than t: plain a @ b.)
    """
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1])
    product: Array = a @ b if shape != t.data.shape else np.matmul(a, b, out=np.empty_like(t.data))
    return product
