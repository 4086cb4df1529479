"""Neurons, layers and multi-layer perceptrons built from lists of Values."""
from __future__ import annotations

import numbers
import random
from collections.abc import Iterable, Iterator, Mapping, Sequence, Sized

from micrograd.engine import Value

# each activation's name, and how a repr spells it
ACTIVATIONS = {'relu': 'ReLU', 'tanh': 'Tanh', 'sigmoid': 'Sigmoid', 'linear': 'Linear'}


class Module:
    """Anything with parameters: a Neuron, a Layer, an MLP."""

    def parameters(self) -> list[Value]:
        return []

    def zero_grad(self) -> None:
        """Gradients accumulate across backward() calls: reset them before each step."""
        for p in self.parameters():
            p.grad = 0.0

    def named_parameters(self) -> Iterator[tuple[str, Value]]:
        """(name, parameter) pairs, each parameter once: 'layers.0.neurons.1.w.0', ..."""
        seen: set[int] = set()
        for name, p in _named_values(self, ''):
            if id(p) not in seen:
                seen.add(id(p))
                yield name, p

    def state_dict(self) -> dict[str, float]:
        """The parameters' values by name: save it (as JSON, say) and load_state_dict() it later."""
        return {name: p.data for name, p in _named_values(self, '')}

    def load_state_dict(self, state: Mapping[str, float]) -> None:
        """Set every parameter from a state_dict(): all of them, or (if it does not fit) none."""
        mine = dict(_named_values(self, ''))
        missing, extra = [n for n in mine if n not in state], [n for n in state if n not in mine]
        if missing or extra:
            raise KeyError(f"{type(self).__name__}.load_state_dict: {_names(missing, 'missing')}"
                           f"{'; ' if missing and extra else ''}{_names(extra, 'unexpected')}: "
                           f"a state_dict of a model of other sizes? This one is {self!r}")
        values = {name: _parameter_value(state[name], name) for name in mine}
        for name, p in mine.items():
            p.data = values[name]


class Neuron(Module):
    """activation(w . x + b), with weights drawn from uniform(-1, 1) and bias 0."""

    def __init__(self, nin: int, nonlin: bool = True, activation: str = 'relu'):
        if activation not in ACTIVATIONS:
            raise ValueError(f"Neuron: activation must be one of {tuple(ACTIVATIONS)}, "
                             f"got {activation!r}")
        self.w = [Value(random.uniform(-1, 1)) for _ in range(_size(nin, 'Neuron'))]
        self.b = Value(0.0)
        self.activation = activation if nonlin else 'linear'

    def __call__(self, x: Sequence[Value | float] | Value | float) -> Value:
        if isinstance(x, Value) or not isinstance(x, Sized):  # one input: what a one-neuron
            x = [x]  # Layer hands on, or a number
        if len(x) != len(self.w):
            raise ValueError(f"{self!r}: expected {len(self.w)} inputs, got {len(x)}")
        act = Value.dot(self.w, x, self.b)  # b + w1*x1 + w2*x2 + ...
        if self.activation == 'relu':
            return act.relu()
        if self.activation == 'tanh':
            return act.tanh()
        if self.activation == 'sigmoid':
            return act.sigmoid()
        return act

    def parameters(self) -> list[Value]:
        return self.w + [self.b]

    def __repr__(self) -> str:
        return f"{ACTIVATIONS[self.activation]}Neuron({len(self.w)})"


class Layer(Module):
    """nout neurons that all see the same inputs."""

    def __init__(self, nin: int, nout: int, nonlin: bool = True, activation: str = 'relu'):
        self.neurons = [Neuron(nin, nonlin, activation) for _ in range(_size(nout, 'Layer'))]

    def __call__(self, x: Sequence[Value | float] | Value | float) -> Value | list[Value]:
        out = [n(x) for n in self.neurons]
        return out[0] if len(out) == 1 else out

    def parameters(self) -> list[Value]:
        return _once(p for n in self.neurons for p in n.parameters())

    def __repr__(self) -> str:
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(Module):
    """Layers of sizes nouts; every layer but the last applies the activation."""

    def __init__(self, nin: int, nouts: Sequence[int], activation: str = 'relu'):
        if isinstance(nouts, (str, bytes)) or not isinstance(nouts, Sequence) or not nouts:
            raise ValueError("MLP: nouts must list the size of each layer, e.g. [16, 16, 1], "
                             f"got {nouts!r}")
        sizes = [_size(nin, 'MLP')] + list(nouts)
        self.layers = [Layer(sizes[i], sizes[i + 1], nonlin=i != len(nouts) - 1,
                             activation=activation) for i in range(len(nouts))]

    def __call__(self, x: Sequence[Value | float] | Value | float) -> Value | list[Value]:
        for layer in self.layers:
            x = layer(x)
        return x  # type: ignore[return-value]  # a Value or a list of them, as the last layer gives

    def parameters(self) -> list[Value]:
        return _once(p for layer in self.layers for p in layer.parameters())

    def __repr__(self) -> str:
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"


# Supporting pieces: checking sizes, naming parameters.

def _size(n: object, what: str) -> int:
    """A number of inputs or neurons: a whole number of at least 1 (not 3.5, '3' or 0)."""
    if not isinstance(n, numbers.Integral):
        raise TypeError(f"{what}: sizes are whole numbers, got {type(n).__name__} {n!r}")
    if n < 1:
        raise ValueError(f"{what}: sizes must be at least 1, got {n}")
    return int(n)


def _once(parameters: Iterable[Value]) -> list[Value]:
    """Each parameter once, in order: one shared by two neurons must not be updated twice."""
    return list(dict.fromkeys(parameters))  # a Value's hash is its identity


def _named_values(obj: object, prefix: str) -> Iterator[tuple[str, Value]]:
    """Every Value an object holds, named by the path to it: attributes, then list indices."""
    if isinstance(obj, Value):
        yield prefix, obj
    elif isinstance(obj, (list, tuple)):
        for i, item in enumerate(obj):
            yield from _named_values(item, f"{prefix}.{i}" if prefix else str(i))
    elif isinstance(obj, Module):
        for name, item in vars(obj).items():
            yield from _named_values(item, f"{prefix}.{name}" if prefix else name)


def _names(names: list[str], what: str) -> str:
    if not names:
        return ''
    more = f" and {len(names) - 3} more" if len(names) > 3 else ''
    return f"{what} {', '.join(repr(n) for n in names[:3])}{more}"


def _parameter_value(x: object, name: str) -> float:
    """A state_dict entry as a Python float (a parameter's .data stays a float)."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"load_state_dict: {name!r} must be a number, got {type(x).__name__} {x!r}")
    return float(x)
