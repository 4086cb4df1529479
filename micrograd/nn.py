"""Neurons, layers and MLPs on lists of Values: Karpathy's nn.py, his names kept (Neuron.nonlin).
MLP(2, [16, 16, 1]) is his package's net: ReLU, then a linear output. The lecture's is tanh on every
layer, output too: MLP(3, [4, 4, 1], activation='tanh', output_activation='tanh')."""
from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence

from micrograd import architecture, numeric, state, weighted_sum  # sizes, activations; by name
from micrograd.engine import Value


class Module:
    """Anything with parameters: a Neuron, a Layer, an MLP."""

    def zero_grad(self) -> None:
        """Gradients accumulate across backward() calls: reset them before each step."""
        for p in self.parameters():
            p.grad = 0.0

    def parameters(self) -> list[Value]:
        return []

    def named_parameters(self) -> Iterator[tuple[str, Value]]:  # ('layers.0.neurons.1.w.0', w), ...
        return state.first_names(state.named_leaves(self, Value, Module))

    def state_dict(self) -> dict[str, float]:  # the parameters' values by name (JSON, say)
        return {name: p.data for name, p in state.named_leaves(self, Value, Module)}

    def load_state_dict(self, values: Mapping[str, float]) -> None:  # all of them, or (misfit) none
        named = dict(state.named_leaves(self, Value, Module))
        for name, number in state.checked_state(self, named, values, numeric.saved).items():
            named[name].data = number


class Neuron(Module):
    """activation(w . x + b), w drawn from uniform(-1, 1), b = 0. nonlin=False (his) is 'linear'."""

    def __init__(self, nin: int, nonlin: bool = True, activation: str = 'relu'):
        self.w = [Value(random.uniform(-1, 1)) for _ in range(architecture.size(nin, 'Neuron'))]
        self.b = Value(0.0)
        self.activation = architecture.activation(activation, 'Neuron', nonlin)  # or 'linear'

    def __call__(self, x: Sequence[Value | float] | Value | float) -> Value:
        x = weighted_sum.inputs(x, len(self.w), self)  # a list of len(w) (a number: a list of one)
        act = Value.dot(self.w, x, self.b)  # the lecture's sum((wi*xi ...), self.b), as one node
        return act if self.activation == 'linear' else getattr(act, self.activation)()  # act.relu()

    @property
    def nonlin(self) -> bool:  # Karpathy's attribute: whether the neuron applies an activation
        return self.activation != 'linear'
    @nonlin.setter
    def nonlin(self, nonlin: bool) -> None:  # False: linear; True on a linear neuron: ReLU, as his
        kind = 'relu' if self.activation == 'linear' else self.activation
        self.activation = kind if nonlin else 'linear'

    def parameters(self) -> list[Value]:
        return self.w + [self.b]

    def __repr__(self) -> str:
        return f"{architecture.ACTIVATIONS[self.activation]}Neuron({len(self.w)})"


class Layer(Module):
    """nout neurons that all see the same inputs."""

    def __init__(self, nin: int, nout: int, nonlin: bool = True, activation: str = 'relu'):
        nout = architecture.size(nout, 'Layer')
        self.neurons = [Neuron(nin, nonlin, activation) for _ in range(nout)]

    def __call__(self, x: Sequence[Value | float] | Value | float) -> Value | list[Value]:
        out = [n(x) for n in self.neurons]
        return out[0] if len(out) == 1 else out

    def parameters(self) -> list[Value]:  # each once, even one two neurons share: one update
        return list(dict.fromkeys(p for n in self.neurons for p in n.parameters()))

    def __repr__(self) -> str:
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(Module):
    """Layers of sizes nouts: each applies activation; the last, output_activation (or none)."""

    def __init__(self, nin: int, nouts: Sequence[int], activation: str = 'relu',
                 output_activation: str = 'linear'):
        sz = [architecture.size(nin, 'MLP')] + architecture.sizes(nouts, 'MLP')
        acts = [activation] * (len(nouts) - 1) + [output_activation]  # (each Neuron checks its own)
        self.layers = [Layer(sz[i], sz[i + 1], activation=acts[i]) for i in range(len(nouts))]

    def __call__(self, x: Sequence[Value | float] | Value | float) -> Value | list[Value]:
        for layer in self.layers:
            x = layer(x)
        return x  # type: ignore[return-value]  # a Value or a list: what the last layer gives

    def parameters(self) -> list[Value]:  # each once, as Layer's
        return list(dict.fromkeys(p for layer in self.layers for p in layer.parameters()))

    def __repr__(self) -> str:
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"
