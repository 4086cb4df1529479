"""Numbers written into .data by hand (weights loaded by iterating a NumPy array, an int, a Fraction).

The rule: a hand-written number is taken at full float precision the first time an op reads it, so the same
input gives the same output on every call, as for a number given to Value(). Each op of EVERY_OP on each kind of
number of scalar_ops.NUMBERS written into .data gives exactly what it gives on Value(float(number)): the output,
both gradients, on the first call and the second. What is no real number in .data is refused naming the op as
the user calls it (`Value.__add__`) and showing that .data, and leaves every Value as it was.
"""
import math

import numpy as np
import pytest

from micrograd import Value
from micrograd.nn import Neuron
from tests.scalar.scalar_ops import NOT_NUMBERS, NUMBERS

EVERY_OP = {
    'x * y': lambda x, y: x * y, 'y * x': lambda x, y: y * x, 'x + y': lambda x, y: x + y,
    'y + x': lambda x, y: y + x, '-x': lambda x, y: -x, 'x - y': lambda x, y: x - y, 'y - x': lambda x, y: y - x,
    '5 - x': lambda x, y: 5 - x, 'x / y': lambda x, y: x / y, 'y / x': lambda x, y: y / x,
    'x / 3': lambda x, y: x / 3, 'x ** 2': lambda x, y: x ** 2, 'x ** 3': lambda x, y: x ** 3,
    'x ** 1.5': lambda x, y: x ** 1.5, 'x ** y': lambda x, y: x ** y,
    'y ** x': lambda x, y: y ** x, '2 ** x': lambda x, y: 2 ** x, 'x * x': lambda x, y: x * x,
    'exp': lambda x, y: x.exp(), 'tanh': lambda x, y: x.tanh(), 'relu': lambda x, y: x.relu(),
    'log': lambda x, y: x.log(), 'sigmoid': lambda x, y: x.sigmoid(),
    'dot([x, y], [y, x])': lambda x, y: Value.dot([x, y], [y, x]),
    'dot([y], [y], bias=x)': lambda x, y: Value.dot([y], [y], x),
}


def run(op, x, y):
    """(output, x.grad, y.grad), or the type of the error the op raised."""
    try:
        out = EVERY_OP[op](x, y)
    except (ArithmeticError, ValueError) as error:
        return type(error)
    out.backward()
    return out.data, x.grad, y.grad


def same(a, b):
    return a == b or (isinstance(a, tuple) and all(u == v or (math.isnan(u) and math.isnan(v)) for u, v in zip(a, b)))


@pytest.mark.filterwarnings('error')  # no NumPy warning: nothing wraps around (-np.uint8(3) is -3.0)
@pytest.mark.parametrize('kind', NUMBERS)
@pytest.mark.parametrize('op', EVERY_OP)
def test_a_number_written_into_data_is_taken_at_full_float_precision_on_every_call(kind, op):
    number = NUMBERS[kind]
    reference = run(op, Value(float(number)), Value(3.0))
    x, y = Value(1.0), Value(3.0)
    x.data = number
    first = run(op, x, y)
    x.grad = y.grad = 0.0
    second = run(op, x, y)
    assert same(first, reference) and same(second, reference)


# NumPy computed w16 * 70000.0 in float16 before the op took the float: it warns of that overflow, though the
# result is the float64 product.
@pytest.mark.filterwarnings('ignore:overflow encountered in cast:RuntimeWarning')
def test_a_float16_weight_plus_a_wide_value_is_computed_in_float64_as_pytorch_does():
    torch = pytest.importorskip('torch')
    w16 = Value(0.0)
    w16.data = np.float16(0.1)
    out = w16 + Value(1000.5)
    assert out.data == 1000.5 + float(np.float16(0.1)) == 1000.5999755859375  # NumPy's float16 gave 1000.5
    assert out.data == (torch.tensor(float(np.float16(0.1)), dtype=torch.float64) + 1000.5).item()
    big = Value(0.0)
    big.data = np.float16(0.1)
    assert (big * Value(70000.0)).data == float(np.float16(0.1)) * 70000.0  # float16 gave inf


@pytest.mark.parametrize('dtype', [np.float16, np.float32])
def test_a_neuron_with_weights_loaded_from_an_array_gives_the_same_output_on_every_call(dtype):
    neuron = Neuron(3, activation='linear')
    weights = np.array([100.1, 20.3, 19.7], dtype=dtype)
    for w, loaded in zip(neuron.w, weights):
        w.data = loaded
    x = [1.0, 1.0, 1.0]
    first, second = neuron(x).data, neuron(x).data
    assert first == second == sum(float(w) for w in weights)  # the dot in float64, on the first call too
    assert all(type(w.data) is float for w in neuron.w)


BAD = {name: bad for name, (bad, _) in NOT_NUMBERS.items()}
NAMED_BY_US = ('complex', 'np.complex128', 'array (2,)', 'array of one')  # (others: Python's arithmetic refuses)


@pytest.mark.parametrize('kind', NAMED_BY_US)
@pytest.mark.parametrize('op, name', [
    ('x + y', 'Value.__add__'), ('y + x', 'Value.__add__'), ('x * y', 'Value.__mul__'), ('x / y', 'Value.__truediv__'),
    ('x - y', 'Value.__add__'), ('x ** 2', 'Value.__pow__'), ('dot([x, y], [y, x])', 'Value.dot'),
])
def test_what_is_no_real_number_in_data_is_refused_naming_the_op_and_showing_that_data(kind, op, name):
    x, y = Value(1.0), Value(3.0)
    x.data = BAD[kind]
    shown = type(BAD[kind]).__name__
    with pytest.raises(TypeError, match=rf"^{name}: expected a real number( in \.data)?, got .*{shown}"):
        EVERY_OP[op](x, y)
    assert x.data is BAD[kind] and y.data == 3.0 and x.grad == y.grad == 0.0


def test_a_bad_data_in_plus_shows_what_the_user_wrote_not_the_ops_result():
    x = Value(1.0)
    x.data = np.array([1.0, 2.0])
    with pytest.raises(TypeError) as error:
        x + Value(10.0)
    assert str(error.value) == "Value.__add__: expected a real number in .data, got ndarray (array([1., 2.]))"


def test_a_refused_data_leaves_the_other_parents_hand_written_data_as_it_was():
    x, y = Value(1.0), Value(1.0)
    x.data, y.data = np.float16(0.5), np.array([1.0, 2.0])
    with pytest.raises(TypeError):
        x * y
    assert type(x.data) is np.float16
