"""float16 as PyTorch computes it: every op of tests/tensor_ops.py's table on float16 samples, special values
and 0-d inputs, against PyTorch's float16 results within 2 units in the last place (test_tensor_sweep allows 2e-2
for any float16 difference; this is the check that an op computes in float32 and rounds once, as PyTorch's
half ops do, rather than rounding every step), and every result and gradient an ndarray of float16."""
from __future__ import annotations

import numpy as np
import pytest

from tests.tensor_ops import OPS, Op
from tests.test_tensor_sweep import (
    Refused,
    needs_torch,
    run_ours,
    run_torch,
    samples,
    specials,
    torch_in_float64,  # noqa: F401  (the fixture: PyTorch in float64)
)

HALF_OPS = [op for op in OPS if 'float16' in op.dtypes]
ULPS = dict(rtol=2e-3, atol=1e-5)
ZERO_D_DIFFERS = {  # rows whose table arguments are made for their (3, 4) sample, so that at 0-d they ask another thing
    'reshape numpy size': "np.prod(()) is the float 1.0, a size we refuse, as NumPy and PyTorch do",
    'T': "the table's PyTorch side is permute(1, 0), which needs 2 axes",
    'masked_fill': ("a (4,) mask must broadcast to the tensor's shape (as in-place masked_fill_); PyTorch's "
                    "out-of-place masked_fill broadcasts the tensor to the mask"),
}  # float16 has 11 bits: 2 units in the last place are at most 2 ** -9 relative


def _inputs(op: Op, which: str) -> list[np.ndarray] | None:
    if which == 'samples':
        return samples(op, 'float16')
    if which == 'specials':
        return specials(op, 'float16') if op.specials else None
    return samples(op, 'float16', tuple(() for _ in op.shapes))


def _assert_close(ours: np.ndarray, theirs: np.ndarray, what: str) -> None:
    assert type(ours) is np.ndarray, f"{what}: a {type(ours).__name__}, not an ndarray"
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, (what, ours.dtype, theirs.dtype)
    np.testing.assert_allclose(ours.astype(np.float64), theirs.astype(np.float64), equal_nan=True, err_msg=what,
                               **ULPS)


@needs_torch
@pytest.mark.parametrize('which', ['samples', 'specials', '0-d'])
@pytest.mark.parametrize('op', HALF_OPS, ids=[op.name for op in HALF_OPS])
def test_float16_results_and_gradients_are_pytorchs_to_2_ulps(op, which):
    arrays = _inputs(op, which)
    if arrays is None:
        pytest.skip(f"{op.name}: no special values in the table")
    grad = op.grad and not (which == 'specials' and 'specials grad' in op.differs)
    ours, theirs = run_ours(op, arrays, grad), run_torch(op, arrays, grad)
    if isinstance(ours, Refused) or isinstance(theirs, Refused):
        if isinstance(ours, Refused) != isinstance(theirs, Refused):  # only one refuses: it must be known why
            why = ZERO_D_DIFFERS.get(op.name) if which == '0-d' else op.differs.get('specials')
            assert why, f"{op.name} on float16 {which}: ours {ours!r}, PyTorch's {theirs!r}"
        return
    what = f"{op.name} on float16 {which}"
    (data, grads), (their_data, their_grads) = ours, theirs
    _assert_close(data, their_data, what)
    for i, (g, h) in enumerate(zip(grads or [], their_grads or [])):
        if h is not None:
            assert g is not None, f"{what}: input {i} got no gradient"
            _assert_close(g, h, f"{what}: the gradient of input {i}")
