"""The inputs each exercise is checked on: easy points first, then the ones where learners slip.

An op's case is a few leaves and a line of code building `out` from them, read as a learner would
type it. The checker runs it with the learner's Value and with the library's, and compares the
leaves' gradients after backpropagating `grad` from out (a grad other than 1 shows a forgotten
chain factor; a leaf with a grad already, left from an earlier backward(), shows `=` for `+=`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Case:
    leaves: dict[str, float]
    code: str                  # statements that end by binding out
    grad: float = 1.0          # the gradient arriving at out
    kink: bool = False         # at a kink: no finite differences (relu at 0)
    prior: dict[str, float] = field(default_factory=dict)  # leaf grads left from an earlier backward()
    # An input where naive formulas overflow (tanh at 400, a divisor of 1e-170). A right formula that raises
    # OverflowError or ZeroDivisionError there (the textbook -x/y**2: y**2 underflows to 0) is accepted with a
    # note: Python refuses rather than answering wrong. A wrong number there (inf, nan, 0) is wrong.
    extreme: bool = False

    def text(self) -> str:
        """The case as code a learner can paste."""
        lines = [f"{name} = Value({data!r})" for name, data in self.leaves.items()]
        lines += [f"{name}.grad = {g!r}  # left from an earlier backward()" for name, g in self.prior.items()]
        lines += self.code.split('\n')
        text = '; '.join(line.split('  #')[0] for line in lines)
        if self.grad != 1.0:
            text += f"   (backpropagating out.grad = {self.grad!r})"
        elif self.prior:
            text += f"   ({' and '.join(f'{name}.grad' for name in self.prior)} was not 0: gradients accumulate)"
        return text

    def build(self, value_class: Any, data: dict[str, float] | None = None) -> tuple[dict[str, Any], Any]:
        """The leaves (as value_class) and out."""
        leaves = {name: value_class(v) for name, v in (data or self.leaves).items()}
        for name, g in self.prior.items():
            leaves[name].grad = g
        namespace: dict[str, Any] = {'Value': value_class, **leaves}
        exec(self.code, namespace)
        return leaves, namespace['out']


def _case(leaves: str, code: str, grad: float = 1.0, kink: bool = False, prior: str = '',
          extreme: bool = False) -> Case:
    """Case('x=2.0 y=-3.0', 'out = x + y', ...): the leaves as name=value pairs."""
    def pairs(text: str) -> dict[str, float]:
        return {name: float(v) for name, v in (p.split('=') for p in text.split())}
    return Case(pairs(leaves), code, grad, kink, pairs(prior), extreme)


OP_CASES: dict[str, list[Case]] = {
    '+': [_case('x=2.0 y=-3.0', 'out = x + y'),
          _case('x=2.0 y=-3.0', 'out = x + y', grad=-1.5),
          _case('x=0.5', 'out = x + 2.0', grad=2.5),
          _case('a=3.0', 'out = a + a'),
          _case('a=-1.5', 'b = a + a\nout = b + b'),
          _case('x=0.5', 'out = x + 2.0', prior='x=0.25')],
    '*': [_case('x=3.0 y=-4.0', 'out = x * y'),
          _case('x=3.0 y=-4.0', 'out = x * y', grad=2.0),
          _case('x=1.5', 'out = x * -2.5', grad=3.0),
          _case('a=3.0', 'out = a * a'),
          _case('a=-2.0', 'b = a * a\nout = b * b'),
          _case('x=1.5', 'out = x * -2.5', prior='x=0.25')],
    '**': [_case('x=-2.0', 'out = x ** 3'),
           _case('x=1.5', 'out = x ** 2', grad=3.0),
           _case('x=-2.0', 'out = x ** 2'),
           _case('x=0.5', 'out = x ** -1'),
           _case('x=4.0', 'out = x ** 0.5', grad=2.0),
           _case('x=2.0 y=3.0', 'out = x ** y'),
           _case('x=2.0 y=3.0', 'out = x ** y', grad=-0.5),
           _case('a=1.5', 'out = a ** a'),
           _case('x=1.5', 'out = x ** 3', prior='x=0.25')],
    '/': [_case('x=3.0 y=2.0', 'out = x / y'),
          _case('x=3.0 y=2.0', 'out = x / y', grad=-2.0),
          _case('x=1.5', 'out = x / 4.0', grad=3.0),
          _case('x=2.0 y=-0.5', 'out = x / y'),
          _case('a=1.5', 'out = a / a'),
          _case('x=3.0 y=2.0', 'out = x / y', prior='y=0.5'),
          _case('x=1.5', 'out = x / 4.0', prior='x=0.25'),
          _case('x=3e-170 y=1e-170', 'out = x / y', extreme=True)],
    'exp': [_case('x=0.0', 'out = x.exp()'),
            _case('x=1.5', 'out = x.exp()'),
            _case('x=-2.0', 'out = x.exp()', grad=3.0),
            _case('x=1.0', 'out = x.exp()', prior='x=0.25')],
    'tanh': [_case('x=0.5', 'out = x.tanh()'),
             _case('x=-1.2', 'out = x.tanh()', grad=2.0),
             _case('x=5.0', 'out = x.tanh()'),
             _case('x=20.0', 'out = x.tanh()'),
             _case('x=0.5', 'out = x.tanh()', prior='x=0.25'),
             _case('x=400.0', 'out = x.tanh()', extreme=True)],
    'log': [_case('x=2.0', 'out = x.log()'),
            _case('x=0.25', 'out = x.log()', grad=3.0),
            _case('x=10.0', 'out = x.log()'),
            _case('x=2.0', 'out = x.log()', prior='x=0.25')],
    'relu': [_case('x=3.0', 'out = x.relu()', grad=2.0),
             _case('x=-2.0', 'out = x.relu()'),
             _case('x=0.0', 'out = x.relu()', kink=True),
             _case('x=1.5', 'out = x.relu()', prior='x=0.25')],
    'sigmoid': [_case('x=0.0', 'out = x.sigmoid()'),
                _case('x=2.0', 'out = x.sigmoid()', grad=3.0),
                _case('x=-4.0', 'out = x.sigmoid()'),
                _case('x=1.0', 'out = x.sigmoid()', prior='x=0.25')],
    'dot': [_case('w1=0.5 w2=-1.5 x1=2.0 x2=3.0', 'out = Value.dot([w1, w2], [x1, x2])'),
            _case('w1=0.5 w2=-1.5 x1=2.0 x2=3.0 b=0.25', 'out = Value.dot([w1, w2], [x1, x2], b)', grad=2.0),
            _case('a=1.5 b=-0.25', 'out = Value.dot([a, b], [a, a], b)'),
            _case('w=0.5 x=2.0', 'out = Value.dot([w], [x])', prior='w=0.25')],
}


# Graphs for the sort and backward(), made node by node with the learner's own Value(data, children,
# op) and a backward the checker writes, so they work before (and whatever) the ops' exercises are.
@dataclass(frozen=True)
class Graph:
    leaves: dict[str, float]
    nodes: list[tuple[str, str, tuple[str, ...]]]  # (name, op, parents), each after its parents
    root: str

    def text(self, call: str) -> str:
        lines = [f"{n} = Value({v!r})" for n, v in self.leaves.items()]
        for name, op, parents in self.nodes:
            if op == '+1':
                lines.append(f"{name} = {parents[0]} + 1")
            else:
                lines.append(f"{name} = {f' {op} '.join(parents)}")
        return '; '.join(lines) + f"; {self.root}.{call}"


LECTURE = Graph({'a': 2.0, 'b': -3.0, 'c': 10.0, 'f': -2.0},
                [('e', '*', ('a', 'b')), ('d', '+', ('e', 'c')), ('L', '*', ('d', 'f'))], 'L')
# x is used twice, and z names y before x: a sort that places a node on its first visit lists y too early.
REUSED = Graph({'a': 2.0, 'b': -3.0},
               [('x', '*', ('a', 'b')), ('y', '+', ('x', 'a')), ('z', '*', ('y', 'x'))], 'z')
# q is reached only as the second parent of r: a sort that follows one parent misses it.
BRANCHES = Graph({'a': 3.0, 'b': -2.0},
                 [('p', '*', ('a', 'b')), ('q', '+', ('a', 'b')), ('r', '*', ('p', 'q'))], 'r')
DOUBLED = Graph({'a': -1.5}, [('b', '+', ('a', 'a')), ('c', '+', ('b', 'b'))], 'c')
DEPTH = 10_000


def chain(depth: int = DEPTH) -> Graph:
    """x, then depth nodes each adding 1 to the one before: deeper than Python's recursion limit."""
    nodes: list[tuple[str, str, tuple[str, ...]]] = [(f'n{i + 1}', '+1', (f'n{i}' if i else 'x',))
                                                     for i in range(depth)]
    return Graph({'x': 0.5}, nodes, f'n{depth}')


def chain_text(depth: int = DEPTH) -> str:
    return f"x = Value(0.5); n = x; then {depth:,} times: n = n + 1"


# The neuron: weights and bias set by hand, so the expected outputs are numbers a learner can check.
WEIGHTS, BIAS = [0.5, -1.0, 2.0], 0.25
POSITIVE = [2.0, -1.0, 0.5]    # w . x + b = 3.25
NEGATIVE = [1.0, 2.0, -0.5]    # w . x + b = -2.25
