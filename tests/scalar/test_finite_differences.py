"""Every op's gradient against a central difference, (f(x+h) - f(x-h)) / 2h, at random points of its domain.

The ops and their domains come from the table in scalar_ops.py; random graphs of them from graphs.py.
"""
import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.scalar.scalar_ops import OPS, central_differences, operands, samples
from tests.support.graphs import graphs, largest_magnitude, micrograd_graph

pytestmark = pytest.mark.same_on_every_python  # float arithmetic, the same on every Python: CI runs it on one

H = 1e-6


@pytest.mark.parametrize('op', OPS, ids=[op.name for op in OPS])
@settings(max_examples=40, deadline=None)
@given(u=st.floats(0, 1), v=st.floats(0, 1))
def test_each_op_matches_a_central_difference(op, u, v):
    a, b = samples(op, u, v)
    assume(all(abs(x - kink) > 10 * H for x in (a, b) for kink in op.kinks))  # no derivative at a kink
    x, y, values = operands(op, a, b)
    op.ours(x, y).backward()
    for value, slope in zip(values, central_differences(op, a, b, H)):
        assert value.grad == pytest.approx(slope, rel=1e-5, abs=1e-5)


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
