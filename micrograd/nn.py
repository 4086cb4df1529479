"""Neurons, layers and multi-layer perceptrons built from lists of Values."""
from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from micrograd.engine import Value

ACTIVATIONS = {'relu': 'ReLU', 'tanh': 'Tanh', 'linear': 'Linear'}  # name: how a repr spells it


class Module:
    """Anything with parameters: a Neuron, a Layer, an MLP."""

    def parameters(self) -> list[Value]:
        return []

    def zero_grad(self) -> None:
        """Gradients accumulate across backward() calls: reset them before each step."""
        for p in self.parameters():
            p.grad = 0.0


class Neuron(Module):
    """activation(w . x + b), with weights drawn from uniform(-1, 1) and bias 0."""

    def __init__(self, nin: int, nonlin: bool = True, activation: str = 'relu'):
        if activation not in ACTIVATIONS:
            raise ValueError(f"Neuron: activation must be one of {tuple(ACTIVATIONS)}, got {activation!r}")
        self.w = [Value(random.uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(0)
        self.nonlin = nonlin
        self.activation = activation if nonlin else 'linear'

    def __call__(self, x: Sequence[Value | float] | Value) -> Value:
        if isinstance(x, Value):  # what a one-neuron Layer hands on
            x = [x]
        if len(x) != len(self.w):
            raise ValueError(f"{self!r}: expected {len(self.w)} inputs, got {len(x)}")
        act = Value.dot(self.w, x, self.b)
        if self.activation == 'linear':
            return act
        return act.relu() if self.activation == 'relu' else act.tanh()

    def parameters(self) -> list[Value]:
        return self.w + [self.b]

    def __repr__(self) -> str:
        return f"{ACTIVATIONS[self.activation]}Neuron({len(self.w)})"


class Layer(Module):
    """nout neurons that all see the same inputs."""

    def __init__(self, nin: int, nout: int, **kwargs):
        self.neurons = [Neuron(nin, **kwargs) for _ in range(nout)]

    def __call__(self, x: Sequence[Value | float] | Value) -> Value | list[Value]:
        out = [n(x) for n in self.neurons]
        return out[0] if len(out) == 1 else out

    def parameters(self) -> list[Value]:
        return [p for n in self.neurons for p in n.parameters()]

    def __repr__(self) -> str:
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(Module):
    """Layers of sizes nouts; every layer but the last applies the activation."""

    def __init__(self, nin: int, nouts: list[int], activation: str = 'relu'):
        sizes = [nin] + nouts
        self.layers = [Layer(sizes[i], sizes[i + 1], nonlin=i != len(nouts) - 1, activation=activation)
                       for i in range(len(nouts))]

    def __call__(self, x: Sequence[Value | float]) -> Value | list[Value]:
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self) -> list[Value]:
        return [p for layer in self.layers for p in layer.parameters()]

    def __repr__(self) -> str:
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"


class SGD:
    """Plain gradient descent: p.data -= lr * p.grad. Change .lr to decay it."""

    def __init__(self, params: Iterable[Value], lr: float = 0.01):
        self.params = list(params)
        self.lr = lr

    def step(self) -> None:
        for p in self.params:
            p.data -= self.lr * p.grad

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = 0.0

    def __repr__(self) -> str:
        return f"SGD(lr={self.lr}, params={len(self.params)})"
