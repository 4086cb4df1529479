"""The tensor track's exercises on the ops themselves, easiest first: broadcasting, arithmetic, elementwise
functions, reductions, max, shapes, indexing, matmul. Slip bodies read the names the library's forward pass binds."""
from __future__ import annotations

import numpy as np

from micrograd.exercises.scalar.exercises import EXERCISES as SCALAR
from micrograd.exercises.tensor.array_exercise import BATCH_T, KEEPDIMS, Exercise, Slip
from micrograd.exercises.tensor.cases import case

SAID = {key: says for e in SCALAR for key, says in e.mistakes.items()}  # a slip both tracks name, said once

UNBROADCAST = Exercise(
    'unbroadcast', "sum a broadcast gradient back to an operand's shape",
    "Write `unbroadcast(grad, shape)`: `grad` has the shape of an op's output, `shape` is the shape of an operand "
    "that broadcasting stretched to it; return the gradient of that operand. Every op's `_add_grad` calls it.",
    "Return an array of exactly `shape`, in `grad`'s dtype (a float32 gradient stays float32). An operand that "
    "was not stretched gets `grad` as it is.",
    "grad (4, 3) -> (3,) [a missing leading axis]; (4, 3) -> (4, 1) [a size-1 axis]; (2, 4, 3) -> (4, 1); (4, 3) -> () "
    "[a 0-d operand]; (0, 3) -> (3,) [empty]; (3, 3) -> (3,) [square: the wrong axis shows in the numbers]",
    "In `x + b` with x (4, 3) and b (3,), each `b[j]` is used by all 4 rows: its gradient is the sum of the 4 "
    "rows of `grad`. Broadcasting lines shapes up at the right: b counts as (1, 3).",
    "Sum over the leading axes `grad` has and `shape` lacks, then over each axis where `shape` has 1 and `grad` "
    "does not, with `keepdims=True` (or reshape at the end), so that (4, 1) stays (4, 1) and not (4,).",
    "extra = grad.ndim - len(shape);  axes = range(extra) + [extra + i for i, n in enumerate(shape) if n == 1];  "
    "grad.sum(axis=axes, keepdims=True).reshape(shape)",
    ('unbroadcast',),
    (case('g 4,3', "out = unbroadcast(g, (3,))", note="b (3,) was used by all 4 rows"),
     case('g 4,3', "out = unbroadcast(g, (4, 1))", note="a size-1 axis stretched to 3"),
     case('g 3,3', "out = unbroadcast(g, (3,))", note="square: axis 0, not axis 1"),
     case('g 2,4,3', "out = unbroadcast(g, (4, 1))"),
     case('g 2,4,3', "out = unbroadcast(g, (1, 3))"),
     case('g 4,3', "out = unbroadcast(g, ())", note="a 0-d operand"),
     case('g 0,3', "out = unbroadcast(g, (3,))", note="an empty batch: the sum of nothing is 0"),
     case('g 4,3', "out = unbroadcast(g, (4, 3))", note="nothing was stretched"),
     case('g 4,3', "out = unbroadcast(g, (3,))", dtype='float32')),
    (Slip('not_reduced', 'unbroadcast', "return grad",
          "the broadcast gradient is not reduced: it keeps the output's shape"),
     Slip('size1_not_summed', 'unbroadcast', "return grad.sum(axis=tuple(range(grad.ndim - len(shape))))",
          "only the leading axes are summed: an axis of size 1 that broadcasting stretched (b (4, 1) against "
          "(4, 3)) must be summed too"),
     Slip('keepdims_lost', 'unbroadcast',
          "extra = grad.ndim - len(shape)\ngrad = grad.sum(axis=tuple(range(extra)))\n"
          "return grad.sum(axis=tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1))",
          "keepdims lost: the size-1 axes are summed away, so a (4, 1) operand gets a (4,) gradient; sum with "
          "keepdims=True (or reshape to shape at the end)"),
     Slip('left_aligned', 'unbroadcast',
          "axes = tuple(i for i, n in enumerate(shape) if n == 1) + tuple(range(len(shape), grad.ndim))\n"
          "return grad.sum(axis=axes, keepdims=True).reshape(shape)",
          "shapes lined up at the left: broadcasting lines them up at the right, so the axes grad has and shape "
          "lacks are the leading ones, range(grad.ndim - len(shape)), and shape's axis i is grad's axis "
          "i + grad.ndim - len(shape)"),
     Slip('wrong_axis', 'unbroadcast', "return grad.sum(axis=tuple(range(len(shape), grad.ndim)))",
          "reduced over the wrong axis: shapes line up at the right, so (3,) against (4, 3) is (1, 3), stretched "
          "along axis 0 (the trailing axes are the operand's own)"),
     Slip('mean_not_sum', 'unbroadcast',
          "extra = grad.ndim - len(shape)\n"
          "axes = tuple(range(extra)) + tuple(i + extra for i, n in enumerate(shape) if n == 1)\n"
          "return grad.mean(axis=axes, keepdims=True).reshape(shape)",
          "a mean instead of a sum: an operand used n times receives the sum of its n gradients, not their mean"),
     Slip('one_use', 'unbroadcast',
          "while grad.ndim > len(shape):\n    grad = grad[0]\n"
          "return grad[tuple(slice(0, 1) if n == 1 else slice(None) for n in shape)]",
          "one use only: the operand was used by every row, and its gradient is the sum over all of them, "
          "not the first row's"),
     Slip('promoted', 'unbroadcast',
          "out = np.zeros(shape)\nextra = grad.ndim - len(shape)\n"
          "for index in np.ndindex(*grad.shape):\n"
          "    out[tuple(0 if n == 1 else i for i, n in zip(index[extra:], shape))] += grad[index]\n"
          "return out",
          "float32 promoted to float64: the numbers are right, but the gradient of a float32 tensor must stay "
          "float32 (np.zeros(shape) is float64: give it dtype=grad.dtype)")),
    kind='function',
    prompts=('return grad summed over the axes broadcasting stretched: an array of `shape`',),
    math=r"x_{ij} + b_j:\quad \frac{\partial L}{\partial b_j} = \sum_i G_{ij}"
         r"\qquad\text{and for } w_{i1}:\quad \frac{\partial L}{\partial w_{i1}} = \sum_j G_{ij}")

_UNREDUCED = ("the broadcast gradient is not reduced: .grad is added to without _add_grad, which sums a gradient of "
              "the output's shape back to the operand's")
_BYPASSED = ("the gradient is set, not added with _add_grad: it is neither summed back to a broadcast operand's shape "
             "nor added to what is there (a tensor used twice keeps only one share)")
# + and *'s bodies with each operand's gradient left to fill
_GATED = "if self.requires_grad:\n    self._add_grad({})\nif other.requires_grad:\n    other._add_grad({})"
_ADDED = ("self.grad = {0} if self.grad is None else self.grad + {0}\n"
          "other.grad = {1} if other.grad is None else other.grad + {1}")

ADD_MUL = Exercise(
    '+ *', "backward of x + y and x * y, with broadcasting",
    "Write the `_backward` of `__add__` and of `__mul__`: pass `grad` (the output's gradient) on to each operand "
    "that requires gradients, with `operand._add_grad(...)`, which sums it back to the operand's shape (your "
    "`unbroadcast`) and adds it to what is there.",
    "Call `_add_grad` only for operands with `requires_grad` (a number or a data tensor gets no `.grad`). "
    "`x` and `y` are the operands' data as the forward pass used them.",
    "x (4, 3) + b (3,); x (4, 3) * w (4, 1); x (2, 3) * s () [0-d]; x * 2.5; a * a; a + a; x (0, 3) + b (3,); float32",
    "`d(x+y)/dx = 1`, `d(x*y)/dx = y`: each operand gets `grad` times its local derivative, elementwise.",
    "In `__mul__`: `self._add_grad(grad * y)` and `other._add_grad(grad * x)`; the broadcasting is `_add_grad`'s "
    "job, not yours. `a * a` calls both: its gradient is `2 * a * grad`.",
    "d(x+y): grad, grad;   d(x*y): grad * y, grad * x",
    ('Tensor.__add__', 'Tensor.__mul__'),
    (case('x 4,3; b 3', "out = x + b"),
     case('x 4,3; w 4,1', "out = x * w"),
     case('x 2,3; s -', "out = x * s", note="s is 0-d"),
     case('x 4,3', "out = x * 2.5"),
     case('a 3,2', "out = a * a", note="one tensor, both operands"),
     case('a 2,3', "out = a + a", note="one tensor, both operands"),
     case('x 0,3; b 3', "out = x + b * x", note="empty"),
     case('x 3,4; w 4', "out = x * w + x", dtype='float32'),
     case('x 2,3', "c = Tensor(np.arange(6.0).reshape(2, 3))\nout = (x + c) * c", note="c is data: it gets no .grad")),
    (Slip('sum_rule_in_mul', 'Tensor.__mul__', "self._add_grad(grad)\nother._add_grad(grad)",
          "the derivative of + used for *: d(x*y)/dx is y, not 1"),
     Slip('mul_swapped', 'Tensor.__mul__', _GATED.format('grad * x', 'grad * y'),
          "x and y swapped in *: d(x*y)/dx is y, so self gets grad * y and other gets grad * x"),
     Slip('upstream', 'Tensor.__mul__', _GATED.format('y', 'x'),
          "the upstream gradient is dropped: each operand gets grad times its local derivative (grad * y, which "
          "has the output's shape), not the local derivative y alone"),
     Slip('product_rule_in_add', 'Tensor.__add__', _GATED.format('grad * y', 'grad * x'), SAID['product_rule_in_add']),
     Slip('not_reduced', 'Tensor.__add__', _ADDED.format('grad', 'grad'), _UNREDUCED),
     Slip('not_reduced', 'Tensor.__mul__', _ADDED.format('grad * y', 'grad * x'), _UNREDUCED),
     Slip('bypassed_add_grad', 'Tensor.__add__', "self.grad = grad\nother.grad = grad", _BYPASSED),
     Slip('bypassed_add_grad', 'Tensor.__mul__', "self.grad = grad * y\nother.grad = grad * x", _BYPASSED)),
    prompts=('x + y: pass grad on to each operand that requires gradients',
             'x * y: each operand that requires gradients gets grad times its local derivative'),
    math=(r"x + y:\ \ \bar x = G,\ \bar y = G; \qquad x \odot y:\ \ \bar x = G \odot y,\ \bar y = G \odot x "
          r"\qquad\text{(each summed back to its operand's shape)}"))

ELEMENTWISE = Exercise(
    'elementwise', "backward of exp, log, tanh and relu, elementwise",
    "Write the `_backward` of `exp`, `log`, `tanh` and `relu`: each element of the input gets the same "
    "element of `grad` times the local derivative there.",
    "The forward pass's own arrays are there for you: `e` (exp's output), `x` (log's input), `t` (tanh's "
    "output), `passes` (relu: where x > 0). relu'(0) = 0, as in PyTorch.",
    "x (4, 3); x () [0-d]; x (2, 3) float32; a graph that hands one gradient array to two nodes",
    "`d e**x/dx = e**x`, `d log x/dx = 1/x`, `d tanh x/dx = 1 - tanh(x)**2`, `d relu x/dx = 1 if x > 0 else 0`.",
    "Use the outputs: `grad * e`, `grad / x`, `grad * (1 - t * t)`, `grad * passes`. `grad[~passes] = 0` would "
    "change an array another node still reads.",
    "exp: grad * e;  log: grad / x;  tanh: grad * (1 - t**2);  relu: grad * (x > 0)",
    ('Tensor.exp', 'Tensor.log', 'Tensor.tanh', 'Tensor.relu'),
    (case('x 4,3', "out = x.exp()"),
     case('x 4,3', "out = x.log()", values='positive'),
     case('x 4,3', "out = x.tanh()"),
     case('x 4,3', "out = x.relu()", values='away'),
     case('x -', "out = x.tanh() * x.exp()", note="0-d"),
     case('x 2,3', "out = x.relu() + x.log().tanh()", values='positive', dtype='float32'),
     case('x 3,4', "out = x.relu() + x.exp()", values='away', note="+ hands one array to both"),
     case('x 3,4', "out = x.exp() + x.relu()", values='away', note="+ hands one array to both"),
     case('x 5', "out = x.relu()", kink=True, fixed={'x': [-1.0, 0.0, 0.0, 2.0, 3.0]}, note="relu'(0) = 0")),
    (Slip('exp_at_input', 'Tensor.exp', "self._add_grad(grad * self.data)",
          "derivative taken at the input: d e**x/dx is the output e**x (e), and you used x"),
     Slip('exp_power_rule', 'Tensor.exp', "self._add_grad(grad * self.data * np.exp(self.data - 1))",
          SAID['exp_power_rule']),
     Slip('exp_at_output', 'Tensor.exp', "self._add_grad(grad * np.exp(e))",
          "exp applied twice: e is already e**x, its own derivative"),
     Slip('log_at_output', 'Tensor.log', "self._add_grad(grad / np.log(x))",
          "derivative taken at the output: d log(x)/dx = 1/x with the input x, not 1/log(x)"),
     Slip('log_function', 'Tensor.log', "self._add_grad(grad * np.log(x))", SAID['log_function']),
     Slip('log_times', 'Tensor.log', "self._add_grad(grad * x)",
          "multiplied by x instead of divided: d log(x)/dx = 1/x"),
     Slip('log_squared', 'Tensor.log', "self._add_grad(grad / x**2)", SAID['log_squared']),
     Slip('tanh_at_input', 'Tensor.tanh', "self._add_grad(grad * (1 - self.data**2))",
          "derivative taken at the input: d tanh(x)/dx = 1 - t**2 with the output t = tanh(x), not 1 - x**2"),
     Slip('tanh_no_square', 'Tensor.tanh', "self._add_grad(grad * (1 - t))",
          "the square is missing: d tanh(x)/dx = 1 - t**2, not 1 - t"),
     Slip('tanh_plus', 'Tensor.tanh', "self._add_grad(grad * (1 + t**2))",
          "sign inside the derivative: d tanh(x)/dx = 1 - t**2, not 1 + t**2"),
     Slip('relu_at_zero', 'Tensor.relu', "self._add_grad(grad * (self.data >= 0))", SAID['relu_at_zero']),
     Slip('relu_ungated', 'Tensor.relu', "self._add_grad(grad)", SAID['relu_ungated']),
     Slip('relu_inverted', 'Tensor.relu', "self._add_grad(grad * (self.data <= 0))", SAID['relu_inverted']),
     Slip('relu_value', 'Tensor.relu', "self._add_grad(grad * np.maximum(self.data, 0))",
          "the value instead of the slope: relu's local derivative is 1 or 0, not relu(x)"),
     Slip('relu_leaky', 'Tensor.relu', "self._add_grad(grad * np.where(self.data > 0, 1.0, 0.01))",
          SAID['relu_leaky'])),
    prompts=('exp: self gets grad times d e**x/dx (e is the output)',
             'log: self gets grad times d log(x)/dx (x is the input)',
             'tanh: self gets grad times d tanh(x)/dx (t is the output)',
             'relu: grad passes where x > 0 (passes), 0 elsewhere; do not write into grad'),
    math=(r"\frac{d\,e^x}{dx} = e^x,\quad \frac{d \log x}{dx} = \frac{1}{x},\quad \frac{d \tanh x}{dx} = 1 - "
          r"\tanh^2 x,\quad \frac{d\,\mathrm{relu}(x)}{dx} = [x > 0]"))

_MEAN = ("if not keepdims and ax:\n    grad = np.expand_dims(grad, ax)\n"
         "self._add_grad(np.broadcast_to(grad / n, self.data.shape))")

REDUCE = Exercise(
    'sum mean', "backward of sum and mean over axes, with and without keepdims",
    "Write the `_backward` of `sum` and of `mean`: every element that was summed gets the gradient of the sum "
    "it went into (divided by the count, for mean).",
    "`ax` is the tuple of reduced axes (None: all of them), `keepdims` whether the output kept them (with "
    "length 1), `n` (mean) the number of elements averaged into each output. The gradient has the input's shape.",
    "x (4, 3) sum over axis 1 [non-square]; (3, 3) over axis 1 [square: the wrong axis shows in the numbers]; "
    "(2, 3, 4) over axes (0, 2); keepdims=True; all axes; x () [0-d]; x (0, 3) [empty]; float32",
    "`d(sum x)/dx_i = 1`: each element gets the whole gradient of its sum. Without keepdims, the summed axis is "
    "missing from `grad`: put it back (length 1) before broadcasting to the input's shape.",
    "`grad = np.expand_dims(grad, ax)` when `not keepdims and ax`, then `np.broadcast_to(grad, self.data.shape)`; "
    "for mean, divide by `n` (the count along the reduced axes, not the whole size).",
    "sum: broadcast_to(expand_dims(grad, ax), x.shape);   mean: the same / n",
    ('Tensor.sum', 'Tensor.mean'),
    (case('x 4,3', "out = x.sum(axis=1)"),
     case('x 3,3', "out = x.sum(axis=1)", note="square"),
     case('x 2,3,4', "out = x.sum(axis=(0, 2))"),
     case('x 4,3', "out = x.sum(axis=0, keepdims=True)"),
     case('x 4,3', "out = x.sum()"),
     case('x 4,3', "out = x.mean(axis=1)"),
     case('x 3,3', "out = x.mean(axis=1)", note="square"),
     case('x 2,3,4', "out = x.mean(axis=-1, keepdims=True)"),
     case('x 4,3', "out = x.mean()"),
     case('x -', "out = x.sum() + x.mean()", note="0-d"),
     case('x 0,3', "out = x.sum(axis=0) + x.mean(axis=1).sum()", note="empty"),
     case('x 4,5', "out = x.mean(axis=0)", dtype='float32')),
    (Slip('keepdims_lost', 'Tensor.sum', "self._add_grad(np.broadcast_to(grad, self.data.shape))", KEEPDIMS),
     Slip('keepdims_lost', 'Tensor.mean', "self._add_grad(np.broadcast_to(grad / n, self.data.shape))", KEEPDIMS),
     Slip('keepdims_ignored', 'Tensor.sum', _MEAN.replace("not keepdims and ", "").replace(" / n", ""),
          "keepdims=True is ignored: with keepdims the reduced axes are in grad already (length 1); add them "
          "back only when keepdims is False"),
     Slip('mean_not_divided', 'Tensor.mean', _MEAN.replace(" / n", ""),
          "mean not divided by the count: d(mean x)/dx_i = 1/n, with n the number of elements averaged"),
     Slip('mean_whole_size', 'Tensor.mean', _MEAN.replace("/ n", "/ self.data.size"),
          "mean divided by the whole size: n is the number of elements averaged into each output (the length of "
          "the reduced axes), not x.size"),
     Slip('mean_times_n', 'Tensor.mean', _MEAN.replace("/ n", "* n"),
          "multiplied by the count instead of divided: d(mean x)/dx_i = 1/n")),
    prompts=('sum: every summed element gets the gradient of its sum (ax, keepdims)',
             'mean: as sum, divided by n, the number of elements averaged'),
    math=(r"y_i = \sum_j x_{ij}:\ \ \bar x_{ij} = G_i; \qquad y_i = \frac{1}{n}\sum_j x_{ij}:\ \ \bar x_{ij} = "
          r"\frac{G_i}{n}"))

_EXTREME = ("grad = np.reshape(grad, top.shape)\nis_top = x == top\n"
            "self._add_grad(grad * is_top / is_top.sum(axis=ax, keepdims=True))")

MAX = Exercise(
    'max', "backward of max, where ties share the gradient",
    "Write the `_backward` of `max` (`_extreme`, which min shares): the gradient of each maximum goes to the "
    "element(s) that were the maximum; the others get 0.",
    "Tied maxima share the gradient evenly, as PyTorch's `x.max()` and `torch.amax` do: with 2 ties, each gets "
    "half. `top` is the maximum (for min, the minimum) with the reduced axes kept "
    "(length 1), `ax` the reduced axes, `x` the input.",
    "x (4, 3) without ties, max over all and over axis 1; x (4, 5) of small integers [ties]; keepdims=True; "
    "min, with and without ties",
    "`is_top = x == top` marks the maxima; `grad` (reshaped to `top.shape`) goes to them.",
    "Count the ties along the reduced axes, `is_top.sum(axis=ax, keepdims=True)`, and give each maximum "
    "`grad / ties`. Without reshaping `grad` to `top.shape`, a max over axis 1 lines up with the wrong axis.",
    "dx = (x == top) * reshape(grad, top.shape) / (number of ties)",
    ('Tensor._extreme',),
    (case('x 4,3', "out = x.max()", note="no ties"),
     case('x 4,3', "out = x.max(axis=1)"),
     case('x 3,3', "out = x.max(axis=1)", note="square"),
     case('x 4,5', "out = x.max()", values='ties', kink=True, torch="out = x.amax()", note="ties"),
     case('x 4,5', "out = x.max(axis=1)", values='ties', kink=True, torch="out = x.amax(dim=1)", note="ties in a row"),
     case('x 2,3,4', "out = x.max(axis=(0, 2), keepdims=True)", values='ties', kink=True,
          torch="out = x.amax(dim=(0, 2), keepdim=True)"),
     case('x 4,3', "out = x.max(axis=0)", dtype='float32'),
     case('x 4,3', "out = x.min(axis=1)", note="min shares max's backward"),
     case('x 4,5', "out = x.min()", values='ties', kink=True, torch="out = x.amin()", note="ties at the min")),
    (Slip('extreme_max_only', 'Tensor._extreme', _EXTREME.replace("x == top", "x == x.max(axis=ax, keepdims=True)"),
          "the maxima found again where min asked for the minima: min shares this backward, and top is the "
          "extreme the forward pass found (the max or the min): compare x with top"),
     Slip('ties_full', 'Tensor._extreme',
          "grad = np.reshape(grad, top.shape)\nself._add_grad(grad * (x == top))",
          "ties each given the full gradient: with k tied maxima each gets grad / k, as PyTorch's max() does "
          "(the total stays grad)"),
     Slip('ties_one', 'Tensor._extreme',
          "grad = np.reshape(grad, top.shape)\nis_top = x == top\n"
          "first = np.cumsum(is_top.reshape(-1)).reshape(x.shape) if ax is None else np.cumsum(is_top, axis=ax[0])\n"
          "self._add_grad(grad * (is_top & (first == 1)))",
          "the whole gradient goes to one of the tied maxima (as argmax picks one): the task says ties share it "
          "evenly, as PyTorch's max() and amax do"),
     Slip('ties_counted_everywhere', 'Tensor._extreme', _EXTREME.replace("sum(axis=ax, keepdims=True)", "sum()"),
          "the ties are counted over the whole tensor: each maximum shares its gradient with the ties of its own "
          "row, counted along the reduced axes (is_top.sum(axis=ax, keepdims=True))"),
     Slip('keepdims_lost', 'Tensor._extreme', _EXTREME.replace("grad = np.reshape(grad, top.shape)\n", ""), KEEPDIMS),
     Slip('max_ungated', 'Tensor._extreme',
          "self._add_grad(np.broadcast_to(np.reshape(grad, top.shape), x.shape))",
          "every element gets the gradient, as in sum: only the maxima do"),
     Slip('max_value', 'Tensor._extreme', _EXTREME.replace("grad * is_top", "grad * top * is_top"),
          "multiplied by the maximum's value: d max/dx_i is 1 (shared among ties) at the maximum, not its value")),
    prompts=('max (and min): the extremes share their gradient evenly (top, ax, x)',),
    math=r"m = \max_k x_k:\quad \bar x_i = \frac{[x_i = m]}{\#\{k : x_k = m\}}\; G")

SHAPES = Exercise(
    'reshape', "backward of reshape and permute (transpose)",
    "Write the `_backward` of `reshape` and of `permute` (which `transpose` and `.T` call): the same numbers go "
    "back where they came from.",
    "`permute`'s output axis i is input axis `order[i]`; `undo` is the order that sends them back. The gradient "
    "has the input's shape and each number sits where its element was.",
    "(2, 3) -> (3, 2); (2, 3, 4) -> (6, 4); transpose of (3, 4) and of a square (3, 3); permute(2, 0, 1) of (2, 3, 4)",
    "Moving numbers around has local derivative 1: only where each number goes matters.",
    "reshape back with `grad.reshape(self.data.shape)` (reshape is not a transpose: (2, 3) -> (3, 2) keeps the "
    "reading order). For permute, transpose `grad` by the inverse order, `undo` (np.argsort(order)), not by order.",
    "reshape: grad.reshape(x.shape);   permute: grad.transpose(argsort(order))",
    ('Tensor.reshape', 'Tensor.permute'),
    (case('x 2,3', "out = x.reshape(3, 2) * x.reshape(3, 2)[:, ::-1]"),
     case('x 2,3,4', "out = x.reshape(6, 4) * x.reshape(-1, 4)[::-1]"),
     case('x 3,4', "out = x.transpose()", torch="out = x.permute(1, 0)"),
     case('x 3,3', "out = x.T", note="square"),
     case('x 2,3,4', "out = x.permute(2, 0, 1)", note="not its own inverse"),
     case('x 2,3,4', "out = x.transpose(1, 2, 0)", torch="out = x.permute(1, 2, 0)")),
    (Slip('reshape_transposed', 'Tensor.reshape', "self._add_grad(grad.T)",
          "reshape is not a transpose: (2, 3) -> (3, 2) keeps the reading order of the numbers; reshape grad "
          "back to the input's shape"),
     Slip('not_reshaped', 'Tensor.reshape', "self._add_grad(grad)",
          "the gradient is not reshaped back: it has the output's shape, and a gradient has its tensor's shape, "
          "grad.reshape(self.data.shape) (the library's _add_grad would reshape it for you and hide this)"),
     Slip('reshape_fortran', 'Tensor.reshape', "self._add_grad(grad.reshape(self.data.shape, order='F'))",
          "reshaped back in Fortran order (order='F', column by column): the forward reshape read the numbers "
          "row by row (NumPy's C order), so the way back must too: grad.reshape(self.data.shape)"),
     Slip('permute_not_inverted', 'Tensor.permute', "self._add_grad(grad.transpose(order))",
          "permuted again by the same order instead of its inverse: output axis i is input axis order[i], so "
          "grad goes back with np.argsort(order) (the same only when the order is its own inverse, as a swap)"),
     Slip('permute_all_reversed', 'Tensor.permute', "self._add_grad(grad.T)",
          ".T reverses every axis: it undoes a permute only for 2-D or a full reversal; use the inverse order"),
     Slip('not_moved_back', 'Tensor.permute', "self._add_grad(grad.reshape(self.data.shape))",
          "reshaped instead of transposed back: reshape keeps the order of the numbers in memory, a permute "
          "moves them; transpose grad by the inverse order")),
    prompts=("reshape: the same numbers back in self's shape",
             'permute: every number back to its axis (order, undo)'),
    math=(r"\bar x = \mathrm{reshape}(G, \mathrm{shape}(x)); \qquad y = \mathrm{permute}_\sigma(x):\ \ \bar x = "
          r"\mathrm{permute}_{\sigma^{-1}}(G)"))

INDEX = Exercise(
    'getitem', "backward of indexing, with repeated indices",
    "Write the `_backward` of `__getitem__`: the elements picked get the gradient of their copies; the others 0. "
    "An element picked twice gets both.",
    "`picked` is the index as NumPy takes it; `looks_up_rows` says it is an integer array picking rows (an "
    "embedding lookup); you may ignore it. Build a zero array of the input's shape and add `grad` into it.",
    "x (5, 3)[[0, 2, 0, 0]] [repeated rows]; x (6,)[[1, 1, 4]]; x (4, 3)[1:3]; x (4, 3)[:, [2, 0, 2]]; "
    "x (5, 2)[ids] with ids (2, 3)",
    "`full = np.zeros_like(self.data)`, then add `grad` at the picked places.",
    "`full[picked] += grad` adds only once per repeated index (NumPy buffers it): use "
    "`np.add.at(full, picked, grad)`, which adds once per occurrence.",
    "full = zeros_like(x);  np.add.at(full, index, grad)",
    ('Tensor.__getitem__',),
    (case('x 5,3', "out = x[idx]", given={'idx': np.array([0, 2, 0, 0])}),
     case('x 6', "out = x[idx]", given={'idx': np.array([1, 1, 4])}),
     case('x 4,3', "out = x[1:3]"),
     case('x 4,3', "out = x[:, idx]", given={'idx': np.array([2, 0, 2])}),
     case('x 5,2', "out = x[ids]", given={'ids': np.array([[0, 3, 3], [1, 0, 3]])}, note="an embedding lookup"),
     case('x 6', "out = x[idx]", given={'idx': np.array([5, 5, 5, 0])}, dtype='float32')),
    (Slip('index_overwritten', 'Tensor.__getitem__',
          "full = np.zeros_like(self.data)\nfull[picked] += grad\nself._add_grad(full)",
          "repeated indices overwritten instead of accumulated: full[idx] += grad adds once per distinct index "
          "(NumPy reads all, then writes all); np.add.at(full, idx, grad) adds once per occurrence"),
     Slip('index_dense', 'Tensor.__getitem__', "self._add_grad(grad)",
          "the gradient is passed on as it is: it has the shape of the picked part, and must be put back into "
          "an array of the input's shape at the picked places (zeros elsewhere)")),
    prompts=("x[index]: the picked elements get their copies' gradients, added (picked)",),
    math=r"y_i = x_{\mathrm{idx}_i}:\quad \bar x_k = \sum_{i\,:\,\mathrm{idx}_i = k} G_i")

# _matmul_rows's backward with its two products left to fill
_UNTRANSPOSED = "matmul's gradients untransposed: A gets grad @ B^T and B gets A^T @ grad"
_SWAPPED = "matmul's gradients swapped: A's formula is grad @ B^T, B's is A^T @ grad"
_ROWS = "g = grad.reshape(n_rows, b.shape[1])\nself._add_grad(({}).reshape(a.shape))\nother._add_grad({})"

MATMUL = Exercise(
    'matmul', "backward of matmul, 2-D and batched",
    "Write the `_backward` of `__matmul__` (and of `_matmul_rows`, the fast path for a batch of rows times one "
    "matrix): for `out = A @ B`, `A` gets `grad @ B^T` and `B` gets `A^T @ grad`.",
    "`a` and `b` are the operands' data (`rows` and `n_rows`: `a` folded to (rows, K) in `_matmul_rows`). "
    "Batched operands (..., n, k) @ (..., k, m) transpose their last two axes only; batch axes that one operand "
    "lacks are summed by `_add_grad`. 1-D operands are not checked.",
    "(4, 3) @ (3, 5) [non-square: a missing transpose is a shape error]; (3, 3) @ (3, 3) [square: it is wrong "
    "numbers]; (2, 4, 3) @ (2, 3, 5); (2, 4, 3) @ (3, 5); (4, 3) @ (2, 3, 5); float32",
    "Check the shapes: A is (n, k), B (k, m), grad (n, m). Only `grad @ B^T` is (n, k); only `A^T @ grad` is (k, m).",
    "On a batch, `.T` reverses every axis: transpose the last two with `b.swapaxes(-1, -2)`. In `_matmul_rows`, "
    "`g = grad.reshape(n_rows, -1)`; A gets `(g @ b.T).reshape(a.shape)` and B gets `rows.T @ g`.",
    "dA = grad @ B^T;   dB = A^T @ grad",
    ('Tensor.__matmul__', 'Tensor._matmul_rows'),
    (case('A 4,3; B 3,5', "out = A @ B"),
     case('A 3,3; B 3,3', "out = A @ B", note="square"),
     case('A 2,4,3; B 2,3,5', "out = A @ B", note="batched"),
     case('A 2,4,3; B 3,5', "out = A @ B", note="a batch of rows times one matrix"),
     case('A 4,3; B 2,3,5', "out = A @ B", note="A is shared by the batch"),
     case('A 5,2; B 2,4', "out = A @ B", dtype='float32')),
    (Slip('matmul_untransposed', 'Tensor.__matmul__', "self._add_grad(grad @ b)\nother._add_grad(a @ grad)",
          _UNTRANSPOSED),
     Slip('matmul_wrong_operand', 'Tensor.__matmul__',
          "self._add_grad(grad @ a.swapaxes(-1, -2))\nother._add_grad(b.swapaxes(-1, -2) @ grad)",
          "the wrong matrix transposed: out = A @ B, so A's gradient is grad @ B^T, with the other operand B, "
          "not A^T; and B's is A^T @ grad, not B^T"),
     Slip('matmul_batch_axes', 'Tensor.__matmul__',
          "self._add_grad(grad @ b.swapaxes(0, 1))\nother._add_grad(a.swapaxes(0, 1) @ grad)",
          "the wrong axes transposed: swapaxes(0, 1) transposes a matrix, but on a batch (..., n, k) axis 0 is "
          "the batch; transpose the last two, swapaxes(-1, -2)"),
     Slip('matmul_order', 'Tensor.__matmul__',
          "self._add_grad(b.swapaxes(-1, -2) @ grad)\nother._add_grad(grad @ a.swapaxes(-1, -2))",
          "matmul's factors in the wrong order: A gets grad @ B^T (grad on the left) and B gets A^T @ grad "
          "(grad on the right)"),
     Slip('matmul_swapped', 'Tensor.__matmul__',
          "self._add_grad(a.swapaxes(-1, -2) @ grad)\nother._add_grad(grad @ b.swapaxes(-1, -2))", _SWAPPED),
     Slip('batch_transpose', 'Tensor.__matmul__', "self._add_grad(grad @ b.T)\nother._add_grad(a.T @ grad)",
          BATCH_T),
     Slip('not_reshaped', 'Tensor._matmul_rows',
          "g = grad.reshape(n_rows, b.shape[1])\nself._add_grad(g @ b.T)\nother._add_grad(rows.T @ g)",
          "A's gradient is not reshaped back: g @ B^T is (rows, K), A's rows folded into one axis, and a gradient "
          "has its tensor's shape: (g @ b.T).reshape(a.shape) (the library's _add_grad would reshape it for you "
          "and hide this)"),
     Slip('matmul_untransposed', 'Tensor._matmul_rows', _ROWS.format("g @ b", "rows @ g"), _UNTRANSPOSED),
     Slip('matmul_swapped', 'Tensor._matmul_rows', _ROWS.format("rows.T @ g", "g @ b.T"), _SWAPPED)),
    prompts=('A @ B: A gets grad @ B^T, B gets A^T @ grad (a, b; batched: the last two axes)',
             '(..., K) @ (K, N) as one (rows, K) @ (K, N) product (rows, n_rows, b)'),
    math=r"C = AB:\quad \bar A = G B^\top,\quad \bar B = A^\top G")
