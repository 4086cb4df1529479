"""Neurons, layers and MLPs on lists of Values: Karpathy's nn.py. Saving them by name: state.py."""
from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from micrograd import numeric, state
from micrograd.engine import Value

ACTIVATIONS = {'relu': 'ReLU', 'tanh': 'Tanh', 'sigmoid': 'Sigmoid', 'linear': 'Linear'}  # for repr


class Module:
    """Anything with parameters: a Neuron, a Layer, an MLP."""

    def zero_grad(self) -> None:
        """Gradients accumulate across backward() calls: reset them before each step."""
        for p in self.parameters():
            p.grad = 0.0

    def parameters(self) -> list[Value]:
        return []

    def named_parameters(self) -> Iterator[tuple[str, Value]]:
        """(name, parameter) pairs, each parameter once: 'layers.0.neurons.1.w.0', ..."""
        return state.named_parameters(self)

    def state_dict(self) -> dict[str, float]:  # the parameters' values by name (JSON, say)
        return state.state_dict(self)

    def load_state_dict(self, values: Mapping[str, float]) -> None:
        """Set every parameter from a state_dict(): all of them, or (if it does not fit) none."""
        state.load_state_dict(self, values)


class Neuron(Module):
    """activation(w . x + b), with weights drawn from uniform(-1, 1) and bias 0."""

    def __init__(self, nin: int, nonlin: bool = True, activation: str = 'relu'):
        if activation not in ACTIVATIONS:
            raise ValueError(f"Neuron: activation is one of {tuple(ACTIVATIONS)}: {activation!r}?")
        self.w = [Value(random.uniform(-1, 1)) for _ in range(numeric.size(nin, 'Neuron'))]
        self.b = Value(0.0)
        self.activation = activation if nonlin else 'linear'

    def __call__(self, x: Sequence[Value | float] | Value | float) -> Value:
        if type(x) is not list:  # a tuple or an array; or one number, as a Layer of one hands on
            x = numeric.inputs(x, self)
        if len(x) != len(self.w):
            raise ValueError(f"{self!r}: expected {len(self.w)} inputs, got {len(x)}")
        act = Value.dot(self.w, x, self.b)  # the lecture's sum((wi*xi ...), self.b), as one node
        if self.activation == 'relu':
            return act.relu()
        if self.activation == 'tanh':
            return act.tanh()
        return act.sigmoid() if self.activation == 'sigmoid' else act

    def parameters(self) -> list[Value]:
        return self.w + [self.b]

    def __repr__(self) -> str:
        return f"{ACTIVATIONS[self.activation]}Neuron({len(self.w)})"


class Layer(Module):
    """nout neurons that all see the same inputs."""

    def __init__(self, nin: int, nout: int, **kwargs: Any):
        self.neurons = [Neuron(nin, **kwargs) for _ in range(numeric.size(nout, 'Layer'))]

    def __call__(self, x: Sequence[Value | float] | Value | float) -> Value | list[Value]:
        out = [n(x) for n in self.neurons]
        return out[0] if len(out) == 1 else out

    def parameters(self) -> list[Value]:  # each once, even one two neurons share: one update
        return list(dict.fromkeys(p for n in self.neurons for p in n.parameters()))

    def __repr__(self) -> str:
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(Module):
    """Layers of sizes nouts; every layer but the last applies the activation."""

    def __init__(self, nin: int, nouts: Sequence[int], activation: str = 'relu'):
        sz = [numeric.size(nin, 'MLP')] + numeric.sizes(nouts, 'MLP')
        self.layers = [Layer(sz[i], sz[i + 1], nonlin=i != len(nouts) - 1, activation=activation)
                       for i in range(len(nouts))]

    def __call__(self, x: Sequence[Value | float] | Value | float) -> Value | list[Value]:
        for layer in self.layers:
            x = layer(x)
        return x  # type: ignore[return-value]  # a Value or a list: what the last layer gives

    def parameters(self) -> list[Value]:  # each once, as Layer's
        return list(dict.fromkeys(p for layer in self.layers for p in layer.parameters()))

    def __repr__(self) -> str:
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"
