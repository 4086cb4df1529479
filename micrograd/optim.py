"""Optimizers: SGD and Adam, for the scalar engine and for tensors alike.

A parameter is anything with `.data` and `.grad`: a Value (two floats) or a Tensor
(two ndarrays). The update rules below are plain arithmetic, which reads the same on a
float and on an array, so this module needs nothing but Python. `p.data -= step`
updates an array in place (the Tensor keeps its array, as other code may hold it) and
gives a Value a new float.

    optimizer = SGD(model.parameters(), lr=0.1)
    optimizer.zero_grad()   # gradients accumulate: clear them before each backward()
    loss.backward()
    optimizer.step()        # move every parameter against its gradient
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol


class Parameter(Protocol):
    """What an optimizer updates: data and its gradient, floats or arrays.

    A Tensor's grad is None until backward() reaches it: step() skips it, as PyTorch does.
    """
    data: Any
    grad: Any


class Optimizer:
    """The parameters to update, and zero_grad(). Subclasses define step()."""

    def __init__(self, params: Iterable[Parameter], lr: float):
        self.params = list(params)
        name = type(self).__name__
        if not self.params:
            raise ValueError(f"{name}: got no parameters to optimize (an empty model, or a used-up generator?)")
        for p in self.params:
            if not (hasattr(p, 'data') and hasattr(p, 'grad')):
                raise TypeError(f"{name}: parameters need .data and .grad (pass model.parameters()), "
                                f"got a {type(p).__name__}")
        if lr < 0:
            raise ValueError(f"{name}: the learning rate must be >= 0, got {lr}")
        self.lr = lr  # settable: change it between steps to decay the learning rate

    def zero_grad(self) -> None:
        """Gradients accumulate across backward() calls: clear them before each one.

        A Value's gradient becomes 0.0 (its grad is always a number); a Tensor's becomes
        None (no gradient yet), as PyTorch's zero_grad() does.
        """
        for p in self.params:
            p.grad = 0.0 if isinstance(p.data, float) else None

    def step(self) -> None:
        raise NotImplementedError(f"{type(self).__name__} must define step(), the update rule")


class SGD(Optimizer):
    """Gradient descent, with optional momentum, as torch.optim.SGD.

        momentum = 0:  p -= lr * grad
        momentum > 0:  v = momentum * v + grad;  p -= lr * v

    v, the velocity, remembers past steps: a ball rolling downhill, slowed by (1 - momentum).
    """

    def __init__(self, params: Iterable[Parameter], lr: float = 0.01, momentum: float = 0.0):
        super().__init__(params, lr)
        if momentum < 0:
            raise ValueError(f"SGD: momentum must be >= 0, got {momentum}")
        self.momentum = momentum
        self.velocities: list[Any] = [0.0] * len(self.params)  # 0.0 + grad becomes an array of grad's shape

    def step(self) -> None:
        for i, p in enumerate(self.params):
            if p.grad is None:  # no gradient reached it: leave it (and its velocity) alone
                continue
            direction = p.grad
            if self.momentum:
                self.velocities[i] = direction = self.momentum * self.velocities[i] + p.grad
            p.data -= self.lr * direction

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
        if len(betas) != 2 or not all(0 <= b < 1 for b in betas):
            raise ValueError(f"Adam: betas must be two numbers in [0, 1), got {betas}")
        if eps < 0:
            raise ValueError(f"Adam: eps must be >= 0, got {eps}")
        self.betas, self.eps = betas, eps
        n = len(self.params)
        self.steps = [0] * n  # t, per parameter
        self.m: list[Any] = [0.0] * n  # the running means start at 0.0 and become arrays for a Tensor
        self.v: list[Any] = [0.0] * n

    def step(self) -> None:
        beta1, beta2 = self.betas
        for i, p in enumerate(self.params):
            g = p.grad
            if g is None:  # no gradient reached it: no step, and its count t stays where it was
                continue
            self.steps[i] += 1
            t = self.steps[i]
            # Written in PyTorch's order of operations, so that both take the very same steps.
            self.m[i] = m = self.m[i] + (1 - beta1) * (g - self.m[i])  # = beta1 m + (1 - beta1) g
            self.v[i] = v = self.v[i] * beta2 + (1 - beta2) * g * g
            step_size = self.lr / (1 - beta1 ** t)  # m_hat = m / (1 - beta1**t)
            denom = v ** 0.5 / (1 - beta2 ** t) ** 0.5 + self.eps  # sqrt(v_hat) + eps; ** 0.5 is sqrt for arrays too
            p.data -= step_size * (m / denom)

    def __repr__(self) -> str:
        return f"Adam(lr={self.lr}, betas={self.betas}, eps={self.eps}, params={len(self.params)})"
