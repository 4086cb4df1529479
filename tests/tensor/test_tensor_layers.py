"""Every layer of tensor_ops.py's LAYERS against the PyTorch module holding the same weights, in float64,
float32 and float16 (the parameters converted as a user converts a model) and on 0-d inputs: the output's
values, dtype and kind (an ndarray, never a NumPy scalar), the input's gradient and every parameter's."""
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
from tests.tensor.tensor_ops import LAYERS, Layer

pytestmark = pytest.mark.usefixtures('torch_in_float64')  # PyTorch computing in float64, as ours

DTYPES = ('float64', 'float32', 'float16')


def _both(layer: Layer, dtype: str) -> tuple[Any, Any]:
    """Our layer in dtype (its parameters scaled off their initial values: RMSNorm's weight starts at 1s) and
    PyTorch's module with the same weights."""
    ours = layer.ours()
    rng = np.random.default_rng(1)
    for p in ours.parameters():
        p.data = (p.data * rng.uniform(0.5, 1.5, p.data.shape)).astype(dtype)
    theirs = layer.theirs(torch, ours).to(getattr(torch, dtype))
    return ours, theirs


def _transposed(module: Any, name: str) -> bool:
    """PyTorch's Linear keeps weight as (out, in), ours as (in, out)."""
    owner = module.get_submodule(name.rpartition('.')[0]) if '.' in name else module
    return isinstance(owner, torch.nn.Linear) and name.endswith('weight')


def _input(layer: Layer, dtype: str, zero_d: bool) -> np.ndarray:
    rng = np.random.default_rng(2)
    if layer.shape == 'indices':
        return np.array(3) if zero_d else rng.integers(0, 6, (2, 5))
    assert not isinstance(layer.shape, str)
    return np.asarray(rng.normal(size=() if zero_d else layer.shape)).astype(dtype)


def _run_ours(layer: Any, x: np.ndarray, dtype: str) -> Any:
    given = x if x.dtype.kind in 'iu' else mt.Tensor(x, dtype=dtype, requires_grad=True)
    try:
        out = layer(given)
    except REFUSALS as e:
        return e
    out.backward(np.linspace(0.5, 1.5, out.data.size).reshape(out.shape))
    return out.data, (None if x.dtype.kind in 'iu' else given.grad), [p.grad for p in layer.parameters()]


def _run_torch(module: Any, x: np.ndarray) -> Any:
    given = torch.from_numpy(x.copy())
    if x.dtype.kind == 'f':
        given.requires_grad_(True)
    try:
        out = module(given)
    except (RuntimeError, IndexError, ValueError) as e:
        return e
    out.backward(torch.from_numpy(np.linspace(0.5, 1.5, out.numel()).reshape(out.shape)).to(out.dtype))
    grads = [p.grad.numpy().T if _transposed(module, name) else p.grad.numpy() for name, p in module.named_parameters()]
    return out.detach().numpy(), (None if x.dtype.kind != 'f' else given.grad.numpy()), grads


def _close(ours: np.ndarray, theirs: np.ndarray, what: str) -> None:
    assert type(ours) is np.ndarray, f"{what}: a {type(ours).__name__}, not an ndarray"
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, (what, ours.dtype, theirs.dtype, ours.shape)
    np.testing.assert_allclose(ours.astype(np.float64), theirs.astype(np.float64), err_msg=what,
                               **tolerance(ours.dtype))


@needs_torch
@pytest.mark.parametrize('zero_d', [False, True], ids=['batch', '0-d input'])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('layer', LAYERS, ids=[layer.name for layer in LAYERS])
def test_every_layer_agrees_with_pytorch(layer, dtype, zero_d):
    ours_layer, their_module = _both(layer, dtype)
    x = _input(layer, dtype, zero_d)
    ours, theirs = _run_ours(ours_layer, x, dtype), _run_torch(their_module, x)
    what = f"{layer.name} in {dtype}{' on a 0-d input' if zero_d else ''}"
    if isinstance(theirs, Exception):
        assert isinstance(ours, Exception), f"{what}: PyTorch refuses ({theirs}), ours gives {ours}"
        assert isinstance(ours, REFUSALS) and str(ours), what
        return
    assert not isinstance(ours, Exception), f"{what}: ours refuses ({ours!r}), PyTorch computes"
    (data, x_grad, grads), (their_data, their_x_grad, their_grads) = ours, theirs
    _close(data, their_data, what)
    if their_x_grad is not None:
        _close(x_grad, their_x_grad, f"{what}: the input's gradient")
    assert len(grads) == len(their_grads)
    for i, (g, h) in enumerate(zip(grads, their_grads)):
        _close(g, h, f"{what}: parameter {i}'s gradient")


# --- a frozen parameter (p.requires_grad = False, the fine-tuning idiom) stays a parameter, as in PyTorch ---

FROZEN = [(layer, name) for layer in LAYERS for name, _ in layer.ours().named_parameters()]


@needs_torch
@pytest.mark.parametrize('layer, name', FROZEN, ids=[f"{layer.name}: {name}" for layer, name in FROZEN])
def test_a_frozen_parameter_is_listed_saved_and_loaded_as_in_pytorch(layer, name):
    ours, theirs = _both(layer, 'float64')
    dict(ours.named_parameters())[name].requires_grad = False
    torch_name = name if name in dict(theirs.named_parameters()) else None
    if torch_name is not None:
        theirs.get_parameter(torch_name).requires_grad_(False)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in layer.ours().named_parameters()]
    assert len(ours.state_dict()) == len(theirs.state_dict())  # every parameter saved, the frozen one too
    fresh = layer.ours()  # other weights, frozen the same way: loading gives it the saved ones, all of them
    dict(fresh.named_parameters())[name].requires_grad = False
    fresh.load_state_dict(ours.state_dict())
    assert all(np.array_equal(fresh.state_dict()[n], v) for n, v in ours.state_dict().items())
    assert not dict(fresh.named_parameters())[name].requires_grad  # loading leaves requires_grad as it was


SEVERAL = [layer for layer in LAYERS if len(layer.ours().parameters()) > 1]  # one frozen, the others trained


@pytest.mark.parametrize('layer', SEVERAL, ids=[layer.name for layer in SEVERAL])
def test_a_frozen_parameter_gets_no_gradient_and_the_optimizer_leaves_it_alone(layer):
    model = layer.ours()
    frozen, *trained = model.parameters()
    frozen.requires_grad = False
    before = frozen.data.copy()
    optimizer = mt.Adam(model.parameters(), lr=0.1)
    x = _input(layer, 'float64', zero_d=False)
    (model(x) ** 2).sum().backward()
    optimizer.step()
    assert frozen.grad is None and np.array_equal(frozen.data, before)
    assert all(p.grad is not None for p in trained)


def test_a_frozen_tied_weight_keeps_both_names_in_the_state_dict():
    class Tied(mt.Module):
        def __init__(self):
            self.embed = mt.Embedding(5, 3, rng=np.random.default_rng(0))
            self.head = self.embed.weight
    model = Tied()
    model.head.requires_grad = False
    assert list(model.state_dict()) == ['embed.weight', 'head'] and len(model.parameters()) == 1


def test_a_data_tensor_a_module_keeps_is_saved_and_loaded_as_a_pytorch_buffer_and_gets_no_step():
    class Masked(mt.Module):
        def __init__(self):
            self.linear = mt.Linear(3, 3, rng=np.random.default_rng(0))
            self.mask = mt.Tensor(np.tril(np.ones((3, 3))))  # data: requires_grad=False

        def forward(self, x):
            return self.linear(x) * self.mask
    model = Masked()
    assert list(model.state_dict()) == ['linear.weight', 'linear.bias', 'mask']
    optimizer = mt.SGD(model.parameters(), lr=0.1)
    model(np.ones((3, 3))).sum().backward()
    optimizer.step()
    assert model.mask.grad is None and model.mask.data.tolist() == np.tril(np.ones((3, 3))).tolist()


class KeepsItsOutput(mt.Linear):
    """makemore's habit: a layer that keeps its last output, for a look at it later."""

    def forward(self, x):
        self.out = super().forward(x)
        return self.out


@pytest.mark.parametrize('how', ['no_grad', 'frozen inputs and weights'])
def test_an_output_kept_from_a_pass_without_a_graph_is_no_parameter_as_in_pytorch(how):
    trained = KeepsItsOutput(2, 3, rng=np.random.default_rng(0))
    if how == 'no_grad':
        with mt.no_grad():
            trained(np.ones((1, 2)))  # an evaluation pass: trained.out is made with no graph, a leaf
    else:
        for p in trained.parameters():
            p.requires_grad = False  # nothing needs a gradient: the op records nothing
        trained(np.ones((1, 2)))
    assert trained.out.is_leaf and not trained.out.requires_grad  # as PyTorch's: no grad_fn
    assert [name for name, _ in trained.named_parameters()] == ['weight', 'bias']
    assert len(trained.parameters()) == 2 and list(trained.state_dict()) == ['weight', 'bias']
    fresh = KeepsItsOutput(2, 3, rng=np.random.default_rng(1))
    fresh.load_state_dict(trained.state_dict())
    assert np.array_equal(fresh.weight.data, trained.weight.data)


@pytest.mark.parametrize('copy', ['deepcopy', 'pickle'])
def test_a_copy_of_a_model_keeping_a_no_grad_output_saves_the_same_parameters(copy):
    import copy as copying
    import pickle
    model = KeepsItsOutput(2, 3, rng=np.random.default_rng(0))
    with mt.no_grad():
        model(np.ones((1, 2)))
    copied = copying.deepcopy(model) if copy == 'deepcopy' else pickle.loads(pickle.dumps(model))
    assert list(copied.state_dict()) == ['weight', 'bias'] and len(copied.parameters()) == 2
    copied.load_state_dict(model.state_dict())


def test_a_tensor_made_under_no_grad_by_the_constructor_is_still_kept_data_as_a_buffer():
    class Masked(mt.Module):
        def __init__(self):
            with mt.no_grad():
                self.mask = mt.Tensor(np.tril(np.ones((2, 2))))
    assert list(Masked().state_dict()) == ['mask']
