"""Optimizers: SGD and Adam, for the scalar engine and for tensors alike.

A parameter is anything with `.data` and `.grad`: a Value (two floats) or a Tensor
(two ndarrays). The update rules below are plain arithmetic, which reads the same on a
float and on an array, so this module needs nothing but Python. `p.data -= step`
updates an array in place (the Tensor keeps its array, as other code may hold it) and
gives a Value a new float. (Adam writes the same arithmetic in place for arrays, with
NumPy, in Adam._step_array: faster on a big model, and the very same numbers.)

    optimizer = SGD(model.parameters(), lr=0.1)
    optimizer.zero_grad()   # gradients accumulate: clear them before each backward()
    loss.backward()
    optimizer.step()        # move every parameter against its gradient
"""
from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from micrograd import numeric
from micrograd.engine import Value


class Parameter(Protocol):
    """What an optimizer updates: data and its gradient, floats or arrays.

    A Tensor's grad is None until backward() reaches it: step() skips it, as PyTorch does.
    """
    data: Any
    grad: Any


class Optimizer:
    """The parameters to update, and zero_grad(). Subclasses define step().

    Each parameter is listed once, by identity: a tied weight reached twice is stepped once.
    """

    def __init__(self, params: Iterable[Parameter], lr: float):
        name = type(self).__name__
        if hasattr(params, 'data') and hasattr(params, 'grad'):  # SGD(weight, ...) instead of SGD([weight], ...)
            raise TypeError(f"{name}: params argument given to the optimizer should be an iterable of parameters "
                            f"(e.g. model.parameters()), but got {type(params).__name__}")
        if isinstance(params, (set, frozenset, Mapping)) or not isinstance(params, Iterable):
            raise TypeError(f"{name}: params should be an ordered iterable of parameters (e.g. model.parameters()), "
                            f"but got {type(params).__name__}")
        unique: dict[int, Parameter] = {}
        for p in params:
            if not (hasattr(p, 'data') and hasattr(p, 'grad')):
                raise TypeError(f"{name}: parameters need .data and .grad (pass model.parameters()), "
                                f"got a {type(p).__name__}")
            if getattr(p, '_prev', ()):
                raise ValueError(f"{name}: can't optimize a non-leaf {type(p).__name__} (one an op made; as in "
                                 f"PyTorch): pass the leaves it was made from")
            unique.setdefault(id(p), p)
        self.params = list(unique.values())
        if not self.params:
            raise ValueError(f"{name}: got no parameters to optimize (an empty model, or a used-up generator?)")
        # A Value holds a Python float: its updates are written back as floats, whatever type the learning
        # rate or gradient has (a NumPy scalar there would otherwise creep into the scalar engine).
        self._holds_number = [isinstance(p, Value) or isinstance(p.data, numbers.Real) for p in self.params]
        self.lr = lr  # settable: change it between steps to decay it (a Python float, whatever it is given)

    @property
    def lr(self) -> float:
        """The learning rate, as a Python float: a NumPy float32 given here would make every step compute in
        float32, and write NumPy numbers into a Value's .data."""
        return self._lr

    @lr.setter
    def lr(self, lr: float) -> None:
        self._lr = _at_least(lr, 0.0, 'learning rate', type(self).__name__)

    def zero_grad(self) -> None:
        """Gradients accumulate across backward() calls: clear them before each one.

        A Value's gradient becomes 0.0 (its grad is always a number); a Tensor's becomes
        None (no gradient yet), as PyTorch's zero_grad() does.
        """
        for p, number in zip(self.params, self._holds_number):
            p.grad = 0.0 if number else None

    def _gradients(self) -> list[Any]:
        """Each parameter's gradient (None: no step for it), checked before any parameter changes: an array's of
        another shape would be broadcast into the step (PyTorch refuses it when it is assigned to .grad), and one
        of another dtype is taken in the parameter's."""
        grads = [p.grad for p in self.params]
        for i, (p, g, number) in enumerate(zip(self.params, grads, self._holds_number)):
            if g is None or number:
                continue
            shape, dtype = getattr(g, 'shape', None), getattr(p.data, 'dtype', None)
            if shape != getattr(p.data, 'shape', shape):
                what = f"shape {shape}" if shape is not None else f"no shape ({type(g).__name__})"
                raise RuntimeError(
                    f"{type(self).__name__}.step: parameter {i} of {len(self.params)} has shape {p.data.shape} and "
                    f"a .grad of {what}, which the step would broadcast into it (PyTorch refuses to assign it: "
                    f"'attempting to assign a gradient of size ...'). Set its .grad to None (or zero_grad()) or "
                    f"to an array of shape {p.data.shape}; no parameter was changed")
            if dtype is not None and getattr(g, 'dtype', dtype) != dtype:  # (a .grad of another dtype set by hand:
                grads[i] = g.astype(dtype)  # the step in the parameter's, as PyTorch's, which refuses another)
        return grads

    def _update(self, i: int, step: Any) -> None:
        """p.data -= step: in place for an array, a new float for a Value."""
        p = self.params[i]
        if self._holds_number[i]:
            p.data = float(p.data - step)
        else:
            p.data -= step
            self._changed(p)

    def _changed(self, p: Parameter) -> None:
        """A Tensor's step is a change in place, counted as PyTorch counts it: a backward() through a graph made
        before the step refuses (its gradient would come from the new weights and the old activations)."""
        note = getattr(p, '_note_change', None)
        if note is not None:
            note(f'{type(self).__name__}.step')

    def step(self) -> None:
        raise NotImplementedError(f"{type(self).__name__} must define step(), the update rule")


def _at_least(x: object, low: float, what: str, name: str) -> float:
    """A hyperparameter as a Python float: a real number >= low (written so that nan is refused too, as PyTorch
    refuses it). NumPy numbers and 0-d arrays are converted, so every step computes in Python's float64."""
    if isinstance(x, bool) or not numeric.is_real(x):
        raise TypeError(f"{name}: the {what} must be a number, got {type(x).__name__} {x!r}")
    number = numeric.real(x, name)
    if not number >= low:
        raise ValueError(f"{name}: the {what} must be >= {low:g}, got {x}")
    return number


class SGD(Optimizer):
    """Gradient descent, with optional momentum, as torch.optim.SGD.

        momentum = 0:  p -= lr * grad
        momentum > 0:  v = momentum * v + grad;  p -= lr * v

    v, the velocity, remembers past steps: a ball rolling downhill, slowed by (1 - momentum).
    """

    def __init__(self, params: Iterable[Parameter], lr: float = 0.01, momentum: float = 0.0):
        super().__init__(params, lr)
        self.momentum = _at_least(momentum, 0.0, 'momentum', 'SGD')
        self.velocities: list[Any] = [0.0] * len(self.params)  # 0.0 + grad becomes an array of grad's shape

    def step(self) -> None:
        for i, grad in enumerate(self._gradients()):
            if grad is None:  # no gradient reached it: leave it (and its velocity) alone
                continue
            direction = grad
            if self.momentum:
                self.velocities[i] = direction = self.momentum * self.velocities[i] + grad
            self._update(i, self.lr * direction)

    def __repr__(self) -> str:
        momentum = f", momentum={self.momentum}" if self.momentum else ''
        return f"SGD(lr={self.lr}{momentum}, params={len(self.params)})"


class Adam(Optimizer):
    """Adam, as torch.optim.Adam: each number gets its own step size.

        m = running mean of grad        (moves a fraction 1 - beta1 of the way to grad each step)
        v = running mean of grad**2     (the same with beta2)
        p -= lr * m_hat / (sqrt(v_hat) + eps)

    m and v start at 0, so for the first steps they are too small by a factor
    (1 - beta**t); m_hat and v_hat divide that back out. t counts the steps of each
    parameter separately: one that got no gradient for a while starts its own count
    when it first gets one, as in PyTorch.
    """

    def __init__(self, params: Iterable[Parameter], lr: float = 0.001, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8):
        super().__init__(params, lr)
        self.betas, self.eps = _betas(betas), _at_least(eps, 0.0, 'eps', 'Adam')
        n = len(self.params)
        self.steps = [0] * n  # t, per parameter
        self.m: list[Any] = [0.0] * n  # the running means start at 0.0 and become arrays for a Tensor
        self.v: list[Any] = [0.0] * n

    def step(self) -> None:
        beta1, beta2 = self.betas
        for i, g in enumerate(self._gradients()):
            if g is None:  # no gradient reached it: no step, and its count t stays where it was
                continue
            self.steps[i] += 1
            t = self.steps[i]
            if not self._holds_number[i]:
                self._step_array(i, g, t)
                continue
            # Written in PyTorch's order of operations, so that both take the very same steps.
            self.m[i] = m = self.m[i] + (1 - beta1) * (g - self.m[i])  # = beta1 m + (1 - beta1) g
            self.v[i] = v = self.v[i] * beta2 + (1 - beta2) * g * g
            step_size = self.lr / (1 - beta1 ** t)  # m_hat = m / (1 - beta1**t)
            denom = v ** 0.5 / (1 - beta2 ** t) ** 0.5 + self.eps  # sqrt(v_hat) + eps; ** 0.5 is sqrt for arrays too
            self._update(i, step_size * (m / denom))

    def _step_array(self, i: int, g: Any, t: int) -> None:
        """The same step for a Tensor, in place: the lines of step(), each written into an array
        that already exists (m, v, the parameter, or one scratch array) instead of a new one.

        A GPT's weights are some 100,000 numbers: a new array for each of a dozen steps of
        arithmetic is time spent allocating and filling memory. (Each line computes what its
        twin in step() does, operation by operation, so the numbers are the same.) m and v are
        arrays of the parameter's dtype from the first step on, as in PyTorch.
        """
        import numpy as np  # only Tensors come here: the scalar engine does not need NumPy
        p, (beta1, beta2) = self.params[i], self.betas
        if not isinstance(self.m[i], np.ndarray):  # the first step: the running means start at 0
            self.m[i], self.v[i] = np.zeros_like(p.data), np.zeros_like(p.data)
        m, v, scratch = self.m[i], self.v[i], np.empty_like(p.data)
        m += np.multiply(np.subtract(g, m, out=scratch), 1 - beta1, out=scratch)  # m + (1 - beta1) (g - m)
        v *= beta2
        v += np.multiply(np.multiply(g, 1 - beta2, out=scratch), g, out=scratch)  # v beta2 + (1 - beta2) g g
        denom = np.sqrt(v, out=scratch)
        denom /= (1 - beta2 ** t) ** 0.5
        denom += self.eps
        step = np.divide(m, denom, out=scratch)
        step *= self.lr / (1 - beta1 ** t)
        p.data -= step
        self._changed(p)

    def __repr__(self) -> str:
        return f"Adam(lr={self.lr}, betas={self.betas}, eps={self.eps}, params={len(self.params)})"


def _betas(betas: object) -> tuple[float, float]:
    """Adam's betas as two Python floats in [0, 1): a tuple, a list or a NumPy array of two numbers."""
    try:
        pair = [x for x in betas]  # type: ignore[attr-defined]
    except TypeError:
        pair = []
    if isinstance(betas, (str, bytes, set, frozenset, dict)) or len(pair) != 2 or \
            not all(numeric.is_real(b) and not isinstance(b, bool) and 0 <= float(b) < 1 for b in pair):
        raise ValueError(f"Adam: betas must be two numbers in [0, 1), got {betas!r}")  # (nan fails too)
    return numeric.real(pair[0], 'Adam'), numeric.real(pair[1], 'Adam')
