"""Every op at random points of its domain, and random graphs of them, against PyTorch in float64.

The ops and their domains come from the table in scalar_ops.py (its special values are swept in
test_engine_sweep.py); random graphs of them from graphs.py.
"""
import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from micrograd import Value
from tests.conftest import TORCH_SKIP_REASON
from tests.scalar.scalar_ops import OPS, operands, samples
from tests.support.graphs import graphs, micrograd_graph

torch = pytest.importorskip('torch', reason=TORCH_SKIP_REASON)


def tensor(x):
    return torch.tensor(float(x), dtype=torch.float64, requires_grad=True)


def torch_graph(recipe):
    from tests.support.graphs import build
    return build(recipe, tensor, lambda ws, xs: ws[0] * xs[0] + ws[1] * xs[1])


def assert_close(ours, theirs, scale, rel=1e-9):
    # Summation order differs between the engines, so allow rounding relative to the graph's scale too.
    assert math.isclose(ours, theirs, rel_tol=rel, abs_tol=rel * scale), (ours, theirs)


@pytest.mark.parametrize('op', OPS, ids=[op.name for op in OPS])
@settings(max_examples=30, deadline=None)
@given(u=st.floats(0, 1), v=st.floats(0, 1))
def test_each_op_matches_pytorch_in_its_domain(op, u, v):
    a, b = samples(op, u, v)
    x, y, values = operands(op, a, b)
    ours = op.ours(x, y)
    ours.backward()
    first, second = op.values
    ta, tb = tensor(a) if first else a, tensor(b) if second else b
    theirs = op.theirs(torch, ta, tb)
    theirs.backward()
    assert ours.data == pytest.approx(theirs.item(), rel=1e-14, abs=1e-300)
    their_grads = [0.0 if t.grad is None else t.grad.item() for t in (ta, tb) if isinstance(t, torch.Tensor)]
    for value, g in zip(values, their_grads):
        assert value.grad == pytest.approx(g, rel=1e-13, abs=1e-300)


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
