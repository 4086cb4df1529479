"""Every tensor op's gradients against PyTorch (float64) and against central differences,
on random shapes including broadcasting; broadcasting shapes as properties (hypothesis);
every op in float32; the special points (0, ties, infinities) where a rule may break."""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import micrograd.tensor as mt

try:
    import torch
except ImportError:  # the checks that need no PyTorch (central differences, dtypes) still run
    torch = None
needs_torch = pytest.mark.skipif(torch is None,
                                 reason="PyTorch's CPU build is only installed for the 3.11 test environment")


@pytest.fixture(autouse=True, scope='module')
def one_torch_thread():
    # These tensors are tiny: PyTorch's thread pool only adds waiting, badly so on a busy machine.
    if torch is None:
        yield
        return
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


# Each case: (ours, PyTorch's, input shapes, the interval inputs are drawn from). Intervals stay away from
# kinks (relu at 0), poles (1/0) and undefined values (log of <= 0), where neither side has a unique answer.
AWAY_FROM_0 = 'away from 0'
CASES = {
    'add': (lambda a, b: a + b, lambda a, b: a + b, [(3, 4), (3, 4)], (-2, 2)),
    'add row': (lambda a, b: a + b, lambda a, b: a + b, [(3, 4), (4,)], (-2, 2)),
    'add column': (lambda a, b: a + b, lambda a, b: a + b, [(3, 1), (1, 4)], (-2, 2)),
    'add scalar tensor': (lambda a, b: a + b, lambda a, b: a + b, [(), (2, 3)], (-2, 2)),
    'sub 3-d': (lambda a, b: a - b, lambda a, b: a - b, [(2, 1, 4), (3, 1)], (-2, 2)),
    'mul': (lambda a, b: a * b, lambda a, b: a * b, [(2, 3, 4), (3, 1)], (-2, 2)),
    'div': (lambda a, b: a / b, lambda a, b: a / b, [(3, 4), (4,)], AWAY_FROM_0),
    'pow number': (lambda a: a ** 3, lambda a: a ** 3, [(3, 4)], (-2, 2)),
    'pow fraction': (lambda a: a ** 1.5, lambda a: a ** 1.5, [(3, 4)], (0.1, 3)),
    'pow tensor': (lambda a, b: a ** b, lambda a, b: a ** b, [(3, 4), (4,)], (0.2, 2)),
    'rpow': (lambda a: 2 ** a, lambda a: 2 ** a, [(3,)], (-2, 2)),
    'rsub rdiv': (lambda a: 1 - 2 / a, lambda a: 1 - 2 / a, [(3,)], AWAY_FROM_0),
    'neg': (lambda a: -a, lambda a: -a, [(3,)], (-2, 2)),
    'matmul': (lambda a, b: a @ b, lambda a, b: a @ b, [(3, 4), (4, 5)], (-2, 2)),
    'matmul batched': (lambda a, b: a @ b, lambda a, b: a @ b, [(2, 3, 4), (2, 4, 5)], (-2, 2)),
    'matmul broadcast batch': (lambda a, b: a @ b, lambda a, b: a @ b, [(2, 1, 3, 4), (3, 4, 2)], (-2, 2)),
    'matmul rows': (lambda a, b: a @ b, lambda a, b: a @ b, [(2, 3, 4), (4, 5)], (-2, 2)),  # a Linear on (B, T, C)
    'matmul rows 4-d': (lambda a, b: a @ b, lambda a, b: a @ b, [(2, 1, 3, 4), (4, 2)], (-2, 2)),
    'matmul vector-matrix': (lambda a, b: a @ b, lambda a, b: a @ b, [(4,), (2, 4, 3)], (-2, 2)),
    'matmul matrix-vector': (lambda a, b: a @ b, lambda a, b: a @ b, [(2, 3, 4), (4,)], (-2, 2)),
    'matmul vector-vector': (lambda a, b: a @ b, lambda a, b: a @ b, [(4,), (4,)], (-2, 2)),
    'rmatmul array': (lambda a: np.ones((2, 3), dtype=a.dtype) @ a, lambda a: torch.ones(2, 3, dtype=a.dtype) @ a,
                      [(3, 4)], (-2, 2)),
    'sum': (lambda a: a.sum(), lambda a: a.sum(), [(3, 4)], (-2, 2)),
    'sum axis': (lambda a: a.sum(axis=1), lambda a: a.sum(dim=1), [(2, 3, 4)], (-2, 2)),
    'sum axes keepdims': (lambda a: a.sum(axis=(0, -1), keepdims=True),
                          lambda a: a.sum(dim=(0, -1), keepdim=True), [(2, 3, 4)], (-2, 2)),
    'mean': (lambda a: a.mean(), lambda a: a.mean(), [(3, 4)], (-2, 2)),
    'mean axis keepdims': (lambda a: a.mean(axis=-1, keepdims=True), lambda a: a.mean(dim=-1, keepdim=True),
                           [(2, 3, 4)], (-2, 2)),
    'max': (lambda a: a.max(), lambda a: a.amax(), [(3, 4)], (-2, 2)),
    'max axis': (lambda a: a.max(axis=0), lambda a: a.amax(dim=0), [(3, 4)], (-2, 2)),
    'max axes keepdims': (lambda a: a.max(axis=(1, 2), keepdims=True), lambda a: a.amax(dim=(1, 2), keepdim=True),
                          [(2, 3, 4)], (-2, 2)),
    'reshape': (lambda a: a.reshape(4, 3) * np.arange(12.0, dtype=a.dtype).reshape(4, 3),
                lambda a: a.reshape(4, 3) * torch.arange(12.0, dtype=a.dtype).reshape(4, 3), [(3, 4)], (-2, 2)),
    'transpose': (lambda a: a.transpose(1, 2, 0), lambda a: a.permute(1, 2, 0), [(2, 3, 4)], (-2, 2)),
    'T': (lambda a: a.T, lambda a: a.permute(2, 1, 0), [(2, 3, 4)], (-2, 2)),
    'slice': (lambda a: a[1:, ::2], lambda a: a[1:, ::2], [(3, 4)], (-2, 2)),
    'int': (lambda a: a[1], lambda a: a[1], [(3, 4)], (-2, 2)),
    'repeated indices': (lambda a: a[np.array([0, 2, 0, 0])], lambda a: a[torch.tensor([0, 2, 0, 0])],
                         [(3, 4)], (-2, 2)),
    'rows by a 2-d array of ids': (lambda a: a[np.array([[0, -1], [2, 0]])],  # -1 is the last row
                                   lambda a: a[torch.tensor([[0, -1], [2, 0]])], [(3, 2, 2)], (-2, 2)),
    'a vector by ids': (lambda a: a[np.array([1, 1, 0])], lambda a: a[torch.tensor([1, 1, 0])], [(3,)], (-2, 2)),
    'fancy pairs': (lambda a: a[np.array([0, 1, 1]), np.array([2, 3, 3])],
                    lambda a: a[torch.tensor([0, 1, 1]), torch.tensor([2, 3, 3])], [(3, 4)], (-2, 2)),
    'mask': (lambda a: a[np.array([True, False, True])], lambda a: a[torch.tensor([True, False, True])],
             [(3, 4)], (-2, 2)),
    'exp': (lambda a: a.exp(), lambda a: a.exp(), [(3, 4)], (-2, 2)),
    'log': (lambda a: a.log(), lambda a: a.log(), [(3, 4)], (0.1, 3)),
    'tanh': (lambda a: a.tanh(), lambda a: a.tanh(), [(3, 4)], (-2, 2)),
    'relu': (lambda a: a.relu(), lambda a: a.relu(), [(3, 4)], AWAY_FROM_0),
    'sigmoid': (lambda a: a.sigmoid(), lambda a: a.sigmoid(), [(3, 4)], (-6, 6)),
    'softmax': (lambda a: a.softmax(), lambda a: a.softmax(dim=-1), [(3, 4)], (-3, 3)),
    'softmax axis 0': (lambda a: a.softmax(axis=0), lambda a: a.softmax(dim=0), [(3, 4)], (-3, 3)),
    'log_softmax': (lambda a: a.log_softmax(axis=1), lambda a: a.log_softmax(dim=1), [(2, 3, 4)], (-3, 3)),
    'mse_loss': (lambda a, b: mt.mse_loss(a, b), lambda a, b: torch.nn.functional.mse_loss(a, b),
                 [(5, 2), (5, 2)], (-2, 2)),
    'binary_cross_entropy': (lambda a, b: mt.binary_cross_entropy(a, b.data),
                             lambda a, b: torch.nn.functional.binary_cross_entropy(a, b.detach()),
                             [(6,), (6,)], (0.05, 0.95)),
    'binary_cross_entropy_with_logits': (
        lambda a, b: mt.binary_cross_entropy_with_logits(a, b.data),
        lambda a, b: torch.nn.functional.binary_cross_entropy_with_logits(a, b.detach()), [(6,), (6,)], (-4, 4)),
    'cross_entropy': (lambda a: mt.cross_entropy(a, np.array([0, 3, 3, 1])),
                      lambda a: torch.nn.functional.cross_entropy(a, torch.tensor([0, 3, 3, 1])), [(4, 5)], (-3, 3)),
    'permute': (lambda a: a.permute(2, 0, 1), lambda a: a.permute(2, 0, 1), [(2, 3, 4)], (-2, 2)),
    'permute negative': (lambda a: a.permute(-1, 0, -2), lambda a: a.permute(-1, 0, -2), [(2, 3, 4)], (-2, 2)),
    'swapaxes': (lambda a: a.swapaxes(1, -1), lambda a: a.transpose(1, -1), [(2, 3, 4)], (-2, 2)),
    # (B, T, C) -> (B, n_head, T, head_dim), each element weighted differently, and back to (B, T, C)
    'heads and back': (lambda a: (a.reshape(2, 3, 2, 2).swapaxes(1, 2)
                                  * np.arange(24.0, dtype=a.dtype).reshape(2, 2, 3, 2)).swapaxes(1, 2).reshape(2, 3, 4),
                       lambda a: (a.view(2, 3, 2, 2).transpose(1, 2) * torch.arange(24.0, dtype=a.dtype)
                                  .reshape(2, 2, 3, 2)).transpose(1, 2).reshape(2, 3, 4),
                       [(2, 3, 4)], (-2, 2)),
    'masked_fill': (lambda a: a.masked_fill(np.array([True, False, False, True]), 0.5),
                    lambda a: a.masked_fill(torch.tensor([True, False, False, True]), 0.5), [(3, 4)], (-2, 2)),
    'masked_fill causal softmax': (lambda a: a.masked_fill(mt.causal_mask(4), -np.inf).softmax(),
                                   lambda a: a.masked_fill(torch.ones(4, 4, dtype=torch.bool).triu(1), -torch.inf)
                                   .softmax(dim=-1), [(2, 4, 4)], (-3, 3)),
    'rms_norm': (lambda a: mt.rms_norm(a), lambda a: torch.nn.functional.rms_norm(a, (4,), eps=1e-5),
                 [(2, 3, 4)], (-2, 2)),
    'cross_entropy ignore_index': (lambda a: mt.cross_entropy(a, np.array([0, -100, 3, -100, 1])),
                                   lambda a: torch.nn.functional.cross_entropy(a, torch.tensor([0, -100, 3, -100, 1])),
                                   [(5, 4)], (-3, 3)),
    'attention': (lambda q, k, v: mt.scaled_dot_product_attention(q, k, v),
                  lambda q, k, v: torch.nn.functional.scaled_dot_product_attention(q, k, v),
                  [(2, 3, 2), (2, 4, 2), (2, 4, 3)], (-2, 2)),
    'causal attention': (lambda q, k, v: mt.scaled_dot_product_attention(q, k, v, is_causal=True),
                         lambda q, k, v: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True),
                         [(2, 2, 4, 3), (2, 2, 4, 3), (2, 2, 4, 3)], (-2, 2)),
    'attention broadcast batch': (lambda q, k, v: mt.scaled_dot_product_attention(q, k, v),
                                  lambda q, k, v: torch.nn.functional.scaled_dot_product_attention(q, k, v),
                                  [(2, 3, 4, 2), (3, 5, 2), (1, 3, 5, 3)], (-2, 2)),
    'causal attention, one sequence': (
        lambda q, k, v: mt.scaled_dot_product_attention(q, k, v, is_causal=True),
        lambda q, k, v: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True),
        [(5, 3), (5, 3), (5, 2)], (-2, 2)),
    'rms_norm of vectors': (lambda a: mt.rms_norm(a, eps=1e-3),
                            lambda a: torch.nn.functional.rms_norm(a, (5,), eps=1e-3), [(4, 5)], (-2, 2)),
    'chain': (lambda a, b, c: ((a @ b + c).tanh() * 2 - a.sum()).sigmoid().mean(axis=0),
              lambda a, b, c: ((a @ b + c).tanh() * 2 - a.sum()).sigmoid().mean(dim=0),
              [(3, 4), (4, 2), (2,)], (-1, 1)),
}


def draw(rng, shape, interval):
    if interval == AWAY_FROM_0:  # |x| in [0.5, 2], either sign
        return rng.uniform(0.5, 2, shape) * rng.choice([-1.0, 1.0], shape)
    return rng.uniform(*interval, shape)


def inputs_and_weights(name, seed=0):
    """Random inputs for a case, and random weights w for the scalar sum(w * output) to differentiate."""
    ours, _, shapes, interval = CASES[name]
    rng = np.random.default_rng(seed)
    arrays = [draw(rng, shape, interval) for shape in shapes]
    out_shape = ours(*[mt.Tensor(a) for a in arrays]).shape
    return arrays, rng.normal(size=out_shape)  # weights, so that every output element counts differently


def our_grads(fn, arrays, weights):
    tensors = [mt.Tensor(a, requires_grad=True) for a in arrays]
    out = fn(*tensors)
    out.backward(weights)
    return out.data, [t.grad for t in tensors]


@needs_torch
@pytest.mark.parametrize('name', CASES)
def test_against_pytorch(name):
    ours, theirs, _, _ = CASES[name]
    arrays, weights = inputs_and_weights(name)
    out, grads = our_grads(ours, arrays, weights)

    tensors = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    torch_out = theirs(*tensors)
    torch_out.backward(torch.from_numpy(weights))
    np.testing.assert_allclose(out, torch_out.detach().numpy(), rtol=1e-12, atol=1e-12)
    for ours_grad, t in zip(grads, tensors):
        if t.grad is None:  # a target passed as data
            assert ours_grad is None
            continue
        assert ours_grad.shape == t.shape
        np.testing.assert_allclose(ours_grad, t.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize('name', CASES)
def test_against_central_differences(name):
    """d sum(w * f(x)) / dx_i ~ (g(x + h e_i) - g(x - h e_i)) / 2h, for every element of every input."""
    ours, _, _, _ = CASES[name]
    arrays, weights = inputs_and_weights(name, seed=1)
    _, grads = our_grads(ours, arrays, weights)

    def g(*xs):
        return float((ours(*[mt.Tensor(x) for x in xs]).data * weights).sum())

    h = 1e-6
    for k, a in enumerate(arrays):
        if grads[k] is None:
            continue  # a target passed as data
        numeric = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            plus, minus = [x.copy() for x in arrays], [x.copy() for x in arrays]
            plus[k][i] += h
            minus[k][i] -= h
            numeric[i] = (g(*plus) - g(*minus)) / (2 * h)
        np.testing.assert_allclose(grads[k], numeric, rtol=1e-5, atol=1e-7)


@needs_torch
@pytest.mark.parametrize('axis', [None, 0, 1])
def test_max_with_ties_matches_torch_amax(axis):
    data = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])
    x = mt.Tensor(data, requires_grad=True)
    t = torch.tensor(data, requires_grad=True)
    (x.max(axis=axis) * 1.0).sum().backward()
    (t.amax() if axis is None else t.amax(dim=axis)).sum().backward()
    np.testing.assert_array_equal(x.grad, t.grad.numpy())


# --- broadcasting as a property: any shapes NumPy can broadcast give PyTorch's gradients, shaped like the inputs ---

BINARY = {'+': lambda a, b: a + b, '-': lambda a, b: a - b, '*': lambda a, b: a * b, '/': lambda a, b: a / b}


@needs_torch
@settings(max_examples=60, deadline=None, derandomize=True)
@given(shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=3),
       op=st.sampled_from(sorted(BINARY)), seed=st.integers(0, 2 ** 16))
def test_broadcasting_gradients_match_pytorch(shapes, op, seed):
    rng = np.random.default_rng(seed)
    a, b = (rng.uniform(0.5, 2, shape) for shape in shapes.input_shapes)  # away from 0: b is a divisor
    weights = rng.normal(size=shapes.result_shape)
    out, (grad_a, grad_b) = our_grads(BINARY[op], [a, b], weights)

    ta, tb = (torch.tensor(x, requires_grad=True) for x in (a, b))
    BINARY[op](ta, tb).backward(torch.from_numpy(weights))
    assert out.shape == shapes.result_shape
    assert grad_a.shape == a.shape and grad_b.shape == b.shape
    np.testing.assert_allclose(grad_a, ta.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(grad_b, tb.grad.numpy(), rtol=1e-10, atol=1e-12)


@needs_torch
@settings(max_examples=40, deadline=None, derandomize=True)
@given(shapes=mutually_broadcastable_shapes(signature='(m,n),(n,p)->(m,p)', max_dims=2, max_side=3),
       seed=st.integers(0, 2 ** 16))
def test_batched_matmul_broadcasting_matches_pytorch(shapes, seed):
    rng = np.random.default_rng(seed)
    a, b = (rng.normal(size=shape) for shape in shapes.input_shapes)
    weights = rng.normal(size=shapes.result_shape)
    out, (grad_a, grad_b) = our_grads(lambda x, y: x @ y, [a, b], weights)

    ta, tb = (torch.tensor(x, requires_grad=True) for x in (a, b))
    (ta @ tb).backward(torch.from_numpy(weights))
    np.testing.assert_allclose(grad_a, ta.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(grad_b, tb.grad.numpy(), rtol=1e-10, atol=1e-12)


# --- training: the same model, data and optimizer take the same steps as in PyTorch ---

@needs_torch
@pytest.mark.parametrize('optimizer', ['sgd', 'sgd momentum', 'adam'])
def test_training_steps_match_pytorch(optimizer):
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(32, 5)), rng.integers(0, 3, 32)
    model = mt.MLP(5, [8, 3], activation='tanh', rng=rng)
    torch_model = torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3)).double()
    with torch.no_grad():
        for layer, torch_layer in zip(model.layers, (torch_model[0], torch_model[2])):
            torch_layer.weight.copy_(torch.from_numpy(layer.weight.data.T))  # PyTorch stores weight.T
            torch_layer.bias.copy_(torch.from_numpy(layer.bias.data))
    make = {'sgd': (mt.SGD, torch.optim.SGD, dict(lr=0.1)),
            'sgd momentum': (mt.SGD, torch.optim.SGD, dict(lr=0.1, momentum=0.9)),
            'adam': (mt.Adam, torch.optim.Adam, dict(lr=0.01))}[optimizer]
    opt, torch_opt = make[0](model.parameters(), **make[2]), make[1](torch_model.parameters(), **make[2])
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    for _ in range(20):
        loss = mt.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        torch_loss = torch.nn.functional.cross_entropy(torch_model(xt), yt)
        torch_opt.zero_grad()
        torch_loss.backward()
        torch_opt.step()
        assert loss.item() == pytest.approx(torch_loss.item(), rel=1e-10)
    for layer, torch_layer in zip(model.layers, (torch_model[0], torch_model[2])):
        np.testing.assert_allclose(layer.weight.data, torch_layer.weight.detach().numpy().T, rtol=1e-9, atol=1e-12)


def test_float32_tensors_stay_float32():
    x = mt.Tensor(np.ones((2, 3)), requires_grad=True, dtype=np.float32)
    out = ((x * 2.5 + 1) @ np.ones((3, 2), dtype=np.float32)).tanh().mean()
    assert out.data.dtype == np.float32
    out.backward()
    assert x.grad.dtype == np.float32


def test_a_float32_model_trains_in_float32():
    model = mt.MLP(3, [4, 2], rng=np.random.default_rng(0))
    for p in model.parameters():
        p.data = p.data.astype(np.float32)
    logits = model(np.ones((5, 3)))  # a float64 array input is taken in the weights' dtype
    assert logits.data.dtype == np.float32
    mt.cross_entropy(logits, np.zeros(5, dtype=int)).backward()
    assert all(p.grad.dtype == np.float32 for p in model.parameters())


# --- the blocks of a small GPT, as layers with their weights copied into PyTorch ---

@needs_torch
def test_embedding_matches_pytorch():
    emb = mt.Embedding(6, 3, rng=np.random.default_rng(0))
    ids = np.array([[0, 5, 5, 2], [2, 2, 1, 0]])
    weights = np.random.default_rng(1).normal(size=(2, 4, 3))
    out = emb(ids)
    out.backward(weights)
    w = torch.tensor(emb.weight.data, requires_grad=True)
    torch_out = torch.nn.functional.embedding(torch.from_numpy(ids), w)
    torch_out.backward(torch.from_numpy(weights))
    np.testing.assert_array_equal(out.data, torch_out.detach().numpy())
    np.testing.assert_allclose(emb.weight.grad, w.grad.numpy(), rtol=1e-14)


@needs_torch
def test_rms_norm_layer_matches_pytorch():
    norm = mt.RMSNorm(4)
    norm.weight.data[...] = np.random.default_rng(0).normal(size=4)
    torch_norm = torch.nn.RMSNorm(4, eps=1e-5).double()
    with torch.no_grad():
        torch_norm.weight.copy_(torch.from_numpy(norm.weight.data))
    x0, weights = np.random.default_rng(1).normal(size=(2, 3, 4)), np.random.default_rng(2).normal(size=(2, 3, 4))
    x, tx = mt.Tensor(x0, requires_grad=True), torch.tensor(x0, requires_grad=True)
    norm(x).backward(weights)
    torch_norm(tx).backward(torch.from_numpy(weights))
    np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(norm.weight.grad, torch_norm.weight.grad.numpy(), rtol=1e-10, atol=1e-12)


def torch_causal_self_attention(n_embd, n_head):
    """The same block written in PyTorch, as nanoGPT writes it."""
    class TorchCausalSelfAttention(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.q, self.k, self.v, self.o = (torch.nn.Linear(n_embd, n_embd, bias=False) for _ in range(4))

        def forward(self, x):
            B, T, C = x.shape

            def heads(t):
                return t.view(B, T, n_head, C // n_head).transpose(1, 2)
            scores = heads(self.q(x)) @ heads(self.k(x)).transpose(-2, -1) / (C // n_head) ** 0.5
            scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float('-inf'))
            y = scores.softmax(dim=-1) @ heads(self.v(x))
            return self.o(y.transpose(1, 2).reshape(B, T, C))
    return TorchCausalSelfAttention().double()


@needs_torch
@pytest.mark.parametrize('n_head', [1, 4])
def test_causal_self_attention_matches_pytorch(n_head):
    att = mt.CausalSelfAttention(8, n_head, rng=np.random.default_rng(0))
    torch_att = torch_causal_self_attention(8, n_head)
    with torch.no_grad():
        for name in 'qkvo':
            # Our Linear stores its weight as (in, out), PyTorch's as (out, in).
            getattr(torch_att, name).weight.copy_(torch.from_numpy(getattr(att, name).weight.data.T))
    rng = np.random.default_rng(1)
    x0, weights = rng.normal(size=(3, 5, 8)), rng.normal(size=(3, 5, 8))
    x, tx = mt.Tensor(x0, requires_grad=True), torch.tensor(x0, requires_grad=True)
    out, torch_out = att(x), torch_att(tx)
    out.backward(weights)
    torch_out.backward(torch.from_numpy(weights))
    np.testing.assert_allclose(out.data, torch_out.detach().numpy(), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    for name in 'qkvo':
        np.testing.assert_allclose(getattr(att, name).weight.grad, getattr(torch_att, name).weight.grad.numpy().T,
                                   rtol=1e-10, atol=1e-12)


@needs_torch
def test_cross_entropy_with_every_target_ignored_is_nan_as_in_pytorch():
    logits = mt.Tensor(np.zeros((2, 3)), requires_grad=True)
    t = torch.zeros(2, 3, dtype=torch.float64, requires_grad=True)
    loss = mt.cross_entropy(logits, [-100, -100])
    torch_loss = torch.nn.functional.cross_entropy(t, torch.tensor([-100, -100]))
    assert np.isnan(loss.item()) and np.isnan(torch_loss.item())
    loss.backward()
    torch_loss.backward()
    np.testing.assert_array_equal(logits.grad, t.grad.numpy())  # zeros


# --- sweeps for the kind of bug an independent check found: each rule at every variant of its input ---

@pytest.mark.parametrize('name', CASES)
def test_every_op_keeps_float32(name):
    """Every output and every gradient in the graph is float32 when the inputs are, also as leaves accumulate."""
    ours, _, _, _ = CASES[name]
    arrays, weights = inputs_and_weights(name)
    tensors = [mt.Tensor(a, requires_grad=True, dtype=np.float32) for a in arrays]
    out = ours(*tensors)
    for _ in range(2):  # the second call adds to the leaves' gradients
        out.backward(weights)  # float64 weights: backward() takes them in out's dtype
        for node in out._topological_order():
            assert node.data.dtype == np.float32, f"op {node._op!r} made {node.data.dtype}"
            assert node.grad.dtype == np.float32, f"op {node._op!r} received a {node.grad.dtype} gradient"
        for t in tensors:
            assert t.grad is None or t.grad.dtype == np.float32


ORDERS_OF_3_AXES = [tuple(a - 3 if negative else a for a, negative in zip(order, signs))
                    for order in itertools.permutations(range(3))
                    for signs in itertools.product([False, True], repeat=3)]  # (1, 2, 0), (1, 2, -3), (-2, 2, 0), ...


@needs_torch
@pytest.mark.parametrize('method', ['permute', 'transpose'])
@pytest.mark.parametrize('axes', ORDERS_OF_3_AXES, ids=str)
def test_every_order_of_3_axes_matches_torch_permute(axes, method):
    data = np.arange(24.0).reshape(2, 3, 4)
    x, t = mt.Tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    out, torch_out = getattr(x, method)(*axes), t.permute(*axes)
    weights = np.random.default_rng(0).normal(size=out.shape)
    out.backward(weights)
    torch_out.backward(torch.from_numpy(weights))
    np.testing.assert_array_equal(out.data, torch_out.detach().numpy())
    np.testing.assert_array_equal(x.grad, t.grad.numpy())


SPECIAL_POINTS = np.array([-1000.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 1000.0])
NON_NEGATIVE = SPECIAL_POINTS[SPECIAL_POINTS >= 0]
ELEMENTWISE = {  # name: (ours, PyTorch's, the special points where both are defined)
    **{f'x ** {k}': (lambda x, k=k: x ** k, lambda x, k=k: x ** k, SPECIAL_POINTS) for k in (0, 1, 2, 3, -1, -2)},
    **{f'x ** {k}': (lambda x, k=k: x ** k, lambda x, k=k: x ** k, NON_NEGATIVE) for k in (0.0, 0.5, 1.5, -0.5)},
    '2 ** x': (lambda x: 2 ** x, lambda x: 2 ** x, SPECIAL_POINTS),
    'relu': (lambda x: x.relu(), lambda x: x.relu(), SPECIAL_POINTS),
    'tanh': (lambda x: x.tanh(), lambda x: x.tanh(), SPECIAL_POINTS),
    'sigmoid': (lambda x: x.sigmoid(), lambda x: x.sigmoid(), SPECIAL_POINTS),
    'exp': (lambda x: x.exp(), lambda x: x.exp(), SPECIAL_POINTS),
    'log': (lambda x: x.log(), lambda x: x.log(), np.array([1e-300, 0.5, 1.0, 1000.0])),
    '1 / x': (lambda x: 1 / x, lambda x: 1 / x, SPECIAL_POINTS),
    'x / 0': (lambda x: x / 0.0, lambda x: x / 0.0, SPECIAL_POINTS),
    'max with ties': (lambda x: x.reshape(3, 3).max(axis=1), lambda x: x.reshape(3, 3).amax(dim=1),
                      np.array([0.0, 0.0, -1.0, 2.0, 2.0, 2.0, -np.inf, -np.inf, -np.inf])),
    'softmax with -inf': (lambda x: x.reshape(3, 3).softmax(), lambda x: x.reshape(3, 3).softmax(dim=-1),
                          np.array([0.0, -np.inf, 1.0, -np.inf, 2.0, -np.inf, 1000.0, -1000.0, 0.0])),
    'log_softmax with -inf': (lambda x: x.reshape(3, 3).log_softmax(), lambda x: x.reshape(3, 3).log_softmax(dim=-1),
                              np.array([0.0, -np.inf, 1.0, -np.inf, 2.0, -np.inf, 1000.0, -1000.0, 0.0])),
}


@needs_torch
@pytest.mark.parametrize('name', ELEMENTWISE)
def test_special_points_match_pytorch(name):
    """Values and gradients at 0, at ties, at +-1000 and at infinities (inf and nan included) are PyTorch's."""
    ours, theirs, points = ELEMENTWISE[name]
    x, t = mt.Tensor(points, requires_grad=True), torch.tensor(points, requires_grad=True)
    with np.errstate(all='ignore'):  # 1 / 0 and exp(1000) warn; both sides give inf
        out = ours(x)
        weights = np.linspace(0.5, 1.5, out.data.size).reshape(out.shape)
        out.backward(weights)
    torch_out = theirs(t)
    torch_out.backward(torch.from_numpy(weights))
    np.testing.assert_allclose(out.data, torch_out.detach().numpy(), rtol=1e-13, equal_nan=True)
    np.testing.assert_allclose(x.grad, t.grad.numpy(), rtol=1e-13, equal_nan=True)
