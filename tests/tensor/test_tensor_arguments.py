"""Every numeric argument of every public tensor function and layer constructor (tensor_ops.py's
ARGUMENTS), given as each NumPy scalar type and as a 0-d array, behaves exactly as the Python number it
stands for: the same values, dtype and gradients, on float16, float32 and float64 inputs. NumPy's own
promotion would otherwise let np.float64(1e-5) make a float32 result float64, or compare in float64."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import micrograd.tensor as mt
from tests.tensor.tensor_ops import ARGUMENTS, BOOL_FORMS, FLOAT_FORMS, INT_FORMS, Argument

REFUSALS = (TypeError, ValueError, IndexError, OverflowError)


def _forms(arg: Argument) -> dict[str, Any]:
    if isinstance(arg.value, bool):
        return BOOL_FORMS
    if isinstance(arg.value, float):  # (70000 is no float16)
        return {name: f for name, f in FLOAT_FORMS.items() if abs(arg.value) < 65504 or 'float16' not in name}
    return {name: f for name, f in INT_FORMS.items() if arg.value >= 0 or 'uint' not in name}


CASES = [pytest.param(arg, form, dtype, id=f"{arg.name}-{form}-{dtype}")
         for arg in ARGUMENTS for form in _forms(arg) for dtype in ('float16', 'float32', 'float64')]


def _run(arg: Argument, given: Any, dtype: str) -> Any:
    x = mt.Tensor(np.linspace(-2, 2, 12).reshape(3, 4), dtype=dtype, requires_grad=True)
    try:
        out = arg.call(given, x)
    except REFUSALS as e:
        return type(e)
    if out.requires_grad:
        out.backward(np.linspace(0.5, 1.5, out.data.size).reshape(out.shape))
    return out.data, x.grad


@pytest.mark.parametrize('arg, form, dtype', CASES)
def test_a_numpy_number_or_0d_array_argument_is_the_python_number(arg, form, dtype):
    given = _forms(arg)[form](arg.value)
    python = given.item()  # the Python number it stands for (np.float32(1e-3) is not quite 1e-3)
    assert type(python) in (bool, int, float)
    expected, got = _run(arg, python, dtype), _run(arg, given, dtype)
    assert not isinstance(expected, type), f"{arg.name} refuses the Python number {python!r}: {expected}"
    assert not isinstance(got, type), f"{arg.name} refuses {form} {given!r} ({got.__name__}), takes {python!r}"
    (data, grad), (their_data, their_grad) = expected, got
    assert type(their_data) is np.ndarray and their_data.dtype == data.dtype, (their_data.dtype, data.dtype)
    np.testing.assert_array_equal(their_data, data)
    assert (grad is None) == (their_grad is None)
    if grad is not None:
        assert type(their_grad) is np.ndarray and their_grad.dtype == grad.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(their_grad, grad)


@pytest.mark.parametrize('bad', [np.array([1e-3]), np.array([[0.5]]), '1e-3', None, 1 + 2j],
                         ids=['1-element array', '1x1 array', 'str', 'None', 'complex'])
@pytest.mark.parametrize('call', [lambda v: mt.rms_norm(mt.Tensor(np.ones((2, 3))), eps=v),
                                  lambda v: mt.RMSNorm(3, eps=v),
                                  lambda v: mt.Tensor(np.ones(3)).clamp(min=v),
                                  lambda v: mt.Tensor(np.ones(3)).masked_fill(np.ones(3, dtype=bool), v)],
                         ids=['rms_norm eps', 'RMSNorm eps', 'clamp min', 'masked_fill value'])
def test_what_is_no_single_number_is_still_refused(call, bad):
    with pytest.raises((TypeError, ValueError)):
        call(bad)


@pytest.mark.parametrize('given', [2.0, np.float64(2.0), np.float32(2.0), np.array(2.0), np.array(2.0, np.float32)],
                         ids=['float', 'np.float64', 'np.float32', '0-d array', '0-d float32 array'])
@pytest.mark.parametrize('dtype', ['float16', 'float32', 'float64'])
def test_backward_takes_a_numpy_number_as_the_gradient_of_a_0d_output(given, dtype):
    x = mt.Tensor([1.0, 2.0], dtype=dtype, requires_grad=True)
    (x * 3).sum().backward(given)
    assert type(x.grad) is np.ndarray and x.grad.dtype == np.dtype(dtype) and x.grad.tolist() == [6.0, 6.0]
