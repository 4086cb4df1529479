"""A tensor inside the scalar engine: refused by name, with a hint, and nothing changed.

A Value is one float whose gradient cannot flow into a tensor (micrograd's Tensor or PyTorch's), and taking the
tensor's number silently would cut it from its graph (`t.grad` stays None) or, in Value.dot, overwrite its .data.
So every way a tensor can enter (an operand of each op on either side, Value(), Value.dot's weights, inputs or
bias, a Neuron's inputs, a .data written by hand) is a TypeError naming the op and saying `t.item()` (or
`t.tolist()`), and leaves the tensor, the Values and their gradients as they were.
"""
import numpy as np
import pytest

from micrograd import Value
from micrograd.nn import MLP, Neuron
from micrograd.tensor import Tensor

torch = pytest.importorskip('torch')

TENSORS = {
    'micrograd 0-d, requires grad': lambda: Tensor(2.0, requires_grad=True),
    'micrograd 0-d': lambda: Tensor(2.0),
    'micrograd (1,)': lambda: Tensor([2.0], requires_grad=True),
    'torch 0-d, requires grad': lambda: torch.tensor(2.0, dtype=torch.float64, requires_grad=True),
    'torch 0-d': lambda: torch.tensor(2.0),
}

# (how the tensor t enters, with the Values a and b; the name the error gives)
ENTRIES = {
    'a + t': (lambda a, b, t: a + t, 'Value.__add__'), 'a - t': (lambda a, b, t: a - t, 'Value.__sub__'),
    'a * t': (lambda a, b, t: a * t, 'Value.__mul__'), 'a / t': (lambda a, b, t: a / t, 'Value.__truediv__'),
    'a ** t': (lambda a, b, t: a ** t, 'Value.__pow__'), 't - a (reflected)': (lambda a, b, t: a.__rsub__(t),
                                                                                'Value.__rsub__'),
    't / a (reflected)': (lambda a, b, t: a.__rtruediv__(t), 'Value.__rtruediv__'),
    't ** a (reflected)': (lambda a, b, t: a.__rpow__(t), 'Value.__rpow__'),
    't + a (reflected)': (lambda a, b, t: a.__radd__(t), 'Value.__add__'),
    'Value(t)': (lambda a, b, t: Value(t), r'Value\(\)'),
    'dot, an input': (lambda a, b, t: Value.dot([a, b], [b, t]), 'Value.dot'),
    'dot, a weight': (lambda a, b, t: Value.dot([t, a], [a, b]), 'Value.dot'),
    'dot, the bias': (lambda a, b, t: Value.dot([a], [b], t), 'Value.dot'),
    'dot, all numbers and t': (lambda a, b, t: Value.dot([1.0], [t]), 'Value.dot'),
    'a.data = t, then a + b': (lambda a, b, t: (setattr(a, 'data', t), a + b), 'Value.__add__'),
    'Neuron(t)': (lambda a, b, t: Neuron(1)(t), r'ReLUNeuron\(1\)'),
    'Neuron([a, t])': (lambda a, b, t: Neuron(2)([a, t]), 'Value.dot'),
    'MLP([t, a])': (lambda a, b, t: MLP(2, [2, 1])([t, a]), 'Value.dot'),
}


def state(t):
    data = t.detach().numpy().copy() if isinstance(t, torch.Tensor) else np.array(t.data, copy=True)
    return data, t.grad, t.requires_grad


@pytest.mark.parametrize('kind', TENSORS)
@pytest.mark.parametrize('entry', ENTRIES)
def test_a_tensor_in_a_value_op_is_refused_by_name_and_changes_nothing(kind, entry):
    make, name = ENTRIES[entry]
    t, a, b = TENSORS[kind](), Value(3.0), Value(-1.0)
    (a * b).backward()
    tensor_before, values_before = state(t), [(v.data, v.grad, v._prev) for v in (a, b)]
    with pytest.raises(TypeError, match=rf"^{name}: got a (micrograd|torch) Tensor of shape .*t\.item\(\)"):
        make(a, b, t)
    data, grad, requires_grad = state(t)
    assert np.array_equal(data, tensor_before[0]) and type(t.data) is type(TENSORS[kind]().data)
    assert grad is None and requires_grad == tensor_before[2]
    if entry != 'a.data = t, then a + b':
        assert [(v.data, v.grad, v._prev) for v in (a, b)] == values_before


def test_a_tensor_of_several_numbers_given_to_a_neuron_is_told_to_use_tolist():
    with pytest.raises(TypeError, match=r"^ReLUNeuron\(2\): got a micrograd Tensor of shape \(2,\).*t\.tolist\(\)"):
        Neuron(2)(Tensor([1.0, 2.0]))


def test_a_tensors_number_taken_on_purpose_takes_part_as_a_number():
    t = Tensor(2.0, requires_grad=True)
    a = Value(3.0)
    out = a * t.item()
    out.backward()
    assert (out.data, a.grad, t.grad) == (6.0, 2.0, None)
