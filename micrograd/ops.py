"""The scalar engine's ops, one record each: what engine.py names it, the method that makes it, its
parents, and its forward formula and local derivatives as text.

engine.py computes; this table only describes, for the code that talks about the engine's ops (the
drawings and captions in viz, the exercises, error messages, the tests). A new op is one new record.
It imports nothing, so anything may read it.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ['Op', 'OPS', 'BY_NAME', 'BY_METHOD']


@dataclass(frozen=True)
class Op:
    name: str          # Value._op as engine.py writes it (Karpathy's names: '+', '*', 'ReLU', ...)
    method: str        # the method of Value that makes it
    parents: int       # how many parents it records (0: any number, as Value.dot's)
    forward: str       # the output in terms of x (self) and y (other)
    derivatives: tuple[str, ...]  # d out / d x, d out / d y: in x, y and the output out


# In the order engine.py defines them. x ** k of a number k is named '**k' with k as the user wrote it
# ('**2', '**-0.5'); x ** y of two Values is '**'.
OPS: tuple[Op, ...] = (
    Op('+', '__add__', 2, 'x + y', ('1', '1')),
    Op('*', '__mul__', 2, 'x * y', ('y', 'x')),
    Op('**', '__pow__', 2, 'x ** y', ('y * x**(y-1)', 'x**y * log(x)')),
    Op('tanh', 'tanh', 1, 'tanh(x)', ('1 - out**2',)),
    Op('exp', 'exp', 1, 'exp(x)', ('out',)),
    Op('ReLU', 'relu', 1, 'max(x, 0)', ('1 if x > 0 else 0',)),
    Op('log', 'log', 1, 'log(x)', ('1 / x',)),
    Op('sigmoid', 'sigmoid', 1, '1 / (1 + exp(-x))', ('out * (1 - out)',)),
    Op('/', '__truediv__', 2, 'x / y', ('1 / y', '-x / y**2')),
    Op('dot', 'dot', 0, 'bias + w1*x1 + w2*x2 + ...', ('x_i', 'w_i', '1')),
)

BY_NAME = {op.name: op for op in OPS}
BY_METHOD = {op.method: op for op in OPS}
