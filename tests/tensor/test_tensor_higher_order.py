"""micrograd.tensor.grad, hessian and hvp against torch.autograd (float64): first-order grad() equals backward()'s
gradients for every op of tensor_ops.py's table; grad of grad equals PyTorch's nested torch.autograd.grad for
every op of the table and every change in place (every op has a rule; a custom op is refused, naming it); the
cases below add broadcasting, the forms of matmul and of **; gradient penalties of an MLP train with backward();
.grad is never changed."""
import math

import numpy as np
import pytest

import micrograd.tensor as mt
from micrograd.optim import Adam
from tests.tensor.sweep import needs_torch, samples, torch
from tests.tensor.tensor_ops import IN_PLACE, OPS, InPlace, Op

pytestmark = pytest.mark.usefixtures('torch_in_float64')

GRAD_OPS = [op for op in OPS if op.grad and 'float64' in op.dtypes]

# Each case: (name, ours, PyTorch's, input shapes, interval of the inputs). Broadcasting in every binary case.
CASES = [
    ('add broadcast', lambda a, b: a + b, lambda a, b: a + b, [(2, 3, 4), (3, 1)], (-2, 2)),
    ('sub broadcast', lambda a, b: a - b, lambda a, b: a - b, [(4,), (3, 4)], (-2, 2)),
    ('mul broadcast', lambda a, b: a * b, lambda a, b: a * b, [(3, 1), (1, 4)], (-2, 2)),
    ('div broadcast', lambda a, b: a / b, lambda a, b: a / b, [(3, 4), (4,)], (0.5, 2)),
    ('pow tensor', lambda a, b: a ** b, lambda a, b: a ** b, [(3, 4), (4,)], (0.5, 2)),
    ('pow 3', lambda a: a ** 3, lambda a: a ** 3, [(3, 4)], (-2, 2)),
    ('pow 1', lambda a: a ** 1, lambda a: a ** 1, [(3, 4)], (-2, 2)),
    ('pow 0.5', lambda a: a ** 0.5, lambda a: a ** 0.5, [(3, 4)], (0.5, 2)),
    ('pow -1.5', lambda a: a ** -1.5, lambda a: a ** -1.5, [(3, 4)], (0.5, 2)),
    ('pow array', lambda a: a ** np.array([1.0, 2.0, 0.0, 3.0]), lambda a: a ** torch.tensor([1.0, 2.0, 0.0, 3.0]),
     [(3, 4)], (0.5, 2)),
    ('rpow', lambda a: 2 ** a, lambda a: 2 ** a, [(3, 4)], (-2, 2)),
    ('matmul', lambda a, b: a @ b, lambda a, b: a @ b, [(3, 4), (4, 2)], (-1, 1)),
    ('matmul batched', lambda a, b: a @ b, lambda a, b: a @ b, [(2, 3, 4), (2, 4, 2)], (-1, 1)),
    ('matmul batch broadcast', lambda a, b: a @ b, lambda a, b: a @ b, [(2, 1, 3, 4), (3, 4, 2)], (-1, 1)),
    ('matmul rows', lambda a, b: a @ b, lambda a, b: a @ b, [(2, 3, 4), (4, 2)], (-1, 1)),
    ('vector @ matrix', lambda a, b: a @ b, lambda a, b: a @ b, [(4,), (4, 2)], (-1, 1)),
    ('matrix @ vector', lambda a, b: a @ b, lambda a, b: a @ b, [(3, 4), (4,)], (-1, 1)),
    ('dot', lambda a, b: a @ b, lambda a, b: a @ b, [(4,), (4,)], (-1, 1)),
    ('sum axis keepdims', lambda a: a.sum(axis=1, keepdims=True) * a, lambda a: a.sum(dim=1, keepdim=True) * a,
     [(3, 4)], (-2, 2)),
    ('mean axes', lambda a: a.mean(axis=(0, 2)), lambda a: a.mean(dim=(0, 2)), [(2, 3, 4)], (-2, 2)),
    ('softmax axis 0', lambda a: a.softmax(axis=0), lambda a: a.softmax(dim=0), [(3, 4)], (-2, 2)),
    ('where', lambda a, b: mt.where(np.array([True, False, True, False]), a, b),
     lambda a, b: torch.where(torch.tensor([True, False, True, False]), a, b), [(3, 4), (4,)], (-2, 2)),
    ('binary_cross_entropy, target with gradient', lambda a, b: mt.binary_cross_entropy(a.sigmoid(), b.sigmoid()),
     lambda a, b: torch.nn.functional.binary_cross_entropy(a.sigmoid(), b.sigmoid()), [(3, 4), (3, 4)], (-2, 2)),
    ('binary_cross_entropy_with_logits, target with gradient', lambda a, b: mt.binary_cross_entropy_with_logits(
        a, b.sigmoid()), lambda a, b: torch.nn.functional.binary_cross_entropy_with_logits(a, b.sigmoid()),
     [(3, 4), (3, 4)], (-2, 2)),
    ('mse_loss broadcast target', lambda a, b: mt.mse_loss(a, b * a), lambda a, b: torch.nn.functional.mse_loss(
        a, b * a), [(3, 4), (4,)], (-2, 2)),
    ('soft cross_entropy', lambda a, b: mt.cross_entropy(a, b.softmax()),
     lambda a, b: torch.nn.functional.cross_entropy(a, b.softmax(-1)), [(3, 4), (3, 4)], (-2, 2)),
    ('heads and back', lambda a: (a.reshape(2, 3, 2, 2).swapaxes(1, 2) * a.reshape(2, 2, 3, 2)).swapaxes(1, 2)
     .reshape(2, 3, 4), lambda a: (a.reshape(2, 3, 2, 2).transpose(1, 2) * a.reshape(2, 2, 3, 2)).transpose(1, 2)
     .reshape(2, 3, 4), [(2, 3, 4)], (-2, 2)),
    ('embedding rows', lambda a: a[np.array([[0, 2], [2, 1]])] * a[1], lambda a: a[torch.tensor([[0, 2], [2, 1]])]
     * a[1], [(3, 4)], (-2, 2)),
    ('attention broadcast batch', lambda q, k, v: mt.scaled_dot_product_attention(q, k, v),
     lambda q, k, v: torch.nn.functional.scaled_dot_product_attention(q, k, v), [(2, 3, 4, 2), (3, 5, 2),
                                                                                  (1, 3, 5, 3)], (-1, 1)),
    ('chain', lambda a, b, c: ((a @ b + c).tanh() * 2 - a.sum()).sigmoid().log().mean(axis=0),
     lambda a, b, c: ((a @ b + c).tanh() * 2 - a.sum()).sigmoid().log().mean(dim=0), [(3, 4), (4, 2), (2,)],
     (-1, 1)),
]


def _inputs(arrays):
    return [mt.Tensor(a, requires_grad=True) for a in arrays], [torch.tensor(a, requires_grad=True) for a in arrays]


def _case_arrays(shapes, interval, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(*interval, shape) for shape in shapes]


def _close(ours, theirs, what, tol=1e-10):
    if theirs is None:
        theirs = np.zeros_like(ours.data) if ours is not None else None
    if ours is None:
        assert theirs is None or not np.any(theirs.detach().numpy() if torch.is_tensor(theirs) else theirs), what
        return
    expected = theirs.detach().numpy() if torch.is_tensor(theirs) else theirs
    np.testing.assert_allclose(ours.data, expected, rtol=tol, atol=tol, err_msg=what)


def _second_order(ours, theirs, arrays, what, seed=1):
    """grad of grad: L = sum(tanh(f(x)) * W), then d/dx of sum_i <dL/dx_i, V_i>, both engines."""
    xs, txs = _inputs(arrays)
    rng = np.random.default_rng(seed)
    out, tout = ours(*xs).tanh(), theirs(*txs).tanh()
    w = rng.uniform(0.5, 1.5, out.shape)
    vs = [rng.uniform(-1, 1, a.shape) for a in arrays]
    gs = mt.grad(out, xs, grad_outputs=w, create_graph=True)
    tgs = torch.autograd.grad(tout, txs, grad_outputs=torch.tensor(w), create_graph=True)
    for g, tg in zip(gs, tgs):
        _close(g, tg, f"{what}: first order", tol=1e-10 if out.data.dtype == np.float64 else 1e-5)
    s = sum((g * v).sum() for g, v in zip(gs, vs))
    ts = sum((tg * torch.tensor(v)).sum() for tg, v in zip(tgs, vs))
    if not s.requires_grad:  # every first derivative constant (x ** 0): no graph, and PyTorch's is zero
        assert not ts.requires_grad or not any(t is not None and t.abs().max() > 0 for t in torch.autograd.grad(
            ts, txs, allow_unused=True))
        return xs, s
    seconds = mt.grad(s, xs, allow_unused=True)
    tseconds = torch.autograd.grad(ts, txs, allow_unused=True)
    for i, (h, th) in enumerate(zip(seconds, tseconds)):
        _close(h, th, f"{what}: second order, input {i}", tol=1e-10 if out.data.dtype == np.float64 else 1e-5)
        assert h is None or not h.requires_grad
    return xs, s


# --- first order: the ops' own closures, every op of the table ---

@pytest.mark.parametrize('op', GRAD_OPS, ids=lambda op: op.name)
def test_first_order_grad_equals_backward_with_or_without_a_graph_and_changes_no_grad(op: Op):
    arrays = samples(op, 'float64')
    xs = [mt.Tensor(a, requires_grad=True) for a in arrays]
    out = op.ours(*xs)
    w = np.random.default_rng(0).uniform(0.5, 1.5, out.shape)
    before = [np.full(x.shape, 7.0) for x in xs]
    for x, b in zip(xs, before):
        x.grad = b
    gs = mt.grad(out, xs, grad_outputs=w)
    assert all(x.grad is b and np.all(b == 7.0) for x, b in zip(xs, before))
    assert out.grad is None
    for x in xs:
        x.grad = None
    out.backward(w)
    graphs = mt.grad(out, xs, grad_outputs=w, create_graph=True)  # the same numbers from the rules
    tol = 1e-12 if out.data.dtype == np.float64 else 1e-6
    for g, graph, x in zip(gs, graphs, xs):
        assert not g.requires_grad and g.data.dtype == graph.data.dtype == x.data.dtype
        np.testing.assert_array_equal(g.data, x.grad)
        np.testing.assert_allclose(graph.data, x.grad, rtol=tol, atol=tol)


# --- second order: the rules, every op of the table, then the cases above ---

@needs_torch
@pytest.mark.parametrize('op', GRAD_OPS, ids=lambda op: op.name)
def test_grad_of_grad_equals_pytorchs_for_every_op_of_the_table(op: Op):
    _second_order(op.ours, lambda *ts: op.theirs(torch, *ts), samples(op, 'float64'), op.name)


@needs_torch
@pytest.mark.parametrize('name, ours, theirs, shapes, interval', CASES, ids=[c[0] for c in CASES])
def test_grad_of_grad_equals_pytorchs(name, ours, theirs, shapes, interval):
    _second_order(ours, theirs, _case_arrays(shapes, interval), name)


THIRD = CASES[:12] + CASES[-3:]  # the arithmetic, the matmuls, and the compositions


@needs_torch
@pytest.mark.parametrize('name, ours, theirs, shapes, interval', THIRD, ids=[c[0] for c in THIRD])
def test_third_derivatives_equal_pytorchs(name, ours, theirs, shapes, interval):
    arrays = _case_arrays(shapes, interval)
    xs, txs = _inputs(arrays)
    (g,) = mt.grad(ours(*xs).tanh().sum(), xs[:1], create_graph=True)
    (tg,) = torch.autograd.grad(theirs(*txs).tanh().sum(), txs[:1], create_graph=True)
    (h,) = mt.grad((g * g).sum(), xs[:1], create_graph=True)
    (th,) = torch.autograd.grad((tg * tg).sum(), txs[:1], create_graph=True)
    third = mt.grad(h.sum(), xs, allow_unused=True)
    tthird = torch.autograd.grad(th.sum(), txs, allow_unused=True)
    for i, (t3, tt3) in enumerate(zip(third, tthird)):
        _close(t3, tt3, f"{name}: third order, input {i}", tol=1e-9)


def test_a_dead_relu_makes_no_node_and_its_input_gets_zeros():
    x = mt.Tensor([-1.0, -2.0], requires_grad=True)
    (g,) = mt.grad(x.relu().sum(), x, create_graph=True)
    assert not g.requires_grad and np.all(g.data == 0)  # a constant 0: no graph was made for a zero part
    (g,) = mt.grad((x ** 0).sum(), x, create_graph=True)
    assert np.all(g.data == 0)


def test_parts_reaching_a_tensor_are_summed_in_one_node():
    x = mt.Tensor([1.0, 2.0], requires_grad=True)
    (g,) = mt.grad((x * x * x).sum(), x, create_graph=True)  # x taken three times: d/dx = 3x**2
    np.testing.assert_allclose(g.data, 3 * x.data ** 2)
    assert g._op == 'add_parts' and len(g._prev) == 3


# --- a gradient penalty of an MLP, differentiated with respect to its weights ---

def _torch_mlp(model):
    """PyTorch's tensors of model's weights (each Linear's (in, out) weight and bias), and its forward."""
    weights = [(torch.tensor(lay.weight.data, requires_grad=True), torch.tensor(lay.bias.data, requires_grad=True))
               for lay in model.layers]
    act = {'tanh': torch.tanh, 'relu': torch.relu, 'sigmoid': torch.sigmoid}[model.activation]

    def forward(h):
        for i, (w, b) in enumerate(weights):
            h = h @ w + b
            h = act(h) if i < len(weights) - 1 else h
        return h
    return weights, forward


def _same_gradients(ours, theirs):
    """(A weight whose gradient is zero by structure, as a bias under relu in a slope, may have none in one engine
    and zeros in the other: PyTorch's relu rule reads relu's output, ours is a constant mask. Both are right.)"""
    for t, tt in zip(ours, theirs):
        got = np.zeros(t.shape) if t.grad is None else t.grad
        expected = np.zeros(t.shape) if tt.grad is None else tt.grad.numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


@needs_torch
@pytest.mark.parametrize('activation', ['tanh', 'relu', 'sigmoid'])
def test_a_gradient_penalty_on_the_input_gives_pytorchs_weight_gradients(activation):
    model = mt.MLP(3, [8, 8, 1], activation=activation, rng=np.random.default_rng(0))
    data = np.random.default_rng(1).normal(size=(5, 3))
    x = mt.Tensor(data, requires_grad=True)
    (gx,) = mt.grad(model(x).sum(), x, create_graph=True)
    (((gx * gx).sum(axis=1) - 1.0) ** 2).mean().backward()  # a WGAN-GP's penalty: slopes of norm 1

    weights, forward = _torch_mlp(model)
    tx = torch.tensor(data, requires_grad=True)
    (tgx,) = torch.autograd.grad(forward(tx).sum(), tx, create_graph=True)
    (((tgx * tgx).sum(dim=1) - 1.0) ** 2).mean().backward()
    _same_gradients([*model.parameters(), x], [p for pair in weights for p in pair] + [tx])
    assert model.layers[0].weight.grad is not None


@needs_torch
@pytest.mark.parametrize('activation', ['tanh', 'relu', 'sigmoid'])
def test_a_penalty_on_the_weights_own_gradient_gives_pytorchs_weight_gradients(activation):
    model = mt.MLP(3, [8, 8, 2], activation=activation, rng=np.random.default_rng(0))
    data, target = np.random.default_rng(1).normal(size=(5, 3)), np.array([0, 1, 1, 0, 1])
    loss = mt.cross_entropy(model(data), target)
    gs = mt.grad(loss, model.parameters(), create_graph=True)
    (loss + 0.1 * sum((g * g).sum() for g in gs)).backward()  # the loss plus the squared norm of its gradient

    weights, forward = _torch_mlp(model)
    params = [p for pair in weights for p in pair]
    tloss = torch.nn.functional.cross_entropy(forward(torch.tensor(data)), torch.tensor(target))
    tgs = torch.autograd.grad(tloss, params, create_graph=True)
    (tloss + 0.1 * sum((g * g).sum() for g in tgs)).backward()
    _same_gradients(model.parameters(), params)


def test_a_loss_made_of_a_gradient_trains_with_backward_and_adam():
    model = mt.MLP(2, [16, 1], activation='tanh', rng=np.random.default_rng(0))
    optimizer = Adam(model.parameters(), lr=0.01)
    points = np.random.default_rng(2).normal(size=(16, 2))
    target = np.array([1.0, -2.0])  # the slope the model's surface should have everywhere

    def loss() -> mt.Tensor:
        x = mt.Tensor(points, requires_grad=True)
        (slope,) = mt.grad(model(x).sum(), x, create_graph=True)
        return ((slope - target) ** 2).mean()
    first = loss().item()
    for _ in range(60):
        optimizer.zero_grad()
        step = loss()
        step.backward()
        optimizer.step()
    assert loss().item() < first / 10


# --- hessian and hvp ---

FUNCTIONS = [
    ('polynomial', lambda x: (x ** 3).sum() * x[0] + (x[1:] * x[:-1]).sum(),
     lambda x: (x ** 3).sum() * x[0] + (x[1:] * x[:-1]).sum()),
    ('softmax entropy', lambda x: -(x.softmax() * x.log_softmax()).sum(),
     lambda x: -(x.softmax(-1) * x.log_softmax(-1)).sum()),
    ('tanh net', lambda x: (x.reshape(5, 1) @ x.reshape(1, 5)).tanh().mean() + x.exp().sum().log(),
     lambda x: (x.reshape(5, 1) @ x.reshape(1, 5)).tanh().mean() + x.exp().sum().log()),
    ('cross_entropy', lambda x: mt.cross_entropy(x.reshape(1, 5), np.array([2])),
     lambda x: torch.nn.functional.cross_entropy(x.reshape(1, 5), torch.tensor([2]))),
]


@needs_torch
@pytest.mark.parametrize('name, ours, theirs', FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_hessian_and_hvp_equal_pytorchs(name, ours, theirs):
    rng = np.random.default_rng(3)
    point, v = rng.uniform(-1, 1, 5), rng.normal(size=5)
    x = mt.Tensor(point, requires_grad=True)
    h = mt.hessian(ours, x)
    th = torch.autograd.functional.hessian(theirs, torch.tensor(point)).numpy()
    assert h.shape == (5, 5)
    np.testing.assert_allclose(h, th, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(h, h.T, rtol=1e-12, atol=1e-12)
    hv = mt.hvp(ours, x, mt.Tensor(v))
    _, thv = torch.autograd.functional.hvp(theirs, torch.tensor(point), torch.tensor(v))
    assert hv.shape == (5,)
    np.testing.assert_allclose(hv, thv.numpy(), rtol=1e-12, atol=1e-12)
    assert x.grad is None


def test_hessian_refuses_what_is_no_1d_float64_tensor_requiring_grad():
    for x in (mt.Tensor([1.0, 2.0]), mt.Tensor([[1.0]], requires_grad=True), [1.0, 2.0]):
        with pytest.raises(TypeError, match='hessian: x must be a 1-D float64 Tensor'):
            mt.hessian(lambda t: (t * t).sum(), x)
    with pytest.raises(TypeError, match='hvp: f\\(x\\) must return a one-element Tensor'):
        mt.hvp(lambda t: t * t, mt.Tensor([1.0, 2.0], requires_grad=True), [1.0, 1.0])


# --- what grad() refuses, and what it leaves as it was ---

def test_an_unused_input_is_refused_by_its_position_unless_allowed():
    x, unused = mt.Tensor([1.0], requires_grad=True), mt.Tensor([2.0], requires_grad=True)
    y = (x * 3).sum()
    with pytest.raises(RuntimeError, match=r'inputs\[1\] .* is not used'):
        mt.grad(y, [x, unused])
    gx, gu = mt.grad(y, [x, unused], allow_unused=True)
    assert gu is None and gx.data.tolist() == [3.0]


def test_a_non_scalar_output_needs_grad_outputs():
    x = mt.Tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match='grad_outputs'):
        mt.grad(x * 2, x)
    with pytest.raises(RuntimeError, match='Mismatch in shape'):
        mt.grad(x * 2, x, grad_outputs=np.ones(3))
    for weight in (np.array([1.0, 10.0]), [1.0, 10.0], mt.Tensor([1.0, 10.0]), [mt.Tensor([1.0, 10.0])]):
        (g,) = mt.grad(x * x, x, grad_outputs=weight)
        assert g.data.tolist() == [2.0, 40.0]


def test_an_input_without_gradient_is_refused():
    x = mt.Tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r'inputs\[0\] does not require grad'):
        mt.grad((mt.Tensor([1.0, 1.0], requires_grad=True) * x).sum(), x)


def test_an_op_without_a_rule_is_refused_by_name_under_create_graph_and_works_at_first_order():
    x = mt.Tensor([0.5, 2.0], requires_grad=True)
    h = x * x

    def _backward(grad):  # a custom op, written as the ops are: d(3t)/dt = 3
        h._add_grad(3 * grad)
    custom = mt.Tensor._result(3 * h.data, (h,), 'triple', _backward, reads=())
    x.grad = np.array([5.0, 5.0])
    with pytest.raises(RuntimeError, match="'triple' has no rule"):
        mt.grad(custom.sum(), x, create_graph=True)
    assert x.grad.tolist() == [5.0, 5.0] and h.grad is None
    (g,) = mt.grad(custom.sum(), x)
    assert g.data.tolist() == [3.0, 12.0]


def test_every_grad_is_left_as_it_was_by_grad_of_grad():
    x = mt.Tensor([0.3, -0.7], requires_grad=True)
    y = (x.tanh() * x).sum()
    y.backward()
    saved, y_grad = x.grad.copy(), y.grad
    (g,) = mt.grad(y, x, create_graph=True)
    mt.grad((g * g).sum(), x)
    np.testing.assert_array_equal(x.grad, saved)
    assert y.grad is y_grad


def test_create_graph_records_inside_no_grad_as_pytorch():
    x = mt.Tensor([0.3, -0.7], requires_grad=True)
    y = (x ** 3).sum()
    with mt.no_grad():
        (g,) = mt.grad(y, x, create_graph=True)
        (plain,) = mt.grad(y, x)
    assert g.requires_grad and not plain.requires_grad
    (h,) = mt.grad(g.sum(), x)
    np.testing.assert_allclose(h.data, 6 * x.data)


def test_an_output_that_is_an_input_gets_its_own_weight():
    x = mt.Tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    gx, gy = mt.grad([y.sum(), x.sum()], [x, y], grad_outputs=[2.0, 5.0], create_graph=True)
    assert gx.data.tolist() == [11.0, 11.0] and gy.data.tolist() == [2.0, 2.0]


# --- the GPT: a Hessian-vector product through its whole forward ---

@pytest.mark.slow
def test_a_hessian_vector_product_through_the_gpt_equals_central_differences():
    from tests.gpt.examples import example
    tensor_gpt = example('tensor_gpt')
    model = tensor_gpt.GPT(vocab_size=7, n_embd=8, n_head=2, n_layer=1, block_size=5, seed=0)
    idx = np.random.default_rng(0).integers(0, 7, (2, 5))
    targets = np.random.default_rng(1).integers(0, 7, (2, 5)).reshape(-1)
    table = model.wte.weight
    v = np.random.default_rng(2).normal(size=table.shape)

    def gradient(create_graph):
        logits = model(idx)
        loss = mt.cross_entropy(logits.reshape(-1, 7), targets)
        return mt.grad(loss, table, create_graph=create_graph)[0]
    (hv,) = mt.grad((gradient(True) * v).sum(), table)
    eps, start = 1e-5, table.data.copy()
    table.data[...] = start + eps * v
    plus = gradient(False).data
    table.data[...] = start - eps * v
    minus = gradient(False).data
    table.data[...] = start
    np.testing.assert_allclose(hv.data, (plus - minus) / (2 * eps), rtol=1e-5, atol=1e-8)
    assert table.grad is None and not math.isnan(float(hv.data.sum()))


# --- changes in place: the histories of node.py, and what a rule reads ---

@needs_torch
@pytest.mark.parametrize('op', [op for op in IN_PLACE if op.grad], ids=lambda op: op.name)
def test_grad_of_grad_through_a_change_in_place_equals_pytorchs(op: InPlace):
    def changed(change):  # x * x changed in place by y (a tensor of shape (4,), or the number 1.5)
        def run(x, *y):
            z = x * x
            out = change(z, *(y or (1.5,))) if op.takes != 'nothing' else change(z, None)
            return z if out is None else out  # ([] = gives back nothing)
        return run
    shapes = [(3, 4), (4,)] if op.takes == 'tensor' else [(3, 4)]
    _second_order(changed(op.ours), changed(op.theirs), _case_arrays(shapes, (0.5, 1.5)), op.name)


@needs_torch
def test_grad_of_grad_through_a_view_changed_in_place_equals_pytorchs():
    def change(x, y):
        z = x * x
        row = z[1:]  # a view of z: z's history changes with it
        row *= y
        return z * row.sum()
    _second_order(change, change, _case_arrays([(3, 4), (4,)], (-1, 1)), 'view *= y')

@needs_torch
def test_grad_of_grad_takes_a_tensor_changed_in_place_while_recording_as_each_op_saw_it():
    a = np.array([0.5, 1.5])
    x0 = mt.Tensor(a, requires_grad=True)
    x = x0 * 1
    y = (x + 2).tanh()  # (+ reads nothing: x may change before the gradient)
    x += 1
    (g,) = mt.grad((y * x).sum(), x0, create_graph=True)
    (h,) = mt.grad((g * g).sum(), x0)
    t0 = torch.tensor(a, requires_grad=True)
    t = t0 * 1
    ty = (t + 2).tanh()
    t += 1
    (tg,) = torch.autograd.grad((ty * t).sum(), t0, create_graph=True)
    (th,) = torch.autograd.grad((tg * tg).sum(), t0)
    np.testing.assert_allclose(g.data, tg.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(h.data, th.numpy(), rtol=1e-12)


def test_a_rule_refuses_an_input_changed_in_place_that_the_ops_own_gradient_does_not_read():
    logits = mt.Tensor(np.random.default_rng(0).normal(size=(2, 3)), requires_grad=True)
    hidden = logits * 1
    loss = mt.cross_entropy(hidden, np.array([0, 2]))
    first = mt.grad(loss, logits)[0].data  # (cross_entropy's closure reads a copy of its own)
    with mt.no_grad():
        hidden += 1
    with pytest.raises(RuntimeError, match="'cross_entropy' reads its input 1 .* changed in place"):
        mt.grad(loss, logits, create_graph=True)
    np.testing.assert_array_equal(mt.grad(loss, logits)[0].data, first)


def test_grad_outputs_that_require_grad_take_part_in_the_graph():
    x, w = mt.Tensor([1.0, -2.0], requires_grad=True), mt.Tensor([3.0, 0.5], requires_grad=True)
    (g,) = mt.grad(x * x, x, grad_outputs=w, create_graph=True)  # 2 x w
    gx, gw = mt.grad(g.sum(), [x, w])
    assert g.data.tolist() == [6.0, -2.0] and gx.data.tolist() == [6.0, 1.0] and gw.data.tolist() == [2.0, -4.0]


def test_every_backward_closure_of_the_tensor_ops_has_a_rule():
    """A new op's _backward gets a rule in vjp_rules.py (or create_graph=True refuses it): every closure named
    _backward in the package's op modules is a key of RULES."""
    import inspect
    import types

    from micrograd.tensor import comparisons, functional, inplace, node, reductions, shapes, tensor, unary, vjp_rules

    def closures(code):
        inner = [k for k in code.co_consts if isinstance(k, types.CodeType)]
        return [k for k in inner if k.co_name == '_backward'] + [b for k in inner for b in closures(k)]
    found = {}
    for module in (tensor, comparisons, reductions, shapes, unary, inplace, functional, node, vjp_rules):
        for value in vars(module).values():
            own_class = inspect.isclass(value) and value.__module__ == module.__name__
            for member in vars(value).values() if own_class else [value]:
                function = inspect.unwrap(getattr(member, '__func__', member))
                if inspect.isfunction(function) and function.__module__ == module.__name__:
                    where = f"{module.__name__}.{function.__qualname__}"
                    found.update({code: where for code in closures(function.__code__)})
    assert len(found) > 30
    missing = [where for code, where in found.items() if code not in vjp_rules.RULES]
    assert not missing, f"no rule in vjp_rules.RULES for the _backward of {missing}"
