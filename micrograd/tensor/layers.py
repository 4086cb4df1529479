"""Layers: Modules that hold trainable tensors and apply them, as torch.nn.

A Module finds its parameters in its attributes, so a layer only assigns its weights
(self.weight = Tensor(..., requires_grad=True)) and says what forward() does with them.
micrograd.nn's Modules are named, saved and loaded by the same walker (micrograd/state.py),
and both engines' layers check sizes and name activations by micrograd/architecture.py.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from micrograd import architecture, state
from micrograd.tensor.checks import number, real_array
from micrograd.tensor.dtypes import Array
from micrograd.tensor.functional import rms_norm, scaled_dot_product_attention
from micrograd.tensor.tensor import Tensor


class Module:
    """Anything with parameters. parameters() finds them in the attributes: tensors that no
    op made (an output kept from a pass under no_grad() is none, though a leaf), in Modules,
    plain objects, lists, tuples and dicts, in the order they were assigned. A frozen
    parameter (p.requires_grad = False, to fine-tune the others) is still one, as in PyTorch:
    listed, saved by state_dict() and loaded (optimizers skip it: it gets no gradient). So is
    a data tensor a module keeps (a mask, say): saved and loaded, as a PyTorch buffer is.

    A tensor reached under two names (weight tying: self.head = self.embed.weight) is one
    parameter: listed once, under its first name, so an optimizer steps it once. As in
    PyTorch, state_dict() has an entry for each name, and both hold the same array.
    """

    def named_parameters(self) -> list[tuple[str, Tensor]]:
        """('layers.0.weight', tensor) pairs, each parameter once: the names state_dict() uses."""
        return list(state.first_names(_parameters(self)))

    def parameters(self) -> list[Tensor]:
        return [p for _, p in self.named_parameters()]

    def zero_grad(self) -> None:
        """Gradients accumulate across backward() calls: reset them before each step."""
        for p in self.parameters():
            p.grad = None

    def state_dict(self) -> dict[str, Array]:
        """name -> a copy of that parameter's array: save it with np.savez(path, **state).
        A shared parameter has an entry under each of its names, the same array in all."""
        copies: dict[int, Array] = {}
        return {name: copies.setdefault(id(p), p.data.copy()) for name, p in _parameters(self)}

    def load_state_dict(self, saved: Mapping[str, Array]) -> None:
        """Copy saved arrays into the parameters, in place (optimizers keep working).

        Every name of state_dict() must be there (a shared parameter's too, as in PyTorch; the
        last one copied is what it holds), and no other (a ValueError names them). Every entry is
        checked before any is copied: a refused state leaves the model as it was.
        """
        params = dict(_parameters(self))

        def array(value: object, name: str, where: str) -> Array:  # a saved value, checked to fit its parameter
            a = real_array(value, f"{where} ({name!r})")
            if a.shape != params[name].data.shape:
                raise ValueError(f"{where}: {name!r} has shape {a.shape}, the model expects {params[name].data.shape}")
            return a
        for name, values in state.checked_state(self, params, saved, array).items():
            params[name].data[...] = values
            params[name]._note_change('load_state_dict')  # (a graph made before reads the old values: see node.py)

    def __call__(self, x: Any) -> Tensor:
        return self.forward(x)

    def forward(self, x: Any) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} must define forward(x), what the layer computes")


def _parameters(model: Module) -> Iterator[tuple[str, Tensor]]:
    """Every (name, parameter) of model, a shared one under each of its names: the tensors it holds that no op
    made, trainable or frozen (requires_grad=False), not an op's output it keeps (made under no_grad() too)."""
    return state.named_leaves(model, Tensor, _is_parameter)


def _is_parameter(t: Tensor) -> bool:
    return not t._by_op and t.is_leaf  # (a tensor an op changed in place while recording has a history)


def _as_tensor(x: Tensor | Array, dtype: np.dtype[Any]) -> Tensor:
    """A layer takes an array input as a data tensor of its weights' dtype."""
    return x if isinstance(x, Tensor) else Tensor(x, dtype=dtype)


class Linear(Module):
    """x @ weight + bias, with weight and bias drawn from uniform(-k, k), k = 1/sqrt(in_features).

    That is PyTorch's nn.Linear, except that weight has shape (in_features, out_features),
    so the forward pass needs no transpose (PyTorch stores weight.T).
    Pass rng (a np.random.Generator) for reproducible weights; otherwise np.random's global state is used.
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 rng: np.random.Generator | None = None):
        in_features = architecture.checked_size(in_features, 'Linear')
        out_features = architecture.checked_size(out_features, 'Linear')
        uniform = (rng or np.random).uniform
        k = 1 / math.sqrt(in_features)
        self.weight = Tensor(uniform(-k, k, (in_features, out_features)), requires_grad=True)
        self.bias = Tensor(uniform(-k, k, out_features), requires_grad=True) if bias else None

    def forward(self, x: Tensor | Array) -> Tensor:
        out = _as_tensor(x, self.weight.data.dtype) @ self.weight
        return out if self.bias is None else out + self.bias

    def __repr__(self) -> str:
        n_in, n_out = self.weight.data.shape
        return f"Linear({n_in}, {n_out}{'' if self.bias is not None else ', bias=False'})"


_APPLY: dict[str, Callable[[Tensor], Tensor]] = {
    'relu': Tensor.relu, 'tanh': Tensor.tanh, 'sigmoid': Tensor.sigmoid, 'linear': lambda x: x}


class MLP(Module):
    """Linear layers of sizes nouts; every layer but the last applies the activation.

    MLP(64, [128, 10]) is Linear(64, 128), relu, Linear(128, 10), as nn.MLP(64, [128, 10]).
    bias=False leaves the biases out (a GPT's MLP has none).
    """

    def __init__(self, nin: int, nouts: Sequence[int], activation: str = 'relu',
                 rng: np.random.Generator | None = None, bias: bool = True):
        self.activation = architecture.checked_activation(activation, 'MLP')  # one of ACTIVATIONS
        sizes = architecture.checked_sizes(nin, nouts, 'MLP')  # [nin] + nouts
        self.layers = [Linear(sizes[i], sizes[i + 1], bias=bias, rng=rng) for i in range(len(sizes) - 1)]

    def forward(self, x: Tensor | Array) -> Tensor:
        out = _as_tensor(x, self.layers[0].weight.data.dtype)
        act = _APPLY[self.activation]
        for layer in self.layers[:-1]:
            out = act(layer(out))
        return self.layers[-1](out)

    def __repr__(self) -> str:
        return f"MLP({', '.join(map(repr, self.layers))}, activation={self.activation!r})"


# --- the blocks of a small GPT ---

class Embedding(Module):
    """A table of num_embeddings vectors of embedding_dim numbers, as torch.nn.Embedding.

    forward(indices) looks rows up: weight[indices], for integer indices of any shape; the
    output has shape indices.shape + (embedding_dim,). A row looked up several times gets
    the sum of their gradients. Rows are drawn from N(0, 1), as in PyTorch.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, rng: np.random.Generator | None = None):
        num_embeddings = architecture.checked_size(num_embeddings, 'Embedding')
        embedding_dim = architecture.checked_size(embedding_dim, 'Embedding')
        self.weight = Tensor((rng or np.random).normal(0.0, 1.0, (num_embeddings, embedding_dim)), requires_grad=True)

    def forward(self, indices: Tensor | Array | list[Any] | int) -> Tensor:
        idx = np.asarray(indices.data if isinstance(indices, Tensor) else indices)
        if idx.dtype.kind not in 'iu' and idx.size:
            raise TypeError(f"{self!r}: indices must be integers, got {idx.flat[0].item()!r} (dtype {idx.dtype})")
        n = self.weight.data.shape[0]
        outside = idx[(idx < 0) | (idx >= n)]
        if outside.size:
            raise IndexError(f"{self!r}: index {outside[0].item()} is out of range: the table has rows 0..{n - 1}")
        return self.weight[idx.astype(np.intp)]

    def __repr__(self) -> str:
        num, dim = self.weight.data.shape
        return f"Embedding({num}, {dim})"


class RMSNorm(Module):
    """rms_norm over the last axis, then times a learned weight per channel (initially 1),
    as torch.nn.RMSNorm. With elementwise_affine=False there is no weight: that is
    microgpt's rmsnorm, x * (mean(x**2) + eps) ** -0.5.
    """

    def __init__(self, dim: int, eps: float = 1e-5, elementwise_affine: bool = True):
        given = number(eps, 'RMSNorm: eps')  # np.float64(1e-5) is 1e-5: it must not make a float32 model float64
        if not given >= 0:  # written so that nan fails too
            raise ValueError(f"RMSNorm: eps must be a number >= 0, got {eps!r}")
        self.dim, self.eps = architecture.checked_size(dim, 'RMSNorm'), float(given)
        self.weight = Tensor(np.ones(self.dim), requires_grad=True) if elementwise_affine else None

    def forward(self, x: Tensor | Array) -> Tensor:
        x = _as_tensor(x, np.dtype(np.float64) if self.weight is None else self.weight.data.dtype)
        if x.ndim == 0 or x.shape[-1] != self.dim:
            raise ValueError(f"{self!r}: expected vectors of {self.dim} numbers on the last axis, got shape {x.shape}")
        out = rms_norm(x, self.eps)
        return out if self.weight is None else out * self.weight

    def __repr__(self) -> str:
        eps = '' if self.eps == 1e-5 else f", eps={self.eps}"
        return f"RMSNorm({self.dim}{eps}{'' if self.weight is not None else ', elementwise_affine=False'})"


class CausalSelfAttention(Module):
    """Multi-head causal self-attention: each position gathers information from itself and
    the positions before it, never from later ones.

    q, k and v (query, key, value) and o (output) are Linear(n_embd, n_embd, bias=False):
    microgpt's attn_wq, attn_wk, attn_wv and attn_wo. The n_embd channels are split into
    n_head heads of n_embd // n_head channels; each head attends on its own, and their
    outputs are put side by side again before o. Input and output: (B, T, n_embd), or
    (T, n_embd) for one sequence.
    """

    def __init__(self, n_embd: int, n_head: int, rng: np.random.Generator | None = None):
        n_embd = architecture.checked_size(n_embd, 'CausalSelfAttention')
        n_head = architecture.checked_size(n_head, 'CausalSelfAttention')
        if n_embd % n_head:
            raise ValueError(f"CausalSelfAttention: n_embd={n_embd} channels do not split into n_head={n_head} "
                             f"heads of equal size")
        self.n_embd, self.n_head, self.head_dim = n_embd, n_head, n_embd // n_head
        self.q, self.k, self.v, self.o = (Linear(n_embd, n_embd, bias=False, rng=rng) for _ in range(4))

    def forward(self, x: Tensor | Array) -> Tensor:
        x = _as_tensor(x, self.q.weight.data.dtype)
        if x.ndim < 2 or x.shape[-1] != self.n_embd:
            raise ValueError(f"{self!r}: expected input of shape (B, T, {self.n_embd}) or (T, {self.n_embd}), "
                             f"got {x.shape}")
        *batch, T, C = x.shape

        def heads(t: Tensor) -> Tensor:  # (..., T, C) -> (..., n_head, T, head_dim): a sequence per head
            return t.reshape(*batch, T, self.n_head, self.head_dim).swapaxes(-3, -2)
        y = scaled_dot_product_attention(heads(self.q(x)), heads(self.k(x)), heads(self.v(x)), is_causal=True)
        return self.o(y.swapaxes(-3, -2).reshape(x.shape))  # the heads side by side again: (..., T, C)

    def __repr__(self) -> str:
        return f"CausalSelfAttention(n_embd={self.n_embd}, n_head={self.n_head})"
