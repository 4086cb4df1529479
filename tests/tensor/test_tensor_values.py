"""A scalar micrograd Value given to a tensor op is refused by name, with the way to take its number (v.data): the
two engines keep separate graphs, so a Value taken silently would leave its .grad at 0. Every entry point of the
tensor engine that takes a number or an array, on a Value and on a list of Values; the tensor, the Value and any
gradient are unchanged after the refusal."""
from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import micrograd.tensor as mt
from micrograd.engine import Value
from micrograd.tensor import Tensor


def _set(t: Tensor, v: Any) -> None:
    t[0] = v


# (what a user writes, the call with t: a (2,) float tensor that requires grad, and v: a Value or a list of Values)
ENTRY_POINTS: dict[str, Callable[[Tensor, Any], Any]] = {
    't + v': operator.add, 't - v': operator.sub, 't * v': operator.mul, 't / v': operator.truediv,
    't ** v': operator.pow, 't @ v': operator.matmul, 't == v': operator.eq, 't != v': operator.ne,
    't < v': operator.lt, 't >= v': operator.ge, 't & v': lambda t, v: Tensor([1, 0], dtype=np.int64) & v,
    'v + t (Value refuses, then Tensor.__radd__)': lambda t, v: t.__radd__(v),
    'v * t': lambda t, v: t.__rmul__(v), 'v - t': lambda t, v: t.__rsub__(v), 'v / t': lambda t, v: t.__rtruediv__(v),
    'v ** t': lambda t, v: t.__rpow__(v),
    't += v': lambda t, v: operator.iadd(t.detach(), v), 't.add_(v)': lambda t, v: t.detach().add_(v),
    't.fill_(v)': lambda t, v: t.detach().fill_(v), 't.copy_(v)': lambda t, v: t.detach().copy_(v),
    't[0] = v': lambda t, v: _set(t.detach(), v),
    'Tensor(v)': lambda t, v: Tensor(v),
    't.masked_fill(mask, v)': lambda t, v: t.masked_fill(np.array([True, False]), v),
    't.clamp(min=v)': lambda t, v: t.clamp(min=v), 't.clamp(max=v)': lambda t, v: t.clamp(max=v),
    'where(c, t, v)': lambda t, v: mt.where(np.array([True, False]), t, v),
    'where(c, v, t)': lambda t, v: mt.where(np.array([True, False]), v, t),
    't.backward(v)': lambda t, v: (t * 1).sum().backward(v),
    'mse_loss(t, v)': lambda t, v: mt.mse_loss(t, v),
    'binary_cross_entropy(p, v)': lambda t, v: mt.binary_cross_entropy(t.sigmoid(), v),
    'cross_entropy(logits, v)': lambda t, v: mt.cross_entropy(t.reshape(1, 2), v),
    'rms_norm(t, eps=v)': lambda t, v: mt.rms_norm(t, eps=v),
    'Linear(2, 1)(v)': lambda t, v: mt.Linear(2, 1)(v),
}
GIVEN = {'a Value': lambda: Value(0.5), 'a list of Values': lambda: [Value(0.5), Value(1.5)]}


@pytest.mark.parametrize('given', list(GIVEN))
@pytest.mark.parametrize('entry', list(ENTRY_POINTS))
def test_a_tensor_op_refuses_a_value_by_name_and_says_to_take_v_data(entry: str, given: str) -> None:
    t, v = Tensor([1.0, 2.0], requires_grad=True), GIVEN[given]()
    with pytest.raises(TypeError, match=r"got a micrograd Value .*Values and tensors do not mix.*v\.data"):
        ENTRY_POINTS[entry](t, v)
    assert t.data.tolist() == [1.0, 2.0] and t.grad is None
    values = v if isinstance(v, list) else [v]
    assert [(x.data, x.grad) for x in values] == [(0.5, 0.0), (1.5, 0.0)][:len(values)]
