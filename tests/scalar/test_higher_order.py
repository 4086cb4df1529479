"""micrograd.grad, hessian and hvp against torch.autograd in float64: derivatives of every op to the fourth
order (from the op table, tests/scalar/scalar_ops.py), Hessians, HVPs, a gradient penalty, losses made of
derivatives trained with backward(), and what grad() leaves alone and refuses."""
import math
import random
from pathlib import Path

import pytest
from hypothesis import assume, given, settings

import micrograd
from micrograd import MLP, Adam, Value, grad, hessian, hvp, no_grad
from tests.conftest import TORCH_SKIP_REASON
from tests.scalar.scalar_ops import OPS, operands, samples
from tests.support.graphs import graphs, micrograd_graph

try:
    import torch
except ImportError:  # the tests against PyTorch skip; the rest run
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason=TORCH_SKIP_REASON)


def tensor(x):
    return torch.tensor(float(x), dtype=torch.float64, requires_grad=True)


def close(ours, theirs, rel=1e-10):
    assert math.isclose(ours, theirs, rel_tol=rel, abs_tol=rel), (ours, theirs)


def derivatives(f, x, order, differentiate):
    """[f, df/dx, ..., d^order f/dx^order], each the derivative of the one before."""
    out = [f]
    for _ in range(order):
        d = differentiate(out[-1], x)
        if d is None:
            break
        out.append(d)
    return out


def ours_d(f, x):
    return grad(f, x, create_graph=True, allow_unused=True)[0]


def theirs_d(f, x):
    return torch.autograd.grad(f, x, create_graph=True, allow_unused=True)[0] if f.requires_grad else None


# --- every op of the table, composed, to the fourth derivative ----------------------------------------

def composed(row, x, y, a, b, math_ops):
    """The row's op between two smooth maps of its operands, then a smooth map of its output: d/dx of every
    order then runs through the op and its neighbours."""
    first, second = row.values
    out = row.ours(x, y) if math_ops is None else row.theirs(torch, x, y)
    v = x if first else y
    return out * v + (out * 0.3).tanh() * out


@needs_torch
@pytest.mark.parametrize('row', OPS, ids=[row.name for row in OPS])
def test_each_op_composed_matches_pytorch_to_the_fourth_derivative(row):
    rng = random.Random(row.name)
    for _ in range(3):
        a, b = samples(row, rng.uniform(0.05, 0.95), rng.uniform(0.05, 0.95))
        x, y, values = operands(row, a, b)
        first, second = row.values
        tx, ty = tensor(a) if first else a, tensor(b) if second else b
        ours = derivatives(composed(row, x, y, a, b, None), values[0], 4, ours_d)
        theirs = derivatives(composed(row, tx, ty, a, b, torch), tx if first else ty, 4, theirs_d)
        assert_same_derivatives(ours, theirs)


def assert_same_derivatives(ours, theirs):
    """Order by order; where one side's chain ends (a constant: None), the other's are zero from there on."""
    n = max(len(ours), len(theirs))
    ours = [o.data for o in ours] + [0.0] * (n - len(ours))
    theirs = [t.item() for t in theirs] + [0.0] * (n - len(theirs))
    for k, (o, t) in enumerate(zip(ours, theirs)):
        close(o, t, rel=1e-10 * 10 ** k)


@needs_torch
@pytest.mark.parametrize('row', [row for row in OPS if row.form == 'values'], ids=lambda row: row.name)
def test_each_op_of_two_values_has_pytorchs_mixed_second_derivatives(row):
    a, b = samples(row, 0.3, 0.7)
    x, y, _ = operands(row, a, b)
    tx, ty = tensor(a), tensor(b)
    f, tf = row.ours(x, y), row.theirs(torch, tx, ty)
    gx, gy = grad(f, [x, y], create_graph=True)
    tgx, tgy = torch.autograd.grad(tf, [tx, ty], create_graph=True)
    for g, tg in ((gx, tgx), (gy, tgy)):
        h = grad(g, [x, y], allow_unused=True)
        th = torch.autograd.grad(tg, [tx, ty], allow_unused=True) if tg.requires_grad else (None, None)
        for ours, theirs in zip(h, th):
            close(0.0 if ours is None else ours.data, 0.0 if theirs is None else theirs.item())


@needs_torch
@pytest.mark.parametrize('k', [3, 2, 1.5, 1, 0.5, -0.5, -2, 0])
@pytest.mark.parametrize('a', [0.7, 1.9])
def test_x_to_a_number_k_to_the_third_derivative(k, a):
    x, tx = Value(a), tensor(a)
    assert_same_derivatives(derivatives(x ** k, x, 3, ours_d), derivatives(tx ** k, tx, 3, theirs_d))


def test_x_to_the_zero_has_slope_zero_and_no_node():
    x = Value(2.0)
    (g,) = grad(x ** 0, x, create_graph=True)
    assert g.data == 0.0 and not g._prev
    assert grad(x ** 0, x)[0].data == 0.0


@needs_torch
@pytest.mark.parametrize('a', [-1.3, -0.2, 0.0, 0.4, 2.0])
def test_relu_on_both_sides_of_zero(a):
    x, tx = Value(a), tensor(a)
    f, tf = (x * x).relu() * x.relu() + x.relu() * 3.0, (tx * tx).relu() * tx.relu() + tx.relu() * 3.0
    (g,) = grad(f, x, create_graph=True)
    (tg,) = torch.autograd.grad(tf, tx, create_graph=True)
    close(g.data, tg.item())
    h = grad(g, x, allow_unused=True)[0]
    th = torch.autograd.grad(tg, tx, allow_unused=True)[0] if tg.requires_grad else None
    close(0.0 if h is None else h.data, 0.0 if th is None else th.item())


@needs_torch
def test_dot_second_derivatives():
    ws, xs, b = [Value(0.3), Value(-1.2)], [Value(2.0), Value(0.5)], Value(0.1)
    tws, txs, tb = [tensor(0.3), tensor(-1.2)], [tensor(2.0), tensor(0.5)], tensor(0.1)
    f = Value.dot(ws, xs, b).tanh() * ws[0]
    tf = (tb + tws[0] * txs[0] + tws[1] * txs[1]).tanh() * tws[0]
    ins, tins = [*ws, *xs, b], [*tws, *txs, tb]
    H = hessian(lambda v: Value.dot(v[:2], v[2:4], v[4]).tanh() * v[0], ins)
    tH = torch.autograd.functional.hessian(lambda *v: (v[4] + v[0] * v[2] + v[1] * v[3]).tanh() * v[0],
                                           tuple(t.detach() for t in tins))
    for i in range(5):
        for j in range(5):
            close(H[i][j], tH[i][j].item(), rel=1e-12)
    assert [g.data for g in grad(f, ins)] == pytest.approx([t.item() for t in torch.autograd.grad(tf, tins)],
                                                           rel=1e-13)


# --- Hessians ------------------------------------------------------------------------------------------

SMALL_FUNCTIONS = {
    'rosenbrock': (lambda v: (1 - v[0]) ** 2 + 100 * (v[1] - v[0] ** 2) ** 2, [-1.2, 1.0]),
    'products': (lambda v: v[0] * v[1] * v[2] + v[0] ** 3 * v[2], [0.5, -1.5, 2.0]),
    'softplus-ish': (lambda v: (v[0].exp() + v[1].exp()).log() + v[0].sigmoid() * v[1], [0.3, -0.8]),
    'tanh net': (lambda v: (v[0] * v[1] + v[2]).tanh() * v[1] + (v[2] / v[0]).exp(), [1.1, 0.4, -0.3]),
    'powers': (lambda v: v[0] ** v[1] + v[1] ** 0.5 * 2 ** v[0], [1.3, 2.2]),
}


@needs_torch
@pytest.mark.parametrize('name', SMALL_FUNCTIONS)
def test_hessian_matches_pytorch_and_is_symmetric(name):
    f, point = SMALL_FUNCTIONS[name]
    xs = [Value(a) for a in point]
    H = hessian(f, xs)
    tH = torch.autograd.functional.hessian(lambda *v: f(list(v)), tuple(torch.tensor(a, dtype=torch.float64)
                                                                         for a in point))
    gs = grad(f(xs), xs, create_graph=True)
    for i in range(len(xs)):
        row = [0.0 if g is None else g.data for g in grad(gs[i], xs, allow_unused=True)]
        for j in range(len(xs)):
            scale = 1 + abs(tH[i][j].item())
            assert abs(H[i][j] - tH[i][j].item()) <= 1e-12 * scale
            assert abs(row[j] - H[i][j]) <= 1e-12 * scale
            assert abs(H[i][j] - H[j][i]) <= 1e-12 * scale
    assert all(x.grad == 0.0 for x in xs)


def test_newtons_method_converges_to_1e_12():
    x = Value(3.0)  # the root of f(x) = x**3 - 2x - 5 (Wallis's), by minimising nothing: Newton on f
    for _ in range(8):
        f = x ** 3 - 2 * x - 5
        (df,) = grad(f, x)
        x = Value(x.data - f.data / df.data)
    assert abs(x.data ** 3 - 2 * x.data - 5) < 1e-12
    y = Value(2.0)  # and to a minimum: x - f'(x) / f''(x) of f(x) = x**4 - 3x + exp(-x)
    for _ in range(20):
        (d1,) = grad(y ** 4 - 3 * y + (-y).exp(), y, create_graph=True)
        (d2,) = grad(d1, y)
        y = Value(y.data - d1.data / d2.data)
    assert abs(grad(y ** 4 - 3 * y + (-y).exp(), y)[0].data) < 1e-12


# --- first order: backward()'s numbers, on random graphs -----------------------------------------------

@settings(max_examples=150, deadline=None)
@given(graphs())
def test_first_order_grad_with_create_graph_is_backwards(recipe):
    leaves, out = micrograd_graph(recipe)
    assume(math.isfinite(out.data) and abs(out.data) < 1e100)
    gs = grad(out, leaves, create_graph=True, allow_unused=True)
    plain = grad(out, leaves, allow_unused=True)
    out.backward()
    for leaf, g, p in zip(leaves, gs, plain):
        if p is None:  # a leaf the recipe left out
            assert g is None and leaf.grad == 0.0
            continue
        assert p.data == leaf.grad or math.isnan(p.data) and math.isnan(leaf.grad)
        assume(math.isfinite(leaf.grad))
        close(g.data, leaf.grad, rel=1e-9)


# --- losses made of derivatives ------------------------------------------------------------------------

def torch_mlp(model):
    """The same net in PyTorch, parameter for parameter, with dot's order of sums (bias first)."""
    params = [tensor(p.data) for p in model.parameters()]
    it = iter(params)
    layers = [[(next_n(it, len(n.w)), n.activation) for n in layer.neurons] for layer in model.layers]

    def forward(xs):
        for layer in layers:
            new = []
            for (ws, b), act in layer:
                s = b
                for w, x in zip(ws, xs):
                    s = s + w * x
                new.append(s if act == 'linear' else getattr(s, act)())
            xs = new
        return xs[0] if len(xs) == 1 else xs
    return params, forward


def next_n(it, n):
    ws = [next(it) for _ in range(n)]
    return ws, next(it)


@needs_torch
def test_a_gradient_penalty_of_an_mlp_differentiated_by_its_weights():
    random.seed(0)
    model = MLP(2, [5, 5, 1], activation='tanh')
    params, forward = torch_mlp(model)
    data = [[0.3, -0.7], [1.1, 0.2], [-0.5, 0.9]]
    loss = Value(0.0)
    tloss = torch.tensor(0.0, dtype=torch.float64)
    for row in data:
        xs, txs = [Value(a) for a in row], [tensor(a) for a in row]
        out, tout = model(xs), forward(txs)
        gs = grad(out, xs, create_graph=True)
        tgs = torch.autograd.grad(tout, txs, create_graph=True)
        loss = loss + out * out + sum((g * g for g in gs), Value(0.0))
        tloss = tloss + tout * tout + sum(g * g for g in tgs)
    model.zero_grad()
    loss.backward()
    tloss.backward()
    close(loss.data, tloss.item(), rel=1e-12)
    for p, t in zip(model.parameters(), params):
        close(p.grad, t.grad.item(), rel=1e-10)


def moons(n=12, seed=3):
    rng = random.Random(seed)
    points = []
    for i in range(n):
        angle = math.pi * rng.random()
        top = i % 2 == 0
        points.append([math.cos(angle) + (0 if top else 1), math.sin(angle) * (1 if top else -1) + (0 if top
                                                                                                    else 0.5)])
    return points


@needs_torch
def test_hvp_on_a_moons_net_matches_pytorch():
    random.seed(1)
    model = MLP(2, [4, 4, 1])
    params, forward = torch_mlp(model)
    data = moons()
    labels = [1 if i % 2 == 0 else -1 for i in range(len(data))]

    def loss_of(ps, net):
        total = 0.0
        for row, label in zip(data, labels):
            total = total + (1 + -label * net(row)).relu() + 0.5 * (net(row) - label) ** 2
        return total + 1e-3 * sum(p * p for p in ps)
    rng = random.Random(5)
    v = [rng.uniform(-1, 1) for _ in params]
    ps = model.parameters()

    def f(values):
        for p, val in zip(ps, values):
            assert p is val
        return loss_of(values, model)
    ours = hvp(f, ps, v)
    tloss = loss_of(params, forward)
    tg = torch.autograd.grad(tloss, params, create_graph=True)
    theirs = torch.autograd.grad(sum(g * u for g, u in zip(tg, v)), params, allow_unused=True)
    for o, t in zip(ours, theirs):
        close(o, 0.0 if t is None else t.item(), rel=1e-10)
    assert all(p.grad == 0.0 for p in ps)


def test_a_loss_made_of_u_second_derivative_trains_with_backward_and_adam():
    random.seed(2)
    model = MLP(1, [8, 1], activation='tanh')
    opt = Adam(model.parameters(), lr=0.02)
    ts = [i * 0.4 for i in range(8)]

    def residual():
        total = Value(0.0)
        for t in ts:
            x = Value(t)
            u = model([x])
            (du,) = grad(u, x, create_graph=True)
            (ddu,) = grad(du, x, create_graph=True)
            total = total + (ddu + u) ** 2
        x0 = Value(0.0)
        u0 = model([x0])
        (du0,) = grad(u0, x0, create_graph=True)
        return total * (1 / len(ts)) + u0 ** 2 + (du0 - 1) ** 2
    first = residual().data
    for _ in range(60):
        loss = residual()
        opt.zero_grad()
        loss.backward()
        assert all(isinstance(p.grad, float) for p in model.parameters())
        opt.step()
    assert residual().data < 0.5 * first


@needs_torch
def test_a_loss_of_u_second_derivative_has_pytorchs_gradient():
    random.seed(4)
    model = MLP(1, [3, 1], activation='tanh')
    params, forward = torch_mlp(model)
    x, tx = Value(0.7), tensor(0.7)
    u, tu = model([x]), forward([tx])
    (du,) = grad(u, x, create_graph=True)
    (tdu,) = torch.autograd.grad(tu, tx, create_graph=True)
    (ddu,) = grad(du, x, create_graph=True)
    (tddu,) = torch.autograd.grad(tdu, tx, create_graph=True)
    loss, tloss = (ddu + u) ** 2, (tddu + tu) ** 2
    loss.backward()
    tloss.backward()
    for p, t in zip(model.parameters(), params):
        close(p.grad, t.grad.item(), rel=1e-10)


# --- what grad() leaves alone, and the edges PyTorch sets ----------------------------------------------

def test_no_grad_of_any_node_changes():
    a, b = Value(1.5), Value(-0.5)
    c = a * b
    d = c.tanh() + a
    for v, g in zip((a, b, c, d), (0.25, -3.0, 7.0, 11.0)):
        v.grad = g
    for create_graph in (False, True):
        grad(d, [a, c], create_graph=create_graph)
        hessian(lambda v: (v[0] * v[1]).tanh(), [a, b])
        hvp(lambda v: (v[0] * v[1]).tanh(), [a, b], [1.0, 2.0])
        assert (a.grad, b.grad, c.grad, d.grad) == (0.25, -3.0, 7.0, 11.0)


def test_grads_are_put_back_when_a_closure_raises_half_way():
    a, b = Value(1.5), Value(2.0)
    c = a * b
    out = Value(c.data * 2, (c,), 'boom')

    def _backward():
        c.grad += 2 * out.grad
        raise RuntimeError('boom')
    out._backward = _backward
    e = out + a
    for v, g in zip((a, b, c, out, e), (1.0, 2.0, 3.0, 4.0, 5.0)):
        v.grad = g
    with pytest.raises(RuntimeError, match='boom'):
        grad(e, [a, b])
    assert (a.grad, b.grad, c.grad, out.grad, e.grad) == (1.0, 2.0, 3.0, 4.0, 5.0)


def test_without_create_graph_the_results_are_leaves_and_with_it_graphs():
    x = Value(2.0)
    (g,) = grad(x ** 3, x)
    assert g.data == 12.0 and not g._prev
    (g,) = grad(x ** 3, x, create_graph=True)
    assert g.data == 12.0 and g._prev
    (h,) = grad(g, x)
    assert h.data == 12.0


def test_inside_no_grad_create_graph_still_records():
    x = Value(2.0)
    f = x ** 3
    with no_grad():
        (g,) = grad(f, x, create_graph=True)
        assert hessian(lambda v: v[0] ** 3, [x]) == [[12.0]]
    assert g._prev and grad(g, x)[0].data == 12.0


@needs_torch
def test_grad_outputs_weigh_the_outputs_as_numbers_or_values():
    x, y = Value(1.2), Value(-0.4)
    tx, ty = tensor(1.2), tensor(-0.4)
    outs, touts = [x * y, (x + y).tanh(), x], [tx * ty, (tx + ty).tanh(), tx]
    w = Value(0.7)
    gs = grad(outs, [x, y, x], grad_outputs=[2.0, w, -1.5], create_graph=True)
    tw = tensor(0.7)
    tgs = torch.autograd.grad(touts, [tx, ty, tx], grad_outputs=[torch.tensor(2.0, dtype=torch.float64), tw,
                                                                 torch.tensor(-1.5, dtype=torch.float64)],
                              create_graph=True)
    for g, tg in zip(gs, tgs):
        close(g.data, tg.item())
    assert gs[0].data == gs[2].data  # an input listed twice gets its gradient twice
    close(grad(gs[0], w)[0].data, torch.autograd.grad(tgs[0], tw)[0].item())  # d/dw of a weighted gradient


def test_an_output_that_is_also_an_input_gets_its_own_weight():
    x = Value(3.0)
    y = x * 2.0
    assert [g.data for g in grad([y, x], [x], grad_outputs=[1.0, 5.0])] == [7.0]
    assert [g.data for g in grad(x, [x], create_graph=True)] == [1.0]


def test_an_unused_input_is_refused_naming_it_unless_allowed():
    x, y, z = Value(1.0, label='x'), Value(2.0, label='y'), Value(3.0)
    f = x * 2.0
    with pytest.raises(RuntimeError, match=r"micrograd\.grad: input 'y' is not used"):
        grad(f, [x, y])
    with pytest.raises(ValueError, match=r"input inputs\[1\] is not used"):
        grad(f, [x, z], create_graph=True)
    assert grad(f, [x, y, z], allow_unused=True)[1:] == [None, None]


def test_a_zero_slope_gives_zero_not_none_and_makes_no_node():
    x = Value(-1.0)
    f = x.relu() * 3.0 + x ** 0
    for create_graph in (False, True):
        (g,) = grad(f, x, create_graph=create_graph)
        assert g.data == 0.0 and not g._prev


def test_a_nodes_parts_are_added_in_one_node():
    x = Value(0.5)
    f = x * x + x.tanh() + x.exp() + x * 3.0
    (g,) = grad(f, x, create_graph=True)
    assert g._op == 'dot'  # one sum of the four parts, not a chain of +
    close(g.data, 2 * 0.5 + (1 - math.tanh(0.5) ** 2) + math.exp(0.5) + 3.0)


def lecture_square(x):
    """A custom op written the lecture's way: a zero-argument closure reading out.grad."""
    out = Value(x.data ** 2, (x,), 'square')

    def _backward():
        x.grad += 2 * x.data * out.grad
    out._backward = _backward
    return out


def test_a_lecture_style_custom_op_is_differentiated_once_as_backward_does():
    x, y = Value(1.5), Value(-2.0)
    outs = [lecture_square(x) * y, lecture_square(y) + x]
    gs = grad(outs, [x, y], grad_outputs=[0.5, 3.0])
    (outs[0] * 0.5 + outs[1] * 3.0).backward()
    assert [g.data for g in gs] == [x.grad, y.grad]


def test_create_graph_through_a_lecture_style_custom_op_is_refused_naming_it():
    x = Value(1.5)
    f = lecture_square(x).tanh()
    with pytest.raises(RuntimeError, match=r"op 'square'"):
        grad(f, x, create_graph=True)
    g = Value(2.0)  # a closure not the engine's, under an engine op's name
    m = Value(g.data * 3, (g,), '*')
    m._backward = lambda: None
    with pytest.raises(RuntimeError, match=r"op '\*'"):
        grad(m, g, create_graph=True)
    assert x.grad == 0.0 and g.grad == 0.0


def test_bad_arguments_are_refused_naming_grad():
    x = Value(1.0)
    with pytest.raises(TypeError, match=r'micrograd\.grad: outputs'):
        grad(3.0, x)
    with pytest.raises(TypeError, match=r'micrograd\.grad: inputs'):
        grad(x * 2, [])
    with pytest.raises(ValueError, match=r'micrograd\.grad: 2 grad_outputs for 1 outputs'):
        grad(x * 2, x, grad_outputs=[1.0, 2.0])
    with pytest.raises(TypeError, match=r'micrograd\.grad'):
        grad(x * 2, x, grad_outputs='a')
    with pytest.raises(TypeError, match=r'micrograd\.hessian: f must return a Value'):
        hessian(lambda v: 3.0, [x])
    with pytest.raises(ValueError, match=r'micrograd\.hvp: v has 2 numbers for 1 inputs'):
        hvp(lambda v: v[0] ** 3, [x], [1.0, 2.0])
    with pytest.raises(TypeError, match=r'micrograd\.hvp: v must be a list'):
        hvp(lambda v: v[0] ** 3, [x], {1.0})
    assert hvp(lambda v: v[0] ** 3, [x], (Value(2.0),)) == [12.0]


def test_nothing_of_the_feature_is_in_the_lecture_part_of_the_engine():
    engine = Path(micrograd.engine.__file__).read_text()
    lecture = engine.split('# --- the rest')[0]
    for name in ('create_graph', 'hessian', 'hvp', 'grad_of_grad', 'ops.'):
        assert name not in lecture
    assert 'grad_of_grad' not in engine and 'micrograd.ops' not in engine
