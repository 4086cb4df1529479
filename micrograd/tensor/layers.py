"""Layers: Modules that hold trainable tensors and apply them, as torch.nn.

A Module finds its parameters in its attributes, so a layer only assigns its weights
(self.weight = Tensor(..., requires_grad=True)) and says what forward() does with them.
"""
from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from micrograd.tensor.tensor import Tensor


class Module:
    """Anything with parameters. parameters() finds them in the attributes: trainable
    tensors, Modules, and lists or tuples of those, in the order they were assigned."""

    def named_parameters(self) -> list[tuple[str, Tensor]]:
        """('layers.0.weight', tensor) pairs: the names state_dict() uses."""
        return list(_named(self, ''))

    def parameters(self) -> list[Tensor]:
        return [p for _, p in self.named_parameters()]

    def zero_grad(self) -> None:
        """Gradients accumulate across backward() calls: reset them before each step."""
        for p in self.parameters():
            p.grad = None

    def state_dict(self) -> dict[str, np.ndarray]:
        """name -> a copy of that parameter's array: save it with np.savez(path, **state)."""
        return {name: p.data.copy() for name, p in self.named_parameters()}

    def load_state_dict(self, state: dict[str, np.ndarray]) -> None:
        """Copy saved arrays into the parameters, in place (optimizers keep working)."""
        params = dict(self.named_parameters())
        missing, unexpected = params.keys() - state.keys(), state.keys() - params.keys()
        if missing or unexpected:
            raise ValueError(f"{type(self).__name__}.load_state_dict: missing {sorted(missing)}, "
                             f"unexpected {sorted(unexpected)}")
        for name, p in params.items():
            value = np.asarray(state[name])
            if value.shape != p.data.shape:
                raise ValueError(f"{type(self).__name__}.load_state_dict: {name!r} has shape {value.shape}, "
                                 f"the model expects {p.data.shape}")
            p.data[...] = value

    def __call__(self, x: Any) -> Tensor:
        return self.forward(x)

    def forward(self, x: Any) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} must define forward(x), what the layer computes")


def _named(value: object, name: str) -> Iterator[tuple[str, Tensor]]:
    if isinstance(value, Tensor):
        if value.requires_grad:
            yield name, value
    elif isinstance(value, Module):
        for attr, v in vars(value).items():
            yield from _named(v, f"{name}.{attr}" if name else attr)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _named(v, f"{name}.{i}")


def _as_tensor(x: Tensor | np.ndarray, dtype: np.dtype[Any]) -> Tensor:
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
        uniform = (rng or np.random).uniform
        k = 1 / math.sqrt(in_features)
        self.weight = Tensor(uniform(-k, k, (in_features, out_features)), requires_grad=True)
        self.bias = Tensor(uniform(-k, k, out_features), requires_grad=True) if bias else None

    def forward(self, x: Tensor | np.ndarray) -> Tensor:
        out = _as_tensor(x, self.weight.data.dtype) @ self.weight
        return out if self.bias is None else out + self.bias

    def __repr__(self) -> str:
        n_in, n_out = self.weight.data.shape
        return f"Linear({n_in}, {n_out}{'' if self.bias is not None else ', bias=False'})"


ACTIVATIONS = ('relu', 'tanh', 'sigmoid')


class MLP(Module):
    """Linear layers of sizes nouts; every layer but the last applies the activation.

    MLP(64, [128, 10]) is Linear(64, 128), relu, Linear(128, 10), as nn.MLP(64, [128, 10]).
    """

    def __init__(self, nin: int, nouts: list[int], activation: str = 'relu', rng: np.random.Generator | None = None):
        if activation not in ACTIVATIONS:
            raise ValueError(f"MLP: activation must be one of {ACTIVATIONS}, got {activation!r}")
        if not nouts:
            raise ValueError("MLP: nouts must list at least one layer size, e.g. MLP(2, [16, 1])")
        sizes = [nin] + list(nouts)
        self.layers = [Linear(sizes[i], sizes[i + 1], rng=rng) for i in range(len(nouts))]
        self.activation = activation

    def forward(self, x: Tensor | np.ndarray) -> Tensor:
        out = _as_tensor(x, self.layers[0].weight.data.dtype)
        for i, layer in enumerate(self.layers):
            out = layer(out)
            if i < len(self.layers) - 1:
                out = getattr(out, self.activation)()
        return out

    def __repr__(self) -> str:
        return f"MLP({', '.join(map(repr, self.layers))}, activation={self.activation!r})"
