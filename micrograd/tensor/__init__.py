"""micrograd.tensor: the ideas of engine.py and nn.py over NumPy arrays.

    tensor.py       the Tensor, its arithmetic (also in place: x += y) and backward(): read it beside engine.py;
                    where() and from_numpy()
    node.py         what every op builds on: a tensor's fields, an op's output joining the graph, _add_grad
    the other op families of Tensor, one module each (mixins of it):
      comparisons.py  == != < <= > >=, & | ^ ~, any, all, in: bool results, no gradient
      reductions.py   sum, mean, max, min
      shapes.py       reshape, permute, transpose, swapaxes, indexing, masked_fill
      unary.py        exp, log, tanh, relu, abs, clamp, sigmoid, softmax, log_softmax, astype
      inplace.py      changes in place with PyTorch's rules (x += y, zero_, fill_, copy_, t[i] = v)
      protocols.py    float(t), int(t), np.asarray(t), .shape, copy, pickle, repr
    dtypes.py       PyTorch's dtype rules: which dtype a result gets, and which it computes in (float16)
    checks.py       the checks of arguments: numbers, dtypes, data, sizes, axes, flags
    kernels.py      the NumPy computations: a stable softmax and sigmoid, the sums of backward
    functional.py   functions of tensors: the losses, rms_norm, causal attention
    layers.py       Module, Linear, MLP, and a small GPT's blocks: Embedding, RMSNorm, CausalSelfAttention
    memory.py       keep_freed_memory(): an opt-in allocator setting for training loops (nothing at import)
    tensor_grad.py  grad(), hessian(), hvp(): gradients as Tensors, as torch.autograd.grad, to any order
    vjp_rules.py    each op's gradient once more in Tensor ops, for grad(create_graph=True)
    ../optim.py     SGD and Adam, the same for Values and Tensors

Training looks as in PyTorch:

    import micrograd.tensor as mt
    model = mt.MLP(64, [128, 10])                  # Linear(64, 128), relu, Linear(128, 10)
    optimizer = mt.Adam(model.parameters(), lr=3e-3)
    loss = mt.cross_entropy(model(x_batch), y_batch)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""
try:
    import numpy  # noqa: F401  (checked here, so that the error says what to install)
except ImportError:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError("micrograd.tensor needs NumPy: pip install numpy "
                      "(or, in the clone's folder, pip install -e '.[tensor]')") from None

from micrograd.architecture import ACTIVATIONS  # the activations a layer takes, by name (and micrograd.nn's)
from micrograd.engine import no_grad  # one switch stops both Values and Tensors recording
from micrograd.optim import SGD, Adam
from micrograd.tensor.functional import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    causal_mask,
    cross_entropy,
    mse_loss,
    rms_norm,
    scaled_dot_product_attention,
)
from micrograd.tensor.layers import MLP, CausalSelfAttention, Embedding, Linear, Module, RMSNorm
from micrograd.tensor.memory import keep_freed_memory
from micrograd.tensor.tensor import Tensor, from_numpy, where
from micrograd.tensor.tensor_grad import grad, hessian, hvp

__all__ = ['Tensor', 'from_numpy', 'where', 'no_grad', 'mse_loss', 'binary_cross_entropy',
           'binary_cross_entropy_with_logits', 'cross_entropy', 'rms_norm', 'causal_mask',
           'scaled_dot_product_attention', 'Module', 'Linear', 'MLP', 'ACTIVATIONS', 'Embedding', 'RMSNorm',
           'CausalSelfAttention', 'SGD', 'Adam', 'keep_freed_memory', 'grad', 'hessian', 'hvp']
