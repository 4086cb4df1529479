"""Every op, and random graphs of them, against PyTorch in float64."""
import math

import pytest
from hypothesis import assume, given, settings

from micrograd import Value
from tests.conftest import TORCH_SKIP_REASON
from tests.graphs import graphs, micrograd_graph

torch = pytest.importorskip('torch', reason=TORCH_SKIP_REASON)


def tensor(x):
    return torch.tensor(float(x), dtype=torch.float64, requires_grad=True)


def torch_graph(recipe):
    from tests.graphs import build
    return build(recipe, tensor, lambda ws, xs: ws[0] * xs[0] + ws[1] * xs[1])


def assert_close(ours, theirs, scale, rel=1e-9):
    # Summation order differs between the engines, so allow rounding relative to the graph's scale too.
    assert math.isclose(ours, theirs, rel_tol=rel, abs_tol=rel * scale), (ours, theirs)


BINARY = [
    ('a + b', lambda a, b: a + b), ('a - b', lambda a, b: a - b), ('a * b', lambda a, b: a * b),
    ('a / b', lambda a, b: a / b), ('a ** b', lambda a, b: a ** b),
    ('a + 2', lambda a, b: a + 2), ('2 + a', lambda a, b: 2 + a), ('a - 2', lambda a, b: a - 2),
    ('2 - a', lambda a, b: 2 - a), ('a * 2', lambda a, b: a * 2), ('2 * a', lambda a, b: 2 * a),
    ('a / 2', lambda a, b: a / 2), ('2 / a', lambda a, b: 2 / a), ('a ** 3', lambda a, b: a ** 3),
    ('a ** -2', lambda a, b: a ** -2), ('a ** 0.5', lambda a, b: a ** 0.5), ('2 ** a', lambda a, b: 2 ** a),
    ('-a', lambda a, b: -a),
]
UNARY = ['tanh', 'relu', 'exp', 'log', 'sigmoid']


@pytest.mark.parametrize('name, op', BINARY, ids=[name for name, _ in BINARY])
@pytest.mark.parametrize('a, b', [(1.5, 0.7), (0.3, -2.5), (4.0, 1.25)])
def test_binary_ops_match_pytorch(name, op, a, b):
    va, vb = Value(a), Value(b)
    ta, tb = tensor(a), tensor(b)
    ours, theirs = op(va, vb), op(ta, tb)
    ours.backward()
    theirs.backward()
    assert ours.data == pytest.approx(theirs.item(), rel=1e-12)
    assert va.grad == pytest.approx(ta.grad.item(), rel=1e-12)
    assert vb.grad == pytest.approx(0.0 if tb.grad is None else tb.grad.item(), rel=1e-12)


@pytest.mark.parametrize('name', UNARY)
@pytest.mark.parametrize('x', [-3.0, -0.7, 0.2, 1.9, 30.0])
def test_unary_functions_match_pytorch(name, x):
    if name == 'log' and x <= 0:
        x = -x
    v, t = Value(x), tensor(x)
    ours, theirs = getattr(v, name)(), getattr(t, name)()
    ours.backward()
    theirs.backward()
    assert ours.data == pytest.approx(theirs.item(), rel=1e-12)
    assert v.grad == pytest.approx(t.grad.item(), rel=1e-12, abs=1e-300)


@pytest.mark.parametrize('name', ['tanh', 'sigmoid'])
@pytest.mark.parametrize('x', [-1000.0, -40.0, 40.0, 1000.0])
def test_saturating_functions_match_pytorch_far_out(name, x):
    v, t = Value(x), tensor(x)
    getattr(v, name)().backward()
    getattr(t, name)().backward()
    assert v.grad == pytest.approx(t.grad.item(), rel=1e-9, abs=1e-300)


def test_relu_at_zero_matches_pytorch():
    v, t = Value(0.0), tensor(0.0)
    v.relu().backward()
    t.relu().backward()
    assert v.grad == t.grad.item() == 0.0


@settings(max_examples=300, deadline=None)
@given(graphs())
def test_random_graphs_match_pytorch(recipe):
    leaves, out = micrograd_graph(recipe)
    t_leaves, t_out = torch_graph(recipe)
    assume(math.isfinite(out.data) and abs(out.data) < 1e100)
    out.backward()
    t_out.backward()
    grads = [leaf.grad for leaf in leaves]
    t_grads = [0.0 if t.grad is None else t.grad.item() for t in t_leaves]
    assume(all(math.isfinite(g) and abs(g) < 1e100 for g in t_grads))
    scale = 1 + max(abs(out.data), *map(abs, t_grads))
    assert_close(out.data, t_out.item(), scale)
    for ours, theirs in zip(grads, t_grads):
        assert_close(ours, theirs, scale)
