"""The thirteen exercises, easiest first: what each asks, its hints, and the mistakes the checker can name."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Exercise:
    number: int
    name: str       # what the table and the command line call it: '+', 'tanh', 'sort', ...
    source: str     # 'engine' (my_engine.py) or 'nn' (my_nn.py)
    methods: tuple[str, ...]  # the methods of Value (or Neuron) it lives in
    title: str      # one line for the table
    hint: str       # shown with the first wrong (or the next) exercise
    stronger: str   # shown by check --hint
    formula: str    # shown by check --hint, after the stronger hint

    @property
    def label(self) -> str:
        return f"{self.number} {self.name}"


# Formulas and code are written between backticks: Markdown (the notebook) shows them as code, where `*` and `**`
# would otherwise turn into italics and bold and the exponent of the power rule would vanish.
EXERCISES: tuple[Exercise, ...] = (
    Exercise(1, '+', 'engine', ('__add__',), "backward of x + y and x + k",
             "`out = x + y` changes by as much as `x` does: the local derivative is 1 for each parent. In `x + 2`, "
             "the 2 arrives as a leaf `Value(2.0)`: the same closure serves it.",
             "Each parent's `.grad` grows by the output's `grad` times 1. Use `+=`, never `=`: a Value can feed "
             "an op twice.",
             "self.grad += 1 * grad;  other.grad += 1 * grad"),
    Exercise(2, '*', 'engine', ('__mul__',), "backward of x * y and x * k",
             "`d(x*y)/dx` is `y` and `d(x*y)/dy` is `x`: each parent's local derivative is the OTHER one's data.",
             "`self.grad` gets `other.data * grad` and `other.grad` gets `self.data * grad`; in `x * 3` the 3 is "
             "a leaf `Value(3.0)`, so `x.grad` gets `3 * grad`.",
             "self.grad += other.data * grad;  other.grad += self.data * grad"),
    Exercise(3, '**', 'engine', ('__pow__',), "backward of x ** k and x ** y",
             "The power rule: `d(x**k)/dx = k * x**(k-1)`, and it holds for negative `x` too. The forward pass "
             "computed it already, as `slope`.",
             "For a Value exponent `y` (`other` is a Value), the exponent gets a gradient as well: "
             "`d(x**y)/dy = x**y * log(x)`, with `x**y` the output `out`.",
             "self.grad += y * self.data**(y-1) * grad;  for x ** Value also  "
             "other.grad += out * log(self.data) * grad"),
    Exercise(4, '/', 'engine', ('__truediv__',), "backward of x / y and x / k",
             "`d(x/y)/dx = 1/y` and `d(x/y)/dy = -x/y**2`: the divisor's local derivative carries a minus sign.",
             "`self.grad` gets `grad / other.data`. For `other`, `-x/y**2` is `-q/y` with the output `q = x/y` "
             "(the forward pass holds it): written so, it does not overflow for a tiny `y` (`1e-170`), where "
             "`y**2` underflows to 0 and `y**-2` is too large for a float. In `x / 4` the 4 is a leaf "
             "`Value(4.0)`: `x.grad` gets `grad / 4`.",
             "self.grad += grad / other.data;  other.grad -= grad * q / other.data   where q = x / y"),
    Exercise(5, 'exp', 'engine', ('exp',), "backward of exp(x)",
             "exp is its own derivative: `d e**x/dx = e**x`, which is the output you already computed.",
             "Multiply the output `e = exp(x)` (not `x`) by the upstream `grad`. The power rule does not apply: "
             "the variable is in the exponent.",
             "self.grad += e * grad   where e = exp(self.data)"),
    Exercise(6, 'tanh', 'engine', ('tanh',), "backward of tanh(x)",
             "`d tanh(x)/dx = 1 - tanh(x)**2`: written with the output `t`, not with the input `x`.",
             "`t` is `tanh(x)`, already computed in the forward pass; `1 - x**2` is a different function. "
             "Recomputing `tanh` from `exp(2*x)` overflows for `x` above 355.",
             "self.grad += (1 - t**2) * grad   where t = tanh(self.data)"),
    Exercise(7, 'log', 'engine', ('log',), "backward of log(x)",
             "`d log(x)/dx = 1/x`, at the input `x`.",
             "Divide the upstream `grad` by the input `x` (`self.data`), not by the output `log(x)`.",
             "self.grad += grad / x   where x = self.data"),
    Exercise(8, 'relu', 'engine', ('relu',), "backward of relu(x)",
             "relu passes the gradient through where `x > 0` and blocks it elsewhere, including at `x = 0`.",
             "The local derivative is 1 or 0 (a slope), not `x`: `(x.data > 0) * grad`. PyTorch also takes 0 at 0.",
             "self.grad += (1 if self.data > 0 else 0) * grad"),
    Exercise(9, 'sigmoid', 'engine', ('sigmoid',), "backward of sigmoid(x)",
             "`d sigmoid(x)/dx = s * (1 - s)`, written with the output `s = sigmoid(x)`.",
             "`s` is the output computed above; `x * (1 - x)` is the same formula at the wrong point.",
             "self.grad += s * (1 - s) * grad   where s = sigmoid(self.data)"),
    Exercise(10, 'dot', 'engine', ('dot',), "backward of Value.dot(ws, xs, bias)",
             "dot is n products and a sum in one node: `w_i` gets `x_i * grad`, `x_i` gets `w_i * grad`, the bias "
             "`grad`.",
             "Walk `zip(ws, xs)`; the bias `b` is always a Value (`Value(0.0)` when none is given). `+=` matters, "
             "since the same Value may appear in `ws` and `xs`.",
             "w.grad += x.data * grad;  x.grad += w.data * grad  (each pair);  b.grad += grad"),
    Exercise(11, 'sort', 'engine', ('_topological_order',), "the topological sort, without recursion",
             "List every node an op made on the way to self, each after all of its parents, each once.",
             "Use an explicit stack instead of recursion (a chain 10,000 ops deep must work) and a visited set "
             "(a reused node is listed once). Push a node back with a marker before its parents; when you pop "
             "the marker, all its parents are placed, so append the node. Leaves (no `_grad_fn`) are not listed.",
             "post-order depth-first search over _prev: a node is appended after all of its parents"),
    Exercise(12, 'backward', 'engine', ('backward',), "backward(): the chain rule over the sorted graph",
             "Sort, zero the sorted nodes' grads, add 1 to `self.grad`, then run each node's backward, root first.",
             "Walk `reversed(order)` and call `node._grad_fn(node.grad)` (or the lecture's `node._backward()`, "
             "which passes `node.grad` itself). Zero only the nodes in the order: leaves keep accumulating across "
             "calls, so a second `backward()` adds exactly the same amount again; `+= 1`, since the root may be a "
             "leaf with a gradient already.",
             "d(self)/d(self) = 1;  for each node from the root down: node._grad_fn(node.grad)"),
    Exercise(13, 'neuron', 'nn', ('__call__', 'parameters'), "Neuron.__call__ and parameters() in my_nn.py",
             "A neuron computes `activation(w . x + b)` from Values, so that `backward()` reaches `w` and `b`.",
             "`Value.dot(self.w, x, self.b)` builds `w . x + b` as one node; then `.relu()`, `.tanh()` or "
             "`.sigmoid()` unless the activation is 'linear'. `parameters()` returns `self.w + [self.b]`.",
             "out = act(w1*x1 + w2*x2 + ... + b);  parameters = [w1, w2, ..., b]"),
)

BY_NAME = {e.name: e for e in EXERCISES}
ALIASES = {'add': '+', 'mul': '*', 'pow': '**', 'div': '/', 'truediv': '/', 'topo': 'sort', 'topological_order': 'sort',
           '_topological_order': 'sort', 'neuron.__call__': 'neuron', 'parameters': 'neuron'}


def find(name: str) -> Exercise:
    """An exercise by its name ('+', 'tanh'), an alias ('mul', 'pow') or its number ('3')."""
    key = name.strip().lower()
    if key.isdigit() and 1 <= int(key) <= len(EXERCISES):
        return EXERCISES[int(key) - 1]
    key = ALIASES.get(key, key)
    if key in BY_NAME:
        return BY_NAME[key]
    names = ' '.join(e.name for e in EXERCISES)
    raise KeyError(f"no exercise {name!r}: choose one of {names} (or its number, 1-{len(EXERCISES)})")


# The mistakes the checker recognises, by key; the tests assert these keys and texts.
DIAGNOSES: dict[str, str] = {
    'overwrite': "`=` instead of `+=` (or `-=`): a Value used twice (as in a * a, a / a, or b = a + a; c = b + b) "
                 "must collect the gradient of both uses, and `=` keeps only the last one",
    'upstream': "the upstream gradient is forgotten: multiply the local derivative by grad (the chain rule); "
                "with grad = 1 the mistake does not show",
    'sign': "sign error: your gradient is minus the right one",
    'nothing': "no gradient reaches the input: the _backward must add to each parent's .grad",
    'swapped': "x and y swapped in *: d(x*y)/dx is y, so x.grad gets y.data * grad (and y.grad gets x.data * grad)",
    'sum_rule_in_mul': "the derivative of + used for *: d(x*y)/dx is y, not 1",
    'mul_no_constant': "the constant is missing: d(x*k)/dx = k, not 1 (x * 3 gives x.grad 3 * grad); a number in "
                       "x * 3 arrives as the leaf other = Value(3.0), so self.grad += other.data * grad",
    'product_rule_in_add': "the derivative of * used for +: d(x+y)/dx is 1, not y",
    'one_parent': "only one parent gets a gradient: every parent of the op must receive its share",
    'pow_no_lowering': "the exponent is not lowered: d(x**k)/dx = k * x**(k-1), not k * x**k",
    'pow_no_factor': "the factor k is missing: d(x**k)/dx = k * x**(k-1)",
    'pow_abs': "the sign of a negative base is lost (abs, or a log of |x|): for x = -2, d(x**3)/dx = 12 and "
               "d(x**2)/dx = -4",
    'pow_exponent': "the exponent gets no gradient: in x ** y, y is a Value too, and d(x**y)/dy = x**y * log(x)",
    'pow_number_grad': "in x ** 3 the exponent is a plain number, not a Value: it has no .grad; give the exponent "
                       "a gradient only when isinstance(other, Value)",
    'pow_exponent_no_power': "the exponent's gradient is missing its x**y factor: d(x**y)/dy = x**y * log(x), not "
                             "log(x) (x**y is the output, out)",
    'pow_at_output': "derivative taken at the output: the power rule wants the input x, not out = x**k",
    'div_sign': "sign error on the divisor: d(x/y)/dy = -x/y**2, so y.grad goes down by grad * x/y**2 "
                "(y.grad -= ...)",
    'div_dy_no_x': "x is missing from the divisor's gradient: d(x/y)/dy = -x/y**2, not -1/y**2 (that is the "
                   "derivative of 1/y)",
    'div_dy_one_y': "one y too few in the divisor's gradient: d(x/y)/dy = -x/y**2, not -x/y (that is minus the output)",
    'div_at_output': "the output used where the input belongs: d(x/y)/dy = -x/y**2, which is -q/y with the output "
                     "q = x/y; -q/y**2 puts q in the place of x",
    'div_no_constant': "the divisor is missing from x's gradient: d(x/k)/dx = 1/k, not 1 (x / 4 gives x.grad "
                       "grad / 4); a number in x / 4 arrives as the leaf other = Value(4.0)",
    'div_as_mul': "the derivative of * used for /: d(x/y)/dx = 1/y, not y, and d(x/y)/dy = -x/y**2, not x "
                  "(for x / k: 1/k, not k)",
    'exp_at_input': "derivative taken at the input: d e**x/dx is the output e**x, and you used x",
    'exp_power_rule': "the power rule used for e**x: x * e**(x-1) treats x as a base, but x is the exponent; "
                      "d e**x/dx = e**x, the output itself",
    'exp_at_output': "derivative taken at the output: e**x is already the derivative; exp(out) is exp applied twice",
    'tanh_at_input': "derivative taken at the input: d tanh(x)/dx = 1 - t**2 with the output t = tanh(x), "
                     "and you used 1 - x**2",
    'tanh_at_output': "tanh applied twice: t is already tanh(x), so 1 - tanh(t)**2 takes the derivative at the output",
    'tanh_no_square': "the square is missing: d tanh(x)/dx = 1 - t**2, not 1 - t",
    'log_at_output': "derivative taken at the output: d log(x)/dx = 1/x with the input x, not 1/log(x)",
    'log_function': "the function instead of its derivative: d log(x)/dx = 1/x",
    'log_squared': "d log(x)/dx = 1/x, not 1/x**2 (that is the derivative of -1/x)",
    'relu_at_zero': "relu'(0) must be 0 (x > 0, not x >= 0), as in PyTorch: at the kink no gradient passes",
    'relu_ungated': "the gradient passes everywhere: relu blocks it where x <= 0",
    'relu_inverted': "the gate is inverted: relu passes the gradient where x > 0 and blocks it where x <= 0",
    'relu_value': "the value instead of the slope: relu's local derivative is 1 or 0, not x",
    'sigmoid_at_input': "derivative taken at the input: d sigmoid(x)/dx = s * (1 - s) with the output s, "
                        "and you used x * (1 - x)",
    'sigmoid_at_output': "sigmoid applied twice: s is already sigmoid(x); sigmoid(s) * (1 - sigmoid(s)) takes the "
                         "derivative at the output",
    'sigmoid_half': "half the derivative: d sigmoid(x)/dx = s * (1 - s), not s alone",
    'dot_swapped': "w and x swapped in dot: w_i gets x_i.data * grad and x_i gets w_i.data * grad",
    'dot_no_bias': "the bias gets no gradient: d(dot)/d(bias) = 1, so bias.grad += grad",
    'dot_inputs': "only the weights get gradients: the inputs x_i need theirs too (w_i.data * grad)",
    'unfinished': "not finished: this part of the exercise still raises NotImplementedError",
    'forward': "the forward value is wrong (out.data), so its derivative cannot be right either",
    'raises': "your code raised an exception",
    'out_undefined': "out is not the output Value in the workspace's _backward(grad) (it is undefined, or in ** the "
                     "float x**y): the closure is handed the output's "
                     "gradient, so here `grad` is the lecture's `out.grad` (and the output's value is the forward "
                     "pass's own variable: e in exp, t in tanh, s in sigmoid, q in /, out in **)",
    'missing': "a method of this exercise is not in your Value (renamed or deleted?): the operator it makes "
               "no longer works",
    'exits': "your code called sys.exit() (or exit(), quit()) while it was checked: raise an exception instead",
    'exited': "the process running your code exited in the middle of this exercise (os._exit()?)",
    'timeout': "did not finish in time: an infinite loop?",
    'crash': "the process running your code was killed by a signal (a recursion limit raised until Python's own "
             "stack overflowed?)",
    'wrong': "the gradient differs from the right one, and it is none of the mistakes the checker knows",
    'sort_recursion': "the sort recurses: a chain 10,000 ops deep raises RecursionError; walk the graph with an "
                      "explicit stack (a list you append to and pop from) instead",
    'sort_not_list': "the sort must return a list of Values",
    'sort_duplicate': "a reused node is listed twice: its _backward would run twice and double its parents' "
                      "gradient; keep a visited set",
    'sort_missing': "a parent is never visited: walk every Value in node._prev (a missing parent in the sort)",
    'sort_missing_root': "the root itself (self) is missing from the order; it comes last",
    'sort_order': "a node comes before one of its parents: in reverse, its _backward would run after that parent's, "
                  "and the parent would pass on gradient before it has received all of it",
    'sort_leaves': "leaves are in the order: only nodes an op made belong (backward() zeroes the nodes in the "
                   "order, and leaves must keep accumulating)",
    'sort_foreign': "the order holds Values that are not part of this graph",
    'backward_not_reversed': "the order is walked from the leaves: run the _backward of the root first "
                             "(for node in reversed(order))",
    'backward_no_seed': "the root's gradient is never set: d(self)/d(self) = 1, so self.grad += 1 before the loop",
    'backward_twice': "a node's _backward runs twice, so its parents get its gradient twice (a sort without a "
                      "visited set lists a reused node once per path; or the loop calls it twice)",
    'backward_seed_overwrites': "self.grad = 1 instead of self.grad += 1: for a root that is a leaf (x.backward() "
                                "on x itself) the gradient x held is lost; backward() adds, as PyTorch's does",
    'backward_extra_grad': "backward() hands a gradient to a _backward that takes none: node._backward (and a "
                           "lecture-style closure, out._backward = f) reads out.grad itself; call node._backward(), "
                           "or node._grad_fn(node.grad)",
    'backward_no_grad': "backward() calls node._backward() without the gradient, but your ops' closures take it: "
                        "call node._backward(node.grad)",
    'backward_own_ops': "backward() works on the checker's graphs but not on a graph of your own ops",
    'backward_unit_grad': "each node is passed 1 instead of its own gradient: call node._grad_fn(node.grad)",
    'backward_no_zeroing': "a second backward() does not give leaves exactly twice the first gradient: the "
                           "intermediate nodes still hold the first call's gradient; zero the nodes in the "
                           "order before passing gradient on",
    'backward_zeroes_leaves': "a second backward() does not accumulate: leaves were zeroed; zero only the nodes "
                              "in the order (the ones ops made), so leaves accumulate across calls",
    'backward_recursion': "backward() recurses: a chain 10,000 ops deep raises RecursionError; sort with an "
                          "explicit stack",
    'params_not_list': "parameters() must return a list (an optimizer goes over it many times)",
    'params_no_bias': "parameters() leaves out the bias b, so an optimizer never trains it",
    'params_no_weights': "parameters() leaves out weights, so an optimizer never trains them",
    'params_extra': "parameters() returns Values that are not the neuron's own weights and bias",
    'params_twice': "parameters() lists a Value twice: an optimizer would step it twice",
    'neuron_no_bias': "the bias is left out of the sum: activation(w . x + b)",
    'neuron_no_activation': "the activation is not applied: a nonlinear neuron returns relu(w . x + b) "
                            "(or tanh, as its activation says)",
    'neuron_activation_when_linear': "the activation is applied though the neuron is linear (nonlin=False)",
    'neuron_wrong_activation': "the wrong activation: use the one the neuron was made with (self.activation)",
    'neuron_detached': "the output is not built from the weights: use Value ops (Value.dot(self.w, x, self.b), "
                       "or w * x summed) rather than .data floats, so backward() reaches w and b",
    'neuron_single_value': "a one-neuron Layer hands on a single Value, not a list: treat it as [x]",
    'neuron_length': "the number of inputs is not checked: 3 weights and 2 inputs must raise ValueError, not zip "
                     "the shorter",
}
