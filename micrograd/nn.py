"""Neurons, layers and multi-layer perceptrons built from lists of Values."""
from __future__ import annotations

import numbers
import random
from collections.abc import Sequence

from micrograd.engine import Value

ACTIVATIONS = {'relu': 'ReLU', 'tanh': 'Tanh', 'linear': 'Linear'}  # name: how a repr spells it


def _size(n: object, what: str) -> int:
    """A number of inputs or neurons: a whole number of at least 1 (not 3.5, '3' or 0)."""
    if not isinstance(n, numbers.Integral):
        raise TypeError(f"{what}: sizes are whole numbers, got {type(n).__name__} {n!r}")
    if n < 1:
        raise ValueError(f"{what}: sizes must be at least 1, got {n}")
    return int(n)


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
        self.w = [Value(random.uniform(-1, 1)) for _ in range(_size(nin, 'Neuron'))]
        self.b = Value(0.0)
        self.nonlin = nonlin
        self.activation = activation if nonlin else 'linear'

    def __call__(self, x: Sequence[Value | float] | Value) -> Value:
        if isinstance(x, Value):  # what a one-neuron Layer hands on
            x = [x]
        if len(x) != len(self.w):
            raise ValueError(f"{self!r}: expected {len(self.w)} inputs, got {len(x)}")
        act = Value.dot(self.w, x, self.b)
        return act if self.activation == 'linear' else getattr(act, self.activation)()  # act.relu(), act.tanh()

    def parameters(self) -> list[Value]:
        return self.w + [self.b]

    def __repr__(self) -> str:
        return f"{ACTIVATIONS[self.activation]}Neuron({len(self.w)})"


class Layer(Module):
    """nout neurons that all see the same inputs."""

    def __init__(self, nin: int, nout: int, nonlin: bool = True, activation: str = 'relu'):
        self.neurons = [Neuron(nin, nonlin, activation) for _ in range(_size(nout, 'Layer'))]

    def __call__(self, x: Sequence[Value | float] | Value) -> Value | list[Value]:
        out = [n(x) for n in self.neurons]
        return out[0] if len(out) == 1 else out

    def parameters(self) -> list[Value]:
        return [p for n in self.neurons for p in n.parameters()]

    def __repr__(self) -> str:
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(Module):
    """Layers of sizes nouts; every layer but the last applies the activation."""

    def __init__(self, nin: int, nouts: Sequence[int], activation: str = 'relu'):
        if isinstance(nouts, (str, bytes)) or not isinstance(nouts, Sequence) or not nouts:
            raise ValueError(f"MLP: nouts must list the size of each layer, e.g. [16, 16, 1], got {nouts!r}")
        sizes = [_size(nin, 'MLP')] + list(nouts)
        self.layers = [Layer(sizes[i], sizes[i + 1], nonlin=i != len(nouts) - 1, activation=activation)
                       for i in range(len(nouts))]

    def __call__(self, x: Sequence[Value | float]) -> Value | list[Value]:
        out = self.layers[0](x)
        for layer in self.layers[1:]:
            out = layer(out)
        return out

    def parameters(self) -> list[Value]:
        return [p for layer in self.layers for p in layer.parameters()]

    def __repr__(self) -> str:
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"
