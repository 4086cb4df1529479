"""Functions of tensors that are not methods of one tensor: the losses, as in torch.nn.functional.

Each loss computes its value and, right beneath, its gradient in one closure: one node
in the graph instead of the dozen that composing it from Tensor ops would make, and a
chance to compute it without overflow.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from micrograd.tensor.tensor import ArrayLike, Tensor, _log_softmax, _sigmoid


def _target(target: Tensor | ArrayLike, like: Tensor, loss: str) -> np.ndarray:
    """Targets of the cross-entropies are data (no gradient): their array, checked to have the
    prediction's shape, because broadcasting (n, 1) against (n,) would silently compare all pairs."""
    if not isinstance(like, Tensor):
        raise TypeError(f"{loss}: the prediction must be a Tensor (the output of a model), got {type(like).__name__}")
    t = np.asarray(target.data if isinstance(target, Tensor) else target, dtype=like.data.dtype)
    if t.shape != like.data.shape:
        raise ValueError(f"{loss}: target shape {t.shape} differs from input shape {like.data.shape}")
    return t


# --- losses: functions of (prediction, target), averaged over all elements as in PyTorch ---

def mse_loss(pred: Tensor, target: Tensor | ArrayLike) -> Tensor:
    """mean((pred - target)**2). A target tensor that requires gradients gets them too."""
    if not isinstance(target, Tensor) or not isinstance(pred, Tensor):
        target = _target(target, pred, 'mse_loss')
    elif target.shape != pred.shape:
        raise ValueError(f"mse_loss: target shape {target.shape} differs from input shape {pred.shape}")
    return ((pred - target) ** 2).mean()


def binary_cross_entropy(probs: Tensor, target: Tensor | ArrayLike) -> Tensor:
    """mean(-(y log p + (1 - y) log(1 - p))) for probabilities p in [0, 1].

    As in PyTorch, each log is clamped at -100 so that p = 0 or 1 gives a large finite
    loss. Prefer binary_cross_entropy_with_logits on raw scores: it is exact there too.
    """
    y = _target(target, probs, 'binary_cross_entropy')
    p = probs.data
    if np.any((p < 0) | (p > 1)):
        raise ValueError(f"binary_cross_entropy: probabilities must lie in [0, 1], got values in "
                         f"[{p.min()}, {p.max()}] (pass raw scores to binary_cross_entropy_with_logits)")
    with np.errstate(divide='ignore'):  # log(0) = -inf, clamped just below
        losses = -(y * np.maximum(np.log(p), -100) + (1 - y) * np.maximum(np.log1p(-p), -100))

    def _backward(grad: np.ndarray) -> None:  # dL/dp = (p - y) / (p (1 - p)) / n, kept finite at p = 0 or 1
        probs._add_grad(grad * (p - y) / np.maximum(p * (1 - p), 1e-12) / p.size)
    return Tensor._result(losses.mean(), (probs,), 'binary_cross_entropy', _backward)


def binary_cross_entropy_with_logits(logits: Tensor, target: Tensor | ArrayLike) -> Tensor:
    """binary_cross_entropy(sigmoid(z), y), computed from the scores z without overflow.

    -(y log s(z) + (1-y) log(1-s(z))) = max(z, 0) - z y + log(1 + e^-|z|).
    """
    y = _target(target, logits, 'binary_cross_entropy_with_logits')
    z = logits.data
    losses = np.maximum(z, 0) - z * y + np.log1p(np.exp(-np.abs(z)))

    def _backward(grad: np.ndarray) -> None:  # dL/dz = (sigmoid(z) - y) / n
        logits._add_grad(grad * (_sigmoid(z) - y) / z.size)
    return Tensor._result(losses.mean(), (logits,), 'binary_cross_entropy_with_logits', _backward)


def cross_entropy(logits: Tensor, targets: Tensor | np.ndarray | Sequence[int]) -> Tensor:
    """mean over rows of -log softmax(logits)[target]: logits (n, classes), targets n class indices."""
    t = np.asarray(targets.data if isinstance(targets, Tensor) else targets)
    if not isinstance(logits, Tensor):
        raise TypeError(f"cross_entropy: logits must be a Tensor (the output of a model), got {type(logits).__name__}")
    if logits.data.ndim != 2:
        raise ValueError(f"cross_entropy: logits must have shape (batch, classes), got {logits.data.shape}")
    n, classes = logits.data.shape
    if t.shape != (n,) or (t.size and t.dtype.kind not in 'iu'):
        raise ValueError(f"cross_entropy: targets must be {n} integer class indices (shape ({n},)), "
                         f"got shape {t.shape} of dtype {t.dtype}")
    if t.size and (t.min() < 0 or t.max() >= classes):
        raise ValueError(f"cross_entropy: class indices must lie in [0, {classes}), got [{t.min()}, {t.max()}]")
    rows = np.arange(n)
    log_probs = _log_softmax(logits.data, axis=1)

    def _backward(grad: np.ndarray) -> None:  # dL/dlogits = (softmax - one_hot(target)) / n
        g = np.exp(log_probs)
        g[rows, t] -= 1
        logits._add_grad(g * (grad / n))
    return Tensor._result(-log_probs[rows, t].mean(), (logits,), 'cross_entropy', _backward)
