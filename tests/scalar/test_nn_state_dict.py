"""Naming, saving and loading a model's parameters: named_parameters(), state_dict(), load_state_dict()."""
import json
import math
import random

import numpy as np
import pytest

from micrograd import MLP, Layer, Module, Neuron, Value


def tiny_model(seed=0):
    random.seed(seed)
    return MLP(2, [2, 1])


def test_parameters_are_named_by_the_path_to_them():
    names = [name for name, _ in tiny_model().named_parameters()]
    assert names == ['layers.0.neurons.0.w.0', 'layers.0.neurons.0.w.1', 'layers.0.neurons.0.b',
                     'layers.0.neurons.1.w.0', 'layers.0.neurons.1.w.1', 'layers.0.neurons.1.b',
                     'layers.1.neurons.0.w.0', 'layers.1.neurons.0.w.1', 'layers.1.neurons.0.b']
    assert [name for name, _ in Neuron(2).named_parameters()] == ['w.0', 'w.1', 'b']


def test_named_parameters_lists_the_same_parameters_as_parameters_in_the_same_order():
    model = tiny_model()
    assert [p for _, p in model.named_parameters()] == model.parameters()
    assert all(a is b for (_, a), b in zip(model.named_parameters(), model.parameters()))


def shared_layer():
    layer = Layer(2, 2)
    layer.neurons[1].w[0] = layer.neurons[0].w[0]  # one weight in two neurons, as a tied weight
    return layer


def test_named_parameters_lists_a_shared_value_once_under_its_first_name():
    named = list(shared_layer().named_parameters())
    assert [name for name, _ in named] == ['neurons.0.w.0', 'neurons.0.w.1', 'neurons.0.b', 'neurons.1.w.1',
                                           'neurons.1.b']
    assert len({id(p) for _, p in named}) == len(named)


def test_parameters_lists_a_shared_value_once_as_named_parameters_does():
    layer = shared_layer()
    assert [p for _, p in layer.named_parameters()] == layer.parameters()


def test_a_state_dict_holds_every_parameters_float_by_name():
    model = tiny_model()
    state = model.state_dict()
    assert list(state) == [name for name, _ in model.named_parameters()]
    assert all(type(x) is float for x in state.values())
    assert list(state.values()) == [p.data for p in model.parameters()]


def test_a_state_dict_names_a_shared_value_under_each_name_as_pytorch_does():
    state = shared_layer().state_dict()
    assert state['neurons.0.w.0'] == state['neurons.1.w.0'] and len(state) == 6


def test_a_state_dict_survives_json_and_gives_a_fresh_model_the_same_predictions():
    model, fresh = tiny_model(0), tiny_model(1)
    x = [0.3, -1.2]
    assert fresh(x).data != model(x).data
    fresh.load_state_dict(json.loads(json.dumps(model.state_dict())))
    assert fresh(x).data == model(x).data
    assert fresh.state_dict() == model.state_dict()


def test_loading_keeps_the_parameters_values_objects_and_makes_their_data_python_floats():
    model = tiny_model()
    params = model.parameters()
    model.load_state_dict({name: np.float32(0.5) for name in model.state_dict()})
    assert model.parameters() == params and all(p is q for p, q in zip(model.parameters(), params))
    assert all(type(p.data) is float and p.data == 0.5 for p in params)


def test_loading_into_a_shared_value_sets_it_for_both_neurons():
    layer = shared_layer()
    state = layer.state_dict()
    state['neurons.0.w.0'] = state['neurons.1.w.0'] = 0.25
    layer.load_state_dict(state)
    assert layer.neurons[0].w[0].data == layer.neurons[1].w[0].data == 0.25


def unchanged(model):
    return [(p.data, p.grad) for p in model.parameters()]


@pytest.mark.parametrize('change, error, named', [
    (lambda s: s.pop('layers.1.neurons.0.b'), ValueError, "missing 'layers.1.neurons.0.b'"),
    (lambda s: s.update(extra=1.0), ValueError, "unexpected 'extra'"),
    (lambda s: s.update({'layers.0.neurons.0.w.0': '0.5'}), TypeError, "'layers.0.neurons.0.w.0'"),
    (lambda s: s.update({'layers.1.neurons.0.b': None}), TypeError, "'layers.1.neurons.0.b'"),
    (lambda s: s.update({'layers.1.neurons.0.b': True}), TypeError, "'layers.1.neurons.0.b'"),
    (lambda s: s.update({'layers.1.neurons.0.b': [1.0]}), TypeError, "'layers.1.neurons.0.b'"),
    (lambda s: s.update({'layers.1.neurons.0.b': 1 + 2j}), TypeError, "'layers.1.neurons.0.b'"),
])
def test_a_state_dict_that_does_not_fit_is_refused_naming_the_entry_and_nothing_changes(change, error, named):
    model = tiny_model()
    model([1.0, 2.0]).backward()
    before = unchanged(model)
    state = {name: 0.0 for name in model.state_dict()}  # every entry that fits is a change
    change(state)
    with pytest.raises(error) as refused:
        model.load_state_dict(state)
    assert named in str(refused.value)
    assert unchanged(model) == before


def test_a_state_dict_of_a_model_of_other_sizes_is_refused_saying_so():
    with pytest.raises(ValueError, match="other sizes") as refused:
        tiny_model().load_state_dict(MLP(2, [3, 1]).state_dict())
    assert "unexpected 'layers.0.neurons.2.w.0'" in str(refused.value)


def test_a_long_list_of_missing_names_is_cut_short():
    with pytest.raises(ValueError, match=r"and \d+ more"):
        MLP(2, [16, 16, 1]).load_state_dict({})


def test_nan_and_inf_load_as_they_are_as_in_pytorch():
    model = tiny_model()
    state = model.state_dict()
    state['layers.1.neurons.0.b'] = math.nan
    state['layers.1.neurons.0.w.0'] = math.inf
    model.load_state_dict(state)
    assert math.isnan(model.layers[1].neurons[0].b.data) and model.layers[1].neurons[0].w[0].data == math.inf


def test_a_module_of_ones_own_is_named_by_its_attributes():
    class Affine(Module):
        def __init__(self):
            self.scale, self.shift = Value(2.0), Value(0.5)
            self.inner = Neuron(1)

        def parameters(self):
            return [self.scale, self.shift, *self.inner.parameters()]

    model = Affine()
    assert [name for name, _ in model.named_parameters()] == ['scale', 'shift', 'inner.w.0', 'inner.b']
    state = model.state_dict()
    state['scale'] = 3.0
    model.load_state_dict(state)
    assert model.scale.data == 3.0


# --- state.py: one walker for any engine (micrograd.nn's Values, micrograd.tensor's Tensors) ---------------

class Leaf:
    """A parameter of some engine: the walker only needs its type."""


def every(leaf):
    return True


class Box:
    """A module of some engine, or a plain object: the walker enters its attributes."""

    def __init__(self, **attributes):
        vars(self).update(attributes)


def test_the_walker_names_every_leaf_by_its_path_through_attributes_lists_and_tuples():
    from micrograd import state
    a, b, c, d = Leaf(), Leaf(), Leaf(), Leaf()
    model = Box(first=a, blocks=[Box(w=(b, c)), 'not a leaf', 3.0], last=d)
    assert [(name, leaf) for name, leaf in state.named_leaves(model, Leaf, every)] == [
        ('first', a), ('blocks.0.w.0', b), ('blocks.0.w.1', c), ('last', d)]


def test_the_walker_gives_a_shared_leaf_or_module_under_each_name_and_first_names_once():
    from micrograd import state
    shared = Box(w=Leaf())
    model = Box(encoder=shared, decoder=shared)
    named = list(state.named_leaves(model, Leaf, every))
    assert [name for name, _ in named] == ['encoder.w', 'decoder.w']
    assert [name for name, _ in state.first_names(named)] == ['encoder.w']


def test_the_walker_does_not_enter_a_module_or_list_that_holds_one_above_it():
    from micrograd import state
    parent = Box(w=Leaf())
    parent.child = Box(parent=parent, v=Leaf())
    loop = [Leaf()]
    loop.append(loop)
    parent.loop = loop
    assert [name for name, _ in state.named_leaves(parent, Leaf, every)] == ['w', 'child.v', 'loop.0']


def test_the_walker_reaches_a_leaf_ten_thousand_modules_deep():
    from micrograd import state
    model = inner = Box()
    for _ in range(10_000):
        inner.next = Box()
        inner = inner.next
    inner.w = Leaf()
    [(name, _)] = state.named_leaves(model, Leaf, every)
    assert name == 'next.' * 10_000 + 'w'


def test_a_shared_module_is_saved_under_each_name_and_loaded_from_them():
    class Twice(Module):
        def __init__(self):
            self.first = self.second = Neuron(1)

        def parameters(self):
            return self.first.parameters()
    model = Twice()
    saved = model.state_dict()
    assert list(saved) == ['first.w.0', 'first.b', 'second.w.0', 'second.b']
    assert [name for name, _ in model.named_parameters()] == ['first.w.0', 'first.b']
    model.load_state_dict({name: 0.25 for name in saved})
    assert [p.data for p in model.parameters()] == [0.25, 0.25]


class KeepsItsOutput(Neuron):
    """makemore's habit: a neuron that keeps its last output, for a look at it later."""

    def __call__(self, x):
        self.out = super().__call__(x)
        return self.out


def test_a_kept_output_is_no_parameter_and_a_fresh_model_loads_the_state():
    random.seed(0)
    trained = KeepsItsOutput(2)
    trained([1.0, 2.0]).backward()
    names = ['w.0', 'w.1', 'b']
    assert [name for name, _ in trained.named_parameters()] == names  # not 'out': an op made it (not a leaf)
    assert list(trained.state_dict()) == names
    fresh = KeepsItsOutput(2)
    fresh.load_state_dict(trained.state_dict())
    assert [p.data for p in fresh.parameters()] == [p.data for p in trained.parameters()]


def test_a_kept_output_of_a_tensor_module_is_no_parameter_either():
    mt = pytest.importorskip('micrograd.tensor')

    class KeepsItsOutputToo(mt.Linear):
        def forward(self, x):
            self.out = super().forward(x)
            return self.out

    trained = KeepsItsOutputToo(2, 3, rng=np.random.default_rng(0))
    trained(np.ones((1, 2))).sum().backward()
    assert [name for name, _ in trained.named_parameters()] == ['weight', 'bias']
    fresh = KeepsItsOutputToo(2, 3, rng=np.random.default_rng(1))
    fresh.load_state_dict(trained.state_dict())
    assert np.array_equal(fresh.weight.data, trained.weight.data)


# --- one registry: every parameter parameters() lists has a name, wherever the model keeps it --------------

class Helper:
    """A plain object (no Module) that keeps parameters for a model."""


def _in_helper(m, p, q):
    m.helper = Helper()
    m.helper.w, m.helper.rest = p, [q]


# Where a model keeps its two parameters p and q, and the names that gives them: (named_parameters(), and
# state_dict()'s, which has a shared parameter under each of its names).
CONTAINERS = {
    'attributes': (lambda m, p, q: vars(m).update(p=p, q=q), ['p', 'q'], ['p', 'q']),
    'list': (lambda m, p, q: setattr(m, 'ps', [p, q]), ['ps.0', 'ps.1'], ['ps.0', 'ps.1']),
    'tuple': (lambda m, p, q: setattr(m, 'ps', (p, q)), ['ps.0', 'ps.1'], ['ps.0', 'ps.1']),
    'dict values': (lambda m, p, q: setattr(m, 'W', {(0, 1): p, 'b': q}), ['W.(0, 1)', 'W.b'], ['W.(0, 1)', 'W.b']),
    'nested': (lambda m, p, q: setattr(m, 'blocks', {'a': [(p,)], 'b': {'c': q}}), ['blocks.a.0.0', 'blocks.b.c'],
               ['blocks.a.0.0', 'blocks.b.c']),
    'helper object': (_in_helper, ['helper.w', 'helper.rest.0'], ['helper.w', 'helper.rest.0']),
    'shared': (lambda m, p, q: vars(m).update(a=p, b=[p, q]), ['a', 'b.1'], ['a', 'b.0', 'b.1']),
}


def scalar_model(kind, seed):
    """A micrograd.nn Module keeping two Values as CONTAINERS[kind] says; parameters() lists both."""
    class Kept(Module):
        def parameters(self):
            return [p for _, p in sorted(self._both.items())]

    model, p, q = Kept(), Value(seed + 0.25), Value(seed + 0.5)
    CONTAINERS[kind][0](model, p, q)
    type(model)._both = {0: p, 1: q}  # (on the class: parameters() lists them, the walk sees the model only)
    return model


def tensor_model(kind, seed):
    """A micrograd.tensor Module keeping two trainable tensors as CONTAINERS[kind] says."""
    mt = pytest.importorskip('micrograd.tensor')
    model = mt.Module()
    p = mt.Tensor(np.full(2, seed + 0.25), requires_grad=True)
    q = mt.Tensor(np.full(3, seed + 0.5), requires_grad=True)
    CONTAINERS[kind][0](model, p, q)
    return model


ENGINES = {'nn': scalar_model, 'tensor': tensor_model}
SWEEP = [(engine, kind) for engine in ENGINES for kind in CONTAINERS]


def _same(a, b):
    return all(np.array_equal(x, y) for x, y in zip(a.values(), b.values(), strict=True)) and list(a) == list(b)


@pytest.mark.parametrize('engine, kind', SWEEP, ids=[f"{e}: {k}" for e, k in SWEEP])
def test_every_listed_parameter_is_named_saved_and_loaded_wherever_the_model_keeps_it(engine, kind):
    trained, fresh = ENGINES[engine](kind, 1), ENGINES[engine](kind, 2)
    _, first_names, all_names = CONTAINERS[kind]
    assert [name for name, _ in trained.named_parameters()] == first_names
    assert [p for _, p in trained.named_parameters()] == list(trained.parameters())
    assert list(trained.state_dict()) == all_names
    assert not _same(fresh.state_dict(), trained.state_dict())
    fresh.load_state_dict(trained.state_dict())
    assert _same(fresh.state_dict(), trained.state_dict())
    assert all(np.array_equal(p.data, q.data) for p, q in zip(fresh.parameters(), trained.parameters(), strict=True))


def test_the_reported_model_a_dict_of_weights_and_a_bias_saves_and_loads_every_weight():
    class Bilinear(Module):
        def __init__(self, bias):
            self.W = {(a, b): Value(0.0) for a in range(2) for b in range(2)}
            self.b = Value(bias)

        def parameters(self):
            return list(self.W.values()) + [self.b]

    trained, fresh = Bilinear(0.75), Bilinear(0.0)
    for i, w in enumerate(trained.W.values()):
        w.data = i + 1.0
    saved = trained.state_dict()
    assert saved == {'W.(0, 0)': 1.0, 'W.(0, 1)': 2.0, 'W.(1, 0)': 3.0, 'W.(1, 1)': 4.0, 'b': 0.75}
    fresh.load_state_dict(json.loads(json.dumps(saved)))
    assert [p.data for p in fresh.parameters()] == [1.0, 2.0, 3.0, 4.0, 0.75]


class Unnamed(Module):
    """Parameters that no attribute holds: in a set (no order, so no name), or made anew by parameters()."""

    def __init__(self):
        self.b = Value(0.75)
        self.bag = {Value(1.0), Value(2.0)}

    def parameters(self):
        return [*sorted(self.bag, key=lambda v: v.data), self.b]


@pytest.mark.parametrize('method', ['state_dict', 'named_parameters', 'load_state_dict'])
def test_a_listed_parameter_no_attribute_holds_is_refused_by_name_not_left_out(method):
    model = Unnamed()
    call = {'state_dict': lambda: model.state_dict(), 'named_parameters': lambda: list(model.named_parameters()),
            'load_state_dict': lambda: model.load_state_dict({'b': 0.5})}[method]
    with pytest.raises(ValueError, match=rf"Unnamed.{method}: parameters\(\) lists 2 that no attribute holds") as e:
        call()
    assert "parameters()[0], Value(data=1.0" in str(e.value) and "parameters()[1], Value(data=2.0" in str(e.value)
    assert "Keep each in an attribute" in str(e.value)
    assert model.b.data == 0.75  # loading refused: nothing set


def test_a_parameter_made_anew_by_parameters_is_refused_by_name():
    class Fresh(Module):
        def parameters(self):
            return [Value(3.0)]
    with pytest.raises(ValueError, match=r"parameters\(\)\[0\], Value\(data=3.0"):
        Fresh().state_dict()


def test_two_parameters_under_one_name_are_refused_in_both_engines():
    class Clash(Module):
        def __init__(self):
            self.W = {1: Value(1.0), '1': Value(2.0)}

        def parameters(self):
            return list(self.W.values())
    with pytest.raises(ValueError, match=r"Clash: two parameters have the name 'W.1'"):
        Clash().state_dict()
    mt = pytest.importorskip('micrograd.tensor')
    model = mt.Module()
    model.W = {1: mt.Tensor([1.0], requires_grad=True), '1': mt.Tensor([2.0], requires_grad=True)}
    with pytest.raises(ValueError, match=r"Module: two parameters have the name 'W.1'"):
        model.state_dict()


def test_parameters_that_list_a_list_are_refused_saying_so():
    class Nested(Neuron):
        def parameters(self):
            return [self.w, self.b]  # a list in the list: one flat list is meant
    with pytest.raises(TypeError, match=r"Nested.state_dict: parameters\(\) must list Values, one flat list; "
                                        r"parameters\(\)\[0\] is a list"):
        Nested(2).state_dict()


# --- an output kept from a no_grad() pass is no parameter: parameters only, as PyTorch saves -------------

def test_an_output_kept_from_a_no_grad_pass_is_no_parameter_and_a_fresh_model_loads_the_state():
    from micrograd import no_grad
    random.seed(0)
    trained = KeepsItsOutput(2)
    with no_grad():
        trained([1.0, 2.0])  # an evaluation pass: trained.out is made with no graph
    assert [name for name, _ in trained.named_parameters()] == ['w.0', 'w.1', 'b']
    assert list(trained.state_dict()) == ['w.0', 'w.1', 'b']
    fresh = KeepsItsOutput(2)
    fresh.load_state_dict(trained.state_dict())
    assert [p.data for p in fresh.parameters()] == [p.data for p in trained.parameters()]


def test_a_value_a_module_keeps_that_parameters_does_not_list_is_not_saved():
    class Scaled(Neuron):
        def __init__(self, nin):
            super().__init__(nin)
            self.scale = Value(2.0)  # a constant, not trained: parameters() leaves it out
    assert list(Scaled(1).state_dict()) == ['w.0', 'b']


# --- every number that leaves the scalar engine is a Python float ------------------------------------------

@pytest.mark.parametrize('written', [np.float32(0.5), np.float16(0.5), np.float64(0.5), np.int64(2), 2,
                                     np.array(0.5, dtype=np.float32)],
                         ids=['float32', 'float16', 'float64', 'int64', 'int', '0-d float32 array'])
def test_a_number_written_into_data_by_hand_is_saved_as_a_python_float(written):
    model = tiny_model()
    model.layers[0].neurons[0].w[0].data = written
    state = model.state_dict()
    assert all(type(x) is float for x in state.values())
    assert state['layers.0.neurons.0.w.0'] == float(written)
    json.dumps(state)


def test_a_value_whose_data_is_no_number_cannot_be_saved_and_the_error_names_it():
    model = tiny_model()
    model.layers[1].neurons[0].b.data = 'half'
    with pytest.raises(TypeError, match=r"MLP.state_dict \('layers.1.neurons.0.b'\).*'half'"):
        model.state_dict()


def test_item_gives_a_python_float_of_a_number_written_into_data_by_hand():
    v = Value(1.0)
    v.data = np.float32(0.5)
    assert type(v.item()) is float and v.item() == 0.5
