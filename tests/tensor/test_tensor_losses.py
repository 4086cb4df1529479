"""Every loss of tensor_ops.py's LOSSES against PyTorch's: in float64, float32 and float16; on a batch, a
0-d (or one-row) input and an empty batch; with the target given as an array, as a tensor, and as a tensor that
requires gradients (which then gets PyTorch's gradient); the prediction requiring gradients, or data (which then
gets none). The loss's value, dtype and kind (an ndarray, never a NumPy scalar) and both gradients."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import micrograd.tensor as mt
from tests.tensor.sweep import (
    REFUSALS,
    needs_torch,
    tolerance,
    torch,
)
from tests.tensor.tensor_ops import LOSSES, Loss

pytestmark = pytest.mark.usefixtures('torch_in_float64')  # PyTorch computing in float64, as ours

TARGETS = ('array', 'tensor', 'tensor requiring grad')
CASES = [pytest.param(loss, shape, dtype, target, pred, id=f"{loss.name}-{shape}-{dtype}-{target}-prediction {pred}")
         for loss in LOSSES for shape in loss.shapes for dtype in ('float64', 'float32', 'float16')
         for target in TARGETS for pred in ('requiring grad', 'data')]


def _inputs(loss: Loss, shape: tuple[int, ...], dtype: str) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(len(loss.name) + len(shape))
    prediction, target = loss.prediction(rng, shape), loss.target(rng, shape)
    return prediction.astype(dtype), (target if target.dtype.kind in 'iu' else target.astype(dtype))


def _close(ours: Any, theirs: np.ndarray, what: str) -> None:
    assert type(ours) is np.ndarray, f"{what}: a {type(ours).__name__}, not an ndarray"
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, (what, ours.dtype, theirs.dtype, ours.shape)
    np.testing.assert_allclose(ours.astype(np.float64), theirs.astype(np.float64), equal_nan=True, err_msg=what,
                               **tolerance(ours.dtype))


@needs_torch
@pytest.mark.parametrize('loss, shape, dtype, target, pred', CASES)
def test_every_loss_agrees_with_pytorch_and_differentiates_its_target(loss, shape, dtype, target, pred):
    p, t = _inputs(loss, shape, dtype)
    wants = target == 'tensor requiring grad'
    if wants and t.dtype.kind in 'iu':
        with pytest.raises(TypeError, match='only floating-point tensors can require gradients'):
            mt.Tensor(t, dtype=t.dtype, requires_grad=True)  # refused as PyTorch refuses it
        return
    learns = pred == 'requiring grad'
    prediction = mt.Tensor(p, dtype=dtype, requires_grad=learns)
    y: Any = t if target == 'array' else mt.Tensor(t, dtype=t.dtype, requires_grad=wants)
    their_pred, their_y = torch.from_numpy(p.copy()).requires_grad_(learns), torch.from_numpy(t.copy())
    their_y.requires_grad_(wants)
    what = f"{loss.name} on {shape} in {dtype}, the target as {target}"
    try:
        theirs = loss.theirs(torch.nn.functional, their_pred, their_y)
    except (RuntimeError, ValueError):
        with pytest.raises(REFUSALS):
            loss.ours(prediction, y)
        return
    out = loss.ours(prediction, y)
    _close(out.data, theirs.detach().numpy(), what)
    assert out.requires_grad == theirs.requires_grad == (learns or wants)
    if not out.requires_grad:
        return
    out.backward()
    theirs.backward()
    if learns:
        _close(prediction.grad, their_pred.grad.numpy(), f"{what}: the prediction's gradient")
    else:  # data: no gradient, even where the target gets one
        assert prediction.grad is None, f"{what}: a prediction that is data got a gradient"
    if wants:
        _close(y.grad, their_y.grad.numpy(), f"{what}: the target's gradient")
    elif isinstance(y, mt.Tensor):
        assert y.grad is None


@needs_torch
@pytest.mark.parametrize('p', [0.0, 1.0, 1e-300, 0.5, 1 - 1e-16], ids=str)
def test_binary_cross_entropys_target_gradient_is_pytorchs_at_the_edges(p):
    """dL/dy = -logit(p) / n, unclamped (PyTorch clamps the logs of the loss at -100, not this gradient)."""
    probs, target = mt.Tensor([p], requires_grad=True), mt.Tensor([0.5], requires_grad=True)
    mt.binary_cross_entropy(probs, target).backward()
    their_p, their_y = torch.tensor([p], requires_grad=True), torch.tensor([0.5], requires_grad=True)
    torch.nn.functional.binary_cross_entropy(their_p, their_y).backward()
    np.testing.assert_array_equal(target.grad, their_y.grad.numpy())
    np.testing.assert_array_equal(probs.grad, their_p.grad.numpy())
