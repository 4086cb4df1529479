"""The tensor engine at the edges the first sweeps did not reach: every op of the table at 0-d, in float64 and
float16 (values, gradients, dtypes, and arrays, never NumPy scalars); float16 with counts beyond its range and
with values whose squares overflow it; targets that require gradients in every loss; copies, iteration and the
refusals that must name the op. PyTorch is the reference."""
from __future__ import annotations

import copy

import numpy as np
import pytest

import micrograd.tensor as mt
from tests.tensor.sweep import (
    Refused,
    assert_same,
    needs_torch,
    run_ours,
    run_torch,
    samples,
    torch,
)
from tests.tensor.tensor_ops import OPS, Op

pytestmark = pytest.mark.usefixtures('torch_in_float64')  # PyTorch computing in float64, as ours

# Ops whose table arguments are made for their table's shapes (an index, a mask, sizes, two axes) are left out:
# at 0-d they ask something else of each engine.
SHAPED = {'reshape numpy size', 'swapaxes', 'T', 'masked_fill', 'cross_entropy'}
ZERO_D = [op for op in OPS if op.grad and op.name not in SHAPED and not op.name.startswith('getitem')]


def zero_d(op: Op) -> tuple[tuple[int, ...], ...]:
    return tuple(() for _ in op.shapes)


@needs_torch
@pytest.mark.parametrize('dtype', ['float64', 'float16'])
@pytest.mark.parametrize('op', ZERO_D, ids=[op.name for op in ZERO_D])
def test_every_op_at_0d_agrees_with_pytorch_and_keeps_arrays(op, dtype):
    arrays = samples(op, dtype, zero_d(op))
    ours, theirs = run_ours(op, arrays, grad=True), run_torch(op, arrays, grad=True)
    if isinstance(theirs, Refused):  # (softmax or matmul of a 0-d tensor: both refuse)
        assert isinstance(ours, Refused), f"{op.name} at 0-d: PyTorch refuses ({theirs!r}), ours gives {ours!r}"
        return
    assert_same(ours, theirs, f"{op.name} at 0-d, {dtype}")
    data, grads = ours
    assert type(data) is np.ndarray and all(type(g) is np.ndarray for g in grads if g is not None)


@pytest.mark.parametrize('op', [op for op in ZERO_D if len(op.shapes) == 1], ids=lambda op: op.name)
def test_a_0d_leafs_grad_stays_an_array_when_a_second_gradient_is_added(op):
    x = mt.Tensor(samples(op, 'float64', ((),))[0], requires_grad=True)
    try:
        op.ours(x).backward()
        op.ours(x).backward()
    except (TypeError, ValueError):
        return  # an op that refuses 0-d tensors (softmax)
    assert type(x.grad) is np.ndarray and x.grad.shape == ()
    np.clip(x.grad, -1, 1, out=x.grad)  # what a user does with it


def test_a_0d_tensor_cannot_be_iterated_or_measured_as_in_pytorch():
    with pytest.raises(TypeError, match='iteration over a 0-d tensor'):
        list(mt.Tensor(3.0))
    with pytest.raises(TypeError, match='0-d tensor'):
        len(mt.Tensor(3.0))
    rows = list(mt.Tensor([[1.0, 2.0], [3.0, 4.0]]))
    assert [r.data.tolist() for r in rows] == [[1.0, 2.0], [3.0, 4.0]]


# --- float16: counts and squares beyond its range are computed in float32, as PyTorch's half ops ---

LOSSES_16 = {
    'mean': lambda x, t: x.mean(),
    'mse_loss': lambda x, t: mt.mse_loss(x, t),
    'binary_cross_entropy_with_logits': lambda x, t: mt.binary_cross_entropy_with_logits(x, t),
    'binary_cross_entropy': lambda x, t: mt.binary_cross_entropy(x.sigmoid(), t),
}
TORCH_LOSSES_16 = {
    'mean': lambda F, x, t: x.mean(), 'mse_loss': lambda F, x, t: F.mse_loss(x, t),
    'binary_cross_entropy_with_logits': lambda F, x, t: F.binary_cross_entropy_with_logits(x, t),
    'binary_cross_entropy': lambda F, x, t: F.binary_cross_entropy(x.sigmoid(), t),
}


@needs_torch
@pytest.mark.parametrize('name', LOSSES_16)
def test_float16_losses_over_more_elements_than_float16_counts_agree_with_pytorch(name):
    n = 70_000  # above 65,504, the largest float16
    x = np.linspace(-2, 2, n).astype(np.float16)
    t = (np.arange(n) % 2).astype(np.float16)
    ours_x = mt.Tensor(x, dtype=np.float16, requires_grad=True)
    loss = LOSSES_16[name](ours_x, t)
    loss.backward()
    theirs_x = torch.tensor(x, requires_grad=True)
    their_loss = TORCH_LOSSES_16[name](torch.nn.functional, theirs_x, torch.tensor(t))
    their_loss.backward()
    assert loss.data.dtype == np.float16 and np.isfinite(loss.data)
    assert float(loss.data) == pytest.approx(their_loss.item(), rel=2e-3)
    assert ours_x.grad.dtype == np.float16 and np.any(ours_x.grad != 0)
    np.testing.assert_allclose(ours_x.grad.astype(np.float64), theirs_x.grad.numpy().astype(np.float64),
                               rtol=2e-2, atol=1e-7)


@needs_torch
@pytest.mark.parametrize('scale', [100.0, 1e-3, 1.0])
def test_rms_norm_in_float16_computes_in_float32_and_rounds_once(scale):
    x = (np.random.default_rng(0).normal(size=(3, 8)) * scale).astype(np.float16)
    ours = mt.Tensor(x, dtype=np.float16, requires_grad=True)
    out = mt.rms_norm(ours)
    out.backward(np.ones(out.shape))
    theirs = torch.tensor(x, requires_grad=True)
    their_out = torch.nn.functional.rms_norm(theirs, (8,), eps=1e-5)
    their_out.backward(torch.ones_like(their_out))
    assert out.data.dtype == np.float16
    np.testing.assert_allclose(out.data.astype(float), their_out.detach().numpy().astype(float), rtol=2e-3)
    np.testing.assert_allclose(ours.grad.astype(float), theirs.grad.numpy().astype(float), rtol=2e-2, atol=1e-3)


@pytest.mark.parametrize('eps', [1e-5, np.float64(1e-5), np.float32(1e-5), np.array(1e-5)],
                         ids=['float', 'np.float64', 'np.float32', '0-d array'])
@pytest.mark.parametrize('dtype', [np.float32, np.float64, np.float16])
def test_rms_norm_keeps_its_inputs_dtype_whatever_number_eps_is(eps, dtype):
    x = mt.Tensor(np.ones((2, 3)), dtype=dtype)
    assert mt.rms_norm(x, eps=eps).data.dtype == dtype


# --- targets that require gradients, in every loss ---

TARGET_LOSSES = {
    'mse_loss': (lambda p, t: mt.mse_loss(p, t), lambda F, p, t: F.mse_loss(p, t), lambda p: p),
    'binary_cross_entropy': (lambda p, t: mt.binary_cross_entropy(p, t), lambda F, p, t: F.binary_cross_entropy(p, t),
                             lambda p: 1 / (1 + np.exp(-p))),
    'binary_cross_entropy_with_logits': (lambda p, t: mt.binary_cross_entropy_with_logits(p, t),
                                         lambda F, p, t: F.binary_cross_entropy_with_logits(p, t), lambda p: p),
}


@needs_torch
@pytest.mark.parametrize('name', TARGET_LOSSES)
def test_a_target_that_requires_gradients_gets_pytorchs(name):
    ours_loss, their_loss, prepare = TARGET_LOSSES[name]
    rng = np.random.default_rng(1)
    p, t = prepare(rng.normal(size=(4, 3))), rng.uniform(0, 1, size=(4, 3))
    pred, target = mt.Tensor(p, requires_grad=True), mt.Tensor(t, requires_grad=True)
    ours_loss(pred, target).backward()
    tp, tt = torch.tensor(p, requires_grad=True), torch.tensor(t, requires_grad=True)
    their_loss(torch.nn.functional, tp, tt).backward()
    np.testing.assert_allclose(pred.grad, tp.grad.numpy(), rtol=1e-9)
    np.testing.assert_allclose(target.grad, tt.grad.numpy(), rtol=1e-9)


def test_cross_entropys_target_is_class_indices_so_it_takes_no_gradient_as_in_pytorch():
    logits = mt.Tensor(np.zeros((2, 3)), requires_grad=True)
    loss = mt.cross_entropy(logits, mt.Tensor([0, 2], dtype=np.int64))
    loss.backward()
    assert logits.grad.shape == (2, 3)


# An infinite score: the loss is its limit. Where PyTorch's (max-shifted) formula has an answer we agree with it;
# where it gives nan (a right score: z = inf with y = 1, z = -inf with y = 0; and any z = -inf) we give the limit.
INFINITE_SCORES = [  # z, y, the loss, its gradient with respect to z and y (per element, before the mean)
    (np.inf, 0.0, np.inf, 1.0, -np.inf), (np.inf, 0.5, np.inf, 0.5, -np.inf), (np.inf, 1.0, 0.0, 0.0, -np.inf),
    (-np.inf, 1.0, np.inf, -1.0, np.inf), (-np.inf, 0.5, np.inf, -0.5, np.inf), (-np.inf, 0.0, 0.0, 0.0, np.inf),
    (5.0, 0.0, 5.006715348489118, 0.9933071490757153, -5.0), (-5.0, 1.0, 5.006715348489118, -0.9933071490757153, 5.0),
]


@needs_torch
@pytest.mark.parametrize('z, y, loss, dz, dy', INFINITE_SCORES)
def test_binary_cross_entropy_with_logits_of_an_infinite_score_is_its_limit(z, y, loss, dz, dy):
    logits, target = mt.Tensor([z], requires_grad=True), mt.Tensor([y], requires_grad=True)
    out = mt.binary_cross_entropy_with_logits(logits, target)
    out.backward()
    assert out.item() == pytest.approx(loss) and logits.grad[0] == pytest.approx(dz) and target.grad[0] == dy
    tz, ty = torch.tensor([z], requires_grad=True), torch.tensor([y], requires_grad=True)
    theirs = torch.nn.functional.binary_cross_entropy_with_logits(tz, ty)
    theirs.backward()
    assert np.isnan(theirs.item()) or theirs.item() == pytest.approx(loss)
    assert tz.grad[0].item() == pytest.approx(dz) and ty.grad[0].item() == dy  # the gradients are PyTorch's


# --- copies, refusals that name the op ---

def test_a_deep_copy_of_a_tensor_an_op_made_is_refused_and_of_a_leaf_is_independent():
    w = mt.Tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r'Tensor\.__deepcopy__: only leaves'):
        copy.deepcopy(w * 2)
    w2 = copy.deepcopy(w)
    (w2 * 3).sum().backward()
    assert w.grad is None and w2.grad.tolist() == [3.0, 3.0] and w2.requires_grad
    model = mt.MLP(2, [3, 1], rng=np.random.default_rng(0))
    assert [p.data.tolist() for p in copy.deepcopy(model).parameters()] == [p.data.tolist() for p in model.parameters()]


@needs_torch
def test_cross_entropy_of_an_empty_batch_is_nan_as_in_pytorch():
    for targets in ([], np.array([], dtype=np.int64)):
        logits = mt.Tensor(np.zeros((0, 4)), requires_grad=True)
        loss = mt.cross_entropy(logits, targets)
        loss.backward()
        assert np.isnan(loss.item()) and logits.grad.shape == (0, 4)
    theirs = torch.nn.functional.cross_entropy(torch.zeros((0, 4)), torch.zeros(0, dtype=torch.int64))
    assert np.isnan(theirs.item())


@pytest.mark.parametrize('call', [lambda x: x.softmax(None), lambda x: x.log_softmax(None),
                                  lambda x: x.softmax((0, 1))], ids=['softmax', 'log_softmax', 'two axes'])
def test_softmax_along_no_one_axis_is_refused_by_name(call):
    with pytest.raises(TypeError, match=r'Tensor\.(log_)?softmax: works along one axis'):
        call(mt.Tensor(np.ones((2, 3))))


@pytest.mark.parametrize('index', [mt.Tensor([0, 1]), np.array([0.0, 1.0]), (slice(None), mt.Tensor([0.0]))],
                         ids=['float Tensor', 'float array', 'in a tuple'])
def test_indexing_with_floats_names_the_op_and_dtype(index):
    with pytest.raises(IndexError, match=r'Tensor\.__getitem__: .*dtype=np\.int64'):
        mt.Tensor(np.ones((3, 3)))[index]


# --- float16 with a number: the number in float32, the result rounded once, as PyTorch's half ops ---

HALF_WITH_NUMBERS = {
    'x * 1e-8': lambda x: x * 1e-8, '1e-8 * x': lambda x: 1e-8 * x, 'x / 70000': lambda x: x / 70000.0,
    'x + 1e-4': lambda x: x + 1e-4, 'x - 1e-4': lambda x: x - 1e-4,
    'x * np.float64(1e-8)': lambda x: x * np.float64(1e-8),
    'x / 0-d float32 tensor': lambda x: x / (mt.Tensor(70000.0, dtype=np.float32) if isinstance(x, mt.Tensor)
                                             else torch.tensor(70000.0, dtype=torch.float32)),
}


@needs_torch
@pytest.mark.parametrize('name', HALF_WITH_NUMBERS)
def test_a_float16_tensor_with_a_number_computes_in_float32_and_rounds_once(name):
    f = HALF_WITH_NUMBERS[name]
    x = np.array([1.0, 2.0, 3.0, 1000.0], dtype=np.float16)
    ours = mt.Tensor(x, dtype=np.float16, requires_grad=True)
    out = f(ours)
    out.backward(np.ones(4))
    theirs = torch.tensor(x, requires_grad=True)
    their_out = f(theirs)
    their_out.backward(torch.ones(4, dtype=torch.float16))
    assert out.data.dtype == np.float16 and ours.grad.dtype == np.float16
    np.testing.assert_array_equal(out.data, their_out.detach().numpy())
    np.testing.assert_array_equal(ours.grad, theirs.grad.numpy())
