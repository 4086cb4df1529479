"""float16 as PyTorch computes it: every op of tensor_ops.py's table on float16 samples, special values
and 0-d inputs, against PyTorch's float16 results within 2 units in the last place (test_tensor_sweep allows 2e-2
for any float16 difference; this is the check that an op computes in float32 and rounds once, as PyTorch's
half ops do, rather than rounding every step), and every result and gradient an ndarray of float16."""
from __future__ import annotations

import numpy as np
import pytest

import micrograd.tensor as mt
from tests.tensor.sweep import (
    SPECIAL_VALUE_MARKS,
    Refused,
    needs_torch,
    run_ours,
    run_torch,
    samples,
    specials,
    torch,
)
from tests.tensor.tensor_ops import OPS, Op

HALF_OPS = [op for op in OPS if 'float16' in op.dtypes]
pytestmark = [*SPECIAL_VALUE_MARKS, pytest.mark.same_on_every_python]  # inf and nan in forward ops; PyTorch in float64
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


# --- a float16 tensor (with axes, or 0-d) and a number: the number takes part in float32 where PyTorch's does ---

WITH_A_NUMBER = {
    'x * c': lambda x, c: x * c, 'c * x': lambda x, c: c * x, 'x / c': lambda x, c: x / c,
    'c / x': lambda x, c: c / x, 'x + c': lambda x, c: x + c, 'x - c': lambda x, c: x - c, 'c - x': lambda x, c: c - x,
    'x ** c': lambda x, c: x ** c, 'c ** x': lambda x, c: c ** x,
    'x < c': lambda x, c: x < c, 'x == c': lambda x, c: x == c,  # compared in float16, as PyTorch compares
    'where(x > 1, x, c)': lambda x, c: (mt.where(x.data > 1, x, c) if isinstance(x, mt.Tensor)
                                        else torch.where(x > 1, x, c)),
    'clamp(min=c)': lambda x, c: x.clamp(min=c), 'masked_fill(x > 1, c)': lambda x, c: x.masked_fill(x > 1, c),
}
NUMBERS = {'1e-8': 1e-8, '70000': 70000.0, '1.0001': 1.0001, '1e-4': 1e-4, '3': 3, 'np.float64(1e-8)': np.float64(1e-8)}
NUMBER_DIFFERS = {  # where we keep the true number and PyTorch rounds something to float16 on the way
    ('c / x', '70000'): ("PyTorch's c / x is c * reciprocal(x), whose backward overflows float16 (70000 * grad is "
                         "inf: -inf everywhere); we compute -c / x ** 2 in float32: -17504 at x = 2"),
}


@needs_torch
@pytest.mark.parametrize('shape', [(4,), ()], ids=['with axes', '0-d'])
@pytest.mark.parametrize('number', NUMBERS)
@pytest.mark.parametrize('name', WITH_A_NUMBER)
def test_a_float16_tensor_and_a_number_give_pytorchs_float16_result(name, number, shape):
    f, c = WITH_A_NUMBER[name], NUMBERS[number]
    if name == 'masked_fill(x > 1, c)' and number == '70000':
        pytest.skip("70000 does not fit in float16: refused as a fill value (FILL_FITS in the table)")
    x = np.resize(np.array([1.0, 2.0, 10.0, 0.1], dtype=np.float16), shape)
    ours_x, their_x = mt.Tensor(x, dtype=np.float16, requires_grad=True), torch.tensor(x, requires_grad=True)
    try:
        theirs = f(their_x, c)
    except RuntimeError:  # a number that does not fit in float16 as a limit or an exponent: refused by both
        with pytest.raises(ValueError, match='does not fit in float16'):
            f(ours_x, c)
        return
    ours = f(ours_x, c)
    assert type(ours.data) is np.ndarray and ours.data.dtype == theirs.detach().numpy().dtype, (ours, theirs)
    if theirs.requires_grad:
        ours.backward(np.ones(ours.shape))
        theirs.backward(torch.ones_like(theirs))
        if (name, number) not in NUMBER_DIFFERS:
            _assert_close(ours_x.grad, their_x.grad.numpy(), f"{name} with {number}: the gradient")
    if (name, number) not in NUMBER_DIFFERS:
        _assert_close(ours.data, theirs.detach().numpy(), f"{name} with {number}")


# --- float16 over more elements than float16 can count (65,504): counts and sums in float32, as PyTorch ---

MANY = {  # each op on a float16 input of 70,000 elements, and PyTorch's
    'max': (lambda x: x.max(), lambda t, x: x.max()),
    'min': (lambda x: x.min(), lambda t, x: x.min()),
    'sum': (lambda x: x.sum(), lambda t, x: x.sum()),  # past float16: inf in both
    'mean': (lambda x: x.mean(), lambda t, x: x.mean()),
    'mean axis': (lambda x: x.reshape(2, -1).mean(axis=1), lambda t, x: x.reshape(2, -1).mean(dim=1)),
    'softmax': (lambda x: x.softmax(), lambda t, x: x.softmax(dim=-1)),
    'log_softmax': (lambda x: x.log_softmax(), lambda t, x: x.log_softmax(dim=-1)),
    'rms_norm': (lambda x: mt.rms_norm(x), lambda t, x: t.nn.functional.rms_norm(x, (x.shape[-1],), eps=1e-5)),
    'mse_loss': (lambda x: mt.mse_loss(x, np.zeros(x.shape)),
                 lambda t, x: t.nn.functional.mse_loss(x, t.zeros(x.shape, dtype=x.dtype))),
    'cross_entropy': (lambda x: mt.cross_entropy(x.reshape(-1, 2), np.arange(x.data.size // 2) % 2),
                      lambda t, x: t.nn.functional.cross_entropy(x.reshape(-1, 2), t.arange(x.numel() // 2) % 2)),
}


@needs_torch
@pytest.mark.parametrize('values', ['ties', 'spread'])
@pytest.mark.parametrize('name', MANY)
def test_float16_over_70000_elements_is_the_exact_result_rounded(name, values):
    """Against PyTorch in float64 on the same float16 numbers: computing in float32 and rounding once gives the
    exact result to about 1 unit in the last place. (PyTorch's own float16 is further off on some of these: its
    log_softmax of 70,000 ties is -inf, not -11.16, and its cross_entropy is 3 units off.)"""
    ours_f, their_f = MANY[name]
    x = (np.full(70_000, 0.5) if values == 'ties' else np.linspace(-2, 2, 70_000)).astype(np.float16)
    ours_x = mt.Tensor(x, dtype=np.float16, requires_grad=True)
    exact_x = torch.tensor(x.astype(np.float64), requires_grad=True)
    ours, exact = ours_f(ours_x), their_f(torch, exact_x)
    upstream = np.linspace(0.5, 1.5, exact.numel()).reshape(exact.shape).astype(np.float16)
    ours.backward(upstream)
    exact.backward(torch.from_numpy(upstream.astype(np.float64)))
    for what, got, want in (('', ours.data, exact.detach().numpy()), (': the gradient', ours_x.grad, exact_x.grad)):
        want = np.asarray(want)
        assert type(got) is np.ndarray and got.dtype == np.float16, f"{name}{what}: {type(got)} {got.dtype}"
        scale = float(np.max(np.abs(want[np.isfinite(want)]), initial=0.0))
        # A gradient computed from the float16 output, as PyTorch's is, carries that output's rounding: log-probs
        # of about -11 are 0.004 apart in float16, so their exp is off by 0.4% of the largest term.
        atol = (5e-3 if what else 2e-3) * scale + 1e-7
        np.testing.assert_allclose(got.astype(np.float64), want, rtol=2e-3, atol=atol,
                                   err_msg=f"{name} of 70,000 float16 {values}{what}")
    assert np.any(ours_x.grad != 0), "every gradient 0: a count of 70,000 was inf in float16"


@needs_torch
@pytest.mark.parametrize('op', ['+', '-', '*', '/'])
@pytest.mark.parametrize('side', ['left', 'right'])
def test_a_float16_tensor_and_a_wider_0d_tensor_give_pytorchs_float16_result(op, side):
    """A 0-d float32 tensor counts as a number: * and / compute in float32, + and - round it to float16 first
    (PyTorch: x16 - tensor(1.0001) is 0 at x = 1), as for a Python number."""
    x = np.array([1.0, 0.1, 3.0, 1000.0], dtype=np.float16)
    c = np.array(1.0001 if op in '+-' else 1e-4, dtype=np.float32)
    f = {'+': lambda a, b: a + b, '-': lambda a, b: a - b, '*': lambda a, b: a * b, '/': lambda a, b: a / b}[op]
    ours_x, ours_c = mt.Tensor(x, dtype=np.float16, requires_grad=True), mt.Tensor(c, dtype=np.float32)
    their_x, their_c = torch.tensor(x, requires_grad=True), torch.tensor(c)
    ours = f(ours_x, ours_c) if side == 'right' else f(ours_c, ours_x)
    theirs = f(their_x, their_c) if side == 'right' else f(their_c, their_x)
    ours.backward(np.ones(4))
    theirs.backward(torch.ones(4, dtype=torch.float16))
    _assert_close(ours.data, theirs.detach().numpy(), f"x16 {op} a 0-d float32 tensor, on the {side}")
    _assert_close(ours_x.grad, their_x.grad.numpy(), f"x16 {op} a 0-d float32 tensor, on the {side}: the gradient")
