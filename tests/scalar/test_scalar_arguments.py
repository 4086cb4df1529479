"""Every numeric argument of the scalar side's public API, given as a NumPy scalar or a 0-d array, behaves as
the Python number: the same results, Python floats in every .data and .grad, and no float32 arithmetic.
And the containers it takes: ordered sequences, never a set or a dict (their order is not the inputs').

A table: one row per (callable, argument), each tried with every kind of number.
"""
import copy
import json
import random

import numpy as np
import pytest

from micrograd import MLP, SGD, Adam, Layer, Neuron, Value, no_grad

KINDS = {
    'python': lambda x: x,
    'np.float64': np.float64, 'np.float32': np.float32, 'np.float16': np.float16,
    '0-d float64': lambda x: np.array(x, dtype=np.float64), '0-d float32': lambda x: np.array(x, dtype=np.float32),
}
INT_KINDS = {'python': int, 'np.int64': np.int64, 'np.uint8': np.uint8, 'np.int32': np.int32,
             '0-d int64': lambda x: np.array(x, dtype=np.int64)}


def trained(make_optimizer, lr=0.1):
    """Three steps of an optimizer on a tiny model, from a fixed start: its parameters' data."""
    random.seed(0)
    model = MLP(2, [3, 1])
    optimizer = make_optimizer(model.parameters(), lr)
    for _ in range(3):
        loss = (model([0.5, -1.0]) - 1.0) ** 2
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert all(type(p.data) is float and type(p.grad) is float for p in model.parameters())
    return [p.data for p in model.parameters()]


OPTIMIZER_ARGUMENTS = {
    'SGD lr': (lambda k: trained(lambda ps, lr: SGD(ps, lr=k(lr))), 0.1),
    'SGD momentum': (lambda k: trained(lambda ps, lr: SGD(ps, lr=lr, momentum=k(0.9))), None),
    'Adam lr': (lambda k: trained(lambda ps, lr: Adam(ps, lr=k(lr))), None),
    'Adam eps': (lambda k: trained(lambda ps, lr: Adam(ps, lr=lr, eps=k(1e-8))), None),
    'Adam betas': (lambda k: trained(lambda ps, lr: Adam(ps, lr=lr, betas=(k(0.9), k(0.999)))), None),
    'Adam betas array': (lambda k: trained(lambda ps, lr: Adam(ps, lr=lr, betas=np.array([0.9, 0.999]))), None),
}


@pytest.mark.parametrize('kind', KINDS)
@pytest.mark.parametrize('argument', OPTIMIZER_ARGUMENTS)
def test_an_optimizers_hyperparameters_are_python_floats_whatever_they_are_given_as(argument, kind):
    run, _ = OPTIMIZER_ARGUMENTS[argument]
    if kind == 'np.float16':  # float16 cannot hold 0.999 or 1e-8 as Python floats do: compare with its value
        return
    as_python = run(KINDS['python'])
    given = run(KINDS[kind])
    if 'float32' in kind:  # the hyperparameter is float32's nearest number, then Python float arithmetic
        assert given == pytest.approx(as_python, rel=1e-5)
    else:
        assert given == as_python


@pytest.mark.parametrize('kind', KINDS)
def test_a_learning_rate_set_between_steps_is_a_python_float(kind):
    random.seed(0)
    optimizer = SGD(MLP(1, [1]).parameters(), lr=0.1)
    optimizer.lr = KINDS[kind](0.05)
    assert type(optimizer.lr) is float


@pytest.mark.parametrize('kind', INT_KINDS)
@pytest.mark.parametrize('make', [lambda n: Neuron(n), lambda n: Layer(n, n), lambda n: MLP(n, [n, 1]),
                                  lambda n: MLP(2, [n, n])], ids=['Neuron', 'Layer', 'MLP nin', 'MLP nouts'])
def test_sizes_may_be_numpy_integers(make, kind):
    random.seed(0)
    model = make(INT_KINDS[kind](3))
    random.seed(0)
    assert repr(model) == repr(make(3))


@pytest.mark.parametrize('kind', KINDS)
def test_a_neuron_takes_one_input_as_a_number_of_any_kind(kind):
    n = Neuron(1, nonlin=False)
    n.w[0].data, n.b.data = 2.0, 0.5
    out = n(KINDS[kind](3.0))
    assert out.data == 6.5 and type(out.data) is float


@pytest.mark.parametrize('inputs', [{1.0, 2.0}, {1.0: 'a', 2.0: 'b'}, frozenset({1.0, 2.0}), 'ab',
                                    np.array([[1.0, 2.0]])], ids=['set', 'dict', 'frozenset', 'str', '2-d array'])
def test_a_neuron_and_dot_refuse_inputs_in_no_order_naming_themselves(inputs):
    n = Neuron(2)
    with pytest.raises(TypeError, match=r"ReLUNeuron\(2\): inputs must be"):
        n(inputs)
    with pytest.raises(TypeError, match=r"Value\.dot: xs must be"):
        Value.dot(n.w, inputs)
    with pytest.raises(TypeError, match=r"Value\.dot: ws must be"):
        Value.dot(inputs, [1.0, 2.0])


def test_a_neuron_takes_a_tuple_or_a_1d_array_of_inputs_as_a_list():
    random.seed(0)
    n = Neuron(2)
    expected = n([1.0, 2.0]).data
    assert n((1.0, 2.0)).data == expected and n(np.array([1.0, 2.0])).data == expected


@pytest.mark.parametrize('kind', KINDS)
def test_dot_with_a_bias_holding_a_0d_array_leaves_that_array_alone(kind):
    bias_data = np.array(1.0)
    b = Value(0.0)
    b.data = bias_data  # what torch_tensor.numpy() gives, written by hand
    out = Value.dot([Value(2.0)], [KINDS[kind](3.0)], b)
    assert out.data == 7.0 and type(out.data) is float
    assert bias_data == 1.0  # the caller's array is not written into
    out.backward()
    assert b.grad == 1.0


@pytest.mark.parametrize('kind', KINDS)
def test_a_state_dict_loads_from_numbers_of_any_kind_as_python_floats(kind):
    random.seed(0)
    model = MLP(2, [2, 1])
    state = {name: KINDS[kind](0.25) for name in model.state_dict()}
    model.load_state_dict(state)
    assert all(type(p.data) is float and p.data == float(KINDS[kind](0.25)) for p in model.parameters())


def test_a_state_dict_survives_a_numpy_savez_round_trip(tmp_path):
    random.seed(0)
    model = MLP(2, [3, 1])
    np.savez(tmp_path / 'model.npz', **model.state_dict())
    loaded = np.load(tmp_path / 'model.npz')  # each value comes back as a 0-d array
    fresh = MLP(2, [3, 1])
    fresh.load_state_dict(dict(loaded))
    assert fresh.state_dict() == model.state_dict()
    assert json.loads(json.dumps(fresh.state_dict())) == model.state_dict()


def test_a_model_whose_child_holds_its_parent_names_each_parameter_once():
    random.seed(0)
    model = MLP(2, [2, 1])
    model.layers[0].owner = model  # a reference back up, as a user's module may keep
    names = [name for name, _ in model.named_parameters()]
    assert names == list(MLP(2, [2, 1]).state_dict()) and len(model.state_dict()) == len(names)
    model.load_state_dict(model.state_dict())
    copy.deepcopy(model)


def test_one_no_grad_instance_may_be_entered_again_while_active():
    quiet = no_grad()
    x = Value(2.0)
    with quiet:
        with quiet:
            assert not (x * 2)._prev
        assert not (x * 2)._prev
    assert (x * 2)._prev  # recording is back on
