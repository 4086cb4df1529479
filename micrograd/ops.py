"""The scalar engine's ops, one record each: what engine.py names it, the method that makes it, its
parents, its forward formula and local derivatives as text, and what its _backward adds to each parent's
grad, as engine.py's closure writes it.

engine.py computes with its closures; this table is the one other place an op's calculus is written. Its
derivatives are Python expressions, evaluated by evaluate() in an explicit namespace (the parents, the output
and the few functions of NAMES, nothing of math's): on floats they give the numbers engine.py's closures add
(a test in `make check` holds each closure to its record), and on Values they give derivatives that can be
differentiated again (micrograd.grad with create_graph=True builds its graphs from them). The drawings and
captions in viz, the exercises, error messages and the tests read the same records. A new op is one new
record. It imports nothing of micrograd's, so anything may read it.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

__all__ = ['Op', 'OPS', 'BY_NAME', 'BY_METHOD', 'NAMES', 'evaluate']


# The functions a record's expressions may call, each for a float and for a Value alike (a Value's own method,
# so that on Values the result is a graph). Nothing else is in scope but the names evaluate() is given.
def log(v: Any) -> Any:
    return v.log() if hasattr(v, 'log') else math.log(v)


def exp(v: Any) -> Any:
    return v.exp() if hasattr(v, 'exp') else math.exp(v)


def tanh(v: Any) -> Any:
    return v.tanh() if hasattr(v, 'tanh') else math.tanh(v)


def step(v: Any) -> float:
    """relu's slope: 1.0 for v > 0, else 0.0 (at 0 too, as PyTorch's). A number even for a Value: its own
    derivative is 0 wherever it is defined."""
    return 1.0 if getattr(v, 'data', v) > 0 else 0.0


NAMES: dict[str, Any] = {'log': log, 'exp': exp, 'tanh': tanh, 'step': step}


@functools.cache
def _compiled(expression: str) -> Any:
    return compile(expression, f'<micrograd.ops: {expression}>', 'eval')


def evaluate(expression: str, **names: Any) -> Any:
    """A record's expression (a derivative, a forward formula, the right side of a backward line) with the
    given names (x, y, out, grad, ...) and NAMES: floats give a float, Values a Value. A name not given is a
    NameError, never a constant of math's (e, say)."""
    return eval(_compiled(expression), {'__builtins__': {}, **NAMES}, names)  # noqa: S307 -- our own records


@dataclass(frozen=True)
class Op:
    name: str          # Value._op as engine.py writes it (Karpathy's names: '+', '*', 'ReLU', ...)
    method: str        # the method of Value that makes it
    parents: int       # how many parents it records (0: any number, as Value.dot's)
    forward: str       # the output in terms of x (self) and y (other)
    # d out / d x, d out / d y: in x, y (for Value.dot, w and x: a weight and its input) and the output out,
    # as evaluate() reads them (y is the number k for x ** k)
    derivatives: tuple[str, ...]
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
    Op('**', '__pow__', 2, 'x ** y', ('y * x**(y-1) if y else 0', 'x**y * log(x)'),  # (0 for y = 0: PyTorch's)
       backward=('x.grad += y * x**(y - 1) * grad if y else 0.0', 'y.grad += out * log(x) * grad'),
       rest='_power'),  # the lecture's __pow__ takes x ** k for k >= 1; _power x ** y and k < 1
    Op('tanh', 'tanh', 1, 'tanh(x)', ('1 - out**2',),
       backward=('x.grad += (1 - t * t) * grad',), saved='t'),
    Op('exp', 'exp', 1, 'exp(x)', ('out',),
       backward=('x.grad += e * grad',), saved='e'),
    Op('ReLU', 'relu', 1, 'max(x, 0)', ('step(x)',),  # step(x): 1 if x > 0 else 0
       backward=('x.grad += 0.0 if x <= 0 else grad',)),
    Op('/', '__truediv__', 2, 'x / y', ('1 / y', '-x / y**2'),
       backward=('x.grad += grad / y', 'y.grad -= grad * (x / y / y)')),
    Op('log', 'log', 1, 'log(x)', ('1 / x',),
       backward=('x.grad += grad / x',)),
    Op('sigmoid', 'sigmoid', 1, '1 / (1 + exp(-x))', ('out * (1 - out)',),
       backward=('x.grad += s * (1 - s) * grad',), saved='s'),
    Op('dot', 'dot', 0, 'bias + w1*x1 + w2*x2 + ...', ('x', 'w', '1'),  # each w's, each x's, the bias's
       backward=('w.grad += x * grad', 'x.grad += w * grad', 'b.grad += grad')),
)

BY_NAME = {op.name: op for op in OPS}
BY_METHOD = {method: op for op in OPS for method in op.methods}
