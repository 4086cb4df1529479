"""Neurons, layers, MLPs and SGD: Karpathy's API, with his traps fixed."""
import random

import pytest

from micrograd import MLP, SGD, Adam, Layer, Module, Neuron, Value


def test_a_neuron_starts_with_uniform_weights_and_zero_bias():
    random.seed(0)
    n = Neuron(3)
    random.seed(0)
    assert [w.data for w in n.w] == [random.uniform(-1, 1) for _ in range(3)]
    assert n.b.data == 0.0
    assert n.parameters() == n.w + [n.b]


def test_a_neuron_computes_its_activation_of_w_dot_x_plus_b():
    n = Neuron(2)
    n.w[0].data, n.w[1].data, n.b.data = 2.0, -1.0, 0.5
    assert n([1.0, 3.0]).data == 0.0  # relu(-0.5)
    linear = Neuron(2, nonlin=False)
    linear.w[0].data, linear.w[1].data = 2.0, -1.0
    assert linear([1.0, 3.0]).data == -1.0
    tanh = Neuron(2, activation='tanh')
    tanh.w[0].data, tanh.w[1].data = 2.0, -1.0
    assert tanh([1.0, 3.0]).data == pytest.approx(-0.7615941559557649)


def test_a_neuron_gets_gradients_for_weights_bias_and_inputs():
    n = Neuron(2, nonlin=False)
    n.w[0].data, n.w[1].data = 2.0, -1.0
    x = [Value(1.0), Value(3.0)]
    n(x).backward()
    assert [w.grad for w in n.w] == [1.0, 3.0]
    assert n.b.grad == 1.0
    assert [xi.grad for xi in x] == [2.0, -1.0]


def test_reprs_name_the_activation():
    assert repr(Neuron(2)) == "ReLUNeuron(2)"
    assert repr(Neuron(2, nonlin=False)) == "LinearNeuron(2)"
    assert repr(Neuron(2, activation='tanh')) == "TanhNeuron(2)"
    assert repr(Layer(2, 2)) == "Layer of [ReLUNeuron(2), ReLUNeuron(2)]"
    assert repr(MLP(2, [3, 1])) == ("MLP of [Layer of [ReLUNeuron(2), ReLUNeuron(2), ReLUNeuron(2)], "
                                    "Layer of [LinearNeuron(3)]]")


def test_an_unknown_activation_is_a_value_error():
    with pytest.raises(ValueError, match="activation"):
        Neuron(2, activation='softplus')


def test_a_layer_of_one_neuron_returns_a_value_and_of_many_a_list():
    assert isinstance(Layer(2, 1)([1.0, 2.0]), Value)
    out = Layer(2, 3)([1.0, 2.0])
    assert isinstance(out, list) and len(out) == 3


def test_the_moons_mlp_has_337_parameters_and_a_linear_output():
    model = MLP(2, [16, 16, 1])
    assert len(model.parameters()) == 337
    assert [n.activation for n in model.layers[-1].neurons] == ['linear']
    assert isinstance(model([0.5, -0.5]), Value)


def test_a_tanh_mlp_keeps_a_linear_output_unless_output_activation_says_otherwise():
    model = MLP(3, [4, 4, 1], activation='tanh')
    assert repr(model.layers[0].neurons[0]) == "TanhNeuron(3)"
    assert repr(model.layers[-1].neurons[0]) == "LinearNeuron(4)"
    lecture = MLP(3, [4, 4, 1], activation='tanh', output_activation='tanh')  # the lecture's net
    assert [n.activation for layer in lecture.layers for n in layer.neurons] == ['tanh'] * 9


def test_an_unknown_output_activation_is_a_value_error():
    with pytest.raises(ValueError, match="activation"):
        MLP(2, [3, 1], output_activation='softmax')


class LectureNeuron:  # the lecture's nn (its second half): tanh on every neuron, a random bias
    def __init__(self, nin):
        self.w = [Value(random.uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(random.uniform(-1, 1))

    def __call__(self, x):
        act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)
        return act.tanh()

    def parameters(self):
        return self.w + [self.b]


class LectureMLP:
    def __init__(self, nin, nouts):
        sz = [nin] + nouts
        self.layers = [[LectureNeuron(sz[i]) for _ in range(sz[i + 1])] for i in range(len(nouts))]

    def __call__(self, x):
        for layer in self.layers:
            x = [n(x) for n in layer]
        return x[0] if len(x) == 1 else x

    def parameters(self):
        return [p for layer in self.layers for n in layer for p in n.parameters()]


def test_the_lecture_net_option_trains_as_the_lectures_own_mlp_step_by_step():
    random.seed(1337)
    theirs = LectureMLP(3, [4, 4, 1])
    ours = MLP(3, [4, 4, 1], activation='tanh', output_activation='tanh')
    for p, q in zip(ours.parameters(), theirs.parameters(), strict=True):
        p.data = q.data
    xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
    ys = [1.0, -1.0, -1.0, 1.0]
    for model in (ours, theirs):  # the lecture's training loop, as he wrote it
        losses = []
        for _ in range(20):
            ypred = [model(x) for x in xs]
            loss = sum((yout - ygt) ** 2 for ygt, yout in zip(ys, ypred))
            for p in model.parameters():
                p.grad = 0.0
            loss.backward()
            for p in model.parameters():
                p.data += -0.1 * p.grad
            losses.append(loss.data)
        model.losses = losses
    assert ours.losses == pytest.approx(theirs.losses, rel=1e-12)
    assert ours.losses[-1] < 0.1 and all(b < a for a, b in zip(ours.losses, ours.losses[1:]))  # no spike


def test_nonlin_is_karpathys_attribute_beside_activation():
    assert Neuron(2).nonlin is True and Neuron(2, nonlin=False).nonlin is False
    assert Neuron(2, activation='linear').nonlin is False
    n = Neuron(2, activation='tanh')
    n.nonlin = False
    assert (n.activation, repr(n)) == ('linear', 'LinearNeuron(2)')
    n.nonlin = True  # as his Neuron: nonlin on is ReLU
    assert (n.activation, repr(n)) == ('relu', 'ReLUNeuron(2)')
    kept = Neuron(2, activation='sigmoid')
    kept.nonlin = True
    assert kept.activation == 'sigmoid'
    assert [n.nonlin for layer in MLP(2, [3, 1]).layers for n in layer.neurons] == [True] * 3 + [False]


def test_a_one_neuron_hidden_layer_works():
    model = MLP(2, [16, 1, 1])
    out = model([1.0, 2.0])
    assert isinstance(out, Value)
    out.backward()


@pytest.mark.parametrize('x', [[1.0], [1.0, 2.0, 3.0]])
def test_an_input_of_the_wrong_length_is_a_value_error(x):
    with pytest.raises(ValueError, match="expected 2 inputs, got"):
        MLP(2, [3, 1])(x)


def test_zero_grad_resets_every_parameter():
    model = MLP(2, [3, 1])
    model([1.0, 2.0]).backward()
    model.zero_grad()
    assert all(p.grad == 0.0 for p in model.parameters())
    assert Module().parameters() == []


def test_sgd_steps_against_the_gradient():
    w = Value(1.0)
    opt = SGD([w], lr=0.1)
    (w * w).backward()
    opt.step()
    assert w.data == pytest.approx(0.8)
    opt.zero_grad()
    assert w.grad == 0.0
    opt.lr = 0.05
    assert repr(opt) == "SGD(lr=0.05, params=1)"


def test_karpathys_demo_training_loop_reaches_full_accuracy():
    # Karpathy's two-moons loop, on a small separable set so it runs in a blink.
    random.seed(1337)
    X = [[random.uniform(-1, 1), random.uniform(-1, 1)] for _ in range(30)]
    y = [1 if a + b > 0 else -1 for a, b in X]
    model = MLP(2, [8, 8, 1])

    def loss():
        inputs = [list(map(Value, xrow)) for xrow in X]
        scores = list(map(model, inputs))
        losses = [(1 + -yi * scorei).relu() for yi, scorei in zip(y, scores)]
        data_loss = sum(losses) * (1.0 / len(losses))
        reg_loss = 1e-4 * sum(p * p for p in model.parameters())
        accuracy = [(yi > 0) == (scorei.data > 0) for yi, scorei in zip(y, scores)]
        return data_loss + reg_loss, sum(accuracy) / len(accuracy)

    for k in range(60):
        total_loss, acc = loss()
        model.zero_grad()
        total_loss.backward()
        learning_rate = 1.0 - 0.9 * k / 60
        for p in model.parameters():
            p.data -= learning_rate * p.grad
    assert loss()[1] == 1.0


@pytest.mark.parametrize('make, error', [
    (lambda: Neuron(0), ValueError),
    (lambda: Neuron(-2), ValueError),
    (lambda: MLP(-1, [3]), ValueError),
    (lambda: MLP(2, [0]), ValueError),
    (lambda: MLP(2, []), ValueError),
    (lambda: Layer(2, 3.5), TypeError),
    (lambda: Layer('2', 3), TypeError),
    (lambda: MLP(2, ['16', 1]), TypeError),
    (lambda: MLP('2', [3, 1]), TypeError),
    (lambda: MLP(2, '31'), ValueError),
])
def test_sizes_that_build_no_sensible_network_are_refused(make, error):
    with pytest.raises(error, match="size|nouts"):
        make()


def test_numpy_integers_are_sizes_too():
    import numpy as np
    assert len(MLP(np.int64(2), [np.int64(3), 1]).parameters()) == 3 * 3 + 4


def test_a_one_input_mlp_takes_a_plain_number():
    model = MLP(1, [1])
    out = model(3.0)
    assert isinstance(out, Value) and out.data == model([3.0]).data


def test_an_mlp_of_tanh_or_sigmoid_names_it_in_every_hidden_neuron():
    assert repr(MLP(1, [2, 1], activation='sigmoid')) == (
        "MLP of [Layer of [SigmoidNeuron(1), SigmoidNeuron(1)], Layer of [LinearNeuron(2)]]")


def test_a_nan_input_gives_a_nan_output():
    import math
    model = MLP(2, [4, 1])
    assert math.isnan(model([math.nan, 1.0]).data)  # relu(nan) is nan, as in PyTorch


@pytest.mark.parametrize('lr_type', ['float64', 'float32'])
@pytest.mark.parametrize('optimizer', [SGD, Adam])
def test_a_numpy_learning_rate_keeps_data_and_grads_python_floats(optimizer, lr_type):
    import numpy as np
    random.seed(0)
    model = MLP(2, [3, 1])
    opt = optimizer(model.parameters(), lr=getattr(np, lr_type)(0.1))
    for _ in range(3):
        opt.zero_grad()
        model([1.0, -2.0]).backward()
        opt.step()
        assert all(type(p.data) is float and type(p.grad) is float for p in model.parameters())
    opt.zero_grad()
    assert all(p.grad == 0.0 and type(p.grad) is float for p in model.parameters())  # 0.0, not None


@pytest.mark.parametrize('make', [lambda: Neuron(2, 'tanh'), lambda: Layer(2, 3, 'sigmoid'), lambda: Neuron(2, [1]),
                                  lambda: Neuron(2, 2), lambda: Neuron(2, None)])
def test_nonlin_that_is_no_yes_or_no_is_refused_it_would_silently_mean_relu(make):
    with pytest.raises(TypeError, match=r"nonlin is True or False"):
        make()


def test_nonlin_takes_karpathys_yes_or_no_in_any_form():
    import numpy as np
    assert [repr(Neuron(1, nonlin)) for nonlin in (True, False, 1, 0, np.bool_(False))] == [
        'ReLUNeuron(1)', 'LinearNeuron(1)', 'ReLUNeuron(1)', 'LinearNeuron(1)', 'LinearNeuron(1)']
    with pytest.raises(TypeError, match=r"pass activation='tanh'"):
        Neuron(2, 'tanh')
    with pytest.raises(ValueError, match='activation'):
        Neuron(2, nonlin=False, activation='softplus')  # checked even where it is not applied
