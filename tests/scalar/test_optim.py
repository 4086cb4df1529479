"""micrograd.optim as a specification: SGD and Adam on Values and on Tensors, checked by hand
and step for step against torch.optim."""
import random
import subprocess
import sys

import numpy as np
import pytest

import micrograd.tensor as mt
from micrograd import nn
from micrograd.engine import Value
from micrograd.optim import SGD, Adam


@pytest.fixture
def torch():
    torch = pytest.importorskip('torch', reason="PyTorch's CPU build is only installed for the 3.11 test environment")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny tensors: a thread pool only adds waiting
    yield torch
    torch.set_num_threads(threads)


def param(data):
    return mt.Tensor(data, requires_grad=True)


# --- one module for both engines ---

def test_optim_needs_no_numpy():
    code = "import sys, micrograd.optim; assert 'numpy' not in sys.modules, 'micrograd.optim imported numpy'"
    subprocess.run([sys.executable, '-c', code], check=True)


def test_micrograd_tensor_uses_the_same_optimizers():
    assert mt.SGD is SGD and mt.Adam is Adam


def test_sgd_on_a_value_steps_against_the_gradient():
    w = Value(1.0)
    opt = SGD([w], lr=0.1)
    (w * w).backward()  # grad 2
    opt.step()
    assert w.data == pytest.approx(0.8)


def test_sgd_on_a_tensor_updates_its_array_in_place():
    w = param([1.0, -2.0])
    array = w.data
    (w * w).sum().backward()  # grad 2w
    SGD([w], lr=0.25).step()
    assert w.data is array  # anything holding the array sees the new weights
    assert w.data.tolist() == [0.5, -1.0]


def test_zero_grad_gives_a_value_zero_and_a_tensor_none():
    v, t = Value(1.0), param([1.0])
    (v * 2).backward()
    (t * 2).sum().backward()
    SGD([v, t]).zero_grad()
    assert v.grad == 0.0 and t.grad is None  # as micrograd.nn and PyTorch


def test_sgd_with_momentum_keeps_a_velocity():
    p = Value(1.0)
    opt = SGD([p], lr=0.1, momentum=0.9)
    for _ in range(2):
        p.grad = 1.0
        opt.step()
    assert p.data == pytest.approx(1 - 0.1 - 0.19)  # v = 1, then 0.9 * 1 + 1


def test_adams_first_step_moves_each_number_by_lr():
    p = param([1.0, 1.0])
    opt = Adam([p], lr=0.01)
    p.grad = np.array([1e-3, -50.0])  # the size of the gradient does not matter, only its sign
    opt.step()
    assert p.data.tolist() == pytest.approx([0.99, 1.01])


def test_adam_counts_steps_per_parameter():
    early, late = param([1.0]), param([1.0])
    opt = Adam([early, late], lr=0.01)
    for _ in range(3):
        early.grad = np.array([1.0])
        opt.step()  # late has no gradient yet: skipped, and not counted
    late.grad = np.array([1.0])
    opt.step()
    assert opt.steps == [4, 1]
    # A first step is lr whatever came before; with a shared count (t = 4) it would be about 0.54 lr.
    assert late.data[0] == pytest.approx(0.99)


def test_optimizers_skip_tensors_without_gradients():
    p = param([1.0])
    for opt in (SGD([p], lr=0.1, momentum=0.9), Adam([p])):
        opt.step()
    assert p.data.tolist() == [1.0]


def test_float32_parameters_stay_float32():
    p = mt.Tensor([1.0, 2.0], requires_grad=True, dtype=np.float32)
    for opt in (SGD([p], lr=0.1, momentum=0.9), Adam([p], lr=0.1)):
        for _ in range(2):
            p.grad = np.array([0.5, -0.5], dtype=np.float32)
            opt.step()
            assert p.data.dtype == np.float32


def test_lr_is_settable_and_the_repr_reads_like_the_call():
    opt = SGD([Value(1.0)], lr=0.1)
    opt.lr = 0.05
    assert repr(opt) == 'SGD(lr=0.05, params=1)'
    assert repr(SGD([Value(1.0), Value(2.0)], lr=0.1, momentum=0.9)) == 'SGD(lr=0.1, momentum=0.9, params=2)'
    assert repr(Adam([param([1.0])])) == 'Adam(lr=0.001, betas=(0.9, 0.999), eps=1e-08, params=1)'


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match='SGD: got no parameters'):
        SGD([])
    with pytest.raises(TypeError, match=r'Adam: parameters need .data and .grad \(pass model.parameters\(\)\)'):
        Adam([1.0, 2.0])
    with pytest.raises(ValueError, match='SGD: the learning rate must be >= 0'):
        SGD([Value(1.0)], lr=-0.1)
    with pytest.raises(ValueError, match='Adam: betas must be two numbers in'):
        Adam([Value(1.0)], betas=(0.9, 1.0))


def test_karpathys_usage_with_an_nn_mlp():
    random.seed(0)
    model = nn.MLP(3, [4, 4, 1], activation='tanh')  # the network and data of Karpathy's micrograd lecture
    xs, ys = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]], [1.0, -1.0, -1.0, 1.0]
    opt = SGD(model.parameters(), lr=0.05)

    def loss():
        return sum(((model(x) - y) ** 2 for x, y in zip(xs, ys)), Value(0.0))
    first = loss()
    opt.zero_grad()
    first.backward()
    expected = [p.data - 0.05 * p.grad for p in model.parameters()]
    opt.step()
    assert [p.data for p in model.parameters()] == expected  # p.data -= lr * p.grad, for every parameter
    for _ in range(20):
        current = loss()
        opt.zero_grad()
        current.backward()
        opt.step()
    assert loss().data < 0.5 * first.data


# --- step for step against torch.optim (float64) ---

CONFIGS = {
    'sgd': (SGD, 'SGD', dict(lr=0.1)),
    'sgd momentum': (SGD, 'SGD', dict(lr=0.1, momentum=0.9)),
    'adam': (Adam, 'Adam', dict(lr=0.05)),
    'adam betas eps': (Adam, 'Adam', dict(lr=0.05, betas=(0.8, 0.99), eps=1e-6)),
}
STEPS = 6
LATE = 2  # the second parameter gets its first gradient at this step


@pytest.mark.parametrize('config', CONFIGS)
def test_tensor_steps_match_torch(torch, config):
    ours, theirs, kwargs = CONFIGS[config]
    rng = np.random.default_rng(0)
    a0, b0, target = rng.normal(size=3), rng.normal(size=(2, 2)), rng.normal(size=(2, 2))
    a, b = param(a0), param(b0)
    ta, tb = (torch.tensor(x, requires_grad=True) for x in (a0, b0))
    opt, torch_opt = ours([a, b], **kwargs), getattr(torch.optim, theirs)([ta, tb], **kwargs)
    for step in range(STEPS):
        for x, y, (optimizer, t) in ((a, b, (opt, mt.Tensor(target))), (ta, tb, (torch_opt, torch.tensor(target)))):
            loss = (x * x * x).sum()  # b takes no part in the first LATE steps: its grad stays None
            if step >= LATE:
                loss = loss + ((y - t) ** 2).sum() * (x.sum() ** 2)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        np.testing.assert_allclose(a.data, ta.detach().numpy(), rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(b.data, tb.detach().numpy(), rtol=1e-13, atol=1e-15)
    assert not np.array_equal(b.data, b0)  # b did move, after it joined


@pytest.mark.parametrize('config', CONFIGS)
def test_value_steps_match_torch(torch, config):
    ours, theirs, kwargs = CONFIGS[config]
    start = [0.5, -1.5, 2.0]
    values = [Value(x) for x in start]
    scalars = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in start]
    for s in scalars:
        s.grad = torch.zeros_like(s)  # a Value's grad is a number from the start: 0.0, stepped like any other
    opt, torch_opt = ours(values, **kwargs), getattr(torch.optim, theirs)(scalars, **kwargs)
    for _ in range(STEPS):
        for (x, y, z), optimizer, zero in ((values, opt, opt.zero_grad),
                                           (scalars, torch_opt, lambda: torch_opt.zero_grad(set_to_none=False))):
            loss = (x * y - 1) ** 2 + (z * z) * 0.5 + x * x * x * 0.1
            zero()
            loss.backward()
            optimizer.step()
        assert [v.data for v in values] == pytest.approx([s.item() for s in scalars], rel=1e-13, abs=1e-15)


# --- what an optimizer refuses, as torch.optim does, and what it keeps as it was ---

@pytest.mark.parametrize('make', [lambda: param([1.0, 2.0]), lambda: Value(1.0)], ids=['Tensor', 'Value'])
def test_one_parameter_where_a_list_belongs_is_refused(make):
    with pytest.raises(TypeError, match=r"SGD: params argument given to the optimizer should be an iterable "
                                        r"of parameters \(e.g. model.parameters\(\)\), but got (Tensor|Value)"):
        SGD(make(), lr=0.1)


def test_a_set_of_parameters_is_refused_because_its_order_changes():
    with pytest.raises(TypeError, match='ordered iterable'):
        Adam({Value(1.0)})


@pytest.mark.parametrize('kwargs', [dict(lr=float('nan')), dict(lr=-1e-3), dict(eps=float('nan')), dict(eps=-1.0),
                                    dict(betas=(float('nan'), 0.9)), dict(betas=(0.9, 1.0)), dict(betas=(-0.1, 0.9)),
                                    dict(betas=(0.9,))])
def test_adam_refuses_what_torch_optim_refuses(kwargs):
    with pytest.raises(ValueError, match='Adam: '):
        Adam([Value(1.0)], **kwargs)


def test_hyperparameters_must_be_numbers():
    with pytest.raises(TypeError, match="SGD: the learning rate must be a number, got str '0.1'"):
        SGD([Value(1.0)], lr='0.1')
    with pytest.raises(ValueError, match='SGD: the momentum must be >= 0, got nan'):
        SGD([Value(1.0)], momentum=float('nan'))  # (torch.optim lets a nan momentum through)


def test_a_tied_weight_is_stepped_once():
    w = param([1.0])
    (w * 3).sum().backward()
    SGD([w, w], lr=0.1).step()  # listed twice, as weight tying lists it
    assert w.data.tolist() == [pytest.approx(0.7)]


def test_an_intermediate_is_no_parameter():
    w = Value(1.0)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Value"):
        SGD([w * 2])


@pytest.mark.parametrize('lr', [np.float64(0.1), np.float32(0.1), np.float16(0.1)])
@pytest.mark.parametrize('opt', [SGD, Adam])
def test_a_numpy_learning_rate_leaves_values_python_floats(opt, lr):
    w = Value(1.0)
    optimizer = opt([w], lr=lr)
    for _ in range(2):
        optimizer.zero_grad()
        (w * w).backward()
        optimizer.step()
        assert type(w.data) is float and type(w.grad) is float
    optimizer.zero_grad()
    assert w.grad == 0.0 and type(w.grad) is float  # never None for a Value


def test_a_value_whose_data_became_a_numpy_scalar_still_gets_a_float_grad_of_zero():
    w = Value(1.0)
    w.data = np.float32(1.0)  # written there by hand
    optimizer = SGD([w], lr=0.1)
    optimizer.zero_grad()
    assert w.grad == 0.0 and type(w.grad) is float
    w.grad = 1.0
    optimizer.step()
    assert type(w.data) is float
