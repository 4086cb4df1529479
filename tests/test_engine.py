"""The scalar engine, specified by examples a reader can check by hand."""
import gc
import math
import sys

import numpy as np
import pytest

from micrograd import Value, no_grad


def approx(x, rel=1e-12):
    return pytest.approx(x, rel=rel, abs=1e-12)


# --- what a Value is -------------------------------------------------------------

def test_data_is_stored_as_a_python_float():
    for number in (2, 2.0, True, np.int64(2), np.float32(2.0), np.float64(2.0), np.bool_(True) + 1):
        v = Value(number)
        assert type(v.data) is float and v.data == float(number)
    assert type(Value(np.bool_(True)).data) is float


def test_a_new_value_has_zero_grad_and_a_readable_repr():
    v = Value(2.0)
    assert v.grad == 0.0 and type(v.grad) is float
    assert repr(v) == "Value(data=2.0, grad=0.0)"


def test_constructor_keeps_karpathys_positional_order_and_adds_a_label():
    a, b = Value(1.0), Value(2.0)
    c = Value(3.0, (a, b), '+', label='c')
    assert c._prev == (a, b) and c._op == '+' and c.label == 'c'


@pytest.mark.parametrize('bad', ['2', None, [1.0], (1.0,), Value(1.0), 1 + 2j, np.array([1.0, 2.0])])
def test_anything_but_a_real_number_is_a_type_error(bad):
    with pytest.raises(TypeError, match="Value"):
        Value(bad)


def test_a_value_used_twice_keeps_both_edges():
    a = Value(3.0)
    assert (a * a)._prev == (a, a)


# --- the worked examples of a course ---------------------------------------------

def test_a_squared_sum_of_products():
    a, b, c = Value(2.0), Value(-3.0), Value(10.0)
    f = (a * b + c) ** 2
    f.backward()
    assert f.data == 16.0
    assert (a.grad, b.grad, c.grad) == (-24.0, 16.0, 8.0)


def test_a_value_used_twice_gets_both_gradients():
    a = Value(3.0)
    (a * a).backward()
    assert a.grad == 6.0


def test_sum_times_one_of_its_terms():
    a, b = Value(2.0), Value(3.0)
    ((a + b) * b).backward()
    assert (a.grad, b.grad) == (3.0, 8.0)


def test_cube():
    x = Value(2.0)
    (x ** 3).backward()
    assert x.grad == 12.0


def test_softmax_numerator():
    x, z = Value(1.0), Value(2.0)
    p = x.exp() / (x.exp() + z.exp())
    p.backward()
    assert p.data == pytest.approx(0.2689414213699951)
    assert x.grad == pytest.approx(0.19661193324148185)
    assert z.grad == pytest.approx(-0.19661193324148185)


@pytest.mark.parametrize('x, relu_grad, tanh_grad', [
    (-2.0, 0.0, 1 - math.tanh(-2.0) ** 2),
    (-0.5, 0.0, 1 - math.tanh(-0.5) ** 2),
    (0.5, 1.0, 1 - math.tanh(0.5) ** 2),
    (2.0, 1.0, 1 - math.tanh(2.0) ** 2),
])
def test_relu_and_tanh_gradients(x, relu_grad, tanh_grad):
    a, b = Value(x), Value(x)
    a.relu().backward()
    b.tanh().backward()
    assert a.grad == relu_grad
    assert b.grad == approx(tanh_grad)


def test_relu_has_zero_gradient_at_zero_as_in_pytorch():
    x = Value(0.0)
    x.relu().backward()
    assert x.grad == 0.0


# --- every op, forward and local derivative ----------------------------------------

@pytest.mark.parametrize('op, data, grads', [
    (lambda a, b: a + b, 5.0, (1.0, 1.0)),
    (lambda a, b: a - b, -1.0, (1.0, -1.0)),
    (lambda a, b: a * b, 6.0, (3.0, 2.0)),
    (lambda a, b: a / b, 2 / 3, (1 / 3, -2 / 9)),
    (lambda a, b: a ** b, 8.0, (12.0, 8 * math.log(2))),
])
def test_binary_ops_between_values(op, data, grads):
    a, b = Value(2.0), Value(3.0)
    out = op(a, b)
    out.backward()
    assert out.data == approx(data)
    assert (a.grad, b.grad) == (approx(grads[0]), approx(grads[1]))


@pytest.mark.parametrize('op, data, grad', [
    (lambda a: a + 3, 5.0, 1.0), (lambda a: 3 + a, 5.0, 1.0),
    (lambda a: a - 3, -1.0, 1.0), (lambda a: 3 - a, 1.0, -1.0),
    (lambda a: a * 3, 6.0, 3.0), (lambda a: 3 * a, 6.0, 3.0),
    (lambda a: a / 4, 0.5, 0.25), (lambda a: 4 / a, 2.0, -1.0),
    (lambda a: a ** 3, 8.0, 12.0), (lambda a: 3 ** a, 9.0, 9 * math.log(3)),
    (lambda a: a ** 0.5, math.sqrt(2), 0.5 / math.sqrt(2)), (lambda a: a ** -1, 0.5, -0.25),
    (lambda a: -a, -2.0, -1.0),
])
def test_ops_with_a_plain_number_on_either_side(op, data, grad):
    a = Value(2.0)
    out = op(a)
    assert isinstance(out, Value)
    out.backward()
    assert out.data == approx(data)
    assert a.grad == approx(grad)


@pytest.mark.parametrize('scalar', [np.int64(2), np.float64(2.0), np.float32(2.0)])
def test_numpy_scalars_on_the_left_give_values(scalar):
    v = Value(3.0)
    for out, grad in ((scalar * v, 2.0), (scalar + v, 1.0), (scalar - v, -1.0), (scalar / v, -2 / 9)):
        assert isinstance(out, Value)
        v.grad = 0.0
        out.backward()
        assert v.grad == approx(grad)


def test_karpathys_demo_expression_with_a_numpy_label():
    yi, score = np.int64(-1), Value(0.5)
    loss = (1 + -yi * score).relu()
    loss.backward()
    assert loss.data == 1.5 and score.grad == 1.0


@pytest.mark.parametrize('method, x, data, grad', [
    ('tanh', 0.5, math.tanh(0.5), 1 - math.tanh(0.5) ** 2),
    ('relu', 0.5, 0.5, 1.0),
    ('relu', -0.5, 0.0, 0.0),
    ('exp', 0.5, math.exp(0.5), math.exp(0.5)),
    ('log', 0.5, math.log(0.5), 2.0),
    ('sigmoid', 0.5, 1 / (1 + math.exp(-0.5)), math.exp(-0.5) / (1 + math.exp(-0.5)) ** 2),
    ('sigmoid', -0.5, 1 / (1 + math.exp(0.5)), math.exp(0.5) / (1 + math.exp(0.5)) ** 2),
])
def test_unary_functions(method, x, data, grad):
    a = Value(x)
    out = getattr(a, method)()
    out.backward()
    assert out.data == approx(data)
    assert a.grad == approx(grad)


def test_dot_is_a_weighted_sum_plus_bias_in_one_node():
    w1, w2, x1, x2, b = Value(2.0), Value(-1.0), Value(3.0), Value(4.0), Value(0.5)
    out = Value.dot([w1, w2], [x1, x2], b)
    assert out._op == 'dot' and out._prev == (w1, w2, x1, x2, b)
    out.backward()
    assert out.data == 2.5
    assert (w1.grad, w2.grad, x1.grad, x2.grad, b.grad) == (3.0, 4.0, 2.0, -1.0, 1.0)


def test_dot_gives_the_same_number_as_karpathys_sum_of_products():
    ws, xs, b = [Value(0.1 * i) for i in range(7)], [Value(1 / (i + 3)) for i in range(7)], Value(0.3)
    assert Value.dot(ws, xs, b).data == sum((w * x for w, x in zip(ws, xs)), b).data


def test_dot_takes_plain_numbers_and_checks_lengths():
    w = Value(2.0)
    out = Value.dot([w], [5])
    out.backward()
    assert out.data == 10.0 and w.grad == 5.0
    with pytest.raises(ValueError, match="dot"):
        Value.dot([w], [1.0, 2.0])


def test_functions_are_stable_far_from_zero():
    assert Value(1000.0).tanh().data == 1.0
    assert Value(-1000.0).tanh().data == -1.0
    assert Value(-1000.0).sigmoid().data == 0.0
    assert Value(1000.0).sigmoid().data == 1.0
    x = Value(-1000.0)
    x.sigmoid().backward()
    assert x.grad == 0.0


# --- bad input is a clear error, never a wrong number --------------------------------

@pytest.mark.parametrize('make, match', [
    (lambda: Value(0.0).log(), "log"),
    (lambda: Value(-1.0).log(), "log"),
    (lambda: Value(-8.0) ** (1 / 3), "negative base"),
    (lambda: Value(-2.0) ** Value(2.0), "base"),
])
def test_domain_errors_are_value_errors_naming_the_op(make, match):
    with pytest.raises(ValueError, match=match):
        make()


@pytest.mark.parametrize('make', [
    lambda: Value(1.0) / 0, lambda: Value(1.0) / Value(0.0), lambda: 1 / Value(0.0), lambda: Value(0.0) ** -1,
    lambda: Value(1.0) / np.float16(0), lambda: Value(1.0) / False,
])
def test_division_by_zero_is_pythons_zero_division_error_naming_the_op(make):
    with pytest.raises(ZeroDivisionError, match=r"Value\.__(truediv|pow)__"):
        make()


def test_a_negative_base_with_an_integer_power_is_fine():
    x = Value(-2.0)
    (x ** 3).backward()
    assert x.grad == 12.0


def test_exp_overflow_says_so():
    with pytest.raises(OverflowError, match="exp"):
        Value(1000.0).exp()


@pytest.mark.parametrize('bad', ['1', None, [1.0]])
def test_ops_with_non_numbers_are_type_errors(bad):
    v = Value(1.0)
    for op in (lambda: v + bad, lambda: bad + v, lambda: v * bad, lambda: v / bad, lambda: v ** bad,
               lambda: bad ** v, lambda: bad / v):
        with pytest.raises(TypeError):
            op()


def test_a_failed_op_leaves_no_half_built_graph():
    x = Value(-1.0)
    with pytest.raises(ValueError):
        x.log()
    assert x.grad == 0.0


# --- backward(): the semantics a learner trips over --------------------------------

def test_leaf_gradients_accumulate_across_backward_calls():
    x = Value(2.0)
    y = x * x
    z = 3 * y
    z.backward()
    z.backward()
    assert x.grad == 24.0  # exactly twice 12; Karpathy's engine gives 36


def test_intermediate_gradients_are_those_of_the_latest_call():
    x = Value(2.0)
    y = x * x
    z = 3 * y
    z.backward()
    z.backward()
    assert y.grad == 3.0 and z.grad == 1.0


def test_zeroing_leaves_between_calls_gives_the_same_gradients():
    x = Value(2.0)
    z = 3 * (x * x)
    z.backward()
    first = x.grad
    x.grad = 0.0
    z.backward()
    assert x.grad == first == 12.0


def test_backward_of_a_leaf_adds_one():
    x = Value(5.0)
    x.backward()
    x.backward()
    assert x.grad == 2.0


def test_backward_from_an_inner_node_reaches_only_its_ancestors():
    a, b = Value(2.0), Value(3.0)
    c = a * b
    d = c + a
    c.backward()
    assert (a.grad, b.grad, d.grad) == (3.0, 2.0, 0.0)


def test_a_diamond_graph_sums_both_paths():
    x = Value(3.0)
    y = x * 2
    z = x * 5
    (y * z).backward()  # d(10 x**2)/dx = 20 x
    assert x.grad == 60.0


@pytest.mark.slow
def test_a_chain_a_million_ops_deep():
    x = Value(1.0)
    y = x
    for _ in range(1_000_000):
        y = y + 1.0
    y.backward()
    assert y.data == 1_000_001.0 and x.grad == 1.0


def test_sum_of_a_hundred_thousand_values():
    xs = [Value(float(i)) for i in range(100_000)]
    total = sum(xs)
    total.backward()
    assert total.data == sum(range(100_000))
    assert all(x.grad == 1.0 for x in xs)


# --- no_grad, detach, item, and no reference cycles ------------------------------

def test_no_grad_builds_no_graph_and_restores_recording():
    a = Value(2.0)
    with no_grad():
        b = (a * 3).tanh()
        with no_grad():
            pass
        c = a + 1  # still inside the outer block
    assert b._prev == () and c._prev == ()
    assert (a * 3)._prev != ()


def test_no_grad_restores_recording_after_an_error():
    with pytest.raises(ValueError), no_grad():
        Value(-1.0).log()
    assert (Value(1.0) * 2)._prev != ()


def test_detach_cuts_the_graph_and_item_gives_the_float():
    a = Value(2.0)
    b = (a * 3).detach()
    assert b.data == 6.0 and b._prev == ()
    (b * a).backward()
    assert a.grad == 6.0 and b.item() == 6.0 and type(b.item()) is float


def test_values_have_slots_not_dicts():
    assert not hasattr(Value(1.0), '__dict__')


def test_a_graph_leaves_nothing_for_the_cycle_collector():
    gc.collect()
    x = Value(1.0)
    y = (x * 2 + 1).tanh().exp() / (x + 3) ** 2
    y.backward()
    del y
    assert gc.collect() == 0  # reference counting alone freed the graph


def test_recursion_limit_is_untouched():
    limit = sys.getrecursionlimit()
    y = Value(1.0)
    for _ in range(10 * limit):
        y = y * 1.0
    y.backward()
    assert sys.getrecursionlimit() == limit


# --- numbers in ops, powers at the edges, no_grad as a decorator and per thread ----------

def test_a_number_in_an_op_is_no_node_of_the_graph_its_backward_holds_it():
    x = Value(3.0)
    for out, op, k in [(x * 2, '*', 2.0), (2 * x, '*', 2.0), (x + 1.5, '+', 1.5), (1.5 + x, '+', 1.5),
                       (x - 3, '+', -3.0), (-x, '*', -1.0), (x ** 2, '**', 2.0), (x / 2, '*', 0.5)]:
        assert out._prev == (x,) and out._op == op and out._backward.__kwdefaults__['k'] == k


def test_dot_without_a_bias_has_only_weights_and_inputs_as_parents():
    w, x = Value(2.0), Value(5.0)
    out = Value.dot([w], [x])
    out.backward()
    assert out._prev == (w, x) and out.data == 10.0 and (w.grad, x.grad) == (5.0, 2.0)
    with_number_bias = Value.dot([w], [x], 1.0)
    assert with_number_bias.data == 11.0 and len(with_number_bias._prev) == 3


def test_zero_to_the_power_zero_is_one_with_gradient_zero_as_in_pytorch():
    x = Value(0.0)
    y = x ** 0
    y.backward()
    assert y.data == 1.0 and x.grad == 0.0


def test_a_power_too_large_for_a_float_is_an_overflow_error_naming_the_op():
    with pytest.raises(OverflowError, match=r"__pow__: 10\.0 \*\* 400"):
        Value(10.0) ** 400


@pytest.mark.parametrize('refused', [
    lambda x: x.log() if x.data <= 0 else Value(-1.0).log(),
    lambda x: x / 0,
    lambda x: x ** 0.5 if x.data < 0 else Value(-1.0) ** 0.5,
    lambda x: x ** 1000,
    lambda x: x + 'a',
])
def test_a_refused_op_leaves_the_graph_and_its_gradients_untouched(refused):
    a, b = Value(-2.0), Value(3.0)
    x = a * b
    x.backward()
    before = [(v.data, v.grad, v._prev) for v in (a, b, x)]
    with pytest.raises((ValueError, TypeError, ArithmeticError)):
        refused(x)
    assert [(v.data, v.grad, v._prev) for v in (a, b, x)] == before


def test_no_grad_is_also_a_decorator():
    @no_grad()
    def evaluate(v):
        return v * 2 + 1

    a = Value(1.0)
    assert evaluate(a)._prev == () and (a * 2)._prev == (a,)


def test_no_grad_in_one_thread_does_not_stop_another_from_recording():
    import threading
    inside, recorded = threading.Event(), []

    def evaluate():
        with no_grad():
            inside.set()
            finished.wait(5)

    finished = threading.Event()
    evaluator = threading.Thread(target=evaluate)
    evaluator.start()
    inside.wait(5)
    a = Value(2.0)
    recorded.append((a * 3)._prev)  # this thread trains while the other evaluates
    finished.set()
    evaluator.join()
    assert recorded == [(a,)]


def test_backward_functions_hold_their_parents_never_their_output():
    a, b = Value(2.0), Value(3.0)
    out = a * b
    assert out._backward.__defaults__ == (a, b) and out._prev is out._backward.__defaults__  # one tuple
    assert all(v is not out for v in out._backward.__defaults__)


def test_dot_takes_numpy_scalars_as_plain_numbers():
    import numpy as np  # their .data is a memoryview, not a number
    w = Value(3.0)
    out = Value.dot([w], [np.float64(2.0)], np.float32(1.0))
    out.backward()
    assert out.data == 7.0 and w.grad == 2.0


@pytest.mark.parametrize('bad', ['2', None, [1.0], np.array([1.0, 2.0])])
def test_dot_refuses_what_is_no_number_instead_of_summing_its_data(bad):
    with pytest.raises(TypeError, match="Value"):
        Value.dot([Value(1.0)], [bad])


def test_dot_refuses_an_object_whose_data_multiplies_but_is_no_float():
    class Wrapped:  # like a tensor: .data supports *, but it is no scalar Value
        data = np.array([1.0, 2.0])
    with pytest.raises(TypeError):
        Value.dot([Value(1.0)], [Wrapped()])


def test_an_empty_dot_is_zero_and_a_leaf_in_effect():
    d = Value.dot([], [])
    d.backward()
    assert d.data == 0.0 and d._prev == () and d.grad == 1.0
