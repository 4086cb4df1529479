"""How the scalar engine is built, pinned: these tests change when the implementation does, not the library's promises.

Each op's backward is a closure over its parents that takes the output's gradient, stored as `_grad_fn`: it never
holds its output, so a graph has no reference cycle and reference counting frees it (the garbage collector stays
out). A number in an op becomes a leaf Value, as in the lecture, except for the exponent of x ** k, which the op
spells in `_op` as the user wrote it ('**2', '**2.0'), as Karpathy's; each op names itself in `_op` with his names
('ReLU'); backward() walks `_topological_order()`, the nodes ops made (those with parents), each after its parents.
"""
import gc
import inspect

import numpy as np
import pytest

from micrograd import Value, no_grad


def test_values_have_slots_and_a_dict_made_only_when_another_attribute_is_set():
    v = Value(1.0)
    assert 'data' in Value.__slots__ and not vars(v)
    v.color = 'red'
    assert vars(v) == {'color': 'red'}


def test_a_value_used_twice_keeps_both_edges():
    a = Value(3.0)
    assert (a * a)._prev == (a, a)


@pytest.mark.parametrize('make', [
    lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a ** b, lambda a, b: a.relu(), lambda a, b: a.tanh(),
    lambda a, b: a.exp(), lambda a, b: a.log(), lambda a, b: a.sigmoid(), lambda a, b: a ** 2, lambda a, b: a * 2,
    lambda a, b: a + 2, lambda a, b: a / b, lambda a, b: Value.dot([a], [b]),
])
def test_a_graph_leaves_nothing_for_the_cycle_collector(make):
    def collected() -> int:
        gc.disable()
        gc.freeze()  # every object so far set aside: a collection then reads only the new graph's
        try:
            out = make(Value(2.0), Value(3.0))
            out.backward()
            del out
            return gc.collect()  # 0: reference counting alone freed the graph
        finally:
            gc.unfreeze()
            gc.enable()
    # A cycle in the graph is found on every try; another thread of the test runner may leave garbage of its own
    # in the same moment, once.
    assert 0 in (collected() for _ in range(3))


def cube(self):  # a custom op written as the lecture writes ops
    out = Value(self.data ** 3, (self,), 'cube')

    def _backward():
        self.grad += 3 * self.data ** 2 * out.grad
    out._backward = _backward
    return out


def test_a_lecture_style_closure_holds_its_output_so_the_garbage_collector_frees_that_graph():
    gc.collect()
    a = Value(2.0)
    out = cube(a)
    out.backward()
    assert a.grad == 12.0
    del out
    assert gc.collect() > 0  # the cycle out -> _grad_fn -> _backward -> out


def test_a_number_in_an_op_is_a_leaf_holding_it_as_a_float_as_in_the_lecture():
    x = Value(3.0)
    for out, op, k in [(x * 2, '*', 2.0), (2 * x, '*', 2.0), (x + 1.5, '+', 1.5), (1.5 + x, '+', 1.5),
                       (x - 3, '+', -3.0), (-x, '*', -1.0), (x / 2, '/', 2.0), (x * np.float32(0.5), '*', 0.5)]:
        assert out._op == op and out._prev[0] is x and out._prev[1].data == k and not out._prev[1]._prev
        assert type(out._prev[1].data) is float


@pytest.mark.parametrize('k, op', [
    (2, '**2'), (2.0, '**2.0'), (-1, '**-1'), (-0.5, '**-0.5'), (np.int64(2), '**2'), (np.float32(0.5), '**0.5'),
])
def test_x_to_a_number_has_one_parent_and_spells_the_number_as_the_user_wrote_it_as_karpathys(k, op):
    x = Value(3.0)
    assert (x ** k)._prev == (x,) and (x ** k)._op == op == f'**{k}'


@pytest.mark.parametrize('make, op', [
    (lambda x: x + x, '+'), (lambda x: x * x, '*'), (lambda x: x ** x, '**'),
    (lambda x: 2 ** x, '**'), (lambda x: x.relu(), 'ReLU'), (lambda x: x.tanh(), 'tanh'), (lambda x: x.exp(), 'exp'),
    (lambda x: x.log(), 'log'), (lambda x: x.sigmoid(), 'sigmoid'), (lambda x: Value.dot([x], [x]), 'dot'),
    (lambda x: x - 1, '+'), (lambda x: x / x, '/'), (lambda x: 2 / x, '/'), (lambda x: -x, '*'),
])
def test_each_op_names_itself_in_op(make, op):
    assert make(Value(2.0))._op == op


def test_dot_is_one_node_whose_parents_are_weights_then_inputs_then_bias():
    w1, w2, x1, x2, b = Value(2.0), Value(-1.0), Value(3.0), Value(4.0), Value(0.5)
    out = Value.dot([w1, w2], [x1, x2], b)
    assert out._op == 'dot' and out._prev == (w1, w2, x1, x2, b)
    no_bias = Value.dot([w1], [x1])
    assert no_bias._prev[:2] == (w1, x1) and no_bias._prev[2].data == 0.0  # a bias of 0 is a leaf too
    number_bias = Value.dot([w1], [x1], 1.0)
    assert len(number_bias._prev) == 3 and number_bias._prev[-1].data == 1.0  # a number becomes a leaf


def test_a_leaf_and_a_value_made_under_no_grad_have_no_grad_fn_and_a_backward_that_does_nothing():
    a = Value(2.0)
    with no_grad():
        b = a * 3
    assert a._grad_fn is None and b._grad_fn is None and b._prev == ()
    a._backward()  # the lecture calls it on leaves too
    b._backward()
    assert a.grad == 0.0
    hand_made = Value(1.0, (a,), 'op')
    assert hand_made._grad_fn is None
    hand_made.backward()
    assert a.grad == 0.0 and hand_made.grad == 1.0


def test_the_lectures_backward_is_a_call_that_passes_on_the_nodes_own_grad():
    a, b = Value(2.0), Value(3.0)
    out = a * b
    out.grad = 5.0
    out._backward()
    assert (a.grad, b.grad) == (15.0, 10.0)


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


# --- micrograd/ops.py describes exactly the ops engine.py makes ---------------------------------------------

def engine_ops():
    """The methods of Value with a closure _backward of their own: the ops engine.py makes (not aliases)."""
    found = set()
    for name, f in vars(Value).items():
        code = getattr(getattr(f, '__func__', f), '__code__', None)
        if code and getattr(f, '__name__', name) == name and any(
                getattr(c, 'co_name', '') == '_backward' for c in code.co_consts):
            found.add(name)
    return found


def test_the_op_table_has_one_record_for_each_op_engine_py_makes():
    from micrograd.ops import BY_METHOD
    assert not engine_ops() - set(BY_METHOD), \
        f"no record in micrograd/ops.py for Value.{', Value.'.join(sorted(engine_ops() - set(BY_METHOD)))}"
    assert not set(BY_METHOD) - engine_ops(), \
        f"micrograd/ops.py describes methods engine.py does not define: {sorted(set(BY_METHOD) - engine_ops())}"


def example(method):
    x, y = Value(2.0), Value(3.0)
    return Value.dot([x], [y]) if method == 'dot' else getattr(x, method)(*([y] if method.startswith('__') else []))


@pytest.mark.parametrize('record', __import__('micrograd.ops', fromlist=['OPS']).OPS, ids=lambda op: op.name)
def test_each_op_of_the_table_is_named_and_built_as_the_table_says(record):
    out = example(record.method)
    assert out._op == record.name
    assert record.parents == 0 or len(out._prev) == record.parents
    made = [inspect.getattr_static(Value, method) for method in record.methods]
    assert any(out._grad_fn.__code__ in getattr(m, '__func__', m).__code__.co_consts for m in made)


def test_the_sweeps_table_has_a_row_for_each_op():
    from micrograd.ops import OPS
    from tests.scalar.scalar_ops import OPS as ROWS
    missing = [f'Value.{op.method}' for op in OPS if f'Value.{op.method}' not in {row.method for row in ROWS}]
    assert not missing, f"no row in tests/scalar/scalar_ops.py for {', '.join(missing)}"
