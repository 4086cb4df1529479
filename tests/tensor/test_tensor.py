"""micrograd.tensor as a specification: small cases whose numbers can be checked by hand.

Randomized cross-checks (PyTorch, finite differences, broadcasting properties) are in test_tensor_torch.py.
"""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import micrograd.tensor as mt
from micrograd import engine
from micrograd.engine import Value
from micrograd.tensor import (
    MLP,
    Adam,
    CausalSelfAttention,
    Embedding,
    Linear,
    RMSNorm,
    Tensor,
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    causal_mask,
    cross_entropy,
    mse_loss,
    no_grad,
    rms_norm,
    scaled_dot_product_attention,
)


def param(data):
    return Tensor(data, requires_grad=True)


# --- NumPy stays optional ---

def test_import_micrograd_does_not_import_numpy():
    code = "import sys, micrograd; assert 'numpy' not in sys.modules, 'micrograd imported numpy'"
    subprocess.run([sys.executable, '-c', code], check=True)


def test_micrograd_tensor_without_numpy_says_how_to_install_it():
    code = ("import sys; sys.modules['numpy'] = None\n"
            "try:\n    import micrograd.tensor\nexcept ImportError as e:\n    print(e)")
    out = subprocess.run([sys.executable, '-c', code], check=True, capture_output=True, text=True).stdout
    assert 'pip install numpy' in out


# --- making tensors ---

def test_a_tensor_is_float64_by_default():
    t = Tensor([[1, 2, 3], [4, 5, 6]])
    assert t.data.dtype == np.float64
    assert t.shape == (2, 3) and t.ndim == 2 and len(t) == 2
    assert t.grad is None and not t.requires_grad


def test_a_tensor_owns_a_copy_of_the_array_it_is_given_as_torch_tensor():
    a = np.zeros(3)
    t, w = Tensor(a), param(a)
    a += 1  # the user's array changes afterwards: the tensors keep what they were given
    w.data += 1  # what an optimizer does: the user's array stays
    assert t.data.tolist() == [0, 0, 0] and w.data.tolist() == [1, 1, 1] and a.tolist() == [1, 1, 1]


def test_only_floating_point_tensors_can_require_gradients():
    with pytest.raises(TypeError, match='floating-point'):
        Tensor([1, 2], requires_grad=True, dtype=np.int64)


def test_a_tensor_is_made_from_numbers_not_strings():
    with pytest.raises(TypeError, match='Tensor'):
        Tensor('3')
    with pytest.raises(TypeError, match='unsupported operand for \\+'):
        Tensor([1.0]) + 'a'


def test_item_numpy_detach_and_T():
    t = param([[1.0, 2.0], [3.0, 4.0]])
    assert Tensor(2.5).item() == 2.5
    with pytest.raises(ValueError, match='Tensor.item'):
        t.item()
    assert np.shares_memory(t.numpy(), t.data) and not t.numpy().flags.writeable  # read-only: see test_tensor_arrays
    d = (t * 2).detach()
    assert not d.requires_grad and d.data.tolist() == [[2, 4], [6, 8]]
    assert t.T.data.tolist() == [[1, 3], [2, 4]]
    assert Tensor(np.zeros((2, 3, 4))).T.shape == (4, 3, 2)  # all axes reversed, as NumPy's .T


def test_repr_reads_like_pytorch():
    assert repr(param([1.0, 2.0])) == 'Tensor([1., 2.], requires_grad=True)'
    assert repr(param([1.0, 2.0]) * 2) == "Tensor([2., 4.], op='*')"
    assert repr(Tensor([1.0], dtype=np.float32)) == 'Tensor([1.], dtype=float32)'


# --- gradients, checkable by hand ---

def test_a_tensor_used_twice_gets_both_gradients():
    a = param([3.0, -1.0])
    (a * a).sum().backward()
    assert a.grad.tolist() == [6.0, -2.0]


def test_a_broadcast_input_gets_the_sum_of_its_uses():
    x = param([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    b = param([10.0, 20.0, 30.0])  # added to both rows
    (x + b).sum().backward()
    assert b.grad.tolist() == [2.0, 2.0, 2.0]
    assert x.grad.tolist() == [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]


def test_broadcasting_a_column_against_a_row():
    col, row = param([[1.0], [2.0]]), param([[3.0, 4.0, 5.0]])
    (col * row).sum().backward()
    assert col.grad.tolist() == [[12.0], [12.0]]  # 3 + 4 + 5
    assert row.grad.tolist() == [[3.0, 3.0, 3.0]]  # 1 + 2


def test_numbers_and_arrays_on_either_side():
    x = param([1.0, 2.0])
    assert (2 - x).data.tolist() == [1.0, 0.0]
    assert (2 / x).data.tolist() == [2.0, 1.0]
    assert (x ** 2).data.tolist() == [1.0, 4.0]
    assert (2 ** x).data.tolist() == [2.0, 4.0]
    assert (np.array([1.0, 1.0]) + x).data.tolist() == [2.0, 3.0]  # NumPy defers to Tensor.__radd__
    (2 / x).sum().backward()
    assert x.grad.tolist() == [-2.0, -0.5]  # d(2/x)/dx = -2/x**2


def test_a_tensor_exponent_gets_a_gradient_too():
    x, k = param([2.0]), param([3.0])
    (x ** k).sum().backward()
    assert x.grad.tolist() == [12.0]  # k x**(k-1)
    assert k.grad[0] == pytest.approx(8 * np.log(2))  # x**k log(x)


def test_a_tensor_exponent_gets_pytorchs_gradient_at_bases_0_and_below():
    k = param(2.0)
    (mt.Tensor([0.0, 2.0, 3.0]) ** k).sum().backward()
    assert k.grad == pytest.approx(4 * np.log(2) + 9 * np.log(3))  # 12.66: x**k log(x), 0 at base 0 (PyTorch)
    k = param(2.0)
    (0.0 ** k).backward()
    assert k.grad == 0.0
    k = param(-1.0)
    (mt.Tensor([0.0]) ** k).sum().backward()
    assert k.grad == -np.inf  # inf * log(0) for k < 0, as PyTorch
    k = param(2.0)
    (mt.Tensor([-2.0]) ** k).sum().backward()
    assert np.isnan(k.grad)  # log of a negative base: nan, as PyTorch (and Value)


def test_matmul_gradients():
    a, b = param([[1.0, 2.0]]), param([[3.0], [4.0]])
    out = a @ b
    assert out.data.tolist() == [[11.0]]
    out.backward()
    assert a.grad.tolist() == [[3.0, 4.0]]  # grad @ b.T
    assert b.grad.tolist() == [[1.0], [2.0]]  # a.T @ grad


def test_batched_matmul_sums_a_shared_matrix_over_the_batch():
    x, w = param(np.ones((5, 2, 3))), param(np.ones((3, 4)))  # one w for all 5 items
    (x @ w).sum().backward()
    assert x.grad.shape == (5, 2, 3) and w.grad.shape == (3, 4)
    assert (w.grad == 10.0).all()  # 5 items * 2 rows


def test_matmul_shape_mismatch_is_a_clear_error():
    with pytest.raises(ValueError, match=r'Tensor.matmul: shapes \(2, 3\) and \(4, 5\)'):
        Tensor(np.ones((2, 3))) @ Tensor(np.ones((4, 5)))
    with pytest.raises(ValueError, match=r'Tensor.matmul: shapes \(2, 5, 3\) and \(4, 5\)'):
        Tensor(np.ones((2, 5, 3))) @ Tensor(np.ones((4, 5)))  # a stack of rows and a matrix, too


def test_a_stack_of_rows_times_a_matrix_is_one_product_of_rows():
    x, w = np.arange(24.0).reshape(2, 3, 4), np.arange(20.0).reshape(4, 5)
    out = Tensor(x) @ Tensor(w)
    assert out.shape == (2, 3, 5)
    assert out.data.tolist() == (x.reshape(6, 4) @ w).reshape(2, 3, 5).tolist()  # every row of every item meets w
    for x_shape, w_shape in [((2, 3, 0), (0, 5)), ((2, 3, 4), (4, 0)), ((0, 3, 4), (4, 5))]:  # empty, as NumPy
        x, w = param(np.ones(x_shape)), param(np.ones(w_shape))
        (x @ w).sum().backward()
        assert x.grad.shape == x_shape and w.grad.shape == w_shape and not w.grad.any()


def test_sum_and_mean_over_an_axis():
    x = param([[1.0, 2.0], [3.0, 4.0]])
    assert x.sum(axis=0).data.tolist() == [4.0, 6.0]
    assert x.mean(axis=1, keepdims=True).data.tolist() == [[1.5], [3.5]]
    (x.mean(axis=1) * Tensor([1.0, 10.0])).sum().backward()
    assert x.grad.tolist() == [[0.5, 0.5], [5.0, 5.0]]


def test_max_splits_the_gradient_among_ties_as_torch_amax():
    x = param([1.0, 3.0, 3.0])
    x.max().backward()
    assert x.grad.tolist() == [0.0, 0.5, 0.5]


def test_max_over_an_axis():
    x = param([[1.0, 5.0], [7.0, 2.0]])
    out = x.max(axis=1)
    assert out.data.tolist() == [5.0, 7.0]
    out.sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0], [1.0, 0.0]]


def test_an_index_picked_twice_gets_both_gradients():
    x = param([10.0, 20.0, 30.0])
    x[np.array([0, 0, 2])].sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 1.0]


def test_slicing_and_boolean_masks_scatter_the_gradient_back():
    x = param([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    x[:, 1:].sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 1.0], [0.0, 1.0, 1.0]]
    y = param([1.0, -2.0, 3.0])
    y[y.data > 0].sum().backward()
    assert y.grad.tolist() == [1.0, 0.0, 1.0]


def test_reshape_and_transpose_route_gradients_back():
    x = param(np.arange(6.0))
    w = Tensor(np.arange(6.0).reshape(3, 2))
    (x.reshape(2, 3).transpose() * w).sum().backward()
    assert x.grad.tolist() == [0.0, 2.0, 4.0, 1.0, 3.0, 5.0]  # w.T, flattened


def test_relu_derivative_at_zero_is_zero():
    x = param([-1.0, 0.0, 2.0])
    x.relu().sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 1.0]


def test_sigmoid_softmax_and_log_softmax_do_not_overflow():
    with warnings.catch_warnings():
        warnings.simplefilter('error')  # an overflow in exp would warn
        assert Tensor([-1000.0, 0.0, 1000.0]).sigmoid().data.tolist() == [0.0, 0.5, 1.0]
        x = Tensor([[1000.0, 1000.0, -1000.0]])
        assert x.softmax().data.tolist() == [[0.5, 0.5, 0.0]]
        assert x.log_softmax().data[0, :2] == pytest.approx([-np.log(2)] * 2)


def test_softmax_rows_sum_to_one_and_its_gradient_sums_to_zero():
    x = param([[1.0, 2.0, 3.0]])
    s = x.softmax(axis=1)
    assert s.data.sum() == pytest.approx(1.0)
    (s * Tensor([[1.0, 0.0, 0.0]])).sum().backward()
    assert x.grad.sum() == pytest.approx(0.0)  # shifting all logits changes nothing


def test_the_softmax_of_integer_data_is_probabilities():
    assert Tensor([0, 0], dtype=int).softmax().data.tolist() == [0.5, 0.5]


def test_log_of_a_non_positive_value_is_a_clear_error():
    with pytest.raises(ValueError, match='Tensor.log: log is defined only for data > 0'):
        Tensor([1.0, 0.0]).log()


def test_transpose_with_negative_axes_routes_gradients_back():
    x = param(np.arange(24.0).reshape(2, 3, 4))
    out = x.transpose(-1, 0, 1)  # out[l, i, j] = x[i, j, l], so x.grad[i, j, l] = G[l, i, j]
    out.backward(np.arange(24.0).reshape(4, 2, 3))
    assert x.grad[0, 0].tolist() == [0.0, 6.0, 12.0, 18.0]  # G[l, 0, 0] = 6 l


def test_x_to_the_power_0_is_constant_so_its_gradient_is_0_also_at_0():
    x = param([0.0, 1.0])
    (x ** 0).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]  # not 0 * 0**-1 = nan


def test_a_float32_leaf_keeps_float32_gradients_as_they_accumulate():
    w = Tensor([1.0, 2.0], requires_grad=True, dtype=np.float32)
    data = Tensor([3.0, 4.0])  # float64 data
    for _ in range(2):
        (w * data).max().backward()  # the output is float64 (NumPy promotes); w's gradient is not
        assert w.grad.dtype == np.float32
    assert w.grad.tolist() == [0.0, 8.0]


# --- backward() semantics, as for Value ---

def test_backward_of_a_non_scalar_needs_a_gradient():
    x = param([1.0, 2.0])
    with pytest.raises(ValueError, match='not a single number'):
        (x * 2).backward()
    (x * 2).backward(np.array([1.0, 10.0]))  # d(sum(g * out))/dx
    assert x.grad.tolist() == [2.0, 20.0]
    with pytest.raises(ValueError, match='grad has shape'):
        (x * 2).backward(np.ones(3))


def test_backward_without_any_gradient_to_compute_is_a_clear_error():
    with pytest.raises(ValueError, match='does not require gradients'):
        Tensor([1.0]).sum().backward()


def test_leaves_accumulate_and_intermediates_keep_the_latest_call():
    x = param([1.0, 2.0])
    y = x * 3
    loss = y.sum()
    loss.backward()
    loss.backward()
    assert x.grad.tolist() == [6.0, 6.0]  # a leaf: 3 + 3
    assert y.grad.tolist() == [1.0, 1.0]  # made by an op: the latest call only
    x.zero_grad()
    assert x.grad is None


def test_a_leafs_grad_is_its_own_array():
    a, b = param([1.0, 2.0]), param([3.0, 4.0])
    (a + b).sum().backward()
    assert a.grad is not b.grad
    a.grad *= 0  # scaling one in place (as gradient clipping does) leaves the other alone
    assert b.grad.tolist() == [1.0, 1.0]


def test_a_weight_keeps_the_gradient_its_product_made_for_it_alone():
    x, w, table = param(np.ones((2, 3, 4))), param(np.ones((4, 5))), param(np.ones((6, 4)))
    ((table[np.array([0, 0])] @ w).sum() + (x @ w).sum()).backward()
    for a, b in [(x, w), (w, table), (x, table)]:
        assert not np.shares_memory(a.grad, b.grad)
    w.grad *= 0  # as gradient clipping does
    assert (x.grad == 5.0).all() and (table.grad[0] == 10.0).all()


def test_a_deep_graph_needs_no_recursion():
    x = param([1.0])
    y = x
    for _ in range(5_000):  # far past Python's recursion limit of 1000
        y = y * 1.0
    y.sum().backward()
    assert x.grad.tolist() == [1.0]


def test_data_tensors_build_no_graph():
    x, w = Tensor(np.ones((4, 3))), param(np.ones((3, 2)))
    data_only = x * 2 + 1
    assert not data_only.requires_grad and data_only._prev == () and data_only._backward is None
    out = data_only @ w
    assert out._prev == (w,)  # the data tensor is not part of the graph
    out.sum().backward()
    assert x.grad is None and w.grad.tolist() == [[12.0, 12.0]] * 3


def test_no_grad_builds_no_graph_and_is_the_engines_switch():
    w = param([1.0])
    with no_grad():
        out = w * 2
    assert not out.requires_grad and out._prev == ()
    assert (w * 2).requires_grad  # recording again afterwards
    assert no_grad is engine.no_grad  # one switch for Values and Tensors


# --- losses ---

def test_mse_loss():
    pred = param([1.0, 2.0, 3.0])
    loss = mse_loss(pred, [1.0, 0.0, 0.0])
    assert loss.item() == pytest.approx(13 / 3)
    loss.backward()
    assert pred.grad.tolist() == pytest.approx([0.0, 4 / 3, 2.0])  # 2 (pred - target) / 3


def test_a_loss_refuses_targets_of_another_shape():
    with pytest.raises(ValueError, match=r'mse_loss: target shape \(3,\) differs from input shape \(3, 1\)'):
        mse_loss(param(np.zeros((3, 1))), np.zeros(3))  # would silently broadcast to (3, 3)


def test_a_loss_wants_a_tensor_prediction():
    with pytest.raises(TypeError, match='cross_entropy: logits must be a Tensor'):
        cross_entropy(np.zeros((2, 3)), [0, 1])
    with pytest.raises(TypeError, match='mse_loss: the prediction must be a Tensor'):
        mse_loss(np.zeros(2), Tensor(np.zeros(2)))


def test_binary_cross_entropy_on_probabilities_and_on_logits_agree():
    p, z = param([0.5, 0.9]), param([0.0, np.log(9)])  # sigmoid(z) = p
    y = [1.0, 0.0]
    expected = -(np.log(0.5) + np.log(0.1)) / 2
    assert binary_cross_entropy(p, y).item() == pytest.approx(expected)
    assert binary_cross_entropy_with_logits(z, y).item() == pytest.approx(expected)
    binary_cross_entropy_with_logits(z, y).backward()
    assert z.grad.tolist() == pytest.approx([-0.25, 0.45])  # (sigmoid(z) - y) / 2


def test_binary_cross_entropy_with_logits_is_finite_for_huge_scores():
    z = param([1000.0, -1000.0])
    loss = binary_cross_entropy_with_logits(z, [0.0, 1.0])
    assert loss.item() == pytest.approx(1000.0)
    loss.backward()
    assert z.grad.tolist() == [0.5, -0.5]


def test_binary_cross_entropy_wants_probabilities():
    with pytest.raises(ValueError, match=r'binary_cross_entropy: probabilities must lie in \[0, 1\]'):
        binary_cross_entropy(param([1.5]), [1.0])


def test_cross_entropy_of_uniform_logits_is_log_of_the_number_of_classes():
    logits = param(np.zeros((2, 4)))
    loss = cross_entropy(logits, [0, 3])
    assert loss.item() == pytest.approx(np.log(4))
    loss.backward()
    assert logits.grad.tolist() == [[-0.375, 0.125, 0.125, 0.125], [0.125, 0.125, 0.125, -0.375]]  # (p - 1[y]) / 2


def test_cross_entropy_is_stable_for_huge_logits():
    loss = cross_entropy(param([[1000.0, 0.0]]), [1])
    assert loss.item() == pytest.approx(1000.0)


def test_cross_entropy_checks_its_targets():
    logits = Tensor(np.zeros((2, 3)))
    with pytest.raises(ValueError, match='integer class indices'):
        cross_entropy(logits, [0.0, 1.0])
    with pytest.raises(ValueError, match=r'class indices must lie in \[0, 3\)'):
        cross_entropy(logits, [0, 3])
    with pytest.raises(ValueError, match=r'logits must have shape \(batch, classes\)'):
        cross_entropy(Tensor(np.zeros((2, 2, 3))), [0, 1])
    with pytest.raises(ValueError, match=r'logits of shape \(3,\) are one row'):
        cross_entropy(Tensor(np.zeros(3)), [0, 1])


def test_cross_entropy_of_one_row_is_that_of_a_batch_of_one_as_in_pytorch():
    row = [1.0, 2.0, 0.5]
    for target in (1, np.int64(1), [1]):
        assert cross_entropy(Tensor(row), target).item() == cross_entropy(Tensor([row]), [1]).item()


# --- layers ---

def test_linear_draws_weights_like_pytorch():
    layer = Linear(16, 3, rng=np.random.default_rng(0))
    assert layer.weight.shape == (16, 3) and layer.bias.shape == (3,)  # x @ weight: PyTorch stores weight.T
    assert np.abs(layer.weight.data).max() <= 0.25 and np.abs(layer.bias.data).max() <= 0.25  # 1/sqrt(16)
    assert layer(np.ones((5, 16))).shape == (5, 3)
    assert repr(layer) == 'Linear(16, 3)'


def test_mlp_parameters_and_their_names():
    model = MLP(2, [4, 1], rng=np.random.default_rng(0))
    assert [name for name, _ in model.named_parameters()] == [
        'layers.0.weight', 'layers.0.bias', 'layers.1.weight', 'layers.1.bias']
    assert sum(p.data.size for p in model.parameters()) == 2 * 4 + 4 + 4 * 1 + 1
    assert repr(model) == "MLP(Linear(2, 4), Linear(4, 1), activation='relu')"
    with pytest.raises(ValueError, match=r"MLP: activation is one of \('relu', 'tanh', 'sigmoid', 'linear'\): 'gelu'"):
        MLP(2, [1], activation='gelu')


def test_state_dict_saves_and_restores_a_model():
    model = MLP(3, [5, 2], rng=np.random.default_rng(0))
    x = np.ones((1, 3))
    state = model.state_dict()
    before = model(x).data.copy()
    for p in model.parameters():
        p.data += 1  # training changes the weights in place...
    assert state['layers.0.weight'] is not model.layers[0].weight.data  # ...but not the saved copies
    model.load_state_dict(state)
    assert np.array_equal(model(x).data, before)


def test_a_state_dict_survives_a_file(tmp_path):
    model = MLP(3, [5, 2], rng=np.random.default_rng(0))
    np.savez(tmp_path / 'model.npz', **model.state_dict())
    restored = MLP(3, [5, 2], rng=np.random.default_rng(1))
    restored.load_state_dict(dict(np.load(tmp_path / 'model.npz')))
    x = np.ones((1, 3))
    assert np.array_equal(restored(x).data, model(x).data)


def test_load_state_dict_names_what_does_not_fit():
    model = MLP(3, [5, 2], rng=np.random.default_rng(0))
    state = model.state_dict()
    with pytest.raises(ValueError, match=r"MLP.load_state_dict: missing 'layers.1.bias'"):  # (as micrograd.nn's)
        model.load_state_dict({k: v for k, v in state.items() if k != 'layers.1.bias'})
    with pytest.raises(ValueError, match=r"unexpected 'layers.2.weight'"):
        model.load_state_dict({**state, 'layers.2.weight': np.zeros(1)})
    state['layers.0.weight'] = np.zeros((5, 3))
    with pytest.raises(ValueError, match=r"'layers.0.weight' has shape \(5, 3\), the model expects \(3, 5\)"):
        model.load_state_dict(state)


@pytest.mark.parametrize('bad_entry', ['layers.0.weight', 'layers.0.bias', 'layers.1.weight', 'layers.1.bias'])
def test_a_refused_load_state_dict_leaves_the_model_as_it_was(bad_entry):
    model = MLP(3, [5, 2], rng=np.random.default_rng(0))
    before = model.state_dict()
    state = {name: value + 1 for name, value in before.items()}  # a state that would change every weight...
    state[bad_entry] = np.zeros(state[bad_entry].shape + (1,))  # ...but for one entry of the wrong shape
    with pytest.raises(ValueError, match=f"'{bad_entry}' has shape"):
        model.load_state_dict(state)
    assert all(np.array_equal(model.state_dict()[name], before[name]) for name in before)


def test_load_state_dict_refuses_values_that_are_not_numbers():
    model = MLP(1, [1], rng=np.random.default_rng(0))
    with pytest.raises(TypeError, match=r"load_state_dict \('layers.0.bias'\): takes real numbers.*<U1"):
        model.load_state_dict({'layers.0.weight': np.zeros((1, 1)), 'layers.0.bias': np.array(['a'])})
    assert model.layers[0].weight.data[0, 0] != 0  # nothing was copied


def test_zero_grad_clears_every_parameter():
    model = MLP(2, [3, 1], rng=np.random.default_rng(0))
    model(np.ones((1, 2))).sum().backward()
    model.zero_grad()
    assert all(p.grad is None for p in model.parameters())


# --- the blocks of a small GPT ---

def test_permute_and_swapaxes_move_axes_as_pytorch_names_them():
    x = Tensor(np.zeros((2, 3, 4)))
    assert x.permute(2, 0, 1).shape == (4, 2, 3)
    assert x.permute((-1, 0, 1)).shape == (4, 2, 3)  # a tuple, and negative axes, as in PyTorch
    assert x.swapaxes(0, -1).shape == (4, 3, 2)  # PyTorch's x.transpose(0, -1)
    assert x.transpose(1, 2, 0).shape == (3, 4, 2)  # NumPy's transpose permutes all axes
    with pytest.raises(ValueError, match=r'Tensor.swapaxes: axis 3 is out of range for a tensor of shape \(2, 3, 4\)'):
        x.swapaxes(0, 3)


def test_transpose_with_two_axes_of_a_3d_tensor_points_to_swapaxes():
    with pytest.raises(ValueError, match=r'to swap two axes, as torch.s x.transpose\(1, 2\), use x.swapaxes\(1, 2\)'):
        Tensor(np.zeros((2, 3, 4))).transpose(1, 2)
    with pytest.raises(ValueError, match=r'Tensor.permute: \(0, 0, 1\) is not an order of the 3 axes'):
        Tensor(np.zeros((2, 3, 4))).permute(0, 0, 1)


def test_causal_mask_hides_the_future():
    assert causal_mask(3).tolist() == [[False, True, True],
                                       [False, False, True],
                                       [False, False, False]]


def test_masked_fill_puts_a_constant_where_the_mask_is_true():
    x = param([[1.0, 2.0], [3.0, 4.0]])
    out = x.masked_fill(np.array([True, False]), -1.0)  # the mask broadcasts over the rows
    assert out.data.tolist() == [[-1.0, 2.0], [-1.0, 4.0]]
    out.sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0], [0.0, 1.0]]  # no gradient flows through a filled place


def test_masked_fill_with_minus_infinity_gives_zero_probability():
    x = param([[1.0, 5.0, 2.0]])
    p = x.masked_fill(np.array([[False, True, False]]), -np.inf).softmax()
    assert p.data[0, 1] == 0.0 and p.data.sum() == pytest.approx(1.0)
    (p * Tensor([[1.0, 2.0, 3.0]])).sum().backward()
    assert x.grad[0, 1] == 0.0


def test_masked_fill_checks_its_mask():
    x = Tensor(np.zeros((2, 3)))
    with pytest.raises(TypeError, match='Tensor.masked_fill: the mask must be boolean'):
        x.masked_fill(np.array([0, 1, 0]), 0.0)
    with pytest.raises(ValueError, match=r'a mask of shape \(2, 3, 1\) does not broadcast to the tensor.s shape'):
        x.masked_fill(np.ones((2, 3, 1), dtype=bool), 0.0)


def test_embedding_looks_rows_up_for_indices_of_any_shape():
    emb = Embedding(5, 2, rng=np.random.default_rng(0))
    assert emb.weight.shape == (5, 2) and repr(emb) == 'Embedding(5, 2)'
    ids = np.array([[0, 3, 3], [4, 0, 0]])  # (B, T)
    out = emb(ids)
    assert out.shape == (2, 3, 2)
    assert np.array_equal(out.data[0, 1], emb.weight.data[3])
    out.sum().backward()
    assert emb.weight.grad[:, 0].tolist() == [3.0, 0.0, 0.0, 2.0, 1.0]  # a row gets one gradient per lookup


def test_rows_looked_up_by_small_unsigned_ids_get_their_gradients():
    table = param(np.zeros((300, 64)))
    table[np.array([200, 200, 5], dtype=np.uint8)].sum().backward()  # 200 * 64 does not fit in a uint8
    assert table.grad[200, 0] == 2.0 and table.grad[5, 0] == 1.0 and table.grad.sum() == 3 * 64


def test_embedding_refuses_bad_indices_and_names_them():
    emb = Embedding(5, 2)
    with pytest.raises(IndexError, match=r'Embedding\(5, 2\): index 5 is out of range: the table has rows 0..4'):
        emb(np.array([1, 5]))
    with pytest.raises(IndexError, match=r'Embedding\(5, 2\): index -1 is out of range'):
        emb([-1])
    with pytest.raises(TypeError, match=r'Embedding\(5, 2\): indices must be integers, got 1.5'):
        emb(np.array([1.5]))


def test_rms_norm_scales_each_vector_to_a_root_mean_square_of_one():
    x = param([[2.0, -2.0, 2.0, -2.0], [3.0, 4.0, 0.0, 0.0]])  # root mean squares 2 and 2.5
    out = rms_norm(x, eps=0.0)
    np.testing.assert_allclose(out.data, [[1.0, -1.0, 1.0, -1.0], [1.2, 1.6, 0.0, 0.0]], rtol=1e-15)


def test_rms_norm_without_weight_is_microgpts_rmsnorm():
    def microgpt_rmsnorm(x):  # microgpt's code, on Values
        ms = sum(xi * xi for xi in x) / len(x)
        scale = (ms + 1e-5) ** -0.5
        return [xi * scale for xi in x]
    row = [0.3, -1.2, 2.0, 0.7]
    norm = RMSNorm(4, elementwise_affine=False)
    assert norm.parameters() == [] and repr(norm) == 'RMSNorm(4, elementwise_affine=False)'
    expected = [v.data for v in microgpt_rmsnorm([Value(x) for x in row])]
    assert norm(np.array([row])).data[0].tolist() == pytest.approx(expected, rel=1e-15)


def test_rms_norm_has_a_weight_per_channel():
    norm = RMSNorm(2)
    assert [name for name, _ in norm.named_parameters()] == ['weight'] and repr(norm) == 'RMSNorm(2)'
    norm.weight.data[...] = [10.0, -1.0]
    assert norm(np.array([[3.0, 3.0]])).data[0].tolist() == pytest.approx([10.0, -1.0], rel=1e-5)
    with pytest.raises(ValueError, match=r'RMSNorm\(2\): expected vectors of 2 numbers on the last axis'):
        norm(np.zeros((2, 3)))


def test_rms_norm_is_one_op_and_asks_for_a_tensor():
    x = param([[3.0, 4.0]])
    out = rms_norm(x)
    assert out._op == 'rms_norm' and out._prev == (x,)  # one node, not the six of its formula
    with pytest.raises(TypeError, match='rms_norm: x must be a Tensor, got list'):
        rms_norm([[3.0, 4.0]])
    with pytest.raises(ValueError, match='rms_norm: x must have at least one axis'):
        rms_norm(Tensor(2.0))


def test_attention_is_one_op_and_names_what_does_not_fit():
    q, k, v = param(np.zeros((2, 3, 4))), param(np.zeros((2, 5, 4))), param(np.arange(60.0).reshape(2, 5, 6))
    out = scaled_dot_product_attention(q, k, v)
    assert out.shape == (2, 3, 6) and out._op == 'scaled_dot_product_attention' and out._prev == (q, k, v)
    np.testing.assert_allclose(out.data[:, 0], v.data.mean(axis=1))  # equal scores: every value weighs 1/5
    with pytest.raises(TypeError, match='scaled_dot_product_attention: k must be a Tensor, got ndarray'):
        scaled_dot_product_attention(q, np.zeros((2, 5, 4)), v)
    with pytest.raises(ValueError, match=r'v must have shape \(..., positions, channels\), got \(6,\)'):
        scaled_dot_product_attention(q, k, param(np.zeros(6)))
    with pytest.raises(ValueError, match=r'must agree on d and S, got shapes \(2, 3, 4\), \(2, 5, 3\)'):
        scaled_dot_product_attention(q, param(np.zeros((2, 5, 3))), v)
    with pytest.raises(ValueError, match='is_causal needs as many queries as keys, got 3 queries and 5 keys'):
        scaled_dot_product_attention(q, k, v, is_causal=True)
    with pytest.raises(ValueError, match=r'the leading axes of q \(2, 3, 4\) and k \(3, 5, 4\) do not broadcast'):
        scaled_dot_product_attention(q, param(np.zeros((3, 5, 4))), param(np.zeros((3, 5, 6))))


def test_attention_gradients_come_back_in_the_memory_order_of_the_heads():
    x = param(np.random.default_rng(0).normal(size=(2, 5, 8)))  # (B, T, C)
    q = x.reshape(2, 5, 4, 2).swapaxes(1, 2)  # 4 heads: a (B, n_head, T, d) view of (B, T, n_head, d) memory
    scaled_dot_product_attention(q, q, q, is_causal=True).sum().backward()
    assert q.grad.strides == q.data.strides  # so swapaxes and reshape hand it back to x without a copy


def test_cross_entropy_leaves_out_ignored_targets():
    logits = param(np.zeros((3, 4)))
    loss = cross_entropy(logits, [0, -100, 3])  # the middle row is padding
    assert loss.item() == pytest.approx(np.log(4))  # the mean over the 2 counted rows
    loss.backward()
    assert logits.grad.tolist() == [[-0.375, 0.125, 0.125, 0.125], [0.0] * 4, [0.125, 0.125, 0.125, -0.375]]
    assert cross_entropy(Tensor(np.zeros((2, 4))), [7, 1], ignore_index=7).item() == pytest.approx(np.log(4))


def test_cross_entropy_asks_for_2d_logits_and_says_how():
    with pytest.raises(ValueError, match=r'reshape \(B, T, C\) logits to \(B\*T, C\)'):
        cross_entropy(Tensor(np.zeros((2, 3, 4))), np.zeros((2, 3), dtype=int))


def attention(n_embd=8, n_head=4, seed=0):
    return CausalSelfAttention(n_embd, n_head, rng=np.random.default_rng(seed))


def test_attention_has_four_projections_without_bias():
    att = attention()
    assert [name for name, _ in att.named_parameters()] == ['q.weight', 'k.weight', 'v.weight', 'o.weight']
    assert repr(att) == 'CausalSelfAttention(n_embd=8, n_head=4)'
    assert att(np.zeros((2, 5, 8))).shape == (2, 5, 8) and att(np.zeros((5, 8))).shape == (5, 8)
    with pytest.raises(ValueError, match='n_embd=8 channels do not split into n_head=3 heads'):
        CausalSelfAttention(8, 3)
    with pytest.raises(ValueError, match=r'expected input of shape \(B, T, 8\) or \(T, 8\), got \(2, 5, 6\)'):
        att(np.zeros((2, 5, 6)))


def test_the_first_position_attends_only_to_itself():
    att = attention()
    x = np.random.default_rng(1).normal(size=(1, 4, 8))
    out = att(x).data
    own_value = x[0, 0] @ att.v.weight.data @ att.o.weight.data  # softmax over one key is 1
    np.testing.assert_allclose(out[0, 0], own_value, rtol=1e-12)


def test_later_positions_do_not_change_earlier_outputs():
    att = attention()
    x = np.random.default_rng(1).normal(size=(2, 6, 8))
    changed = x.copy()
    changed[:, 3:] += 10.0  # rewrite the future
    np.testing.assert_array_equal(att(x).data[:, :3], att(changed).data[:, :3])


def test_no_gradient_flows_from_an_output_to_later_inputs():
    att = attention()
    x0 = np.random.default_rng(1).normal(size=(2, 6, 8))
    for t in range(6):
        x = param(x0)
        out = att(x)
        seed = np.zeros(out.shape)
        seed[:, t] = 1.0  # d out[:, t] / d x
        out.backward(seed)
        assert (x.grad[:, t + 1:] == 0).all()  # exactly zero for every later position s > t
        assert (x.grad[:, :t + 1] != 0).all()  # and something for each position up to t


# --- end to end ---

def test_xor_is_solved():
    x = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    y = np.array([[0.0], [1.0], [1.0], [0.0]])
    model = MLP(2, [8, 1], activation='tanh', rng=np.random.default_rng(0))
    opt = Adam(model.parameters(), lr=0.05)
    for _ in range(300):
        loss = binary_cross_entropy_with_logits(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert ((model(x).data > 0) == y.astype(bool)).all()
    assert loss.item() < 0.05


@pytest.mark.extra('demo')  # scikit-learn's digits
def test_an_mlp_learns_handwritten_digits():
    from sklearn import datasets, model_selection
    digits = datasets.load_digits()  # 1797 8x8 images, bundled with scikit-learn
    x_train, x_test, y_train, y_test = model_selection.train_test_split(
        digits.data, digits.target, test_size=0.2, random_state=0)  # a fixed 80/20 split
    # Standardize each pixel with the training set's statistics (+1 keeps the always-blank border pixels finite).
    mean, std = x_train.mean(axis=0), x_train.std(axis=0) + 1
    x_train, x_test = (x_train - mean) / std, (x_test - mean) / std
    rng = np.random.default_rng(0)
    model = MLP(64, [128, 10], rng=rng)
    opt = Adam(model.parameters(), lr=3e-3)
    for _ in range(25):
        order = rng.permutation(len(x_train))
        for start in range(0, len(order), 64):
            batch = order[start:start + 64]
            loss = cross_entropy(model(x_train[batch]), y_train[batch])
            opt.zero_grad()
            loss.backward()
            opt.step()
    with no_grad():
        accuracy = (model(x_test).data.argmax(axis=1) == y_test).mean()
    assert accuracy >= 0.97


# --- nothing silently wrong: comparisons, dtypes, bad input, ties, empty axes ---

def test_comparisons_are_elementwise_and_make_the_padding_mask():
    PAD = 0
    ids = Tensor([[5, 3, PAD]], dtype=np.int64)
    assert (ids == PAD).data.tolist() == [[False, False, True]] and (ids > 0).dtype == np.bool_
    scores = Tensor([[1.0, 2.0, 3.0]])
    assert scores.masked_fill(ids == PAD, -np.inf).data.tolist() == [[1.0, 2.0, -np.inf]]
    assert not (ids == PAD).requires_grad


def test_masked_fill_refuses_a_python_bool_as_its_mask():
    with pytest.raises(TypeError, match=r"masked_fill: the mask must be a boolean array or Tensor.*got bool False"):
        Tensor([1.0, 2.0]).masked_fill(False, 0.0)


def test_bool_of_a_tensor_is_its_truth_for_one_element_and_ambiguous_otherwise():
    assert bool(Tensor([3.0]) > 2) and not bool(Tensor(0.0))
    with pytest.raises(RuntimeError, match=r'more than one value \(shape \(2,\)\) is ambiguous'):
        bool(Tensor([1.0, 2.0]))
    with pytest.raises(RuntimeError, match=r'no values \(shape \(0,\)\) is ambiguous'):
        bool(Tensor([]))


def test_tensors_are_still_dict_keys_and_set_members_by_identity():
    a, b = Tensor([1.0]), Tensor([1.0])
    assert len({a: 1, b: 2}) == 2 and a in {a} and b not in {a}


def test_results_get_pytorchs_dtype():
    ints = Tensor([1, 2], dtype=np.int64)
    assert (ints * 1.5).data.tolist() == [1.5, 3.0]
    assert (ints ** 0.5).dtype == np.float64 and (ints / ints).dtype == np.float64
    assert (ints * 2).dtype == np.int64 and (Tensor([1, 2], dtype=np.int32) * np.int64(2)).dtype == np.int32
    assert (Tensor([True, False], dtype=bool) * 2.5).data.tolist() == [2.5, 0.0]
    assert (Tensor([1.0], dtype=np.float32) * np.float64(2)).dtype == np.float32  # a number counts by its kind


def test_what_pytorch_refuses_is_refused():
    with pytest.raises(TypeError, match='Tensor.mean: the mean of a int64 tensor is not defined'):
        Tensor([1, 2], dtype=np.int64).mean()
    with pytest.raises(TypeError, match='Tensor.neg: - of a bool tensor is not supported'):
        -Tensor([True], dtype=bool)


@pytest.mark.parametrize('data', [[1.0, None], ['1.5', '2'], np.array([1 + 2j]), np.array(['2024-01-01'],
                                                                                              dtype='datetime64[D]')])
def test_data_that_is_no_real_numbers_is_refused(data):
    with pytest.raises(TypeError, match='Tensor: takes real numbers'):
        Tensor(data)
    with pytest.raises(TypeError):
        Tensor([1.0]) + np.asarray(data)


def test_a_float16_mean_adds_up_in_float32():
    mean = Tensor(np.ones(70_000, dtype=np.float16), dtype=None).mean()
    assert mean.item() == 1.0 and mean.dtype == np.float16


def test_empty_axes_give_what_pytorch_gives():
    x = Tensor(np.zeros((0, 3)), requires_grad=True)
    assert np.isnan(x.mean().item()) and x.mean(axis=1).shape == (0,)
    x.mean(axis=0).sum().backward()
    assert x.grad.shape == (0, 3)
    assert np.isnan(mt.mse_loss(x, np.zeros((0, 3))).item())
    assert Tensor(np.zeros((2, 0))).softmax().shape == (2, 0)
    scalar = Tensor(2.0, requires_grad=True)
    scalar.sum(axis=0).backward()
    assert scalar.grad == 1.0


def test_numpy_integers_are_sizes_and_axes():
    x = Tensor(np.arange(6.0).reshape(2, 3))
    assert x.reshape(np.prod(x.shape)).shape == (6,)
    assert x.sum(axis=np.int64(1)).data.tolist() == [3.0, 12.0]
    assert Tensor([1.0, 2.0]).permute(np.int64(0)).shape == (2,)


def test_a_tied_weight_is_one_parameter_with_two_names_in_the_state_dict():
    class Tied(mt.Module):
        def __init__(self):
            self.embed = mt.Embedding(5, 3, rng=np.random.default_rng(0))
            self.head = self.embed.weight  # weight tying

    model = Tied()
    assert len(model.parameters()) == 1 and model.parameters()[0] is model.embed.weight
    assert [name for name, _ in model.named_parameters()] == ['embed.weight']
    state = model.state_dict()
    assert sorted(state) == ['embed.weight', 'head'] and state['head'] is state['embed.weight']  # as PyTorch
    model.load_state_dict({'embed.weight': np.zeros((5, 3)), 'head': np.ones((5, 3))})
    assert model.embed.weight.data.tolist() == np.ones((5, 3)).tolist()  # the last one copied
    (model.head.sum() * 2).backward()
    mt.SGD(model.parameters(), lr=0.5).step()
    assert model.embed.weight.data.tolist() == np.zeros((5, 3)).tolist()  # one step, not two


@pytest.mark.parametrize('make, error, message', [
    (lambda: mt.Linear(0, 2), ValueError, 'Linear: sizes must be at least 1, got 0'),
    (lambda: mt.Linear(3.5, 2), TypeError, 'Linear: sizes are whole numbers, got float 3.5'),
    (lambda: mt.Linear(True, 2), TypeError, 'Linear: sizes are whole numbers, got bool True'),
    (lambda: mt.MLP(2, [4], activation='gelu'), ValueError, r"MLP: activation is one of \('relu'"),
    (lambda: mt.MLP(2, 3), ValueError, 'MLP: nouts must list the size of each layer'),
    (lambda: mt.MLP(2, [3.0]), TypeError, 'MLP: sizes are whole numbers'),
    (lambda: mt.Embedding(10, 0), ValueError, 'Embedding: sizes must be at least 1'),
    (lambda: mt.RMSNorm(4.0), TypeError, 'RMSNorm: sizes are whole numbers'),
    (lambda: mt.CausalSelfAttention(8, 2.0), TypeError, 'CausalSelfAttention: sizes are whole numbers'),
    (lambda: mt.CausalSelfAttention(10, 3), ValueError, 'do not split into n_head=3 heads'),
])
def test_layers_check_their_sizes_as_nn_does(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_layers_take_numpy_integer_sizes():
    assert repr(mt.Linear(np.int64(3), np.int32(2))) == 'Linear(3, 2)'
