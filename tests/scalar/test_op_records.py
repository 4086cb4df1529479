"""Each op's record in micrograd/ops.py is its calculus, once: the engine's closure adds what the record's
derivative says, on every row of the op table (tests/scalar/scalar_ops.py) at its samples, so that the rules
micrograd.grad differentiates again, the captions and the exercises all say what the engine computes."""
import math
import random

import pytest

from micrograd import Value, ops
from micrograd.engine import topological_order
from micrograd.grad_of_grad import _closure, _exponent, _record
from tests.scalar.scalar_ops import OPS, operands, samples


def points(row):
    """Five seeded samples of the row's domain, and its kinks (relu at 0)."""
    rng = random.Random(row.name)
    yield from (samples(row, rng.random(), rng.random()) for _ in range(5))
    yield from ((k, 1.0) for k in row.kinks)


def slots(node, op):
    """(parent, derivative, its names) for each parent place of the node, as ops.py's record names them."""
    prev = node._prev
    if op.name == 'dot':
        n = len(prev) // 2
        pairs = [{'w': prev[i].data, 'x': prev[n + i].data} for i in range(n)]
        return ([(prev[i], op.derivatives[0], pairs[i]) for i in range(n)]
                + [(prev[n + i], op.derivatives[1], pairs[i]) for i in range(n)] + [(prev[-1], op.derivatives[2], {})])
    y = prev[1].data if len(prev) > 1 else _exponent(node)
    names = {'x': prev[0].data, 'y': y, 'out': node.data}
    return [(p, d, names) for p, d in zip(prev, op.derivatives)]


@pytest.mark.parametrize('row', OPS, ids=[row.name for row in OPS])
def test_each_closure_adds_grad_times_its_records_derivative(row):
    for a, b in points(row):
        x, y, _ = operands(row, a, b)
        for node in topological_order(row.ours(x, y)):
            fn, run = _closure(node)
            op = _record(node, fn)
            assert op is not None, f"{row.name}: node {node._op!r} has no record in micrograd/ops.py"
            for g in (1.0, -0.37):
                want: dict[Value, float] = {}
                for parent, derivative, names in slots(node, op):
                    want[parent] = want.get(parent, 0.0) + g * ops.evaluate(derivative, **names)
                for parent in node._prev:
                    parent.grad = 0.0
                node.grad = g
                run()
                for parent, expected in want.items():  # (the closure may group its arithmetic otherwise: / )
                    assert math.isclose(parent.grad, expected, rel_tol=1e-14, abs_tol=1e-300), \
                        (row.name, op.name, a, b, parent.grad, expected)


def test_a_records_expression_sees_only_the_names_it_is_given():
    with pytest.raises(NameError):
        ops.evaluate('e * grad', grad=1.0)  # math.e is not in scope: exp's saved output must be passed
    assert ops.evaluate('step(x)', x=0.0) == 0.0 and ops.evaluate('step(x)', x=Value(2.0)) == 1.0


def test_a_records_derivative_on_values_is_a_graph():
    x = Value(0.5)
    d = ops.evaluate(ops.BY_NAME['log'].derivatives[0], x=x, out=x.log())
    assert isinstance(d, Value) and d.data == 2.0 and x in d._prev
