"""The scalar engine, specified by examples a reader can check by hand.

What the library promises, behaviour by behaviour. How it is built (the parents and op each node records,
the order backward() walks, no reference cycles) is pinned in test_engine_internals.py; the lecture's own
cells in test_lecture.py; the sweeps over every op, kind of number and special value in test_engine_sweep.py.
"""
import copy
import math
import sys
import threading
from fractions import Fraction

import numpy as np
import pytest

from micrograd import MLP, Value, no_grad
from micrograd.engine import is_grad_enabled


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


def test_a_value_built_by_hand_from_parents_has_a_backward_that_does_nothing():
    a, b = Value(2.0), Value(3.0)
    c = Value(6.0, (a, b), 'op')  # the constructor the README documents, without a _backward
    c.backward()
    assert c.grad == 1.0 and (a.grad, b.grad) == (0.0, 0.0)


@pytest.mark.parametrize('bad', ['2', None, [1.0], (1.0,), Value(1.0), 1 + 2j, np.array([1.0, 2.0])])
def test_anything_but_a_real_number_is_a_type_error_naming_the_constructor(bad):
    with pytest.raises(TypeError, match=r"Value\(\)"):
        Value(bad)


def test_an_integer_too_large_for_a_float_is_an_overflow_error_naming_the_constructor():
    with pytest.raises(OverflowError, match=r"Value\(\): 1000.* too large for a float"):
        Value(10 ** 400)


def test_detach_cuts_the_graph_and_item_gives_the_float():
    a = Value(2.0)
    b = (a * 3).detach()
    assert b.data == 6.0
    (b * a).backward()
    assert a.grad == 6.0 and b.item() == 6.0 and type(b.item()) is float


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


def test_dot_is_a_weighted_sum_plus_bias():
    w1, w2, x1, x2, b = Value(2.0), Value(-1.0), Value(3.0), Value(4.0), Value(0.5)
    out = Value.dot([w1, w2], [x1, x2], b)
    out.backward()
    assert out.data == 2.5
    assert (w1.grad, w2.grad, x1.grad, x2.grad, b.grad) == (3.0, 4.0, 2.0, -1.0, 1.0)


def test_dot_gives_the_same_number_as_karpathys_sum_of_products():
    ws, xs, b = [Value(0.1 * i) for i in range(7)], [Value(1 / (i + 3)) for i in range(7)], Value(0.3)
    assert Value.dot(ws, xs, b).data == sum((w * x for w, x in zip(ws, xs)), b).data


def test_dot_takes_plain_numbers_and_numpy_scalars_and_checks_lengths():
    w = Value(3.0)
    out = Value.dot([w], [np.float64(2.0)], np.float32(1.0))
    out.backward()
    assert out.data == 7.0 and w.grad == 2.0
    assert Value.dot([w], [5]).data == 15.0
    with pytest.raises(ValueError, match="dot"):
        Value.dot([w], [1.0, 2.0])


def test_an_empty_dot_is_zero():
    d = Value.dot([], [])
    d.backward()
    assert d.data == 0.0 and d.grad == 1.0


def test_functions_are_stable_far_from_zero():
    assert Value(1000.0).tanh().data == 1.0
    assert Value(-1000.0).tanh().data == -1.0
    assert Value(-1000.0).sigmoid().data == 0.0
    assert Value(1000.0).sigmoid().data == 1.0
    x = Value(-1000.0)
    x.sigmoid().backward()
    assert x.grad == 0.0


def test_zero_to_the_power_zero_is_one_with_gradient_zero_as_in_pytorch():
    x = Value(0.0)
    y = x ** 0
    y.backward()
    assert y.data == 1.0 and x.grad == 0.0


@pytest.mark.parametrize('exponent', [0.5, Value(0.5)], ids=['a number', 'a Value'])
def test_the_square_root_of_negative_zero_has_slope_minus_inf_as_in_pytorch_and_the_tensor_engine(exponent):
    # 0.5 * (-0.0) ** -0.5 is 0.5 / sqrt(-0.0) = -inf: PyTorch's torch.tensor(-0.0) ** 0.5, and micrograd.tensor's
    x = Value(-0.0)
    (x ** exponent).backward()
    assert x.grad == -math.inf


def test_a_negative_base_with_an_integer_power_is_fine():
    x = Value(-2.0)
    (x ** 3).backward()
    assert x.grad == 12.0


def test_a_power_with_a_value_exponent_is_computed_with_pow_not_exp_of_log():
    assert (3 ** Value(2)).data == 9.0  # exp(2 * log(3)) would be 9.000000000000002
    assert (Value(3.0) ** Value(2.0)).data == 9.0
    assert (Value(10.0) ** Value(-2.0)).data == 10.0 ** -2


# --- numbers in ops: a Python float first, whatever their type ---------------------------

def test_a_numpy_unsigned_integer_does_not_wrap_around():
    assert (Value(2.0) - np.uint8(3)).data == -1.0  # not 255.0
    assert (np.uint8(3) - Value(5.0)).data == -2.0


def test_a_numpy_float16_is_widened_before_the_op():
    assert (Value(1.0) / np.float16(3)).data == 1 / float(np.float16(3))  # computed in float64, not float16


def test_dividing_by_a_numpy_integer_is_true_division():
    assert (Value(3.0) / np.int64(2)).data == 1.5


@pytest.mark.parametrize('scalar', [np.int64(2), np.float64(2.0), np.float32(2.0), np.uint8(2), np.bool_(True) * 2])
def test_numpy_scalars_on_the_left_give_values(scalar):
    v = Value(3.0)
    for out, grad in ((scalar * v, 2.0), (scalar + v, 1.0), (scalar - v, -1.0), (scalar / v, -2 / 9)):
        assert isinstance(out, Value) and type(out.data) is float
        v.grad = 0.0
        out.backward()
        assert v.grad == approx(grad)


def test_karpathys_demo_expression_with_a_numpy_label():
    yi, score = np.int64(-1), Value(0.5)
    loss = (1 + -yi * score).relu()
    loss.backward()
    assert loss.data == 1.5 and score.grad == 1.0


def test_a_fraction_takes_part_as_its_float():
    assert (Value(1.0) + Fraction(1, 3)).data == 1.0 + 1 / 3


def test_a_numpy_learning_rate_in_a_users_update_loop_leaves_the_parameters_python_floats():
    for lr in (np.float64(0.1), np.float32(0.1)):
        model = MLP(2, [3, 1])
        model([1.0, 2.0]).backward()
        for p in model.parameters():
            p.data -= lr * p.grad  # the parameters' data become NumPy numbers here
        out = model([1.0, 2.0])  # the next forward pass reads them back as floats
        assert type(out.data) is float
        assert all(type(p.data) is float for p in model.parameters())
        model.zero_grad()
        out.backward()
        assert all(type(p.grad) is float for p in model.parameters())


# A number written into .data by hand (NumPy's, an int): the sweep in test_engine_hand_written.py.


# --- bad input is a clear error naming the op, never a wrong number --------------------------

# A number operand k becomes Value(k), as in the lecture; its one check names the op that called Value().
@pytest.mark.parametrize('make, match', [
    (lambda: Value(2) - None, r"^Value\.__sub__"),
    (lambda: None - Value(2), r"^Value\.__rsub__"),
    (lambda: Value(2) + '1', r"^Value\.__add__"),
    (lambda: [1.0] * Value(2), r"^Value\.__mul__"),
    (lambda: Value(2) / 'a', r"^Value\.__truediv__"),
    (lambda: 'a' / Value(2), r"^Value\.__rtruediv__"),
    (lambda: Value(2) ** None, r"^Value\.__pow__"),
    (lambda: None ** Value(2), r"^Value\.__rpow__"),
    (lambda: Value.dot((v for v in [Value(1.0)]), [1.0]), r"Value\.dot"),
    (lambda: Value.dot([Value(1.0)], ['2']), r"Value\.dot"),
    (lambda: Value(1.0) + np.array([1.0, 2.0]), r"^Value\.__add__"),
])
def test_what_is_no_real_number_is_a_type_error_naming_the_op(make, match):
    with pytest.raises(TypeError, match=match):
        make()


def test_a_refused_operand_names_the_op_and_what_it_got():
    with pytest.raises(TypeError) as refused:
        Value(2.0) + '1'
    assert str(refused.value) == "Value.__add__: expected a real number, got str ('1')"


def test_decimal_and_complex_numbers_are_refused_as_pythons_floats_refuse_them():
    from decimal import Decimal
    for bad in (Decimal('0.1'), 1 + 2j, np.complex128(1)):
        with pytest.raises(TypeError, match=r"Value\.__add__"):
            Value(1.0) + bad


@pytest.mark.parametrize('make, match', [
    (lambda: Value(0.0).log(), "log"),
    (lambda: Value(-1.0).log(), "log"),
    (lambda: Value(-8.0) ** (1 / 3), "negative base"),
    (lambda: Value(-8.0) ** Value(1 / 3), "negative base"),
])
def test_domain_errors_are_value_errors_naming_the_op(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def raised_in(error: pytest.ExceptionInfo, function: str) -> bool:
    """Whether the error came from a line of engine.py's function (the op the user called)."""
    frames = [frame for frame in error.traceback if frame.path.name == 'engine.py']
    return bool(frames) and frames[-1].name == function


# What Python's float arithmetic refuses in the lecture's ops is Python's own error, raised in the op's line.
@pytest.mark.parametrize('make, op', [
    (lambda: Value(1.0) / 0, '__truediv__'), (lambda: Value(1.0) / Value(0.0), '__truediv__'),
    (lambda: 1 / Value(0.0), '__truediv__'), (lambda: Value(1.0) / np.float16(0), '__truediv__'),
    (lambda: Value(1.0) / False, '__truediv__'),
])
def test_division_by_zero_is_pythons_zero_division_error_raised_in_the_op(make, op):
    with pytest.raises(ZeroDivisionError, match="division by zero") as error:
        make()
    assert raised_in(error, op)


def test_zero_to_a_negative_power_is_a_zero_division_error_naming_the_op():
    with pytest.raises(ZeroDivisionError, match=r"Value\.__pow__: 0\.0 \*\* -1\.0 divides by zero"):
        Value(0.0) ** -1


def test_results_too_large_for_a_float_are_pythons_overflow_errors_raised_in_the_op():
    with pytest.raises(OverflowError, match="math range error") as error:
        Value(1000.0).exp()
    assert raised_in(error, 'exp')
    with pytest.raises(OverflowError, match="out of range") as error:
        Value(10.0) ** 400
    assert raised_in(error, '__pow__')
    with pytest.raises(OverflowError, match=r"Value\.__pow__: 10\.0 \*\* 400\.5 is too large"):
        Value(10.0) ** Value(400.5)


@pytest.mark.parametrize('refused', [
    lambda x: x.log() if x.data <= 0 else Value(-1.0).log(),
    lambda x: x / 0,
    lambda x: x ** 0.5 if x.data < 0 else Value(-1.0) ** 0.5,
    lambda x: x ** 1000,
    lambda x: x + 'a',
    lambda x: None - x,
])
def test_a_refused_op_leaves_the_graph_and_its_gradients_untouched(refused):
    a, b = Value(-2.0), Value(3.0)
    x = a * b
    x.backward()
    before = [(v.data, v.grad, v._prev) for v in (a, b, x)]
    with pytest.raises((ValueError, TypeError, ArithmeticError)):
        refused(x)
    assert [(v.data, v.grad, v._prev) for v in (a, b, x)] == before


# --- nan and inf: propagated, never hidden ----------------------------------------

def test_relu_of_nan_is_nan_as_in_pytorch():
    assert math.isnan(Value(math.nan).relu().data)


def test_relus_backward_selects_so_an_infinite_upstream_gradient_gives_zero_below_zero():
    x = Value(-1.0)
    (x.relu() * math.inf).backward()
    assert x.grad == 0.0  # 0, not inf * 0 = nan, as in PyTorch


def test_backward_never_fails_half_way_an_infinite_slope_is_inf_as_in_pytorch():
    a, b, c = Value(2.0), Value(3.0), Value(1e-170)
    out = a * b + 1 / c  # 1 / 1e-170 is a float; its slope -1 / 1e-340 is not
    out.backward()
    assert (a.grad, b.grad, c.grad) == (3.0, 2.0, -math.inf)
    out.backward()  # nothing was half-added: a second call adds the same again
    assert (a.grad, b.grad) == (6.0, 4.0)


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


def test_a_value_exponent_of_a_base_at_or_below_zero_gets_pytorchs_gradient():
    x, y = Value(-2.0), Value(2.0)
    (x ** y).backward()  # d/dy = x**y log(x): nan for x < 0, as torch.pow's
    assert x.grad == -4.0 and math.isnan(y.grad)
    x, y = Value(0.0), Value(2.0)
    (x ** y).backward()  # 0 at x = 0, as torch.pow's
    assert x.grad == 0.0 and y.grad == 0.0


@pytest.mark.slow
def test_a_chain_a_million_ops_deep():
    x = Value(1.0)
    y = x
    for _ in range(1_000_000):
        y = y + 1.0
    y.backward()
    assert y.data == 1_000_001.0 and x.grad == 1.0


def test_a_graph_deeper_than_the_recursion_limit_leaves_the_limit_untouched():
    limit = sys.getrecursionlimit()
    y = x = Value(1.0)
    for _ in range(10 * limit):
        y = y * 1.0
    y.backward()
    assert x.grad == 1.0 and sys.getrecursionlimit() == limit


def test_sum_of_a_hundred_thousand_values():
    xs = [Value(float(i)) for i in range(100_000)]
    total = sum(xs)
    total.backward()
    assert total.data == sum(range(100_000))
    assert all(x.grad == 1.0 for x in xs)


# --- copying ------------------------------------------------------------------------

def test_deepcopy_of_a_leaf_copies_its_data_grad_and_label():
    x = Value(2.0, label='x')
    x.grad = 0.5
    y = copy.deepcopy(x)
    assert y is not x and (y.data, y.grad, y.label) == (2.0, 0.5, 'x')
    (y * 3).backward()
    assert x.grad == 0.5  # the copy's gradients are its own


def test_deepcopy_of_a_value_an_op_made_is_refused_as_in_pytorch():
    x = Value(2.0)
    with pytest.raises(RuntimeError, match="deepcopy.*leaves"):
        copy.deepcopy(x * 3)  # a copy would still send its gradients into x


class Labelled(Value):  # a subclass pickle can find by name
    pass


def test_pickle_gives_back_a_leaf_of_the_same_number_as_pytorchs_does():
    import pickle
    a = Labelled(1.5, label='a')
    a.color = 'red'
    out = a * 2
    out.backward()
    back = pickle.loads(pickle.dumps(out))  # PyTorch: a leaf, no grad_fn, no .grad
    assert (back.data, back.grad, back._prev, back._op, back._grad_fn) == (3.0, 0.0, (), '', None)
    leaf = pickle.loads(pickle.dumps(a))
    assert type(leaf) is Labelled and (leaf.data, leaf.label, leaf.color, leaf.grad) == (1.5, 'a', 'red', 0.0)
    leaf.backward()  # a leaf of its own: it takes part in new graphs
    assert leaf.grad == 1.0 and a.grad == 2.0


def test_deepcopy_of_a_model_gives_independent_parameters():
    model = MLP(2, [2, 1])
    twin = copy.deepcopy(model)
    twin([1.0, 1.0]).backward()
    assert all(p.grad == 0.0 for p in model.parameters())
    assert [p.data for p in twin.parameters()] == [p.data for p in model.parameters()]


# --- no_grad ------------------------------------------------------------------------

def test_no_grad_builds_no_graph_so_nothing_inside_gets_a_gradient():
    a = Value(2.0)
    with no_grad():
        b = (a * 3).tanh()
        assert not is_grad_enabled()
    b.backward()
    assert a.grad == 0.0 and is_grad_enabled()


def test_no_grad_nests_and_restores_recording_after_an_error():
    a = Value(2.0)
    with no_grad():
        with no_grad():
            pass
        c = a + 1  # still inside the outer block
    c.backward()
    assert a.grad == 0.0
    with pytest.raises(ValueError), no_grad():
        Value(-1.0).log()
    assert is_grad_enabled()


def test_no_grad_is_a_decorator_with_or_without_parentheses():
    @no_grad()
    def evaluate(v):
        return v * 2 + 1

    @no_grad
    def evaluate_too(v):
        return v * 2 + 1

    a = Value(1.0)
    evaluate(a).backward()
    evaluate_too(a).backward()
    assert a.grad == 0.0 and evaluate_too.__name__ == 'evaluate_too'
    (a * 2).backward()
    assert a.grad == 2.0


def test_no_grad_on_a_generator_function_covers_each_step_and_only_those():
    @no_grad()
    def steps(v):
        for k in range(3):
            yield v * k, is_grad_enabled()

    a = Value(1.0)
    for out, enabled_inside in steps(a):
        assert not enabled_inside and is_grad_enabled()  # off in each step, on between them
        out.backward()
    assert a.grad == 0.0


def test_no_grad_on_a_generator_function_passes_sends_and_return_values_through():
    @no_grad
    def echo():
        received = yield 'ready'
        yield received * Value(2.0)
        return 'done'

    gen = echo()
    assert next(gen) == 'ready'
    x = Value(3.0)
    out = gen.send(x)
    out.backward()
    assert out.data == 6.0 and x.grad == 0.0  # made inside the generator: no graph
    with pytest.raises(StopIteration) as finished:
        next(gen)
    assert finished.value.value == 'done'


def test_no_grad_in_one_thread_does_not_stop_another_from_recording():
    inside, finished, recorded = threading.Event(), threading.Event(), []

    def evaluate():
        with no_grad():
            inside.set()
            finished.wait(5)

    evaluator = threading.Thread(target=evaluate)
    evaluator.start()
    inside.wait(5)
    a = Value(2.0)
    (a * 3).backward()  # this thread trains while the other evaluates
    recorded.append(a.grad)
    finished.set()
    evaluator.join()
    assert recorded == [3.0]
