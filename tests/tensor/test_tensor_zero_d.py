"""Every op of tensor_ops.py's table on 0-d inputs, in every dtype, and on each special value (0, -0, inf,
-inf, nan) alone as a 0-d float: PyTorch's value, dtype and gradients, and always ndarrays, never NumPy scalars
(test_tensor_edges.py has the gradients of 0-d inputs in float64 and float16 and a 0-d leaf's accumulation)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.tensor.sweep import (
    SPECIAL_VALUE_MARKS,
    Refused,
    assert_same,
    needs_torch,
    run_ours,
    run_torch,
    samples,
)
from tests.tensor.tensor_ops import DTYPES, OPS, Op

pytestmark = SPECIAL_VALUE_MARKS  # inf and nan in forward ops; PyTorch in float64

SHAPED = {  # rows whose table arguments are made for their (3, 4) sample, so that at 0-d they ask another thing
    'reshape numpy size': "np.prod(()) is the float 1.0, a size we refuse, as NumPy and PyTorch do",
    'T': "the table's PyTorch side is permute(1, 0), which needs 2 axes",
    'masked_fill': "a (4,) mask must broadcast to the tensor's shape; PyTorch broadcasts the tensor to the mask",
}
LIMITS = {  # where we give a loss's limit and PyTorch's formula gives nan
    'binary_cross_entropy_with_logits': "a score of -inf: the loss is inf for a target above 0 (PyTorch: nan)",
}
SPECIAL = {'0': 0.0, '-0': -0.0, 'inf': np.inf, '-inf': -np.inf, 'nan': np.nan}


def _zero_d(op: Op, arrays: list[np.ndarray], grad: bool, what: str) -> None:
    ours, theirs = run_ours(op, arrays, grad), run_torch(op, arrays, grad)
    if isinstance(ours, Refused) != isinstance(theirs, Refused):
        assert op.name in SHAPED or 'specials' in op.differs or 'dtypes' in op.differs, (what, ours, theirs)
        return
    if isinstance(ours, Refused):
        return
    data, grads = ours
    assert type(data) is np.ndarray, f"{what}: a {type(data).__name__}"
    assert all(type(g) is np.ndarray for g in grads or []), f"{what}: a gradient is no ndarray"
    assert_same(ours, theirs, what)


@needs_torch
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('op', OPS, ids=[op.name for op in OPS])
def test_every_op_at_0d_in_every_dtype(op, dtype):
    if dtype not in op.dtypes:
        return
    arrays = samples(op, dtype, tuple(() for _ in op.shapes))
    _zero_d(op, arrays, op.grad and dtype.startswith('float'), f"{op.name} at 0-d in {dtype}")


SPECIAL_OPS = [op for op in OPS if op.specials and 'float64' in op.dtypes]


@needs_torch
@pytest.mark.parametrize('value', SPECIAL)
@pytest.mark.parametrize('op', SPECIAL_OPS, ids=[op.name for op in SPECIAL_OPS])
def test_every_op_on_a_special_value_at_0d(op, value):
    if op.name in LIMITS and value == '-inf':
        return
    arrays = [np.array(SPECIAL[value]) for _ in op.shapes]
    _zero_d(op, arrays, op.grad and 'specials grad' not in op.differs, f"{op.name} at 0-d {value}")
