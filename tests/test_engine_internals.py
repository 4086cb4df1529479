"""How the scalar engine is built, pinned: these tests change when the implementation does, not the library's promises.

The parents of a node are the one tuple its backward holds as default arguments (no reference cycles, so the garbage
collector stays out); a number in an op is held by the backward as the keyword-only default `k`, never as a node;
each op names itself in `_op`; backward() walks `_topological_order()`, the nodes ops made, each after its parents.
"""
import gc

import pytest

from micrograd import Value, no_grad
from micrograd.engine import _no_backward


def test_values_have_slots_not_dicts():
    assert not hasattr(Value(1.0), '__dict__')


def test_a_value_used_twice_keeps_both_edges():
    a = Value(3.0)
    assert (a * a)._prev == (a, a)


def test_backward_functions_hold_their_parents_never_their_output():
    a, b = Value(2.0), Value(3.0)
    out = a * b
    assert out._backward.__defaults__ == (a, b) and out._prev is out._backward.__defaults__  # one tuple
    assert all(v is not out for v in out._backward.__defaults__)


@pytest.mark.parametrize('make', [
    lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a ** b, lambda a, b: a.relu(), lambda a, b: a.tanh(),
    lambda a, b: a.exp(), lambda a, b: a.log(), lambda a, b: a.sigmoid(), lambda a, b: a ** 2, lambda a, b: a * 2,
    lambda a, b: a + 2,
])
def test_every_ops_parents_are_its_backwards_defaults(make):
    out = make(Value(2.0), Value(3.0))
    assert out._prev is out._backward.__defaults__


def test_a_graph_leaves_nothing_for_the_cycle_collector():
    gc.collect()
    x = Value(1.0)
    y = (x * 2 + 1).tanh().exp() / (x + 3) ** 2
    y.backward()
    del y
    assert gc.collect() == 0  # reference counting alone freed the graph


def test_a_number_in_an_op_is_no_node_of_the_graph_its_backward_holds_it():
    x = Value(3.0)
    for out, op, k in [(x * 2, '*', 2.0), (2 * x, '*', 2.0), (x + 1.5, '+', 1.5), (1.5 + x, '+', 1.5),
                       (x - 3, '+', -3.0), (-x, '*', -1.0), (x ** 2, '**', 2.0), (x / 2, '/', 2.0)]:
        assert out._prev == (x,) and out._op == op and out._backward.__kwdefaults__['k'] == k
        assert type(out._backward.__kwdefaults__['k']) is float


def test_a_numpy_number_in_an_op_is_held_as_a_python_float():
    import numpy as np
    out = Value(3.0) * np.float32(0.5)
    assert type(out._backward.__kwdefaults__['k']) is float


@pytest.mark.parametrize('make, op', [
    (lambda x: x + x, '+'), (lambda x: x * x, '*'), (lambda x: x ** 2, '**'), (lambda x: x ** x, '**'),
    (lambda x: 2 ** x, '**'), (lambda x: x.relu(), 'relu'), (lambda x: x.tanh(), 'tanh'), (lambda x: x.exp(), 'exp'),
    (lambda x: x.log(), 'log'), (lambda x: x.sigmoid(), 'sigmoid'), (lambda x: Value.dot([x], [x]), 'dot'),
    (lambda x: x - 1, '+'), (lambda x: x / x, '/'), (lambda x: 2 / x, '/'), (lambda x: -x, '*'),
])
def test_each_op_names_itself_in_op(make, op):
    assert make(Value(2.0))._op == op


def test_dot_is_one_node_whose_parents_are_weights_then_inputs_then_bias():
    w1, w2, x1, x2, b = Value(2.0), Value(-1.0), Value(3.0), Value(4.0), Value(0.5)
    out = Value.dot([w1, w2], [x1, x2], b)
    assert out._op == 'dot' and out._prev == (w1, w2, x1, x2, b) and out._prev is out._backward.__defaults__[0]
    assert out._backward.__kwdefaults__ == {'n': 2}  # the number of pairs, bound like every other number
    no_bias = Value.dot([w1], [x1])
    assert no_bias._prev == (w1, x1)
    number_bias = Value.dot([w1], [x1], 1.0)
    assert len(number_bias._prev) == 3 and number_bias._prev[-1].data == 1.0  # a number becomes a leaf


def test_an_empty_dot_is_a_leaf_in_effect():
    assert Value.dot([], [])._prev == ()


def test_a_leaf_and_a_value_made_under_no_grad_have_the_do_nothing_backward():
    a = Value(2.0)
    with no_grad():
        b = a * 3
    assert a._backward is _no_backward and b._backward is _no_backward and b._prev == ()
    assert Value(1.0, (a,), 'op')._backward is _no_backward


def test_the_topological_order_holds_each_node_an_op_made_once_after_its_parents():
    a, b, c = Value(2.0), Value(-3.0), Value(10.0)
    ab = a * b
    s = ab + c
    out = (s * ab).relu()
    order = out._topological_order()
    assert len(order) == len(set(map(id, order))) == 4  # ab, s, s * ab, relu: leaves take no place
    assert all(v._prev for v in order) and order[-1] is out
    position = {id(v): i for i, v in enumerate(order)}
    for v in order:
        assert all(position[id(p)] < position[id(v)] for p in v._prev if p._prev)


def test_the_topological_order_does_not_touch_gradients():
    x = Value(2.0)
    y = x * x
    z = y * 3
    z.backward()
    z._topological_order()
    assert (x.grad, y.grad, z.grad) == (12.0, 3.0, 1.0)  # zeroing is backward()'s job, not the sort's
