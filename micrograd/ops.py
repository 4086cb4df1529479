"""The scalar engine's ops, one record each: what engine.py names it, the method that makes it, its
parents, its forward formula and local derivatives as text, and what its _backward adds to each parent's
grad, as engine.py's closure writes it.

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
    # The lines of its _backward, one per parent, as engine.py writes them, in the same names: x and y
    # for the parents' .data (x.grad, y.grad their grads), out for the output's .data, grad for the
    # output's grad; for Value.dot, w and x for a weight and its input, b for the bias.
    backward: tuple[str, ...] = ()
    saved: str = ''    # the name engine.py's _backward gives the output's .data (t for tanh), if any
    rest: str = ''     # the method below engine.py's marked line that makes it where the lecture's does not
    # Inputs its exercise tries, as 'x=0.5' or 'x=1.5 y=-2.0', where the exercises' usual ones (x in 0.5, -1.2
    # and 2.0; or 1.5, -2.0 and -0.5, 3.0) are outside its domain.
    samples: tuple[str, ...] = ()

    @property
    def methods(self) -> tuple[str, ...]:
        """Every method of Value whose _backward closure computes this op."""
        return (self.method, self.rest) if self.rest else (self.method,)


# In the order engine.py defines them: the lecture's ops first, then log, sigmoid and dot. x ** k of a
# number k is named '**k' with k as the user wrote it ('**2', '**-0.5'); x ** y of two Values is '**'.
# Either way the first backward line is x's; only x ** y has the second.
OPS: tuple[Op, ...] = (
    Op('+', '__add__', 2, 'x + y', ('1', '1'),
       backward=('x.grad += grad', 'y.grad += grad')),
    Op('*', '__mul__', 2, 'x * y', ('y', 'x'),
       backward=('x.grad += y * grad', 'y.grad += x * grad')),
    Op('**', '__pow__', 2, 'x ** y', ('y * x**(y-1)', 'x**y * log(x)'),
       backward=('x.grad += y * x**(y - 1) * grad if y else 0.0', 'y.grad += out * log(x) * grad'),
       rest='_power'),  # the lecture's __pow__ takes x ** k for k >= 1; _power x ** y and k < 1
    Op('tanh', 'tanh', 1, 'tanh(x)', ('1 - out**2',),
       backward=('x.grad += (1 - t * t) * grad',), saved='t'),
    Op('exp', 'exp', 1, 'exp(x)', ('out',),
       backward=('x.grad += e * grad',), saved='e'),
    Op('ReLU', 'relu', 1, 'max(x, 0)', ('1 if x > 0 else 0',),
       backward=('x.grad += 0.0 if x <= 0 else grad',)),
    Op('/', '__truediv__', 2, 'x / y', ('1 / y', '-x / y**2'),
       backward=('x.grad += grad / y', 'y.grad -= grad * (x / y / y)')),
    Op('log', 'log', 1, 'log(x)', ('1 / x',),
       backward=('x.grad += grad / x',)),
    Op('sigmoid', 'sigmoid', 1, '1 / (1 + exp(-x))', ('out * (1 - out)',),
       backward=('x.grad += s * (1 - s) * grad',), saved='s'),
    Op('dot', 'dot', 0, 'bias + w1*x1 + w2*x2 + ...', ('x_i', 'w_i', '1'),
       backward=('w.grad += x * grad', 'x.grad += w * grad', 'b.grad += grad')),
)

BY_NAME = {op.name: op for op in OPS}
BY_METHOD = {method: op for op in OPS for method in op.methods}
