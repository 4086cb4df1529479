"""Every op's gradient against a central difference, (f(x+h) - f(x-h)) / 2h."""
import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from micrograd import Value
from tests.graphs import graphs, largest_magnitude, micrograd_graph

H = 1e-6

# Each op of one or two inputs, with the domain its inputs are drawn from.
OPS = {
    'add': (lambda a, b: a + b, (-5, 5), (-5, 5)),
    'sub': (lambda a, b: a - b, (-5, 5), (-5, 5)),
    'mul': (lambda a, b: a * b, (-5, 5), (-5, 5)),
    'div': (lambda a, b: a / b, (-5, 5), (0.5, 5)),
    'pow_number': (lambda a, b: a ** 3, (-3, 3), (0, 1)),
    'pow_fraction': (lambda a, b: a ** 1.5, (0.1, 4), (0, 1)),
    'pow_value': (lambda a, b: a ** b, (0.1, 4), (-2, 2)),
    'rpow': (lambda a, b: 2 ** a, (-3, 3), (0, 1)),
    'rsub': (lambda a, b: 1 - a, (-5, 5), (0, 1)),
    'rdiv': (lambda a, b: 1 / a, (0.5, 5), (0, 1)),
    'neg': (lambda a, b: -a, (-5, 5), (0, 1)),
    'tanh': (lambda a, b: a.tanh(), (-4, 4), (0, 1)),
    'relu': (lambda a, b: a.relu(), (-4, 4), (0, 1)),
    'exp': (lambda a, b: a.exp(), (-4, 4), (0, 1)),
    'log': (lambda a, b: a.log(), (0.1, 5), (0, 1)),
    'sigmoid': (lambda a, b: a.sigmoid(), (-6, 6), (0, 1)),
    'dot': (lambda a, b: Value.dot([a, b, a], [b, Value(2.0), a]), (-3, 3), (-3, 3)),
}


def central_difference(f, a, b):
    da = (f(Value(a + H), Value(b)).data - f(Value(a - H), Value(b)).data) / (2 * H)
    db = (f(Value(a), Value(b + H)).data - f(Value(a), Value(b - H)).data) / (2 * H)
    return da, db


@pytest.mark.parametrize('name', sorted(OPS))
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_each_op_matches_a_central_difference(name, data):
    f, a_range, b_range = OPS[name]
    a = data.draw(st.floats(*a_range), label='a')
    b = data.draw(st.floats(*b_range), label='b')
    assume(name != 'relu' or abs(a) > 10 * H)  # relu has a kink at 0
    va, vb = Value(a), Value(b)
    f(va, vb).backward()
    da, db = central_difference(f, a, b)
    assert va.grad == pytest.approx(da, rel=1e-5, abs=1e-5)
    assert vb.grad == pytest.approx(db, rel=1e-5, abs=1e-5)


@settings(max_examples=100, deadline=None)
@given(graphs(max_ops=8))
def test_random_graphs_match_central_differences(recipe):
    values, steps = recipe
    leaves, out = micrograd_graph(recipe)
    # Difference quotients lose digits to large intermediates that cancel out; keep the graph moderate.
    assume(math.isfinite(out.data) and largest_magnitude(out) < 1e3)
    out.backward()
    for i, leaf in enumerate(leaves):
        shifted = [list(values), list(values)]
        shifted[0][i] += H
        shifted[1][i] -= H
        plus, minus = (micrograd_graph((v, steps))[1].data for v in shifted)
        # Skip inputs within H of a kink (relu at 0), where no difference quotient is the derivative.
        kink = any(op == 'relu' for op, _, _ in steps) and abs((plus - out.data) - (out.data - minus)) > 1e-3 * H
        assume(not kink)
        assert leaf.grad == pytest.approx((plus - minus) / (2 * H), rel=1e-4, abs=1e-4)
