"""What a scalar exercise is: one record holding everything about it (its blanks, task, rules, hints, formula,
the inputs it is checked on and the mistakes it can name), and the two kinds of input: a Case for an op, a
Graph for the sort and backward()."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Case:
    """A few leaves and a line of code building `out` from them, read as a learner would type it. The checker
    runs it with the learner's Value and with the library's and compares the leaves' gradients after
    backpropagating `grad` from out (a grad other than 1 shows a forgotten chain factor; a leaf with a grad
    already, left from an earlier backward(), shows `=` for `+=`)."""
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

    @property
    def reuses(self) -> bool:
        """Whether a leaf is used twice (a + a): where `=` for `+=`, and a special case for it, show."""
        return any(len(re.findall(rf'\b{name}\b', self.code)) > 1 for name in self.leaves)


def case(leaves: str, code: str, grad: float = 1.0, kink: bool = False, prior: str = '',
         extreme: bool = False) -> Case:
    """case('x=2.0 y=-3.0', 'out = x + y', ...): the leaves as name=value pairs."""
    def pairs(text: str) -> dict[str, float]:
        return {name: float(v) for name, v in (p.split('=') for p in text.split())}
    return Case(pairs(leaves), code, grad, kink, pairs(prior), extreme)


@dataclass(frozen=True)
class Graph:
    """A graph for the sort and backward(), made node by node with the learner's own Value(data, children, op)
    and a backward the checker writes, so it works before (and whatever) the ops' exercises are."""
    leaves: dict[str, float]
    nodes: list[tuple[str, str, tuple[str, ...]]]  # (name, op, parents), each after its parents
    root: str

    def text(self, call: str) -> str:
        if len(self.nodes) > 20:
            return f"x = Value(0.5); n = x; then {len(self.nodes):,} times: n = n + 1; n.{call}"
        lines = [f"{n} = Value({v!r})" for n, v in self.leaves.items()]
        for name, op, parents in self.nodes:
            lines.append(f"{name} = {parents[0]} + 1" if op == '+1' else f"{name} = {f' {op} '.join(parents)}")
        return '; '.join(lines) + f"; {self.root}.{call}"


def chain(depth: int) -> Graph:
    """x, then depth nodes each adding 1 to the one before: deeper than Python's recursion limit."""
    nodes: list[tuple[str, str, tuple[str, ...]]] = [(f'n{i + 1}', '+1', (f'n{i}' if i else 'x',))
                                                     for i in range(depth)]
    return Graph({'x': 0.5}, nodes, f'n{depth}')


@dataclass(frozen=True, eq=False)  # compared by identity: one record per exercise
class Exercise:
    """One exercise, everything about it in one place. Its kind says how it is graded: 'op' (a backward
    closure, on cases), 'sort' and 'backward' (on graphs), 'neuron' (in nn.py)."""
    number: int
    name: str        # what the table and the command line call it: '+', 'tanh', 'sort', ...
    kind: str        # 'op', 'sort', 'backward' or 'neuron'
    source: str      # the library module it is cut from: 'engine' (my_engine.py) or 'nn' (my_nn.py)
    methods: tuple[str, ...]   # the methods of Value (or Neuron) it lives in
    prompts: tuple[str, ...]   # the one line above each blank, a method each
    title: str       # one line for the table
    what: str        # what to write; the task, shown before the learner starts, adds the rules
    hint: str        # shown with the first wrong (or the next) exercise
    stronger: str    # shown by check --hint
    formula: str     # shown by check --hint, after the stronger hint
    # The library's own rules beyond the idea, each stated in the task: (key, sentence). Code whose gradients are
    # right but misses one is graded 'correct', with the rule named.
    rules: tuple[tuple[str, str], ...] = ()
    cases: tuple[Case, ...] = ()     # an op's inputs
    graphs: tuple[Graph, ...] = ()   # the sort's and backward()'s graphs
    mistakes: dict[str, str] = field(default_factory=dict)  # what each mistake it can name means
    slips: tuple[tuple[str, str], ...] = ()  # wrong bodies the shared rules (slips.py) cannot derive
    aliases: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.number} {self.name}"

    @property
    def attribute(self) -> str:
        return self.methods[0]

    @property
    def task(self) -> str:
        """What to write, and the library's rules it will be held to once its gradients are right."""
        if not self.rules:
            return self.what
        rules = ' '.join(f"({n}) {text}." for n, (_, text) in enumerate(self.rules, 1))
        return f"{self.what} Once that is right, the library's rules: {rules}"
