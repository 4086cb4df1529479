"""Running one op of tensor_ops.py's table on both engines, ours and PyTorch, and comparing what they give:
the helpers of every sweep over that table (test_tensor_sweep.py, test_tensor_edges.py, test_tensor_half.py, ...).

A test module that compares with PyTorch asks for the tensor conftest's torch_in_float64 fixture.
"""
from __future__ import annotations

import zlib
from typing import Any

import numpy as np
import pytest

import micrograd.tensor as mt
from tests.conftest import TORCH_SKIP_REASON
from tests.tensor.tensor_ops import SPECIALS, Op

try:
    import torch
except ImportError:  # the checks that need no PyTorch still run
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason=TORCH_SKIP_REASON)
# The marks of a module that sweeps special values against PyTorch in float64. inf - inf and inf * 0 are nan
# in a forward op, as in PyTorch; NumPy also warns there (the engine does not pay for np.errstate around every
# small product and sum to silence it). The results are what is checked.
SPECIAL_VALUE_MARKS = [pytest.mark.filterwarnings('ignore:invalid value encountered:RuntimeWarning'),
                       pytest.mark.usefixtures('torch_in_float64')]
REFUSALS = (TypeError, ValueError, OverflowError, IndexError, RuntimeError)


def samples(op: Op, dtype: str, shapes: tuple[tuple[int, ...], ...] | None = None) -> list[np.ndarray]:
    """The op's sample inputs in dtype: uniform in its interval (integers rounded, bools: above the middle)."""
    rng = np.random.default_rng(zlib.crc32(op.name.encode()))
    low, high = op.interval
    arrays = []
    for shape in shapes or op.shapes:
        a = rng.uniform(low, high, shape)
        if dtype == 'bool':
            a = a > (low + high) / 2 if low <= 0 else np.ones(shape, dtype=bool)  # False is 0: outside (0, ...)
        elif dtype.startswith('int'):
            a = np.round(a)
        arrays.append(np.asarray(a).astype(dtype))
    return arrays


def specials(op: Op, dtype: str) -> list[np.ndarray]:
    """Inputs holding the special values, each input shifted so that they meet in different pairs."""
    arrays = []
    for i, shape in enumerate(op.shapes):
        n = int(np.prod(shape))
        arrays.append(np.resize(np.roll(SPECIALS, 5 * i), n).reshape(shape).astype(dtype))
    return arrays


def upstream_like(data: np.ndarray, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(0.5, 1.5, data.shape)


class Refused:
    def __init__(self, error: BaseException):
        self.error = error

    def __repr__(self) -> str:
        return f"refused: {type(self.error).__name__}: {self.error}"


def run_ours(op: Op, arrays: list[np.ndarray], grad: bool, upstream: np.ndarray | None = None) -> Any:
    tensors = [mt.Tensor(a, dtype=a.dtype, requires_grad=grad) for a in arrays]
    try:
        out = op.ours(*tensors)
    except REFUSALS as e:
        return Refused(e)
    if not grad:
        return out.data, None
    out.backward(upstream_like(out.data) if upstream is None else upstream)
    return out.data, [t.grad for t in tensors]


def run_torch(op: Op, arrays: list[np.ndarray], grad: bool, upstream: np.ndarray | None = None) -> Any:
    tensors = [torch.from_numpy(a.copy()).requires_grad_(grad) for a in arrays]
    try:
        out = op.theirs(torch, *tensors)
    except REFUSALS as e:  # (NotImplementedError is a RuntimeError)
        return Refused(e)
    data = out.detach().numpy()
    if not grad:
        return data, None
    weights = upstream_like(data) if upstream is None else upstream
    out.backward(torch.from_numpy(np.asarray(weights)).to(out.dtype))
    return data, [None if t.grad is None else t.grad.numpy() for t in tensors]


def tolerance(dtype: np.dtype) -> dict[str, float]:
    return {'float16': dict(rtol=2e-2, atol=2e-2), 'float32': dict(rtol=1e-5, atol=1e-6)}.get(
        str(dtype), dict(rtol=1e-9, atol=1e-12))


def assert_same(ours: Any, theirs: Any, what: str) -> None:
    """Both refused, or the same dtype and numbers (nan where nan, the same infinities)."""
    assert isinstance(ours, Refused) == isinstance(theirs, Refused), f"{what}: ours {ours!r}, PyTorch's {theirs!r}"
    if isinstance(ours, Refused):
        return
    (ours_data, ours_grads), (their_data, their_grads) = ours, theirs
    assert ours_data.dtype == their_data.dtype, f"{what}: dtype {ours_data.dtype}, PyTorch {their_data.dtype}"
    assert ours_data.shape == their_data.shape, f"{what}: shape {ours_data.shape}, PyTorch {their_data.shape}"
    np.testing.assert_allclose(ours_data.astype(np.float64), their_data.astype(np.float64), equal_nan=True,
                               err_msg=what, **tolerance(ours_data.dtype))
    for i, (g, h) in enumerate(zip(ours_grads or [], their_grads or [])):
        if h is None:
            continue
        assert g is not None, f"{what}: input {i} got no gradient"
        assert g.dtype == h.dtype, f"{what}: gradient {i} dtype {g.dtype}, PyTorch {h.dtype}"
        np.testing.assert_allclose(g.astype(np.float64), h.astype(np.float64), equal_nan=True,
                                   err_msg=f"{what}: gradient of input {i}", **tolerance(g.dtype))
