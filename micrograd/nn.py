"""Neurons, layers and MLPs on lists of Values: Karpathy's nn.py, his names kept (Neuron.nonlin).
MLP(2, [16, 16, 1]) is his package's net: ReLU, then a linear output. The lecture's is tanh on every
layer, output too: MLP(3, [4, 4, 1], activation='tanh', output_activation='tanh').

Beyond his: each size, activation and input is checked by a checked_... step (architecture.py,
weighted_sum.py), and a Module names, saves and loads its parameters (NamedParameters, state.py)."""
import random
from collections.abc import Sequence
from typing import Any

from micrograd.architecture import ACTIVATIONS, checked_activation, checked_size, checked_sizes
from micrograd.engine import Value
from micrograd.state import NamedParameters  # named_parameters(), state_dict(), load_state_dict()
from micrograd.weighted_sum import checked_inputs

Inputs = Sequence[Value | float] | Value | float  # a neuron's inputs (one number: a list of one)


class Module(NamedParameters):
    """Anything with parameters: a Neuron, a Layer, an MLP."""

    def zero_grad(self) -> None:
        """Gradients accumulate across backward() calls: reset them before each step."""
        for p in self.parameters():
            p.grad = 0.0

    def parameters(self) -> list[Value]:
        return []


class Neuron(Module):
    """activation(w . x + b), w drawn from uniform(-1, 1), b = 0. nonlin=False (his) is 'linear'."""

    def __init__(self, nin: int, nonlin: bool = True, activation: str = 'relu'):
        self.w = [Value(random.uniform(-1, 1)) for _ in range(checked_size(nin, 'Neuron'))]
        self.b = Value(0.0)
        self.activation = checked_activation(activation, 'Neuron', nonlin)  # 'linear' if not nonlin

    def __call__(self, x: Inputs) -> Value:
        x = checked_inputs(x, len(self.w), self)  # a list of len(w) numbers or Values
        # The lecture's sum((wi*xi for wi, xi in zip(self.w, x)), self.b), as one node, not 2n:
        act = Value.dot(self.w, x, self.b)  # (most of the moons demo's speed)
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
        return f"{ACTIVATIONS[self.activation]}Neuron({len(self.w)})"  # ReLUNeuron(2)


class Layer(Module):
    """nout neurons that all see the same inputs."""

    def __init__(self, nin: int, nout: int, nonlin: bool = True, **kwargs: Any):  # activation=
        self.neurons = [Neuron(nin, nonlin, **kwargs) for _ in range(checked_size(nout, 'Layer'))]

    def __call__(self, x: Inputs) -> Value | list[Value]:
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
        sz = checked_sizes(nin, nouts, 'MLP')  # [nin] + nouts
        acts = [activation] * (len(nouts) - 1) + [output_activation]  # (each Neuron checks its own)
        self.layers = [Layer(sz[i], sz[i + 1], activation=acts[i]) for i in range(len(nouts))]

    def __call__(self, x: Inputs) -> Value | list[Value]:
        for layer in self.layers:
            x = layer(x)
        return x  # type: ignore[return-value]  # a Value or a list: what the last layer gives

    def parameters(self) -> list[Value]:  # each once, as Layer's
        return list(dict.fromkeys(p for layer in self.layers for p in layer.parameters()))

    def __repr__(self) -> str:
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"
