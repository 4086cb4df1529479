"""Every op of the table with several inputs, one of them data (requires_grad=False) and the others trainable,
in float64 and float16: the data input gets no gradient, and the others get PyTorch's."""
from __future__ import annotations

import numpy as np
import pytest

import micrograd.tensor as mt
from tests.tensor.sweep import (
    needs_torch,
    samples,
    tolerance,
    torch,
    upstream_like,
)
from tests.tensor.tensor_ops import OPS

pytestmark = pytest.mark.usefixtures('torch_in_float64')  # PyTorch computing in float64, as ours

CASES = [pytest.param(op, dtype, i, id=f"{op.name}-{dtype}-input {i} data")
         for op in OPS if op.grad and len(op.shapes) > 1 for dtype in ('float64', 'float16') if dtype in op.dtypes
         for i in range(len(op.shapes))]


@needs_torch
@pytest.mark.parametrize('op, dtype, data', CASES)
def test_an_input_that_is_data_gets_no_gradient_and_the_others_pytorchs(op, dtype, data):
    arrays = samples(op, dtype)
    ours = [mt.Tensor(a, dtype=a.dtype, requires_grad=i != data) for i, a in enumerate(arrays)]
    theirs = [torch.from_numpy(a.copy()).requires_grad_(i != data) for i, a in enumerate(arrays)]
    out, their_out = op.ours(*ours), op.theirs(torch, *theirs)
    upstream = upstream_like(out.data)
    out.backward(upstream)
    their_out.backward(torch.from_numpy(upstream).to(their_out.dtype))
    for i, (t, their_t) in enumerate(zip(ours, theirs)):
        if i == data:
            assert t.grad is None, f"{op.name}: input {i}, data, got a gradient"
        else:
            assert type(t.grad) is np.ndarray and t.grad.dtype == np.dtype(dtype)
            np.testing.assert_allclose(t.grad.astype(np.float64), their_t.grad.numpy().astype(np.float64),
                                       err_msg=f"{op.name}: input {i}", **tolerance(t.grad.dtype))
