"""The scalar exercises, one record each (its number is its place in EXERCISES): the Exercise, the Slips it names,
its inputs (a Case for an op, a Graph for the sort and backward()); formulas and code in backticks, for Markdown."""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from micrograd import ops


@dataclass(frozen=True)
class Case:
    """A few leaves and a line of code building `out` from them, as a learner types it: run with the learner's
    Value and the library's, the leaves' gradients after backpropagating `grad` from out are compared."""
    leaves: dict[str, float]
    code: str                  # statements that end by binding out
    grad: float = 1.0          # the gradient arriving at out: other than 1, it shows a forgotten chain factor
    kink: bool = False         # no finite differences there (relu at 0; x ** y at a negative x: not real nearby)
    prior: dict[str, float] = field(default_factory=dict)  # leaf grads left from an earlier backward(): `=` for `+=`
    extreme: bool = False      # naive formulas overflow (tanh at 400): raising there is accepted, with a note

    def text(self) -> str:  # the case as code a learner can paste
        lines = [f"{name} = Value({data!r})" for name, data in self.leaves.items()]
        lines += [f"{name}.grad = {g!r}" for name, g in self.prior.items()]
        text = '; '.join(lines + self.code.split('\n'))
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
    def reuses(self) -> bool:  # a leaf used twice (a + a): where `=` for `+=`, and a special case for it, show
        return any(len(re.findall(rf'\b{name}\b', self.code)) > 1 for name in self.leaves)


def case(leaves: str, code: str = '', prior: str = '', **options: Any) -> Case:
    """case('x=2.0 y=-3.0', 'out = x + y', ...): the leaves as name=value pairs; without code, the op's own."""
    data, grads = ({name: float(v) for name, v in (p.split('=') for p in text.split())} for text in (leaves, prior))
    return Case(data, code, prior=grads, **options)


@dataclass(frozen=True)
class Graph:
    """A graph for the sort and backward(), built with the learner's Value(data, children, op), not its ops."""
    leaves: dict[str, float]
    nodes: list[tuple[str, str, tuple[str, ...]]]  # (name, op, parents), each after its parents
    root: str

    def text(self, call: str) -> str:
        if len(self.nodes) > 20:
            return f"x = Value(0.5); n = x; then {len(self.nodes):,} times: n = n + 1; n.{call}"
        lines = [f"{n} = Value({v!r})" for n, v in self.leaves.items()]
        lines += [f"{name} = {parents[0]} + 1" if op == '+1' else f"{name} = {f' {op} '.join(parents)}"
                  for name, op, parents in self.nodes]
        return '; '.join(lines) + f"; {self.root}.{call}"


@dataclass(frozen=True)
class Slip:
    """A mistake an exercise names beyond those slips.py derives: its key, its sentence (none: the shared rule's),
    and for an op a body planted in place of the closure ({x}, {y}: the parents; {i}: a following line's indent)."""
    key: str
    says: str = ''
    body: str = ''


@dataclass(frozen=True, eq=False)  # compared by identity: one record per exercise
class Exercise:
    """One exercise, everything about it in one place."""
    name: str        # what the table and the command line call it: '+', 'tanh', 'sort', ...
    kind: str        # how it is graded: 'op' (a closure, on cases), 'sort', 'backward' (on graphs) or 'neuron'
    source: str      # the library module it is cut from: 'engine' (my_engine.py) or 'nn' (my_nn.py)
    methods: tuple[str, ...]   # the methods of Value (or Neuron) it lives in
    prompts: tuple[str, ...]   # the one line above each blank, a method each
    title: str       # one line for the table
    what: str        # what to write; the task, shown before the learner starts, adds the rules
    hint: str        # shown with the first wrong (or the next) exercise
    stronger: str    # shown by check --hint
    formula: str     # shown by check --hint, after the stronger hint
    rules: tuple[tuple[str, str], ...] = ()  # (key, sentence): the library's rules beyond the idea, in the task
    cases: tuple[Case, ...] = ()     # an op's inputs
    graphs: tuple[Graph, ...] = ()   # the sort's and backward()'s graphs
    named: tuple[Slip, ...] = ()     # the mistakes it names beyond the shared rules (slips.py)
    aliases: tuple[str, ...] = ()    # what the command line takes for it besides its name and methods

    @property
    def mistakes(self) -> dict[str, str]:  # what each mistake it names means
        return {slip.key: slip.says for slip in self.named if slip.says}

    @property
    def slips(self) -> tuple[tuple[str, str], ...]:  # (key, body) of each mistake the checker plants
        return tuple((slip.key, slip.body) for slip in self.named if slip.body)

    @property
    def number(self) -> int:
        return EXERCISES.index(self) + 1  # (by identity: records are compared so)

    @property
    def label(self) -> str:
        return f"{self.number} {self.name}"

    @property
    def attribute(self) -> str:
        return self.methods[0]

    @property
    def task(self) -> str:
        """What to write, and the library's rules it will be held to once its gradients are right."""
        rules = ' '.join(f"({n}) {text}." for n, (_, text) in enumerate(self.rules, 1))
        return f"{self.what} Once that is right, the library's rules: {rules}" if rules else self.what


def op_exercise(op: ops.Op) -> Exercise:
    """An op's exercise made from its record in ops.py (its slips derived from the library's closure: slips.py)."""
    if op.parents not in (1, 2):
        raise ValueError(f"ops.py: {op.name} takes any number of parents: its exercise is written by hand, in WRITTEN")
    y = 'y' if op.parents == 2 else ''
    code = f"out = {op.forward}" if op.method.startswith('__') else f"out = x.{op.method}({y})"  # as a learner types it
    samples = op.samples or (('x=1.5 y=-2.0', 'x=-0.5 y=3.0') if y else ('x=0.5', 'x=-1.2', 'x=2.0'))
    leaf = f" (and x {op.name} k: other is then a leaf Value(k))" if y and op.method.startswith('__') else ''
    prompt = (f"{op.forward}{leaf}: add grad times each one's local derivative to self.grad and other.grad" if y
              else f"{op.method}(x), x being self: add grad * d({op.method} x)/dx to self.grad")
    derivatives = ' and '.join(f"`d({op.forward})/d{p} = {d}`" for p, d in zip('xy', op.derivatives))
    saved = f", and `{op.saved}` the output computed above" if op.saved else ''
    return Exercise(
        op.name if y else op.method, 'op', 'engine', op.methods, (prompt,),  # (methods: x ** y's _power too)
        f"backward of {op.forward} and {op.forward.replace('y', 'k')}" if y else f"backward of {op.method}(x)",
        f"Write the body of `_backward(grad)` in `Value.{op.method}`.",
        f"The local derivative{'s' if y else ''}: {derivatives}" + (", with `out` the output." if 'out' in
                                                                     derivatives else "."),
        f"Multiply the local derivative by the upstream `grad` and add it to the parent's `.grad` with `+=` (a "
        f"Value can feed an op twice): `x` is `self.data`{', `y` `other.data`' if y else ''}{saved}.",
        ';  '.join(op.backward) + (f"   where {op.saved} = {op.forward}" if op.saved else ''),
        cases=(*(case(leaves, code) for leaves in samples), case(samples[0], code, grad=-1.5),
               case(samples[0], code, prior='x=0.25')))


def written(method: str, hint: str, stronger: str, cases: tuple[Case, ...], **fields: Any) -> Exercise:
    """An op's exercise with its hints, inputs and slips written by hand; a case without code runs the op's own."""
    derived = op_exercise(ops.BY_METHOD[method])
    cases = tuple(replace(c, code=c.code or derived.cases[0].code) for c in cases)
    return replace(derived, hint=hint, stronger=stronger, cases=cases, **fields)


# What the two levels are, said up front (the workspace's header, the notebook's introduction).
LEVELS = ("Two levels. Level 1 is the lecture's: right gradients, the lecture's way (its recursive `build_topo`, "
          "`self.grad = 1.0`, a tanh neuron), and your whole engine (the ops given too) agreeing with the library's "
          "finish it (\"done\", exit status 0). Level 2, optional, is the library's own rules, each stated in its "
          "exercise: an exercise that meets level 1 only is \"correct ✓\", and each rule left is named.")

# x ** k and x ** y: the exponent, a number or a Value's data; the exponent's half of the backward, right.
_E = "({y}.data if isinstance({y}, Value) else {y})"
_EXPONENT = "\n{i}if isinstance({y}, Value):\n{i}    {y}.grad += {x}.data ** {y}.data * math.log({x}.data) * grad"
_BASE = f"{{x}}.grad += {_E} * {{x}}.data ** ({_E} - 1) * grad"  # the base's half, right

# The sort's and backward()'s graphs. In REUSED x is used twice and z names y before x (a sort placing a node on its
# first visit lists y too early); in BRANCHES q is only r's second parent; DEEP outruns Python's recursion limit.
LECTURE = Graph({'a': 2.0, 'b': -3.0, 'c': 10.0, 'f': -2.0},
                [('e', '*', ('a', 'b')), ('d', '+', ('e', 'c')), ('L', '*', ('d', 'f'))], 'L')
REUSED = Graph({'a': 2.0, 'b': -3.0}, [('x', '*', ('a', 'b')), ('y', '+', ('x', 'a')), ('z', '*', ('y', 'x'))], 'z')
BRANCHES = Graph({'a': 3.0, 'b': -2.0}, [('p', '*', ('a', 'b')), ('q', '+', ('a', 'b')), ('r', '*', ('p', 'q'))], 'r')
DOUBLED = Graph({'a': -1.5}, [('b', '+', ('a', 'a')), ('c', '+', ('b', 'b'))], 'c')
DEEP = Graph({'x': 0.5}, [(f'n{i + 1}', '+1', (f'n{i}' if i else 'x',)) for i in range(10_000)], 'n10000')

# The neuron: weights and bias set by hand, so the expected outputs are numbers a learner can check.
WEIGHTS, BIAS = (0.5, -1.0, 2.0), 0.25
POSITIVE = (2.0, -1.0, 0.5)    # w . x + b = 3.25
NEGATIVE = (1.0, 2.0, -0.5)    # w . x + b = -2.25

NO_RECURSION = ("no recursion: walk the graph with a stack (a list you append to and pop from), so that a chain "
                "10,000 ops deep works (a recursive sort stops near Python's limit of 1,000 calls)")

# The ops' exercises written by hand, for the teaching text they add; any other op's is op_exercise()'s.
WRITTEN: tuple[Exercise, ...] = (
    written(
        '__add__',
        "`out = x + y` changes by as much as `x` does: the local derivative is 1 for each parent. In `x + 2`, "
        "the 2 arrives as a leaf `Value(2.0)`: the same closure serves it.",
        "Each parent's `.grad` grows by the output's `grad` times 1. Use `+=`, never `=`: a Value can feed "
        "an op twice.",
        cases=(case('x=2.0 y=-3.0'), case('x=2.0 y=-3.0', grad=-1.5), case('x=0.5', 'out = x + 2.0', grad=2.5),
               case('a=3.0', 'out = a + a'), case('a=-1.5', 'b = a + a\nout = b + b'),
               case('x=0.5', 'out = x + 2.0', prior='x=0.25')),
        named=(Slip('product_rule_in_add', "the derivative of * used for +: d(x+y)/dx is 1, not y",
                    "{x}.grad += {y}.data * grad\n{i}{y}.grad += {x}.data * grad"),
               Slip('add_split', "the gradient split between the parents: d(x+y)/dx = 1, so each parent gets all of "
                                 "grad, not a share of it", "{x}.grad += grad / 2\n{i}{y}.grad += grad / 2"))),
    written(
        '__mul__',
        "`d(x*y)/dx` is `y` and `d(x*y)/dy` is `x`: each parent's local derivative is the OTHER one's data.",
        "`self.grad` gets `other.data * grad` and `other.grad` gets `self.data * grad`; in `x * 3` the 3 is "
        "a leaf `Value(3.0)`, so `x.grad` gets `3 * grad`.",
        cases=(case('x=3.0 y=-4.0'), case('x=3.0 y=-4.0', grad=2.0), case('x=1.5', 'out = x * -2.5', grad=3.0),
               case('a=3.0', 'out = a * a'), case('a=-2.0', 'b = a * a\nout = b * b'),
               case('x=1.5', 'out = x * -2.5', prior='x=0.25'), case('x=3.0 y=-4.0', prior='y=0.5'))),
    written(
        '__pow__',  # (and _power: ops.py says which methods make an op)
        "The power rule: `d(x**k)/dx = k * x**(k-1)`, and it holds for negative `x` too.",
        "For a Value exponent `y` (`other` is a Value), the exponent gets a gradient as well: "
        "`d(x**y)/dy = x**y * log(x)`, with `x**y` the output.",
        cases=(case('x=-2.0', 'out = x ** 3'), case('x=1.5', 'out = x ** 2', grad=3.0), case('x=-2.0', 'out = x ** 2'),
               case('x=0.5', 'out = x ** -1'), case('x=4.0', 'out = x ** 0.5', grad=2.0), case('x=2.0 y=3.0'),
               case('x=2.0 y=3.0', grad=-0.5), case('a=1.5', 'out = a ** a'),
               case('x=1.5', 'out = x ** 3', prior='x=0.25'), case('x=-0.5', 'out = x ** -2'),
               case('x=-2.0 y=2.0', kink=True),  # y.grad = nan, as PyTorch's (math.log raises)
               case('x=1.5 y=-2.0', prior='x=0.25')),
        named=(Slip('pow_abs', "the sign of a negative base is lost (abs, or a log of |x|): for x = -2, d(x**3)/dx = "
                               "12 and d(x**2)/dx = -4",
                    f"{{x}}.grad += {_E} * abs({{x}}.data) ** ({_E} - 1) * grad" + _EXPONENT),
               Slip('pow_exponent_no_log', "the exponent's gradient is missing its log(x): d(x**y)/dy = x**y * log(x)",
                    _BASE + "\n{i}if isinstance({y}, Value):\n{i}    {y}.grad += {x}.data ** {y}.data * grad"),
               Slip('pow_rule_for_exponent', "the power rule used for the exponent: y * x**(y-1) is the derivative by "
                                             "the base; by the exponent, d(x**y)/dy = x**y * log(x)",
                    _BASE + "\n{i}if isinstance({y}, Value):\n"
                    "{i}    {y}.grad += {y}.data * {x}.data ** ({y}.data - 1) * grad"),
               Slip('pow_number_grad', "in x ** 3 the exponent is a plain number, not a Value: it has no .grad; give "
                                       "the exponent a gradient only when isinstance(other, Value)",
                    _BASE + f"\n{{i}}{{y}}.grad += {{x}}.data ** {_E} * math.log({{x}}.data) * grad"),
               Slip('pow_exponent_no_power', "the exponent's gradient is missing its x**y factor: d(x**y)/dy = x**y * "
                                             "log(x), not log(x) (x**y is the output)",
                    _BASE + "\n{i}if isinstance({y}, Value):\n{i}    {y}.grad += math.log({x}.data) * grad")),
        prompts=("x ** k of a number k >= 1, the lecture's: self.grad gets the power rule times grad",
                 "x ** y, and x ** k for k < 1: self.grad gets the power rule times grad; when other is a Value "
                 "(x ** y), other.grad gets its share too"),
        title="backward of x ** k and x ** y",
        what="Write the body of each `_backward(grad)` of `**`: in `Value.__pow__` (x ** k, the lecture's) and in "
             "`Value._power` below the marked line (x ** y, and x ** k for k < 1): the base's share, and the "
             "exponent's when the exponent is a Value."),
    written(
        'tanh',
        "`d tanh(x)/dx = 1 - tanh(x)**2`: written with the output `t`, not with the input `x`.",
        "`t` is `tanh(x)`, already computed in the forward pass; `1 - x**2` is a different function. "
        "Recomputing `tanh` from `exp(2*x)` overflows for `x` above 355.",
        cases=(case('x=0.5'), case('x=-1.2', grad=2.0), case('x=5.0'), case('x=20.0'), case('x=0.5', prior='x=0.25'),
               case('x=400.0', extreme=True)),
        named=(Slip('tanh_sigmoid_rule', "sigmoid's derivative used for tanh: d tanh(x)/dx = 1 - t**2, not "
                                         "t * (1 - t)", "{x}.grad += t * (1 - t) * grad"),)),
    written(
        'exp',
        "exp is its own derivative: `d e**x/dx = e**x`, which is the output you already computed.",
        "Multiply the output `e**x` (not `x`) by the upstream `grad`. The power rule does not apply: "
        "the variable is in the exponent.",
        cases=(case('x=0.0'), case('x=1.5'), case('x=-2.0', grad=3.0), case('x=1.0', prior='x=0.25')),
        named=(Slip('exp_power_rule', "the power rule used for e**x: x * e**(x-1) treats x as a base, but x is the "
                                      "exponent; d e**x/dx = e**x, the output itself",
                    "{x}.grad += {x}.data * math.exp({x}.data - 1) * grad"),)),
    written(
        'relu',
        "relu passes the gradient through where `x > 0` and blocks it elsewhere, including at `x = 0`.",
        "The local derivative is 1 or 0 (a slope), not `x`: `(x.data > 0) * grad`. PyTorch also takes 0 at 0.",
        cases=(case('x=3.0', grad=2.0), case('x=-2.0'), case('x=0.0', kink=True), case('x=1.5', prior='x=0.25')),
        named=(Slip('relu_at_zero', "relu'(0) must be 0 (x > 0, not x >= 0), as in PyTorch: at the kink no gradient "
                                    "passes", "{x}.grad += ({x}.data >= 0) * grad"),
               Slip('relu_inverted', "the gate is inverted: relu passes the gradient where x > 0 and blocks it where "
                                     "x <= 0", "{x}.grad += grad if {x}.data <= 0 else 0.0"),
               Slip('relu_ungated', "the gradient passes everywhere: relu blocks it where x <= 0", "{x}.grad += grad"),
               Slip('relu_value', "the value instead of the slope: relu's local derivative is 1 or 0, not x",
                    "{x}.grad += {x}.data * grad"),
               Slip('relu_leaky', "a leaky relu: below zero some gradient still passes (a slope other than 0); relu's "
                                  "derivative is exactly 0 there"))),  # found by its slopes (op_grading.py)
    written(
        '__truediv__',
        "`d(x/y)/dx = 1/y` and `d(x/y)/dy = -x/y**2`: the divisor's local derivative carries a minus sign.",
        "`self.grad` gets `grad / other.data`. For `other`, `-x/y**2` is `-(x/y)/y`: written so, it does not "
        "overflow for a tiny `y` (`1e-170`), where `y**2` underflows to 0 and `y**-2` is too large for a float. In "
        "`x / 4` the 4 is a leaf `Value(4.0)`: `x.grad` gets `grad / 4`.",
        cases=(case('x=3.0 y=2.0'), case('x=3.0 y=2.0', grad=-2.0), case('x=1.5', 'out = x / 4.0', grad=3.0),
               case('x=2.0 y=-0.5'), case('x=-1.5 y=0.5'), case('a=1.5', 'out = a / a'),
               case('x=3.0 y=2.0', prior='y=0.5'), case('x=1.5', 'out = x / 4.0', prior='x=0.25'),
               case('x=3e-170 y=1e-170', extreme=True)),
        named=(Slip('div_as_mul', "the derivative of * used for /: d(x/y)/dx = 1/y, not y, and d(x/y)/dy = -x/y**2, "
                                  "not x (for x / k: 1/k, not k)",
                    "{x}.grad += {y}.data * grad\n{i}{y}.grad += {x}.data * grad"),),
        aliases=('div',)),
    written(
        'log',
        "`d log(x)/dx = 1/x`, at the input `x`.",
        "Divide the upstream `grad` by the input `x` (`self.data`), not by the output `log(x)`.",
        cases=(case('x=2.0'), case('x=0.25', grad=3.0), case('x=10.0'), case('x=2.0', prior='x=0.25')),
        named=(Slip('log_function', "the function instead of its derivative: d log(x)/dx = 1/x",
                    "{x}.grad += math.log({x}.data) * grad"),
               Slip('log_squared', "d log(x)/dx = 1/x, not 1/x**2 (that is the derivative of -1/x)",
                    "{x}.grad += grad / {x}.data ** 2"))),
    written(
        'sigmoid',
        "`d sigmoid(x)/dx = s * (1 - s)`, written with the output `s = sigmoid(x)`.",
        "`s` is the output computed above; `x * (1 - x)` is the same formula at the wrong point.",
        cases=(case('x=0.0'), case('x=2.0', grad=3.0), case('x=-4.0'), case('x=1.0', prior='x=0.25')),
        named=(Slip('sigmoid_tanh_rule', "tanh's derivative used for sigmoid: d sigmoid(x)/dx = s * (1 - s), not "
                                         "1 - s**2", "{x}.grad += (1 - s * s) * grad"),)),
    Exercise(
        'dot', 'op', 'engine', ('dot',),
        ("dot: each w in ws, each x in xs and the bias b get their share of grad",),
        "backward of Value.dot(ws, xs, bias)",
        "Write the body of `_backward(grad)` in `Value.dot`: every weight, every input and the bias.",
        "dot is n products and a sum in one node: `w_i` gets `x_i * grad`, `x_i` gets `w_i * grad`, the bias `grad`.",
        "Walk `zip(ws, xs)`; the bias `b` is always a Value (`Value(0.0)` when none is given). `+=` matters, "
        "since the same Value may appear in `ws` and `xs`.",
        "w.grad += x.data * grad;  x.grad += w.data * grad  (each pair);  b.grad += grad",
        cases=(case('w1=0.5 w2=-1.5 x1=2.0 x2=3.0', 'out = Value.dot([w1, w2], [x1, x2])'),
               case('w1=0.5 w2=-1.5 x1=2.0 x2=3.0 b=0.25', 'out = Value.dot([w1, w2], [x1, x2], b)', grad=2.0),
               case('a=1.5 b=-0.25', 'out = Value.dot([a, b], [a, a], b)'),
               case('w1=-0.5 w2=1.5 x1=-2.0 x2=-3.0', 'out = Value.dot([w1, w2], [x1, x2])'),
               case('w=0.5 x=2.0', 'out = Value.dot([w], [x])', prior='w=0.25')),
        named=(Slip('dot_reversed', "the weights paired with the inputs in reverse order: w_i goes with x_i, the "
                                    "input at the same position (zip(ws, xs)), not x_(n-1-i)",
                    "for w, x in zip(ws, reversed(xs)):\n{i}    w.grad += x.data * grad\n"
                    "{i}    x.grad += w.data * grad\n{i}b.grad += grad"),),
        aliases=('Value.dot',)),
)

# Every op of ops.py in its order (engine.py's), its record in WRITTEN or the one derived from ops.py; then the
# lecture's sort and backward(), and the neuron.
EXERCISES: tuple[Exercise, ...] = (
    *({e.attribute: e for e in WRITTEN}.get(op.method) or op_exercise(op) for op in ops.OPS),
    Exercise(
        'sort', 'sort', 'engine', ('_topological_order',),
        ("return the nodes ops made on the way to self, each after its parents",),
        "the topological sort",
        "Write `Value._topological_order()`: the nodes on the way to self, each after all of its parents, each "
        "once (the lecture's `build_topo`).",
        "List every node an op made on the way to self, each after all of its parents, each once.",
        "Use an explicit stack instead of recursion and a visited set (a reused node is listed once). Push a node "
        "back with a marker before its parents; when you pop the marker, all its parents are placed, so append the "
        "node. Leaves (no `_prev`) are not listed.",
        "post-order depth-first search over _prev: a node is appended after all of its parents",
        rules=(('sort_recursion', NO_RECURSION),
               ('sort_leaves', "leave the leaves out (a Value no op made: its `_prev` is empty): backward() zeroes "
                               "every node in the order, and leaves must keep accumulating")),
        graphs=(REUSED, BRANCHES, LECTURE, DEEP),
        named=(Slip('sort_not_list', "the sort must return a list of Values"),
               Slip('sort_duplicate', "a reused node is listed twice: its _backward would run twice and double its "
                                      "parents' gradient; keep a visited set"),
               Slip('sort_missing', "a parent is never visited: walk every Value in node._prev (a missing parent in "
                                    "the sort)"),
               Slip('sort_missing_root', "the root itself (self) is missing from the order; it comes last"),
               Slip('sort_order', "a node comes before one of its parents: in reverse, its _backward would run after "
                                  "that parent's, and the parent would pass on gradient before it has received all "
                                  "of it"),
               Slip('sort_foreign', "the order holds Values that are not part of this graph")),
        aliases=('topo', 'build_topo')),
    Exercise(
        'backward', 'backward', 'engine', ('backward',),
        ("sort, zero, seed self.grad, then pass each node's grad on to its parents, root first",),
        "backward(): the chain rule over the sorted graph",
        "Write `Value.backward()`: sort the graph, set the root's gradient to 1, then run each node's backward, "
        "root first (the lecture's `backward`).",
        "Sort, zero the sorted nodes' grads, add 1 to `self.grad`, then run each node's backward, root first.",
        "Walk `reversed(order)` and call `node._grad_fn(node.grad)` (or the lecture's `node._backward()`, "
        "which passes `node.grad` itself). Zero only the nodes in the order: leaves keep accumulating across "
        "calls, so a second `backward()` adds exactly the same amount again; `+= 1`, since the root may be a "
        "leaf with a gradient already.",
        "d(self)/d(self) = 1;  for each node from the root down: node._grad_fn(node.grad)",
        rules=(('backward_no_zeroing', "zero the sorted nodes' gradients before passing gradient on, so that a "
                                       "second backward() adds exactly the first one's gradient to the leaves again "
                                       "(as PyTorch's does) instead of doubling it through the intermediate nodes; "
                                       "zero only those: leaves keep accumulating"),
               ('backward_seed_overwrites', "add 1 to the root's gradient (`self.grad += 1`): backward() on a leaf "
                                            "that holds a gradient already adds to it, as PyTorch's does"),
               ('backward_recursion', NO_RECURSION)),
        graphs=(LECTURE, REUSED, DOUBLED, DEEP),
        named=(Slip('backward_not_reversed', "only the root passes its gradient on: the other nodes' backwards run "
                                             "before they have received theirs (the order walked from the leaves, or "
                                             "the root's alone); run every node's backward, root first: for node in "
                                             "reversed(order)"),
               Slip('backward_no_seed', "the root's gradient is never set: d(self)/d(self) = 1, so self.grad += 1 "
                                        "before the loop"),
               Slip('backward_zeroed_in_loop', "each node's gradient is set to 0 inside the loop, just before its "
                                               "backward runs: that wipes the root's 1 and every gradient a node has "
                                               "received, so nothing is passed on; zero the nodes in a loop of its "
                                               "own, before the root's 1 is added"),
               Slip('backward_zeroed_after', "each node's gradient is set to 0 inside the loop, just after its "
                                             "backward runs: the nodes between the root and the leaves lose the "
                                             "gradient backward() leaves in them; zero the nodes in a loop of its own, "
                                             "before the root's 1 is added"),
               Slip('backward_twice', "a node's _backward runs twice, so its parents get its gradient twice (a sort "
                                      "without a visited set lists a reused node once per path; or the loop calls it "
                                      "twice)"),
               Slip('backward_extra_grad', "backward() hands a gradient to a _backward that takes none: node._backward "
                                           "(and a lecture-style closure, out._backward = f) reads out.grad itself; "
                                           "call node._backward(), or node._grad_fn(node.grad)"),
               Slip('backward_no_grad', "backward() calls node._backward() without the gradient, but your ops' "
                                        "closures take it: call node._backward(node.grad)"),
               Slip('backward_own_ops', "backward() works on the checker's graphs but not on a graph of your own ops"),
               Slip('backward_unit_grad', "each node is passed 1 instead of its own gradient: call "
                                          "node._grad_fn(node.grad)"),
               Slip('backward_not_called', "nothing passes from the root: no node's backward runs (node._backward "
                                           "without its parentheses), or the root's gradient is set after the loop; "
                                           "seed the root first, then call each: node._backward()"))),
    Exercise(
        'neuron', 'neuron', 'nn', ('__call__', 'parameters'),
        ("return activation(w . x + b) as a Value built from self.w, x and self.b",
         "return the neuron's weights and its bias, as one list"),
        "Neuron.__call__ and parameters() in my_nn.py",
        "Write `Neuron.__call__(x)`: `activation(w . x + b)` built from Values (the lecture's neuron), and "
        "`Neuron.parameters()`: its weights and its bias, as one list.",
        "A neuron computes `activation(w . x + b)` from Values, so that `backward()` reaches `w` and `b`.",
        "`Value.dot(self.w, x, self.b)` builds `w . x + b` as one node; then `.relu()`, `.tanh()` or "
        "`.sigmoid()` unless the activation is 'linear'. `parameters()` returns `self.w + [self.b]`.",
        "out = act(w1*x1 + w2*x2 + ... + b);  parameters = [w1, w2, ..., b]",
        rules=(('neuron_activation', "apply the neuron's own activation, `self.activation`: this Neuron is ReLU "
                                     "unless made with activation='tanh' or 'sigmoid', and applies none when "
                                     "'linear' (nonlin=False); the lecture's neuron is always tanh"),
               ('neuron_single_value', "take a single Value (or number) as well as a list: a Layer of one neuron "
                                       "hands on a Value, not a list"),
               ('neuron_length', "refuse inputs of the wrong number: 3 weights and 2 inputs raise ValueError "
                                 "(zip would silently drop a weight)")),
        named=(Slip('params_not_list', "parameters() must return a list (an optimizer goes over it many times)"),
               Slip('params_no_bias', "parameters() leaves out the bias b, so an optimizer never trains it"),
               Slip('params_no_weights', "parameters() leaves out weights, so an optimizer never trains them"),
               Slip('params_extra', "parameters() returns Values that are not the neuron's own weights and bias"),
               Slip('params_twice', "parameters() lists a Value twice: an optimizer would step it twice"),
               Slip('params_nested', "parameters() returns a list holding the list of weights: one flat list of "
                                     "Values, self.w + [self.b]"),
               Slip('neuron_no_bias', "the bias is left out of the sum: activation(w . x + b)"),
               Slip('neuron_forward', "the forward value differs from the library's, so its gradients cannot be right "
                                      "either"),
               Slip('neuron_bias_per_input', "the bias is added once per input (inside the loop over the inputs): "
                                             "w . x + b adds it once"),
               Slip('neuron_squared', "an operand multiplied by itself (wi * wi, or xi * xi): each weight multiplies "
                                      "its own input, wi * xi"),
               Slip('neuron_detached', "the output is not built from the weights: use Value ops (Value.dot(self.w, x, "
                                       "self.b), or w * x summed) rather than .data floats, so backward() reaches w "
                                       "and b")),
        aliases=('neuron.__call__',)),
)

BY_NAME = {e.name: e for e in EXERCISES}
ALIASES = {a.lower(): e.name for e in EXERCISES for a in (*e.aliases, *e.methods, *(m.strip('_') for m in e.methods))}


def find(name: str) -> Exercise:
    """An exercise by its name ('+', 'tanh'), an alias ('mul', 'pow') or its number ('3')."""
    key = name.strip().lower()
    if key.isdigit() and 1 <= int(key) <= len(EXERCISES):
        return EXERCISES[int(key) - 1]
    if (found := BY_NAME.get(ALIASES.get(key, key))) is not None:
        return found
    names = ' '.join(e.name for e in EXERCISES)
    raise KeyError(f"no exercise {name!r}: choose one of {names} (or its number, 1-{len(EXERCISES)})")
