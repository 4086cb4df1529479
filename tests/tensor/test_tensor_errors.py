"""Every refusal names the op (or function, or layer) that refuses and what is wrong: a table of wrong calls,
each with the error it must raise. NumPy's own messages ('operands could not be broadcast together', 'data
type not understood') name no op, so the engine puts its name in front of them."""
from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import micrograd.tensor as mt


def _x() -> mt.Tensor:
    return mt.Tensor(np.ones((2, 3)), requires_grad=True)


WRONG: dict[str, tuple[Callable[[], Any], type[Exception], str]] = {
    '+ shapes': (lambda: _x() + np.ones(4), ValueError, r'Tensor\.\+: .*broadcast.*\(2,3\) \(4,\)'),
    '- shapes': (lambda: _x() - np.ones((2, 2)), ValueError, r'Tensor\.-: .*broadcast'),
    '* shapes': (lambda: _x() * mt.Tensor(np.ones((3, 2))), ValueError, r'Tensor\.\*: .*broadcast'),
    '/ shapes': (lambda: _x() / np.ones(2), ValueError, r'Tensor\./: .*broadcast'),
    '** shapes': (lambda: _x() ** np.ones(2), ValueError, r'Tensor\.\*\*: .*broadcast'),
    'reflected - shapes': (lambda: np.ones(2) - _x(), ValueError, r'Tensor\.-: .*broadcast'),
    '< shapes': (lambda: _x() < np.ones(4), ValueError, r'Tensor\.<: .*broadcast'),
    '== shapes': (lambda: _x() == mt.Tensor(np.ones(4)), ValueError, r'Tensor\.==: .*broadcast'),
    '& shapes': (lambda: (_x() > 0) & np.ones(4, dtype=bool), ValueError, r'Tensor\.&: .*broadcast'),
    'a dtype NumPy does not know': (lambda: mt.Tensor([1.0], dtype='foo'), TypeError, r'Tensor: .*no dtype'),
    'astype to a dtype NumPy does not know': (lambda: _x().astype('foo'), TypeError, r'Tensor\.astype: .*no dtype'),
    'astype to strings': (lambda: _x().astype('U3'), TypeError, r'Tensor\.astype: dtype must be'),
    'keepdims a string': (lambda: _x().sum(keepdims='yes'), TypeError, r'Tensor\.sum: keepdims must be True or False'),
    'mean keepdims a number': (lambda: _x().mean(axis=0, keepdims=2), TypeError, r'Tensor\.mean: keepdims'),
    'max keepdims None': (lambda: _x().max(keepdims=None), TypeError, r'Tensor\.max: keepdims'),
    'a ragged list index': (lambda: _x()[[[0, 1], [0]]], ValueError, r'Tensor\.__getitem__: .*shape \(2, 3\)'),
    'softmax of None': (lambda: _x().softmax(None), TypeError, r'Tensor\.softmax: works along one axis'),
    'log_softmax of None': (lambda: _x().log_softmax(None), TypeError, r'Tensor\.log_softmax: works along one axis'),
    'cross_entropy of float targets': (lambda: mt.cross_entropy(_x(), mt.Tensor([0, 2])), ValueError,
                                       r'cross_entropy: .*dtype=np\.int64'),
    'deepcopy of a non-leaf': (lambda: copy.deepcopy(_x() * 2), RuntimeError,
                               r'Tensor\.__deepcopy__: .*detach\(\).*copy the leaves'),
    'iterating a 0-d tensor': (lambda: list(mt.Tensor(3.0)), TypeError, 'iteration over a 0-d tensor'),
    'clamp limit past float16': (lambda: mt.Tensor([1.0], dtype=np.float16).clamp(min=70000.0), ValueError,
                                 r'Tensor\.clamp: .*does not fit in float16'),
    'exponent past float16': (lambda: mt.Tensor([1.0], dtype=np.float16) ** 70000.0, ValueError,
                              r'Tensor\.__pow__: .*does not fit in float16'),
    'a loss target of strings': (lambda: mt.mse_loss(_x(), 'a'), TypeError, 'mse_loss: the target must be'),
    'RMSNorm eps an array': (lambda: mt.RMSNorm(3, eps=np.ones(2)), TypeError, 'RMSNorm: eps: must be a number'),
}


@pytest.mark.parametrize('name', WRONG)
def test_a_wrong_call_is_refused_by_name(name):
    call, error, words = WRONG[name]
    with pytest.raises(error, match=words):
        call()
